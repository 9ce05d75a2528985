import fs from 'node:fs';
import { runProfile } from '../../src/runs/profile.js';
import { Run } from '../../src/runs/run.js';
import os from 'node:os';
import path from 'node:path';
import { createHash } from 'node:crypto';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { defaultConfig, type Config } from '../../src/config/config.js';
import { openWorkspace } from '../../src/workspace/open.js';
import { ToolRunner, type ApprovalRequest, type ToolRunnerOptions } from '../../src/tools/runner.js';
import { anthropicTools, BUILTIN_TOOLS, openAiTools, toolInputSchema } from '../../src/tools/registry.js';
import type { Interaction } from '../../src/tools/types.js';

let root: string;
beforeEach(() => {
  root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'ew-tools-')));
});
afterEach(() => fs.rmSync(root, { recursive: true, force: true }));

function put(rel: string, text: string): void {
  fs.mkdirSync(path.dirname(path.join(root, rel)), { recursive: true });
  fs.writeFileSync(path.join(root, rel), text);
}
const read = (rel: string) => fs.readFileSync(path.join(root, rel), 'utf8');

function runner(over: Partial<ToolRunnerOptions> = {}, config: Config = defaultConfig()): ToolRunner {
  const { ws, transactions } = openWorkspace(root);
  return ToolRunner.start({ ws, config, transactions, ...over });
}

describe('read_file', () => {
  it('returns numbered lines and the sha256 of the whole file', async () => {
    put('a.txt', 'one\ntwo\nthree\n');
    const r = await runner().call({ tool: 'read_file', args: { path: 'a.txt', start_line: 2, end_line: 3 } });
    const hash = createHash('sha256').update('one\ntwo\nthree\n').digest('hex');
    expect(r.ok).toBe(true);
    expect(r.output).toContain(`sha256 ${hash}`);
    expect(r.output).toContain('2\ttwo\n3\tthree');
    expect(r.output).not.toContain('one');
    expect(r.data).toMatchObject({ hash, total_lines: 3, start_line: 2, end_line: 3 });
  });

  it('its hash makes a later edit stale once the file changed', async () => {
    put('a.txt', 'one\n');
    const run = runner();
    const first = await run.call({ tool: 'read_file', args: { path: 'a.txt' } });
    put('a.txt', 'one!\n');
    const hash = (first.data as { hash: string }).hash;
    const r = await run.call({ tool: 'edit_file', args: { path: 'a.txt', old_text: 'one', new_text: 'two', expected_hash: hash } });
    expect(r.status).toBe('failed');
    expect(r.error?.code).toBe('E_STALE');
    expect(read('a.txt')).toBe('one!\n');
  });

  it('refuses paths outside the root and a missing file, with a hint', async () => {
    const run = runner();
    expect((await run.call({ tool: 'read_file', args: { path: '../etc/passwd' } })).error?.code).toBe('E_OUTSIDE_ROOT');
    const missing = await run.call({ tool: 'read_file', args: { path: 'nope.txt' } });
    expect(missing.error?.code).toBe('E_NO_FILE');
    expect(missing.error?.hint).toContain('list_files');
  });

  it('says where to continue when a file is longer than one read', async () => {
    put('long.txt', Array.from({ length: 2500 }, (_, i) => `l${i + 1}`).join('\n'));
    const r = await runner().call({ tool: 'read_file', args: { path: 'long.txt' } });
    expect(r.output).toContain('start_line: 2001');
    expect(r.data).toMatchObject({ end_line: 2000, truncated: true });
  });
});

describe('list_files', () => {
  it('respects .gitignore (nested too), marks folders, hides .git and .editwarden', async () => {
    put('.gitignore', 'build/\n*.log\n');
    put('src/a.ts', '');
    put('src/.gitignore', 'secret.ts\n');
    put('src/secret.ts', '');
    put('build/out.js', '');
    put('debug.log', '');
    put('.git/HEAD', 'ref');
    put('.editwarden/x', '');
    const r = await runner({ artifacts: false }).call({ tool: 'list_files', args: {} });
    expect((r.data as { entries: string[] }).entries).toEqual(['.gitignore', 'src/', 'src/.gitignore', 'src/a.ts']);
  });

  it('lists one folder, non-recursively when asked', async () => {
    put('src/a.ts', '');
    put('src/deep/b.ts', '');
    const r = await runner().call({ tool: 'list_files', args: { path: 'src', recursive: false } });
    expect((r.data as { entries: string[] }).entries).toEqual(['src/a.ts', 'src/deep/']);
  });
});

