/**
 * The guarded shell through the warm server (src/cli/hook-shell-client.ts →
 * hook-shell.ts) against the same command line run in-process
 * (EDITWARDEN_HOOK_SERVER=off: the CLI's own `shell` command): the rewritten
 * line as a client runs it, through a real /bin/sh and the real binary, on
 * twin projects. Byte-identical stdout and stderr, the same exit code, the
 * same files after, the same undo (the tree after `editwarden undo`), the
 * same records in the hooks' view of the event log and the event log — for a
 * normal command, one refused, one over the session's limits (put back), one
 * killed by a signal, one whose output is binary. Each server case checks
 * that the server really served it (its call count).
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { shellRunnerLine } from '../../src/integrations/client.js';
import { BIN, cleanup, editwarden, hookRecordLines, project } from './helpers.js';
import { callsServed, endServers, keepServer, runtimeEnv, warmServer } from './warm-server.js';

afterAll(cleanup);
afterEach(endServers);

/**
 * One warm server serves every test whose environment is the run's own, as one user's server serves every call of
 * every project; a case with an environment of its own (another sandbox program) gets a server started with it.
 */
let shared: { env: NodeJS.ProcessEnv; pid: number };
beforeAll(async () => {
  // Idle longer than a loaded machine may take between two of the file's calls: it is ended after the file.
  const env = runtimeEnv({ EDITWARDEN_HOOK_SERVER_IDLE_MS: '300000' });
  const pid = await warmServer(env);
  // Ended after the file (below), not after the first test (afterEach).
  keepServer(pid);
  shared = { env, pid };
}, 60_000);
afterAll(() => {
  try {
    process.kill(shared.pid, 'SIGKILL');
  } catch {
    // Already gone.
  }
});

/** The server for a case: the shared one, or one of its own for an environment of its own. */
async function serverFor(extra: NodeJS.ProcessEnv | undefined): Promise<NodeJS.ProcessEnv> {
  if (extra === undefined) return shared.env;
  const env = runtimeEnv(extra);
  await warmServer(env);
  return env;
}

interface Outcome {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: Buffer;
  stderr: string;
}

/** The line the pre-tool hook rewrites a Bash call into, run as Claude Code runs it: /bin/sh -c in the project. */
function runLine(root: string, command: string, env: NodeJS.ProcessEnv): Outcome {
  const line = shellRunnerLine([process.execPath, BIN], { root, client: 'claude', tool: 'Bash', session: 'session-1' }, command);
  const r = spawnSync('/bin/sh', ['-c', line], { cwd: root, env, timeout: 60_000 });
  // The roots of the twins differ: everything else must not.
  return { code: r.status, signal: r.signal, stdout: r.stdout, stderr: r.stderr.toString('utf8').replaceAll(root, '<root>') };
}

/** Every file of the project outside .editwarden/ and .git/, with its bytes. */
function tree(root: string): Record<string, string> {
  const out: Record<string, string> = {};
  const walk = (rel: string): void => {
    for (const e of fs.readdirSync(path.join(root, rel), { withFileTypes: true })) {
      const r = rel === '' ? e.name : `${rel}/${e.name}`;
      if (r === '.editwarden' || r === '.git') continue;
      if (e.isDirectory()) walk(r);
      else out[r] = fs.readFileSync(path.join(root, r)).toString('base64');
    }
  };
  walk('');
  return out;
}

/** Times, step ids, durations and the root are the run's own; the rest of a record must be the same. */
function normalized(text: string, root: string): unknown[] {
  const lines = text.split('\n').filter((l) => l !== '');
  return lines.map((l) =>
    JSON.parse(
      l
        .replaceAll(root, '<root>')
        .replace(/\d{8}-\d{6}-\d{3}-[0-9a-f]{4}/g, '<step>')
        .replace(/"\d{4}-\d\d-\d\dT[\d:.]+Z"/g, '"<time>"')
        .replace(/"(duration_ms|ms|elapsed_ms)":[\d.]+/g, '"$1":0'),
    ),
  );
}

function records(root: string): { changes: unknown[]; events: unknown[] } {
  const read = (rel: string): string => {
    try {
      return fs.readFileSync(path.join(root, '.editwarden', rel), 'utf8');
    } catch {
      return '';
    }
  };
  return { changes: normalized(hookRecordLines(root), root), events: normalized(read('events.jsonl'), root) };
}

interface Case {
  name: string;
  files: Record<string, string>;
  command: string;
  env?: NodeJS.ProcessEnv;
  expectCode: number;
}

