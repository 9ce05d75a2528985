/**
 * The hooks' fast path (src/cli/hook-client.ts → hook-server.ts): the same
 * answers as the hook deciding by itself, and never an answer from a server
 * it cannot believe — a killed server, a stale socket, a socket or folder of
 * another user or open to others, a server of another build: the hook then
 * decides by itself (here: still refuses what must be refused).
 * Real binary, real server process, real unix sockets.
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { skipUnlessRoot } from '../needs-root.js';
import { BIN, cleanup, project, tempDir } from './helpers.js';
import { type client, endServers, keepServer, ping, runtimeEnv, sockets, startUnderWay, warmServer as startServer } from './warm-server.js';

const REPO = path.dirname(path.dirname(BIN));

afterAll(cleanup);

interface Ran {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs the hook without blocking this process (a fake server in this process must answer it). */
function hookAsync(args: string[], input: string, env: NodeJS.ProcessEnv): Promise<Ran> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [BIN, 'hook', ...args], { env, stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('close', (code) => resolve({ code, stdout, stderr }));
    child.stdin.end(input);
  });
}

afterEach(endServers);

/**
 * A warm server for `env`: started as a first hook does (`by: 'hook'`: a hook that finds no server starts one and
 * decides by itself), or, where how it started is not what a test is about, the way that hook starts it — the same
 * detached `editwarden hook-server` process, without the hook's own decision. Waits until it answers.
 */
function warmServer(env: NodeJS.ProcessEnv, by: 'hook' | 'direct' = 'direct'): Promise<number> {
  return startServer(env, by === 'hook' ? () => hookAsync(['claude', 'pre-tool-use', '--root', project({})], JSON.stringify({ tool_name: 'Read', tool_input: { file_path: 'x' } }), env) : undefined);
}

/** A hook call and a project to make it in: `make` builds a fresh project, `input` the hook input for it. */
interface Case {
  name: string;
  client: string;
  event: string;
  files: Record<string, string>;
  input(root: string): unknown;
}

const CASES: Case[] = [
  {
    name: 'allowed Edit',
    client: 'claude',
    event: 'pre-tool-use',
    files: { 'a.txt': 'hello\nworld\n' },
    input: (r) => ({ tool_name: 'Edit', tool_use_id: 't1', tool_input: { file_path: path.join(r, 'a.txt'), old_string: 'world', new_string: 'there' } }),
  },
  { name: 'write outside the root', client: 'claude', event: 'pre-tool-use', files: {}, input: () => ({ tool_name: 'Write', tool_input: { file_path: '/etc/ew-nope', content: 'x' } }) },
  {
    name: 'syntax break',
    client: 'claude',
    event: 'pre-tool-use',
    files: { 'm.ts': 'export function f(): number {\n  return 1;\n}\n' },
    input: (r) => ({ tool_name: 'Edit', tool_input: { file_path: path.join(r, 'm.ts'), old_string: '  return 1;\n}', new_string: '  return (1;\n}' } }),
  },
  { name: 'config edit', client: 'claude', event: 'pre-tool-use', files: { '.editwarden.yml': 'constraints: {}\n' }, input: (r) => ({ tool_name: 'Write', tool_input: { file_path: path.join(r, '.editwarden.yml'), content: 'x: 1\n' } }) },
  {
    name: 'wipe of a 30-line file',
    client: 'gemini',
    event: 'BeforeTool',
    files: { 'w.txt': Array.from({ length: 30 }, (_, i) => `line ${i}`).join('\n') },
    input: (r) => ({ tool_name: 'write_file', tool_input: { file_path: path.join(r, 'w.txt'), content: '' } }),
  },
  { name: 'Bash rewritten', client: 'claude', event: 'pre-tool-use', files: {}, input: () => ({ session_id: 's', tool_name: 'Bash', tool_input: { command: 'rm -rf src' } }) },
  { name: 'not JSON', client: 'claude', event: 'pre-tool-use', files: {}, input: () => 'not json' },
  { name: 'unknown event', client: 'claude', event: 'no-such-event', files: {}, input: () => ({}) },
  { name: 'post hook record', client: 'claude', event: 'post-tool-use', files: { 'a.txt': 'x\n' }, input: () => ({ tool_name: 'Edit', tool_use_id: 't1' }) },
];

const DENY_OUTSIDE = (root: string): string => JSON.stringify({ tool_name: 'Write', tool_input: { file_path: path.join(root, '..', 'outside.txt'), content: 'x' } });