describe('search_files', () => {
  beforeEach(() => {
    put('.gitignore', 'dist/\n');
    put('src/a.ts', 'const foo = 1;\nconst bar = foo + 1;\n');
    put('src/b.js', 'let Foo = 2;\n');
    put('dist/a.js', 'const foo = 1;\n');
    put('bin.dat', Buffer.from([0x66, 0x6f, 0x6f, 0, 1]).toString('latin1'));
  });

  it('finds a literal with path:line:text, skipping ignored and binary files', async () => {
    const r = await runner().call({ tool: 'search_files', args: { pattern: 'foo' } });
    expect(r.output.split('\n')[0]).toBe('src/a.ts:1:const foo = 1;');
    expect(r.output).toContain('src/a.ts:2:const bar = foo + 1;');
    expect(r.output).not.toContain('dist/');
    expect(r.output).toContain('1 binary file(s) matched');
  });

  it('regex, case-insensitive and glob filters', async () => {
    const run = runner();
    const re = await run.call({ tool: 'search_files', args: { pattern: '^let \\w+', regex: true } });
    expect(re.output).toBe('src/b.js:1:let Foo = 2;');
    const ci = await run.call({ tool: 'search_files', args: { pattern: 'FOO', case_sensitive: false, glob: '*.js' } });
    expect(ci.output).toBe('src/b.js:1:let Foo = 2;');
    const none = await run.call({ tool: 'search_files', args: { pattern: 'foo', glob: 'lib/**' } });
    expect(none.output).toMatch(/^No matches/);
  });

  it('a literal with regex characters is searched literally', async () => {
    put('x.txt', 'a+b(c)\nab\n');
    const r = await runner().call({ tool: 'search_files', args: { pattern: 'a+b(c)' } });
    expect(r.output).toBe('x.txt:1:a+b(c)');
  });

  it('an invalid regex is E_PARSE with a hint', async () => {
    const r = await runner().call({ tool: 'search_files', args: { pattern: '(', regex: true } });
    expect(r.error?.code).toBe('E_PARSE');
  });
});

describe('edit_file, write_file, apply_patch', () => {
  it('edit_file applies a unique replacement and reports the diff and lines', async () => {
    put('a.txt', 'alpha\nbeta\n');
    const r = await runner().call({ tool: 'edit_file', args: { path: 'a.txt', old_text: 'beta', new_text: 'gamma' } });
    expect(r).toMatchObject({ status: 'ok', files: ['a.txt'], lines_added: 1, lines_removed: 1 });
    expect(r.output).toContain('+gamma');
    expect(read('a.txt')).toBe('alpha\ngamma\n');
  });

  it('edit_file with an ambiguous old_text fails without writing, and the run goes on', async () => {
    put('a.txt', 'x\nx\n');
    const run = runner();
    const r = await run.call({ tool: 'edit_file', args: { path: 'a.txt', old_text: 'x', new_text: 'y' } });
    expect(r.status).toBe('failed');
    expect(r.error?.code).toBe('E_AMBIGUOUS');
    expect(run.state).toBe('running');
    expect(read('a.txt')).toBe('x\nx\n');
  });

  it('write_file creates, refuses to clobber, and overwrites when asked', async () => {
    const run = runner();
    expect((await run.call({ tool: 'write_file', args: { path: 'n/new.txt', content: 'hi\n' } })).status).toBe('ok');
    expect(read('n/new.txt')).toBe('hi\n');
    expect((await run.call({ tool: 'write_file', args: { path: 'n/new.txt', content: 'again\n' } })).error?.code).toBe('E_EXISTS');
    expect((await run.call({ tool: 'write_file', args: { path: 'n/new.txt', content: 'again\n', overwrite: true } })).status).toBe('ok');
    expect(read('n/new.txt')).toBe('again\n');
  });

  it('apply_patch applies an apply_patch envelope across files, all or nothing', async () => {
    put('a.txt', 'one\ntwo\n');
    const patch = ['*** Begin Patch', '*** Update File: a.txt', '@@', ' one', '-two', '+2', '*** Add File: b.txt', '+new', '*** End Patch', ''].join('\n');
    const r = await runner().call({ tool: 'apply_patch', args: { patch } });
    expect(r.status, r.output).toBe('ok');
    expect(r.files.sort()).toEqual(['a.txt', 'b.txt']);
    expect(read('a.txt')).toBe('one\n2\n');
    expect(read('b.txt')).toBe('new\n');
  });

  it('apply_patch reads a unified diff too, and a bad hunk writes nothing', async () => {
    put('a.txt', 'one\ntwo\n');
    const bad = ['--- a/a.txt', '+++ b/a.txt', '@@ -1,2 +1,2 @@', ' one', '-three', '+3', ''].join('\n');
    const r = await runner().call({ tool: 'apply_patch', args: { patch: bad } });
    expect(r.status).toBe('failed');
    expect(read('a.txt')).toBe('one\ntwo\n');
  });
});

