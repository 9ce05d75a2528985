/**
 * One change pipeline, one verdict: the same request set reaches the same
 * verdict — the same refusal code, or the same planned change — through every
 * route to a write, each through its real entry point: the runner's
 * `edit_file` tool, the CLI's `edit` (the built bin), the library's
 * `applyRequests`, the hook (`editwarden hook claude pre-tool-use`, the
 * hook's own entry) and controlled mode (`editwarden controlled-edit`, the
 * session the agent's controlled mode runs). A hook allows without a diff (the
 * client writes), so its verdict is allow or the refusal code. The MCP route
 * as a client runs it is the hook seeing `mcp__editwarden__edit_file` (a
 * call on the session's hook Run, the write tool's client-commit form), then
 * the server's own call.
 *
 * The same limits, one ledger: under `max_files: 1`, a client session's
 * second file is refused whichever route each write takes (a native Write,
 * an MCP write_file the hook sees), as editwarden's own run refuses its
 * second write_file — the same verdicts, the same code.
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { applyRequests } from '../../src/apply/pipeline.js';
import { defaultConfig } from '../../src/config/config.js';
import { changeLines } from '../../src/apply/pipeline.js';
import { ToolRunner } from '../../src/tools/runner.js';
import { openWorkspace } from '../../src/workspace/open.js';
import { shellRunnerLine } from '../../src/integrations/client.js';
import { hookRecords } from '../../src/runs/hook-view.js';
import { gitInit } from '../git-init.js';
import { tempDir } from '../temp-dirs.js';
import { call, connect, type ToolReply } from '../mcp/helpers/server.js';
import { endServers, runtimeEnv, shellsServed, warmServer } from '../integrations/warm-server.js';
import { cleanup } from '../integrations/helpers.js';

const BIN = path.resolve(import.meta.dirname, '../../bin/editwarden');

/** A route's verdict: the refusal code, or `ok` with the lines the change removes and adds (null for a hook, which plans no diff it shows). */
type Verdict = { code: string } | { ok: true; change: string | null };

const FILES: Record<string, string> = {
  'a.txt': 'one\ntwo\nthree\ntwo again\n',
  '.claude/settings.json': '{}\n',
};

function project(): string {
  const root = tempDir('ew-one-route-');
  gitInit(root);
  for (const [rel, text] of Object.entries(FILES)) {
    fs.mkdirSync(path.dirname(path.join(root, rel)), { recursive: true });
    fs.writeFileSync(path.join(root, rel), text);
  }
  return root;
}

interface Case {
  name: string;
  path: string;
  old: string;
  new: string;
  /** What every route must say: the refusal code, or the change's lines. */
  verdict: Verdict;
}

const CASES: Case[] = [
  { name: 'an edit that applies', path: 'a.txt', old: 'three', new: 'THREE', verdict: { ok: true, change: '-three\n+THREE' } },
  { name: 'text that is not there', path: 'a.txt', old: 'four', new: 'FOUR', verdict: { code: 'E_NOT_FOUND' } },
  { name: 'text that is there twice', path: 'a.txt', old: 'two', new: 'TWO', verdict: { code: 'E_AMBIGUOUS' } },
  { name: 'a protected client setting', path: '.claude/settings.json', old: '{}', new: '{"hooks":{}}', verdict: { code: 'E_DENIED_PATH' } },
  { name: 'a path outside the root', path: '../elsewhere.txt', old: 'x', new: 'y', verdict: { code: 'E_OUTSIDE_ROOT' } },
];