function expectOutsideDenied(r: Ran): void {
  expect(r.code).toBe(0);
  const out = JSON.parse(r.stdout) as { hookSpecificOutput: { permissionDecision: string; permissionDecisionReason: string } };
  expect(out.hookSpecificOutput.permissionDecision).toBe('deny');
  expect(out.hookSpecificOutput.permissionDecisionReason).toContain('E_OUTSIDE_ROOT');
}

describe('the hook server gives the same answers as the hook deciding by itself', () => {
  // One warm server answers both tests below, as one user's server answers every hook of every project.
  let env: NodeJS.ProcessEnv;
  let server: number;
  beforeAll(async () => {
    env = runtimeEnv();
    server = await warmServer(env, 'hook');
    // Ended after both tests (afterAll), not after the first (afterEach).
    keepServer(server);
  }, 30_000);
  afterAll(() => {
    try {
      process.kill(server, 'SIGKILL');
    } catch {
      // Already gone.
    }
  });

  it('on every kind of hook call (allow, refusals, shell rewrite, bad input, post record)', async () => {
    for (const c of CASES) {
      const slowRoot = project(c.files);
      const fastRoot = project(c.files);
      const text = (root: string): string => {
        const i = c.input(root);
        return typeof i === 'string' ? i : JSON.stringify(i);
      };
      const first = (await ping(env))?.calls ?? -1;
      const slow = await hookAsync([c.client, c.event, '--root', slowRoot], text(slowRoot), { ...env, EDITWARDEN_HOOK_SERVER: 'off' });
      const before = (await ping(env))?.calls ?? -1;
      // EDITWARDEN_HOOK_SERVER=off decided in the hook's own process.
      expect(before, c.name).toBe(first);
      const fast = await hookAsync([c.client, c.event, '--root', fastRoot], text(fastRoot), env);
      // The server answered this call (not a fallback that happens to agree).
      expect((await ping(env))?.calls, c.name).toBe(before + 1);
      const same = (s: string, root: string): string => s.split(root).join('<root>');
      expect({ code: fast.code, stdout: same(fast.stdout, fastRoot), stderr: same(fast.stderr, fastRoot) }, c.name).toEqual({ code: slow.code, stdout: same(slow.stdout, slowRoot), stderr: same(slow.stderr, slowRoot) });
    }
  }, 120_000);

  it('the server runs each call with that hook’s own environment (its trust store, its config home)', async () => {
    // A user config outside the repository denies a pattern: only a call whose HOME holds it is refused.
    const home = tempDir('ew-home-');
    fs.mkdirSync(path.join(home, '.config', 'editwarden'), { recursive: true });
    fs.writeFileSync(path.join(home, '.config', 'editwarden', 'config.yml'), 'constraints:\n  denied_patterns: ["*.txt"]\n');
    const root = project({ 'a.txt': 'a\n' });
    const input = JSON.stringify({ tool_name: 'Edit', tool_input: { file_path: path.join(root, 'a.txt'), old_string: 'a', new_string: 'b' } });
    const plain = await hookAsync(['claude', 'pre-tool-use', '--root', root], input, env);
    const withHome = await hookAsync(['claude', 'pre-tool-use', '--root', root], input, { ...env, HOME: home, XDG_CONFIG_HOME: path.join(home, '.config') });
    const slow = await hookAsync(['claude', 'pre-tool-use', '--root', root], input, { ...env, HOME: home, XDG_CONFIG_HOME: path.join(home, '.config'), EDITWARDEN_HOOK_SERVER: 'off' });
    expect(plain.stdout).toBe('');
    expect(withHome.stdout).toBe(slow.stdout);
    expect(withHome.stdout).toContain('E_CONSTRAINT');
  }, 60_000);
});

