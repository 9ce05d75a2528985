/**
 * One refusal, one house (src/errors.ts): every code has one exit code in one
 * table (and docs/errors.md shows that table), every refusal reads the same
 * (formatRefusal) and carries the same JSON (refusalEnvelope), and the CLI,
 * the MCP server and a client hook refuse the same request with the same
 * error.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { AgentError, AgentErrorCode } from '../src/agent/providers/errors.js';
import { EditwardenError, ErrorCode, ExitCode, exitCodeFor, formatRefusal, refusalEnvelope, toErrorInfo, type ErrorInfo } from '../src/errors.js';
import { InexpressibleChange } from '../src/formats/render.js';
import { NativeInputError } from '../src/integrations/native-edit.js';
import { CallStop } from '../src/tools/types.js';
import { cleanup, editwarden, project } from './integrations/helpers.js';
import { connect } from './mcp/helpers/server.js';

afterAll(cleanup);

const REPO = path.resolve(__dirname, '..');
const EXIT_VALUES = new Set<number>(Object.values(ExitCode));

describe('exitCodeFor: one table, every code', () => {
  it('maps every ErrorCode to one of the documented exit codes', () => {
    for (const code of Object.values(ErrorCode)) {
      const exit = exitCodeFor(code);
      expect(EXIT_VALUES.has(exit), `${code} → ${String(exit)}`).toBe(true);
    }
  });

  it('usage and config are 64, a constraint 2, a failed verification 3, a cancellation 130, the rest of the request refusals 1', () => {
    expect(exitCodeFor(ErrorCode.USAGE)).toBe(64);
    expect(exitCodeFor(ErrorCode.CONFIG)).toBe(64);
    expect(exitCodeFor(ErrorCode.MISSING_KEY)).toBe(64);
    expect(exitCodeFor(ErrorCode.CONSTRAINT)).toBe(2);
    expect(exitCodeFor(ErrorCode.VERIFY_FAILED)).toBe(3);
    expect(exitCodeFor(ErrorCode.CANCELLED)).toBe(130);
    expect(exitCodeFor(ErrorCode.NOT_FOUND)).toBe(1);
  });

  it('docs/errors.md lists every code with the exit code the table gives it, and no other', () => {
    const doc = fs.readFileSync(path.join(REPO, 'docs/errors.md'), 'utf8');
    const rows = new Map<string, number>();
    for (const m of doc.matchAll(/^\| `(E_[A-Z_]+)` \| (\d+) \|/gm)) rows.set(m[1] as string, Number(m[2]));
    const expected = new Map<string, number>(Object.values(ErrorCode).map((code) => [code, exitCodeFor(code)]));
    expect(Object.fromEntries(rows)).toEqual(Object.fromEntries(expected));
  });
});

describe('one error type', () => {
  it('agent, hook-input, rendering and stop errors are EditwardenErrors with a known code', () => {
    const errors: EditwardenError[] = [
      new AgentError({ code: AgentErrorCode.MISSING_KEY, message: 'no key', hint: 'set it' }),
      new NativeInputError('no file_path'),
      new InexpressibleChange('search-replace', 'a.txt', 'cannot delete'),
      new CallStop('deadline'),
      new CallStop('call-cancelled'),
    ];
    for (const error of errors) {
      expect(error).toBeInstanceOf(EditwardenError);
      expect(Object.values(ErrorCode)).toContain(error.code);
      expect(toErrorInfo(error)).toEqual(error.toJSON());
    }
    expect(new CallStop('deadline').code).toBe(ErrorCode.TIMEOUT);
    expect(new InexpressibleChange('json', 'a.txt', 'x').path).toBe('a.txt');
  });
});

describe('formatRefusal and refusalEnvelope', () => {
  const info: ErrorInfo = { code: ErrorCode.NOT_FOUND, message: 'old_text was not found.', hint: 'Call read_file first.', path: 'src/a.ts', line: 3 };

  it('puts the code first, then where and what, then the hint on its own line', () => {
    expect(formatRefusal(info)).toBe('E_NOT_FOUND: src/a.ts:3: old_text was not found.\nhint: Call read_file first.');
    expect(formatRefusal({ code: ErrorCode.USAGE, message: 'm', hint: 'h' })).toBe('E_USAGE: m\nhint: h');
  });

  it('the envelope is {ok: false, error} with only the public fields; extra fields never replace them', () => {
    const thrown = new EditwardenError(info);
    expect(refusalEnvelope(thrown)).toEqual({ ok: false, error: info });
    expect(refusalEnvelope({ ...info, stack: 'x' } as ErrorInfo, { results: [], ok: true, error: 'no' })).toEqual({ ok: false, error: info, results: [] });
  });
});

describe('the same refused request, on every surface, is the same error', () => {
  it('CLI --json, MCP edit_file and the Claude Code hook refuse a missing old_text with one error; the texts are formatRefusal', async () => {
    const root = project({ 'a.txt': 'one\ntwo\n' });

    const cli = editwarden(['edit', 'a.txt', '--old', 'three', '--new', 'THREE', '--root', root, '--json']);
    expect(cli.code).toBe(exitCodeFor(ErrorCode.NOT_FOUND));
    const cliError = (JSON.parse(cli.stdout) as { ok: boolean; results: Array<{ error: ErrorInfo }> }).results[0]?.error as ErrorInfo;
    expect(cliError.code).toBe(ErrorCode.NOT_FOUND);

    const mcp = await connect(['--root', root]);
    let mcpResult: { isError?: boolean; content: Array<{ text: string }>; structuredContent?: Record<string, unknown> };
    try {
      mcpResult = (await mcp.client.callTool({ name: 'edit_file', arguments: { path: 'a.txt', old_text: 'three', new_text: 'THREE' } })) as typeof mcpResult;
    } finally {
      await mcp.close();
    }
    expect(mcpResult.isError).toBe(true);
    const structured = mcpResult.structuredContent as { ok: boolean; error: ErrorInfo };
    expect(structured).toMatchObject(refusalEnvelope(cliError));
    expect(structured.error).toEqual(cliError);

    const hook = editwarden(['hook', 'claude', 'pre-tool-use', '--root', root], {
      input: JSON.stringify({ tool_name: 'Edit', tool_input: { file_path: path.join(root, 'a.txt'), old_string: 'three', new_string: 'THREE' } }),
    });
    const reason = (JSON.parse(hook.stdout) as { hookSpecificOutput: { permissionDecisionReason: string } }).hookSpecificOutput.permissionDecisionReason;
    expect(reason).toBe(`editwarden refused this edit: ${formatRefusal(cliError)}\nNothing was written.`);

    const text = editwarden(['edit', 'a.txt', '--old', 'three', '--new', 'THREE', '--root', root], { env: { ...process.env, NO_COLOR: '1' } });
    expect(text.stdout).toContain(formatRefusal(cliError));
    expect(fs.readFileSync(path.join(root, 'a.txt'), 'utf8')).toBe('one\ntwo\n');
  });

  it('a refusal before anything ran is the one envelope on the CLI (with the empty results the edit contract promises)', () => {
    const root = project({});
    const r = editwarden(['edit', 'a.txt', '--mode', 'bogus', '--root', root, '--json']);
    expect(r.code).toBe(exitCodeFor(ErrorCode.USAGE));
    const out = JSON.parse(r.stdout) as Record<string, unknown>;
    expect(out).toEqual({ ...refusalEnvelope(out.error), results: [] });
    expect((out.error as ErrorInfo).code).toBe(ErrorCode.USAGE);
  });
});