const CASES: Case[] = [
  {
    name: 'a normal command (output on both streams, a file changed and one made, its own exit code)',
    files: { 'a.txt': 'one\n' },
    command: "printf 'out\\n'; printf 'err\\n' >&2; echo two >> a.txt; echo new > made.txt; exit 3",
    expectCode: 3,
  },
  {
    name: 'a command refused before it runs (no sandbox can be had: E_UNSANDBOXED)',
    files: { 'a.txt': 'one\n' },
    command: 'echo never > a.txt',
    env: { EDITWARDEN_BWRAP: '/nonexistent/bwrap' },
    expectCode: 1,
  },
  {
    name: "a command over the session's limits (max_files 1, three files): its changes put back",
    files: { 'a.txt': 'one\n', '.editwarden.yml': 'constraints:\n  max_files: 1\n' },
    command: 'echo x > a.txt; echo y > b.txt; echo z > c.txt; echo done',
    expectCode: 2,
  },
  {
    name: 'a command killed by a signal (SIGKILL of its own shell, after a write)',
    files: { 'a.txt': 'one\n' },
    command: 'echo before; echo changed > a.txt; kill -KILL $$; echo never',
    expectCode: 137,
  },
  {
    name: 'a command whose output is binary (every byte value on stdout, a binary file written)',
    files: { 'a.txt': 'one\n' },
    command: "i=0; while [ $i -lt 256 ]; do printf \"\\\\$(printf %o $i)\"; i=$((i+1)); done; printf '\\000\\377\\376' > bin.dat; printf '\\001\\002' >&2",
    expectCode: 0,
  },
];

describe('the thin shell client through the warm server = the in-process route', () => {
  for (const c of CASES) {
    it(c.name, async () => {
      const served = project(c.files);
      const here = project(c.files);
      const env = await serverFor(c.env);
      const before = await callsServed(env);
      const viaServer = runLine(served, c.command, env);
      // The server took the call (not the in-process fallback).
      expect(await callsServed(env)).toBe(before + 1);
      const inProcess = runLine(here, c.command, { ...env, EDITWARDEN_HOOK_SERVER: 'off' });
      expect(viaServer.code, viaServer.stderr).toBe(c.expectCode);
      expect(viaServer.code).toBe(inProcess.code);
      expect(viaServer.signal).toBe(inProcess.signal);
      expect(viaServer.stdout.equals(inProcess.stdout)).toBe(true);
      expect(viaServer.stderr).toBe(inProcess.stderr);
      expect(tree(served)).toEqual(tree(here));
      const recorded = records(served);
      // Every case leaves its line in the event log (refused before it ran too), every case that ran its record.
      expect(recorded.events.length).toBeGreaterThan(0);
      expect(recorded.changes.length).toBe(c.expectCode === 1 ? 0 : 1);
      expect(recorded).toEqual(records(here));
      // The undo step (or its absence) is the same: undo puts both twins in the same state.
      const undo = (root: string): { code: number | null; tree: Record<string, string> } => {
        const r = editwarden(['undo', '--root', root], { cwd: root, env: { ...env, EDITWARDEN_HOOK_SERVER: 'off' } });
        return { code: r.code, tree: tree(root) };
      };
      expect(undo(served)).toEqual(undo(here));
    });
  }
});

describe("the server's per-project caches never change an answer", () => {
  it('a nested repository a person makes between two commands is found by the warm search: its .git/config is read-only to the next command', async () => {
    const env = await serverFor(undefined);
    const root = project({ 'a.txt': 'one\n' });
    const before = await callsServed(env);
    // The first command warms the project's nested-repository search in the server.
    expect(runLine(root, 'echo warm', env).code).toBe(0);
    fs.mkdirSync(path.join(root, 'vendor', 'lib'), { recursive: true });
    expect(spawnSync('git', ['init', '-q'], { cwd: path.join(root, 'vendor', 'lib') }).status).toBe(0);
    const config = path.join(root, 'vendor', 'lib', '.git', 'config');
    const text = fs.readFileSync(config, 'utf8');
    const r = runLine(root, "printf '[core]\\n\\thooksPath = /tmp/x\\n' >> vendor/lib/.git/config", env);
    expect(await callsServed(env)).toBe(before + 2);
    expect(r.code).not.toBe(0);
    expect(r.stderr).toMatch(/Read-only file system/);
    expect(fs.readFileSync(config, 'utf8')).toBe(text);
  }, 60_000);
});