describe('execute_command', () => {
  it('runs at the root, returns the exit code and output, and keeps logs in the run folder', async () => {
    put('x.txt', 'hello\n');
    const run = runner();
    const r = await run.call({ tool: 'execute_command', args: { command: 'cat x.txt; pwd' } });
    expect(r.status).toBe('ok');
    expect(r.output).toContain('exit code 0');
    expect(r.output).toContain(root);
    expect(fs.existsSync(path.join(run.runDir as string, 'commands', '1', 'combined.log'))).toBe(true);
  });

  it('never hands a model API key to the command (nor to its output)', async () => {
    const saved = process.env.OPENAI_API_KEY;
    process.env.OPENAI_API_KEY = 'sk-test-secret-value';
    try {
      const r = await runner().call({ tool: 'execute_command', args: { command: 'echo "key=[$OPENAI_API_KEY]"; env' } });
      expect(r.output).toContain('key=[]');
      expect(r.output).not.toContain('sk-test-secret-value');
    } finally {
      if (saved === undefined) delete process.env.OPENAI_API_KEY;
      else process.env.OPENAI_API_KEY = saved;
    }
  });

  it('a failing command is a failed call, not a violation', async () => {
    const run = runner();
    const r = await run.call({ tool: 'execute_command', args: { command: 'echo boom >&2; exit 3' } });
    expect(r.status).toBe('failed');
    expect(r.error?.code).toBe('E_COMMAND_FAILED');
    expect(r.output).toContain('boom');
    expect(run.state).toBe('running');
  });

  it('its own timeout kills it (a failed call, E_TIMEOUT)', async () => {
    const r = await runner().call({ tool: 'execute_command', args: { command: 'sleep 30', timeout: 0.3 } });
    expect(r.error?.code).toBe('E_TIMEOUT');
  });
});