describe('a hook never believes a server it cannot trust: it decides by itself', () => {
  /** A server on the hook's socket that answers "allow" to everything (or drops the call when `drop`). */
  async function lyingServer(socket: string, opts: { build?: string; drop?: boolean } = {}): Promise<net.Server> {
    fs.mkdirSync(path.dirname(socket), { recursive: true, mode: 0o700 });
    const server = net.createServer({ allowHalfOpen: true }, (conn) => {
      conn.on('data', () => {
        if (opts.drop) conn.destroy();
      });
      conn.on('end', () => conn.end(`${JSON.stringify({ build: opts.build ?? sockets.buildId(), exitCode: 0, stdout: '', stderr: '' })}\n`));
      conn.on('error', () => undefined);
    });
    await new Promise<void>((resolve) => server.listen(socket, resolve));
    return server;
  }

  it('a lying server in a private folder of ours is believed — the checks below are what stop it', async () => {
    // The control: without this, the cases below would pass for a client that never talks to any server.
    const env = runtimeEnv();
    const server = await lyingServer(sockets.socketPath(env, sockets.buildId()));
    const root = project({});
    const r = await hookAsync(['claude', 'pre-tool-use', '--root', root], DENY_OUTSIDE(root), env);
    server.close();
    expect(r).toMatchObject({ code: 0, stdout: '' });
  }, 30_000);

  it('a server killed mid-call', async () => {
    const env = runtimeEnv();
    const server = await lyingServer(sockets.socketPath(env, sockets.buildId()), { drop: true });
    // The hook decides by itself; the server it would start could not bind the liar's socket (warm-server.ts).
    startUnderWay(env);
    const root = project({});
    const r = await hookAsync(['claude', 'pre-tool-use', '--root', root], DENY_OUTSIDE(root), env);
    server.close();
    expectOutsideDenied(r);
  }, 30_000);

  it('a real server killed: its stale socket is not used, and a fresh server takes over', async () => {
    const env = runtimeEnv();
    const pid = await warmServer(env);
    process.kill(pid, 'SIGKILL');
    await new Promise((r) => setTimeout(r, 200));
    expect(fs.existsSync(sockets.socketPath(env, sockets.buildId()))).toBe(true);
    const root = project({});
    expectOutsideDenied(await hookAsync(['claude', 'pre-tool-use', '--root', root], DENY_OUTSIDE(root), env));
    // The hook that finds the stale socket starts the fresh server.
    const fresh = await warmServer(env, 'hook');
    expect(fresh).not.toBe(pid);
    expectOutsideDenied(await hookAsync(['claude', 'pre-tool-use', '--root', root], DENY_OUTSIDE(root), env));
  }, 60_000);

  it('a server whose socket folder is removed ends within seconds, not after its idle time', async () => {
    const env = runtimeEnv();
    const pid = await warmServer(env);
    fs.rmSync(path.dirname(sockets.socketPath(env, sockets.buildId())), { recursive: true, force: true });
    const alive = (): boolean => {
      try {
        process.kill(pid, 0);
        return true;
      } catch {
        return false;
      }
    };
    const deadline = Date.now() + 15_000;
    while (alive() && Date.now() < deadline) await new Promise((r) => setTimeout(r, 200));
    expect(alive()).toBe(false);
  }, 60_000);

  it('a server of another build', async () => {
    const env = runtimeEnv();
    const server = await lyingServer(sockets.socketPath(env, sockets.buildId()), { build: 'another-build' });
    startUnderWay(env);
    const root = project({});
    const r = await hookAsync(['claude', 'pre-tool-use', '--root', root], DENY_OUTSIDE(root), env);
    server.close();
    expectOutsideDenied(r);
  }, 30_000);

  it('a socket folder open to other users (world-writable)', async () => {
    const env = runtimeEnv();
    const socket = sockets.socketPath(env, sockets.buildId());
    const server = await lyingServer(socket);
    fs.chmodSync(path.dirname(socket), 0o777);
    const root = project({});
    const r = await hookAsync(['claude', 'pre-tool-use', '--root', root], DENY_OUTSIDE(root), env);
    server.close();
    expectOutsideDenied(r);
  }, 30_000);

  it('a socket, or its folder, owned by another user', async (context) => {
    // As an ordinary user the kernel itself forbids planting such a socket; only root can make one to test.
    skipUnlessRoot(context, 'chowns a socket and its folder to another uid');
    for (const what of ['socket', 'folder'] as const) {
      const env = runtimeEnv();
      const socket = sockets.socketPath(env, sockets.buildId());
      const server = await lyingServer(socket);
      fs.chownSync(what === 'socket' ? socket : path.dirname(socket), 12345, 12345);
      const root = project({});
      const r = await hookAsync(['claude', 'pre-tool-use', '--root', root], DENY_OUTSIDE(root), env);
      server.close();
      expectOutsideDenied(r);
    }
  }, 30_000);

  it('a socket folder that is a symlink to a folder of ours', async () => {
    const env = runtimeEnv();
    const socket = sockets.socketPath(env, sockets.buildId());
    const elsewhere = tempDir('ew-elsewhere-');
    fs.chmodSync(elsewhere, 0o700);
    fs.symlinkSync(elsewhere, path.dirname(socket));
    const server = await lyingServer(socket);
    const root = project({});
    const r = await hookAsync(['claude', 'pre-tool-use', '--root', root], DENY_OUTSIDE(root), env);
    server.close();
    expectOutsideDenied(r);
  }, 30_000);
});