function bin(args: string[], input: string): { code: number | null; stdout: string; stderr: string } {
  const r = spawnSync(process.execPath, [BIN, ...args], { input, encoding: 'utf8', timeout: 60_000 });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

function fromResult(r: { status: string; diff: string; error?: { code: string } } | undefined): Verdict {
  if (!r) return { code: 'no result' };
  return r.error ? { code: r.error.code } : { ok: true, change: changeLines(r.diff) };
}

/** A Claude Code pre-tool hook's denial: the refusal code its reason names. */
function hookRefusal(stdout: string): Verdict {
  const reason = (JSON.parse(stdout) as { hookSpecificOutput: { permissionDecisionReason: string } }).hookSpecificOutput.permissionDecisionReason;
  return { code: /\bE_[A-Z_]+/.exec(reason)?.[0] ?? reason };
}

const routes: Record<string, (root: string, c: Case) => Promise<Verdict>> = {
  async 'runner tool edit_file'(root, c) {
    const { ws, transactions } = openWorkspace(root);
    const run = ToolRunner.start({ ws, config: defaultConfig(), transactions });
    const r = await run.call({ tool: 'edit_file', args: { path: c.path, old_text: c.old, new_text: c.new } });
    if (!r.ok) return { code: r.error?.code ?? 'no code' };
    return fromResult((r.data as { results: Array<{ status: string; diff: string }> }).results[0]);
  },
  async 'CLI edit'(root, c) {
    const r = bin(['edit', '--request', '-', '--json', '--root', root], JSON.stringify([{ path: c.path, old_text: c.old, new_text: c.new }]));
    return fromResult((JSON.parse(r.stdout) as { results: Array<{ status: string; diff: string; error?: { code: string } }> }).results[0]);
  },
  async 'library applyRequests'(root, c) {
    const { ws } = openWorkspace(root);
    const out = await applyRequests(ws, [{ action: 'edit', path: c.path, oldText: c.old, newText: c.new }]);
    return fromResult(out.results[0]);
  },
  async 'hook (claude pre-tool-use)'(root, c) {
    const r = bin(['hook', 'claude', 'pre-tool-use', '--root', root], JSON.stringify({ tool_name: 'Edit', tool_input: { file_path: path.join(root, c.path), old_string: c.old, new_string: c.new } }));
    expect(r.code).toBe(0);
    if (r.stdout.trim() === '') return { ok: true, change: null };
    return hookRefusal(r.stdout);
  },
  async 'MCP edit_file: the hook sees mcp__editwarden__edit_file, then the server runs it'(root, c) {
    const r = bin(['hook', 'claude', 'pre-tool-use', '--root', root], JSON.stringify({ session_id: 's-1', tool_name: 'mcp__editwarden__edit_file', tool_input: { path: c.path, old_text: c.old, new_text: c.new } }));
    expect(r.code).toBe(0);
    if (r.stdout.trim() !== '') return hookRefusal(r.stdout);
    // Let through: the server runs the call in its own run.
    return routes['runner tool edit_file']?.(root, c) ?? { code: 'no runner route' };
  },
  async 'controlled mode'(root, c) {
    const r = bin(['controlled-edit', '--request', '-', '--build', 'true', '--json', '--root', root], JSON.stringify({ filename: c.path, old_text: c.old, new_text: c.new }));
    const out = JSON.parse(r.stdout) as { error?: { code: string }; results?: Array<{ status: string; diff: string; error?: { code: string } }> };
    if (out.error) return { code: out.error.code };
    return fromResult(out.results?.[0]);
  },
};

describe('the same request set, the same verdict through every route', () => {
  for (const c of CASES) {
    it(c.name, async () => {
      const verdicts: Record<string, Verdict> = {};
      for (const [name, route] of Object.entries(routes)) verdicts[name] = await route(project(), c);
      // The hook shows no diff: it agrees when it allows what the others apply, or refuses with the same code.
      const expected = Object.fromEntries(Object.keys(routes).map((name) => [name, name.startsWith('hook') && 'ok' in c.verdict ? { ok: true, change: null } : c.verdict]));
      expect(verdicts).toEqual(expected);
    });
  }
});

/**
 * The same commands under the same limits, the same verdict through every route to a command: the runner's
 * `execute_command` as `editwarden exec` runs it (headless), as editwarden's MCP server runs it, and the guarded
 * shell a hooked client's Bash is rewritten to — in-process and through the warm server's thin client — each as
 * the client runs it. Each case is a sequence of commands in one run (one session for the shell): the verdict is
 * the last command's, so the ledger that counted the ones before is the route's one ledger.
 */
interface CommandCase {
  name: string;
  commands: string[];
  verdict: { code: string } | { ok: true; files: string[] };
}

const COMMAND_CASES: CommandCase[] = [
  { name: 'a command that fits the limits', commands: ['echo more >> a.txt'], verdict: { ok: true, files: ['a.txt'] } },
  { name: 'one command over max_files', commands: ['echo more >> a.txt; echo more >> b.txt'], verdict: { code: 'E_CONSTRAINT' } },
  { name: 'a second command over max_files, counted in the one ledger', commands: ['echo more >> a.txt', 'echo more >> b.txt'], verdict: { code: 'E_CONSTRAINT' } },
  { name: 'a second command on the file already counted', commands: ['echo more >> a.txt', 'echo again >> a.txt'], verdict: { ok: true, files: ['a.txt'] } },
];

function commandProject(): string {
  const root = tempDir('ew-one-route-cmd-');
  gitInit(root);
  fs.writeFileSync(path.join(root, 'a.txt'), 'a\n');
  fs.writeFileSync(path.join(root, 'b.txt'), 'b\n');
  fs.writeFileSync(path.join(root, '.editwarden.yml'), 'constraints:\n  max_files: 1\n');
  return root;
}

/** The guarded shell as Claude Code runs the line its hook rewrote a Bash call into: /bin/sh -c in the project. */
function guardedShell(root: string, c: CommandCase, env: NodeJS.ProcessEnv): CommandCase['verdict'] {
  let last: { status: number | null; stderr: string } = { status: null, stderr: '' };
  for (const command of c.commands) {
    const line = shellRunnerLine([process.execPath, BIN], { root, client: 'claude', tool: 'Bash', session: 'one-route' }, command);
    const r = spawnSync('/bin/sh', ['-c', line], { cwd: root, env, encoding: 'utf8', timeout: 60_000 });
    last = { status: r.status, stderr: r.stderr };
  }
  if (last.status !== 0) return { code: /\bE_[A-Z_]+/.exec(last.stderr)?.[0] ?? `exit ${last.status}: ${last.stderr}` };
  const record = hookRecords(path.join(root, '.editwarden')).at(-1);
  return { ok: true, files: record && 'paths' in record ? record.paths : [] };
}

const commandRoutes: Record<string, (root: string, c: CommandCase) => Promise<CommandCase['verdict']>> = {
  async 'exec (execute_command, headless)'(root, c) {
    const lines = c.commands.map((command) => JSON.stringify({ tool: 'execute_command', args: { command } })).join('\n');
    const r = bin(['exec', '-', '--json', '--root', root], lines);
    const calls = (JSON.parse(r.stdout) as { calls: Array<{ ok: boolean; files: string[]; error?: { code: string } }> }).calls;
    const last = calls.at(-1);
    return last?.error ? { code: last.error.code } : { ok: true, files: last?.files ?? [] };
  },
  async 'MCP execute_command'(root, c) {
    const server = await connect(['--root', root]);
    try {
      let reply: ToolReply | null = null;
      for (const command of c.commands) reply = await call(server.client, 'execute_command', { command });
      if (reply?.error) return { code: reply.error.code };
      return { ok: true, files: (reply?.structured.files_changed as string[] | undefined) ?? [] };
    } finally {
      await server.close();
    }
  },
  async 'guarded shell (in-process)'(root, c) {
    return guardedShell(root, c, { ...process.env, EDITWARDEN_HOOK_SERVER: 'off' });
  },
  async 'guarded shell (warm server)'(root, c) {
    // A server of the case's own, started right before its commands: nothing another case (or file) does to a shared
    // one between them can leave a case without its server.
    const env = runtimeEnv({ EDITWARDEN_HOOK_SERVER_IDLE_MS: '600000' });
    await warmServer(env);
    const before = await shellsServed(env);
    const verdict = guardedShell(root, c, env);
    // The server really served each command (none ran in-process behind its back).
    expect((await shellsServed(env)) - before).toBe(c.commands.length);
    return verdict;
  },
};

describe('the same commands and limits, the same verdict through execute_command and the guarded shell', () => {
  afterEach(endServers);
  afterAll(() => {
    endServers();
    cleanup();
  });
  for (const c of COMMAND_CASES) {
    it(c.name, async () => {
      const verdicts: Record<string, CommandCase['verdict']> = {};
      for (const [name, route] of Object.entries(commandRoutes)) verdicts[name] = await route(commandProject(), c);
      expect(verdicts).toEqual(Object.fromEntries(Object.keys(commandRoutes).map((name) => [name, c.verdict])));
    }, 120_000);
  }
});

/** One write of `file` in session `session`, as the Claude Code hook sees it: a native Write, or editwarden's MCP write_file. */
type HookWrite = 'native Write' | 'MCP write_file';

function hookWrite(root: string, session: string, how: HookWrite, file: string, content: string): Verdict {
  const input =
    how === 'native Write' ? { session_id: session, tool_name: 'Write', tool_input: { file_path: path.join(root, file), content } } : { session_id: session, tool_name: 'mcp__editwarden__write_file', tool_input: { path: file, content } };
  const r = bin(['hook', 'claude', 'pre-tool-use', '--root', root], JSON.stringify(input));
  expect(r.code).toBe(0);
  return r.stdout.trim() === '' ? { ok: true, change: null } : hookRefusal(r.stdout);
}

/** editwarden's own run (an in-memory ledger) under the same limits: each write_file's verdict, allowed writes shown as a hook shows them. */
async function ownRun(limits: { max_files?: number; max_lines_changed?: number }, writes: Array<{ file: string; content: string }>): Promise<Verdict[]> {
  const { ws, transactions } = openWorkspace(project());
  const config = defaultConfig();
  const run = ToolRunner.start({ ws, config: { ...config, constraints: { ...config.constraints, ...limits } }, transactions });
  const out: Verdict[] = [];
  for (const w of writes) {
    const r = await run.call({ tool: 'write_file', args: { path: w.file, content: w.content } });
    out.push(r.ok ? { ok: true, change: null } : { code: r.error?.code ?? 'no code' });
  }
  return out;
}

describe('the same limits, one ledger: every route of a client session counts in its ledger as an own run counts in its own', () => {
  const ORDERS: HookWrite[][] = [
    ['native Write', 'MCP write_file'],
    ['MCP write_file', 'native Write'],
    ['native Write', 'native Write'],
    ['MCP write_file', 'MCP write_file'],
  ];
  for (const order of ORDERS) {
    it(`under max_files: 1, ${order.join(' then ')} of two files in one session: the second is refused as an own run refuses its second write_file`, async () => {
      const writes = [
        { file: 'b.txt', content: 'b\n' },
        { file: 'c.txt', content: 'c\n' },
      ];
      const root = project();
      fs.writeFileSync(path.join(root, '.editwarden.yml'), 'constraints:\n  max_files: 1\n');
      const hooked = order.map((how, i) => hookWrite(root, 's-1', how, writes[i]?.file ?? '', writes[i]?.content ?? ''));
      const own = await ownRun({ max_files: 1 }, writes);
      expect({ hooked, own }).toEqual({ hooked: own, own: [{ ok: true, change: null }, { code: 'E_CONSTRAINT' }] });
      // Another session has a ledger of its own: its first file fits.
      expect(hookWrite(root, 's-2', order[1] ?? 'native Write', 'c.txt', 'c\n')).toEqual({ ok: true, change: null });
    });
  }

  it('under max_lines_changed: 2, one 3-line write is refused by the native Write, the MCP write_file the hook sees and an own run alike', async () => {
    const root = project();
    fs.writeFileSync(path.join(root, '.editwarden.yml'), 'constraints:\n  max_lines_changed: 2\n');
    const content = '1\n2\n3\n';
    const verdicts = {
      native: hookWrite(root, 's-1', 'native Write', 'b.txt', content),
      mcp: hookWrite(root, 's-2', 'MCP write_file', 'b.txt', content),
      own: (await ownRun({ max_lines_changed: 2 }, [{ file: 'b.txt', content }]))[0],
    };
    expect(verdicts).toEqual({ native: { code: 'E_CONSTRAINT' }, mcp: { code: 'E_CONSTRAINT' }, own: { code: 'E_CONSTRAINT' } });
  });
});