describe('the runner life-cycle', () => {
  it('validates arguments: unknown and wrong fields are E_PARSE naming the field and listing the fields', async () => {
    const run = runner();
    const r = await run.call({ tool: 'read_file', args: { path: 'a', lines: 3 } });
    expect(r.error).toMatchObject({ code: 'E_PARSE' });
    expect(r.error?.message).toContain('lines');
    expect(r.error?.hint).toContain('start_line');
    const t = await run.call({ tool: 'write_file', args: { path: 3, content: 'x' } });
    expect(t.error?.message).toContain('"path"');
  });

  it('an unknown tool is a failed call listing the tools; the run goes on', async () => {
    const run = runner();
    const r = await run.call({ tool: 'delete_everything' });
    expect(r.error?.code).toBe('E_UNKNOWN_TOOL');
    expect(r.error?.hint).toContain('read_file');
    expect(run.state).toBe('running');
  });

  it('the approval hook sees the planned diff before the write, and a decline writes nothing', async () => {
    put('a.txt', 'alpha\n');
    const seen: ApprovalRequest[] = [];
    const run = runner({
      approve: (req) => {
        seen.push(req);
        return { approved: false, reason: 'not today' };
      },
    });
    const r = await run.call({ tool: 'edit_file', args: { path: 'a.txt', old_text: 'alpha', new_text: 'omega' } });
    expect(r.status).toBe('declined');
    expect(r.error?.message).toContain('not today');
    expect(seen[0]?.changes).toEqual([{ path: 'a.txt', added: 1, removed: 1 }]);
    expect(seen[0]?.diff).toContain('+omega');
    expect(read('a.txt')).toBe('alpha\n');
  });

  it('ask_question works in interactive mode through the interaction hook', async () => {
    const interaction: Interaction = { ask: async (q) => `answer to ${q}`, converse: async (m) => `re: ${m}` };
    const config = defaultConfig();
    config.constraints.allowed_tools.push('ask_question', 'converse');
    const run = runner({ run: new Run({ profile: runProfile('interactive', { config }) }), interaction }, config);
    expect((await run.call({ tool: 'ask_question', args: { question: 'why?' } })).output).toBe('answer to why?');
    expect((await run.call({ tool: 'converse', args: { message: 'hi' } })).output).toBe('re: hi');
  });

  it('task_completion ends the run: later calls are refused without running', async () => {
    const run = runner();
    expect((await run.call({ tool: 'task_completion', args: { summary: 'done' } })).status).toBe('ok');
    expect(run.state).toBe('completed');
    const after = await run.call({ tool: 'write_file', args: { path: 'late.txt', content: 'x' } });
    expect(after.error?.code).toBe('E_RUN_ENDED');
    expect(fs.existsSync(path.join(root, 'late.txt'))).toBe(false);
    expect(run.finish().metrics.status).toBe('completed');
  });

  it('recordUsage is the token API of the agent loop: crossing the budget aborts the run', async () => {
    const config = defaultConfig();
    config.constraints.max_tokens = 100;
    const run = runner({}, config);
    expect(run.recordUsage({ input: 60, output: 30 })).toBeNull();
    expect(run.recordUsage(20)).toMatchObject({ type: 'TokenLimit', actual: 110 });
    expect(run.state).toBe('aborted');
    expect((await run.call({ tool: 'list_files' })).error?.code).toBe('E_RUN_ENDED');
  });

  it('metrics.json carries per-tool counts and timings', async () => {
    put('a.txt', 'x\n');
    const run = runner();
    await run.call({ tool: 'read_file', args: { path: 'a.txt' } });
    await run.call({ tool: 'read_file', args: { path: 'missing' } });
    await run.call({ tool: 'list_files' });
    const summary = run.finish();
    const metrics = JSON.parse(fs.readFileSync(summary.reports.metrics as string, 'utf8'));
    expect(metrics.tools.read_file).toMatchObject({ calls: 2, ok: 1, failed: 1 });
    expect(metrics.tools.list_files.calls).toBe(1);
    expect(typeof metrics.tools.read_file.mean_ms).toBe('number');
    expect(summary.violation).toBeNull();
    expect(fs.existsSync(path.join(summary.runDir as string, 'violation.md'))).toBe(false);
  });
});

describe('JSON Schema export', () => {
  it('every tool has a description and an object schema with its fields', () => {
    for (const tool of BUILTIN_TOOLS) {
      const schema = toolInputSchema(tool);
      expect(schema.type, tool.name).toBe('object');
      expect(tool.description.length).toBeGreaterThan(40);
    }
    const edit = toolInputSchema(BUILTIN_TOOLS.find((t) => t.name === 'edit_file')!);
    expect(Object.keys(edit.properties as object)).toEqual(expect.arrayContaining(['path', 'old_text', 'new_text', 'expected_hash']));
    expect(edit.additionalProperties).toBe(false);
    const read = toolInputSchema(BUILTIN_TOOLS.find((t) => t.name === 'read_file')!);
    expect(read.required).toEqual(['path']);
  });

  it('exports OpenAI and Anthropic tool lists, optionally only the allowed tools', () => {
    const names = openAiTools(BUILTIN_TOOLS, ['read_file', 'edit_file']).map((t) => t.function.name);
    expect(names).toEqual(['read_file', 'edit_file']);
    expect(anthropicTools()[0]).toMatchObject({ name: 'read_file', input_schema: { type: 'object' } });
  });
});
