/**
 * edit_file phase 1, "Option 3 — If `old_text` is omitted but the agent intends to replace the whole
 * file, use `overwrite` explicitly": an explicit `mode: overwrite` of a 30-line Makefile with 2 lines
 * is applied (checkpointed, undoable) through every entry point that reaches the rule — the library,
 * `editwarden edit`, `editwarden exec` (the tool runner the agent uses), the agent loop, MCP
 * edit_file. The large-deletion heuristic stays for `edit` mode, and for a whole-file write nobody
 * named an overwrite: a client's native Write that wipes the file is still refused by the hook.
 */
import fs from 'node:fs';
import path from 'node:path';
import { spawnSync } from 'node:child_process';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { applyRequests } from '../../src/apply/pipeline.js';
import { editRequestFromArgs } from '../../src/edit/request-json.js';
import { openWorkspace } from '../../src/workspace/open.js';
import { bin, cleanup, script, tempProject } from '../agent/helpers/bin.js';
import { call, connect } from '../mcp/helpers/server.js';
import { execCli } from './helpers/cli.js';

afterEach(cleanup);
afterAll(cleanup);

const MAKEFILE = `${Array.from({ length: 30 }, (_, i) => (i % 3 === 0 ? `target${i}:` : `\t@echo step ${i}`)).join('\n')}\n`;
const TWO_LINES = 'all:\n\t@echo built\n';
/** The design's request shape, with mode overwrite said explicitly. */
const OVERWRITE = { path: 'Makefile', mode: 'overwrite', content: TWO_LINES };

function makefile(root: string): string {
  return fs.readFileSync(path.join(root, 'Makefile'), 'utf8');
}

/** The overwrite was checkpointed: `editwarden undo` puts the 30 lines back. */
function undone(root: string): void {
  const r = bin(['undo', '--root', root]);
  expect(r.code, r.stdout + r.stderr).toBe(0);
  expect(makefile(root)).toBe(MAKEFILE);
}

describe('an explicit mode: overwrite is applied, checkpointed and undoable', () => {
  it('library: applyRequests of the edit_file JSON', async () => {
    const root = tempProject({ Makefile: MAKEFILE });
    const { ws } = openWorkspace(root);
    const out = await applyRequests(ws, [editRequestFromArgs(OVERWRITE, { format: 'tool', index: 0 })]);
    expect(out.ok).toBe(true);
    expect(makefile(root)).toBe(TWO_LINES);
    undone(root);
  });

  it('CLI: editwarden edit --mode overwrite', () => {
    const root = tempProject({ Makefile: MAKEFILE });
    const r = bin(['edit', 'Makefile', '--mode', 'overwrite', '--new', TWO_LINES, '--root', root, '--json']);
    expect(r.code, r.stdout).toBe(0);
    expect(makefile(root)).toBe(TWO_LINES);
    undone(root);
  });

  it('tool runner: editwarden exec of an edit_file call', () => {
    const root = tempProject({ Makefile: MAKEFILE });
    const r = execCli(root, `${JSON.stringify({ tool: 'edit_file', args: OVERWRITE })}\n`, ['--json']);
    expect(r.code, r.stdout + r.stderr).toBe(0);
    expect(makefile(root)).toBe(TWO_LINES);
    undone(root);
  });

  it('agent: a headless run whose model calls edit_file with mode overwrite', () => {
    const root = tempProject({ Makefile: MAKEFILE });
    const turns = [{ tool_calls: [{ name: 'edit_file', arguments: OVERWRITE }] }, { tool_calls: [{ name: 'task_completion', arguments: { summary: 'rewrote the Makefile' } }] }];
    const r = bin(['run', '--task', 'Replace the Makefile.', '--model', script(root, turns), '--root', root, '--json']);
    expect(r.code, r.stdout + r.stderr).toBe(0);
    expect(makefile(root)).toBe(TWO_LINES);
    undone(root);
  });

  it('MCP: edit_file with mode overwrite', async () => {
    const root = tempProject({ Makefile: MAKEFILE });
    const server = await connect(['--root', root]);
    try {
      const r = await call(server.client, 'edit_file', OVERWRITE);
      expect(r.isError, r.text).toBe(false);
    } finally {
      await server.close();
    }
    expect(makefile(root)).toBe(TWO_LINES);
    undone(root);
  });
});

describe('the large-deletion heuristic stays where nobody said overwrite', () => {
  it('edit mode wiping the Makefile through an anchor is refused (E_DRAMATIC_REDUCTION) on every route', async () => {
    const root = tempProject({ Makefile: MAKEFILE });
    const wipe = { path: 'Makefile', old_text: MAKEFILE, new_text: TWO_LINES };
    const { ws } = openWorkspace(root);
    const lib = await applyRequests(ws, [editRequestFromArgs(wipe, { format: 'tool', index: 0 })]);
    expect(lib.results[0]?.error?.code).toBe('E_DRAMATIC_REDUCTION');
    // The hint points at the design's Option 3.
    expect(lib.results[0]?.error?.hint).toContain("send edit_file with mode 'overwrite' (explicit)");
    const viaExec = execCli(root, `${JSON.stringify({ tool: 'edit_file', args: wipe })}\n`, ['--json']);
    expect(viaExec.stdout).toContain('E_DRAMATIC_REDUCTION');
    expect(makefile(root)).toBe(MAKEFILE);
  });

  it("a client's native Write that wipes the file is not an explicit overwrite: the hook still refuses it", () => {
    const root = tempProject({ Makefile: MAKEFILE });
    spawnSync('git', ['init', '-q'], { cwd: root });
    const input = JSON.stringify({ tool_name: 'Write', tool_input: { file_path: path.join(root, 'Makefile'), content: TWO_LINES } });
    const r = spawnSync(process.execPath, [path.resolve(__dirname, '../../bin/editwarden'), 'hook', 'claude', 'pre-tool-use', '--root', root], { input, encoding: 'utf8' });
    const decision = JSON.parse(r.stdout) as { hookSpecificOutput: { permissionDecision: string; permissionDecisionReason: string } };
    expect(decision.hookSpecificOutput.permissionDecision).toBe('deny');
    expect(decision.hookSpecificOutput.permissionDecisionReason).toContain('E_DRAMATIC_REDUCTION');
    const gemini = spawnSync(process.execPath, [path.resolve(__dirname, '../../bin/editwarden'), 'hook', 'gemini', 'before-tool', '--root', root], {
      input: JSON.stringify({ hook_event_name: 'BeforeTool', tool_name: 'write_file', tool_input: { file_path: path.join(root, 'Makefile'), content: TWO_LINES } }),
      encoding: 'utf8',
    });
    expect(gemini.status).toBe(2);
    expect(gemini.stderr).toContain('E_DRAMATIC_REDUCTION');
    expect(makefile(root)).toBe(MAKEFILE);
  });
});