/**
 * A build of this test's own: bin/, package.json and dist/ copied (the commands' own bundles left out: the server runs
 * from the shared one), grammars/ and node_modules/ linked. A rebuild is then played on the copy: touching this
 * repository's build would make every warm server of the whole run, and every client, see a rebuild too — the run's
 * other files lost their servers that way mid-test (one-route, issue 41's last round).
 */
function privateBuild(): string {
  const copy = tempDir('ew-rebuild-');
  fs.cpSync(path.join(REPO, 'bin'), path.join(copy, 'bin'), { recursive: true });
  fs.cpSync(path.join(REPO, 'package.json'), path.join(copy, 'package.json'));
  fs.cpSync(path.join(REPO, 'dist'), path.join(copy, 'dist'), { recursive: true, filter: (from) => !from.startsWith(path.join(REPO, 'dist', 'cli-command')) });
  for (const linked of ['grammars', 'node_modules']) fs.symlinkSync(path.join(REPO, linked), path.join(copy, linked));
  return copy;
}

describe('a rebuild', () => {
  it('a server whose build changed on disk answers nothing more and ends, taking its socket with it', async () => {
    const env = runtimeEnv();
    const copy = privateBuild();
    const own = (await import(path.join(copy, 'dist', 'cli', 'hook-socket.js'))) as typeof sockets;
    const ownClient = (await import(path.join(copy, 'dist', 'cli', 'hook-client.js'))) as typeof client;
    const build = own.buildId();
    expect(build).not.toBe(sockets.buildId());
    const socket = own.socketPath(env, build);
    expect(own.ensurePrivateDir(own.socketDir(env))).toBeNull();
    const server = spawn(process.execPath, [path.join(copy, 'bin', 'editwarden'), 'hook-server', '--socket', socket, '--build', build], { env, detached: true, stdio: 'ignore', cwd: '/' });
    server.unref();
    const pid = server.pid as number;
    let answered = false;
    for (let i = 0; i < 100 && !answered; i++) {
      answered = (await ownClient.askServer(socket, { build, ping: true }, 3000)) !== null;
      if (!answered) await new Promise((r) => setTimeout(r, 100));
    }
    expect(answered).toBe(true);
    const bundle = path.join(copy, 'dist', 'cli-bundle', 'cli.mjs');
    const { atime, mtime } = fs.statSync(bundle);
    fs.utimesSync(bundle, atime, new Date(mtime.getTime() + 1000));
    expect(await ownClient.askServer(socket, { build, ping: true }, 3000)).toBeNull();
    const alive = (): boolean => {
      try {
        process.kill(pid, 0);
        return true;
      } catch {
        return false;
      }
    };
    for (let i = 0; i < 100 && alive(); i++) await new Promise((r) => setTimeout(r, 100));
    expect(alive()).toBe(false);
    expect(fs.existsSync(socket)).toBe(false);
  }, 30_000);
});

describe('where no socket can be bound', () => {
  it('a runtime folder whose socket path would be too long: no server is tried, the hook decides by itself', async () => {
    const runtime = path.join(tempDir('ew-rt-'), 'r'.repeat(120));
    fs.mkdirSync(runtime, { mode: 0o700 });
    const env = { ...process.env, XDG_RUNTIME_DIR: runtime };
    const root = project({});
    const r = await hookAsync(['claude', 'pre-tool-use', '--root', root], JSON.stringify({ tool_name: 'Write', tool_input: { file_path: '/etc/ew-nope', content: 'x' } }), env);
    expect(JSON.parse(r.stdout).hookSpecificOutput.permissionDecision).toBe('deny');
    // No socket and no start claim: at most the in-process CLI's code cache, in the private folder (src/cli/code-cache.ts).
    const own = path.join(runtime, path.basename(sockets.socketDir(env)));
    const made = fs.readdirSync(runtime).map((name) => (name === path.basename(own) ? `${name}/${fs.readdirSync(own).join(',')}` : name));
    expect(made).toEqual(made.length === 0 ? [] : [`${path.basename(own)}/code-cache`]);
  }, 30_000);
});

describe('the deadline', () => {
  it('input that never ends is refused by the deadline, and the refusal names the whole deadline, not what was left', async () => {
    const env = runtimeEnv();
    const child = spawn(process.execPath, [BIN, 'hook', 'claude', 'pre-tool-use', '--root', project({}), '--deadline', '2600'], { env, stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    const started = Date.now();
    const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
    child.stdin.destroy();
    expect(code).toBe(0);
    expect(Date.now() - started).toBeGreaterThanOrEqual(2600);
    expect(stdout).toContain('E_GUARD_UNAVAILABLE');
    expect(stdout).toContain('within 3 s');
  }, 30_000);
});
