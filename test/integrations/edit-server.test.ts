/**
 * `editwarden edit` through this user's warm server (src/cli/edit-client.ts
 * and hook-edit.ts): for the same request, in the same folder, the same
 * stdout and stderr byte for byte, the same exit code, the same files on
 * disk and the same records as the in-process route — applied, dry-run,
 * refused and mistyped requests, flags or JSON on stdin, plain or coloured;
 * and every fault of the warm server ends in the in-process route or in a
 * refusal, never in an edit run twice or a wrong exit code: a stale
 * socket, a server of another build, a socket folder open to others or a
 * link, a server killed before it took the call, one that ends after it,
 * the person's Ctrl-C while the client waits.
 * Real binary, real server processes, real unix sockets, real files.
 */
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import fc from 'fast-check';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { gitInit } from '../git-init.js';
import { skipUnlessRoot } from '../needs-root.js';
import { BIN, cleanup, tempDir } from './helpers.js';
import { endServers, keepServer, ping, runtimeEnv, socketOf, sockets, warmServer } from './warm-server.js';

afterAll(cleanup);

interface Ran {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: Buffer;
  stderr: Buffer;
}

function editwarden(root: string, args: readonly string[], env: NodeJS.ProcessEnv, input = ''): Ran {
  const r = spawnSync(process.execPath, [BIN, ...args], { cwd: root, env, input, timeout: 60_000 });
  return { code: r.status, signal: r.signal, stdout: r.stdout, stderr: r.stderr };
}

/** `root` emptied and filled with `files` (a git repository), so both routes start from the same folder, at the same path. */
function reset(root: string, files: Record<string, string>): void {
  for (const name of fs.readdirSync(root)) fs.rmSync(path.join(root, name), { recursive: true, force: true });
  gitInit(root);
  for (const [rel, text] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(root, rel)), { recursive: true });
    fs.writeFileSync(path.join(root, rel), text);
  }
}

/** Record fields that name a moment or an instance (a checkpoint's id, time, the inode of a file written anew): not the route's. */
const VOLATILE = new Set(['id', 'createdAt', 'scanStartedMs', 'tx', 'mtimeMs', 'ctimeMs', 'ino']);

function steady(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(steady);
  if (typeof value !== 'object' || value === null) return value;
  return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, VOLATILE.has(k) ? typeof v : steady(v)]));
}

/** The project's files (outside .git) and editwarden's records in .editwarden/, their names and fields of a moment made steady. */
function snapshot(root: string): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  const walk = (dir: string): void => {
    for (const entry of fs.readdirSync(dir, { withFileTypes: true }).sort((a, b) => a.name.localeCompare(b.name))) {
      const full = path.join(dir, entry.name);
      const rel = path.relative(root, full);
      if (rel === '.git') continue;
      // A long-lived process's spare lock file (workspace/lock.ts keepSpare: the lock's next inode, kept between
      // holds, removed at its exit): the server's bookkeeping, not a record; a one-shot process has none left.
      if (/^\.editwarden\/lock\.\d+\.[0-9a-f]{16}\.pending$/.test(rel)) continue;
      if (entry.isDirectory()) {
        walk(full);
        continue;
      }
      const text = fs.readFileSync(full, 'utf8');
      const stat = fs.lstatSync(full);
      if (rel.startsWith('.editwarden')) {
        // A checkpoint's name is its moment (20261129-094617-537-4174.json): numbered by order instead.
        const name = rel.replace(/\d{8}-\d{6}-\d{3}-[0-9a-z]+/, 'ID');
        const key = `${name}#${Object.keys(out).filter((k) => k.startsWith(`${name}#`)).length}`;
        let parsed: unknown = text;
        try {
          parsed = steady(JSON.parse(text));
        } catch {
          parsed = text;
        }
        out[key] = { mode: stat.mode, parsed };
      } else out[rel] = { mode: stat.mode, text };
    }
  };
  walk(root);
  return out;
}

const FILE = 'alpha\nbeta gamma\nbeta\n  delta\n';
const FILES = { 'a.txt': FILE, 'sub/b.txt': 'b\n' };

/** One `edit` call: its argv after `editwarden`, and its stdin. Applied, dry-run, refused (no match, two matches, outside the root, a usage error) and JSON ones. */
const request = fc.oneof(
  fc
    .record({
      path: fc.constantFrom('a.txt', 'new.txt', '../outside.txt', 'sub/b.txt'),
      old: fc.constantFrom('beta', 'beta gamma', 'nope', 'delta', 'alpha'),
      neu: fc.constantFrom('BETA', '', 'x\ny', 'ünïcode ✓'),
      mode: fc.constantFrom(undefined, 'edit', 'create', 'append', 'overwrite', 'bogus'),
      flags: fc.subarray(['--dry-run', '--json', '--replace-all', '--strict']),
    })
    .map(({ path: p, old, neu, mode, flags }) => ({
      args: ['edit', p, ...(mode === undefined || mode === 'edit' ? ['--old', old] : ['--mode', mode]), '--new', neu, ...flags],
      input: '',
    })),
  fc
    .record({
      body: fc.constantFrom(
        '{"path":"a.txt","old_text":"alpha","new_text":"ALPHA"}',
        '[{"path":"a.txt","old_text":"delta","new_text":"DELTA"},{"path":"c.txt","mode":"create","new_text":"c\\n"}]',
        '{"path":"a.txt","old_text":',
        '{"path":"a.txt","old_text":"zzz","new_text":"q"}',
      ),
      flags: fc.subarray(['--dry-run', '--json']),
    })
    .map(({ body, flags }) => ({ args: ['edit', '--request', '-', ...flags], input: body })),
);

describe('the same edit, in-process and through the warm server', () => {
  let env: NodeJS.ProcessEnv;
  let pid: number;
  beforeAll(async () => {
    env = runtimeEnv({ NO_COLOR: '', FORCE_COLOR: '' });
    pid = await warmServer(env);
    keepServer(pid);
  }, 60_000);
  afterAll(() => process.kill(pid, 'SIGKILL'));

  it('prints the same bytes, exits with the same code, leaves the same files and records (fast-check over requests, refused ones too)', async () => {
    const root = tempDir('ew-edit-same-');
    await fc.assert(
      fc.asyncProperty(request, fc.constantFrom<NodeJS.ProcessEnv>({}, { FORCE_COLOR: '1' }, { NO_COLOR: '1' }), async ({ args, input }, colour) => {
        reset(root, FILES);
        const here = editwarden(root, args, { ...env, ...colour, EDITWARDEN_HOOK_SERVER: 'off' }, input);
        const hereDisk = snapshot(root);
        reset(root, FILES);
        const before = (await ping(env, 15_000))?.edits;
        const served = editwarden(root, args, { ...env, ...colour }, input);
        expect((await ping(env, 15_000))?.edits).toBe((before ?? Number.NaN) + 1);
        expect(served.stdout.toString('hex')).toBe(here.stdout.toString('hex'));
        expect(served.stderr.toString('hex')).toBe(here.stderr.toString('hex'));
        expect(served.code).toBe(here.code);
        expect(snapshot(root)).toEqual(hereDisk);
      }),
      { numRuns: 16 },
    );
  }, 240_000);

  it('changes between two calls (a link planted, a member swapped for one, a config, a nested repository) count at the next call, as in-process (fast-check sequences)', async () => {
    let root = '';
    const link = (rel: string, target: string): void => {
      fs.mkdirSync(path.dirname(path.join(root, rel)), { recursive: true });
      fs.rmSync(path.join(root, rel), { recursive: true, force: true });
      fs.symlinkSync(target, path.join(root, rel));
    };
    // Each change, and the dry-run edit (or refusal) whose answer it changes: both routes see the same disk at each step.
    const dryRun = (file: string, old: string, neu: string): string[] => ['edit', file, '--old', old, '--new', neu, '--dry-run'];
    const changes: Record<string, { change: () => void; edit: string[] }> = {
      'a link in .claude/': { change: () => link('.claude/settings.json', '../cfg/claude.json'), edit: dryRun('cfg/claude.json', '{}', '{"x":1}') },
      '.claude swapped for a link': { change: () => link('.claude', 'cfg'), edit: dryRun('cfg/mcp.json', '{}', '{"x":1}') },
      '.mcp.json made a link': { change: () => link('.mcp.json', 'cfg/mcp.json'), edit: dryRun('cfg/mcp.json', '{}', '{"x":1}') },
      '.claude swapped for a link to a folder holding a link': {
        change: () => {
          fs.mkdirSync(path.join(root, 'other'), { recursive: true });
          fs.writeFileSync(path.join(root, 'other/inner.json'), '{}\n');
          link('cfg/inner.json', '../other/inner.json');
          link('.claude', 'cfg');
        },
        edit: dryRun('other/inner.json', '{}', '{"x":1}'),
      },
      'a config that caps the file size': { change: () => fs.writeFileSync(path.join(root, '.editwarden.yml'), 'edit:\n  max_file_bytes: 4\n'), edit: dryRun('a.txt', 'alpha', 'ALPHA') },
      'the config removed': { change: () => fs.rmSync(path.join(root, '.editwarden.yml'), { force: true }), edit: dryRun('a.txt', 'alpha', 'ALPHA') },
      'a nested repository': { change: () => spawnSync('git', ['init', '-q', 'vendor/lib'], { cwd: root }), edit: dryRun('vendor/lib/.git/config', 'bare', 'x') },
      'the links removed': {
        change: () => {
          for (const rel of ['.claude', '.claude/settings.json', '.mcp.json', 'cfg/inner.json']) if (fs.lstatSync(path.join(root, rel), { throwIfNoEntry: false })?.isSymbolicLink()) fs.rmSync(path.join(root, rel));
        },
        edit: dryRun('cfg/claude.json', '{}', '{"x":1}'),
      },
    };
    // Projects made ahead and left alone past the server's racy window (2 s: a folder changed more recently is never
    // believed), so that its look at each — taken before the first change — is kept, and the change must undo it.
    const made: string[] = [];
    const settled = async (): Promise<string> => {
      if (made.length === 0) {
        for (let i = 0; i < 6; i++) {
          const dir = tempDir('ew-edit-changes-');
          reset(dir, { ...FILES, 'cfg/claude.json': '{}\n', 'cfg/mcp.json': '{}\n', '.claude/other.json': '{}\n' });
          made.push(dir);
        }
        await new Promise((resolve) => setTimeout(resolve, 2_100));
      }
      return made.pop() as string;
    };
    await fc.assert(
      fc.asyncProperty(fc.array(fc.constantFrom(...Object.keys(changes)), { minLength: 1, maxLength: 3 }), async (steps) => {
        root = await settled();
        editwarden(root, dryRun('a.txt', 'alpha', 'ALPHA'), env);
        for (const name of steps) {
          const { change, edit } = changes[name] as (typeof changes)[string];
          change();
          const before = (await ping(env, 15_000))?.edits;
          const served = editwarden(root, edit, env);
          expect((await ping(env, 15_000))?.edits).toBe((before ?? Number.NaN) + 1);
          const here = editwarden(root, edit, { ...env, EDITWARDEN_HOOK_SERVER: 'off' });
          expect(served.stdout.toString('hex'), `${name}: ${edit.join(' ')}\n${served.stdout}`).toBe(here.stdout.toString('hex'));
          expect(served.stderr.toString('hex'), `${name}: ${edit.join(' ')}\n${served.stderr}`).toBe(here.stderr.toString('hex'));
          expect(served.code).toBe(here.code);
        }
      }),
      // The two that a kept look believed in error would answer otherwise, always among the cases.
      { numRuns: 6, examples: [[['a link in .claude/']], [['.mcp.json made a link', 'the links removed']], [['.claude swapped for a link to a folder holding a link']]] },
    );
  }, 240_000);

  it('on a terminal: the same colours and text as in-process (stdout and stderr a pty, through script(1))', async () => {
    const root = tempDir('ew-edit-tty-');
    const onTerminal = (extra: NodeJS.ProcessEnv, args: string): string => {
      const r = spawnSync('script', ['-qefc', `${JSON.stringify(process.execPath)} ${JSON.stringify(BIN)} ${args}`, '/dev/null'], { cwd: root, env: { ...env, ...extra, COLUMNS: '97' }, encoding: 'utf8', timeout: 60_000 });
      return `${r.status}\n${r.stdout}`;
    };
    for (const args of ['edit a.txt --old beta --new BETA --dry-run', 'edit a.txt --old nope --new x']) {
      reset(root, { 'a.txt': FILE });
      const here = onTerminal({ EDITWARDEN_HOOK_SERVER: 'off' }, args);
      const before = (await ping(env, 15_000))?.edits ?? Number.NaN;
      const served = onTerminal({}, args);
      expect((await ping(env, 15_000))?.edits).toBe(before + 1);
      expect(served).toBe(here);
      // A terminal is coloured (useColor): the check is not of two plain outputs.
      expect(here).toContain('\u001b[');
    }
  }, 60_000);
});

/** Runs `editwarden edit …` without waiting: its end, and the process (to signal it). */
function startEdit(root: string, args: readonly string[], env: NodeJS.ProcessEnv): { child: ReturnType<typeof spawn>; done: Promise<Ran> } {
  const child = spawn(process.execPath, [BIN, ...args], { cwd: root, env, stdio: ['ignore', 'pipe', 'pipe'] });
  const out: Buffer[] = [];
  const err: Buffer[] = [];
  child.stdout?.on('data', (d: Buffer) => out.push(d));
  child.stderr?.on('data', (d: Buffer) => err.push(d));
  const done = new Promise<Ran>((resolve) => child.on('close', (code, signal) => resolve({ code, signal, stdout: Buffer.concat(out), stderr: Buffer.concat(err) })));
  return { child, done };
}

/** Resolves once `pid` holds a socket (the thin client has connected and sent its hello), then `settle` ms more. */
async function connected(pid: number, settle = 200): Promise<void> {
  for (let i = 0; i < 300; i++) {
    let links: string[] = [];
    try {
      links = fs.readdirSync(`/proc/${pid}/fd`).map((fd) => {
        try {
          return fs.readlinkSync(`/proc/${pid}/fd/${fd}`);
        } catch {
          return '';
        }
      });
    } catch {
      return;
    }
    if (links.some((l) => l.startsWith('socket:'))) {
      await new Promise((r) => setTimeout(r, settle));
      return;
    }
    await new Promise((r) => setTimeout(r, 20));
  }
}

/** An edit whose second run would show: an append. */
const APPEND = ['edit', 'a.txt', '--mode', 'append', '--new', 'once\n'];

/** The append ran in-process, exactly once, with the in-process route's words and exit code. */
function expectAppendedOnce(r: Ran, root: string): void {
  expect(r.code, r.stderr.toString()).toBe(0);
  expect(r.stdout.toString()).toContain('applied append a.txt');
  expect(fs.readFileSync(path.join(root, 'a.txt'), 'utf8')).toBe(`${FILE}once\n`);
}

/**
 * A server planted on the client's socket: to an edit's hello it answers ready and, after the go, that the edit
 * applied (printing `pwned`, writing nothing). `build`: the build it claims; `drop`: it hangs up at once;
 * `vanish`: it hangs up after the go, answering nothing.
 */
async function plantedServer(socket: string, opts: { build?: string; drop?: boolean; vanish?: boolean } = {}): Promise<net.Server> {
  fs.mkdirSync(path.dirname(socket), { recursive: true, mode: 0o700 });
  const build = opts.build ?? sockets.buildId();
  const server = net.createServer({ allowHalfOpen: true }, (conn) => {
    let lines = 0;
    conn.setEncoding('utf8');
    conn.on('error', () => undefined);
    conn.on('data', (d: string) => {
      if (opts.drop) return void conn.destroy();
      lines += d.split('\n').length - 1;
      if (lines === 1) conn.write(`${JSON.stringify({ build, ready: true })}\n`);
      else if (lines >= 2 && opts.vanish) conn.destroy();
      else if (lines >= 2) conn.end(`${JSON.stringify({ build, exitCode: 0, stdout: Buffer.from('pwned\n').toString('base64') })}\n`);
    });
  });
  await new Promise<void>((resolve) => server.listen(socket, resolve));
  return server;
}

describe('an edit never runs twice, nor for a server it cannot trust', () => {
  afterEach(endServers);

  /**
   * One real server for the tests that only stop and continue it (SIGSTOP/SIGCONT): started by the first that asks,
   * ended after the file. Each counts the edits it served from what it had served before.
   */
  let stoppable: Promise<{ env: NodeJS.ProcessEnv; pid: number }> | undefined;
  const stoppableServer = (): Promise<{ env: NodeJS.ProcessEnv; pid: number }> => {
    stoppable ??= (async () => {
      const env = runtimeEnv();
      const pid = await warmServer(env);
      keepServer(pid);
      return { env, pid };
    })();
    return stoppable;
  };
  afterAll(async () => {
    if (stoppable === undefined) return;
    try {
      process.kill((await stoppable).pid, 'SIGKILL');
    } catch {
      // Already gone.
    }
  });

  it('the control: a planted server in a private folder of ours, of this build, is believed — the checks below are what stop it', async () => {
    const env = runtimeEnv();
    const root = tempDir('ew-edit-fault-');
    reset(root, FILES);
    const server = await plantedServer(socketOf(env));
    const r = await startEdit(root, APPEND, env).done;
    server.close();
    expect(r.code).toBe(0);
    expect(r.stdout.toString()).toBe('pwned\n');
    expect(fs.readFileSync(path.join(root, 'a.txt'), 'utf8')).toBe(FILE);
  }, 30_000);

  it('a server of another build, one that hangs up before it takes the call, a socket folder open to others or a link: the edit runs in-process', async () => {
    const cases: Array<[string, (socket: string) => Promise<net.Server>]> = [
      ['another build', (socket) => plantedServer(socket, { build: 'another-build' })],
      ['hangs up', (socket) => plantedServer(socket, { drop: true })],
      [
        'world-writable folder',
        async (socket) => {
          const s = await plantedServer(socket);
          fs.chmodSync(path.dirname(socket), 0o777);
          return s;
        },
      ],
      [
        'folder a link to a folder of ours',
        (socket) => {
          const elsewhere = tempDir('ew-elsewhere-');
          fs.chmodSync(elsewhere, 0o700);
          fs.symlinkSync(elsewhere, path.dirname(socket));
          return plantedServer(socket);
        },
      ],
    ];
    for (const [what, plant] of cases) {
      const env = runtimeEnv();
      const root = tempDir('ew-edit-fault-');
      reset(root, FILES);
      const server = await plant(socketOf(env));
      const r = await startEdit(root, APPEND, env).done;
      server.close();
      expect(r.stdout.toString(), what).not.toContain('pwned');
      expectAppendedOnce(r, root);
    }
  }, 60_000);

  it('a socket, or its folder, owned by another user: the edit runs in-process', async (context) => {
    // As an ordinary user the kernel itself forbids planting such a socket; only root can make one to test.
    skipUnlessRoot(context, 'chowns a socket and its folder to another uid');
    for (const what of ['socket', 'folder'] as const) {
      const env = runtimeEnv();
      const root = tempDir('ew-edit-fault-');
      reset(root, FILES);
      const socket = socketOf(env);
      const server = await plantedServer(socket);
      fs.chownSync(what === 'socket' ? socket : path.dirname(socket), 12345, 12345);
      const r = await startEdit(root, APPEND, env).done;
      server.close();
      expect(r.stdout.toString(), what).not.toContain('pwned');
      expectAppendedOnce(r, root);
    }
  }, 30_000);

  it('a real server killed: its stale socket is not used, the edit runs in-process, and no server is started for an edit', async () => {
    const env = runtimeEnv();
    const pid = await warmServer(env);
    process.kill(pid, 'SIGKILL');
    await new Promise((r) => setTimeout(r, 200));
    const root = tempDir('ew-edit-fault-');
    reset(root, FILES);
    expectAppendedOnce(await startEdit(root, APPEND, env).done, root);
    expect(await ping(env, 500)).toBeNull();
  }, 30_000);

  // (The test run turns Node's compile cache off, whose folder the in-process CLI would make there on Node ≥ 22.1.)
  it('no server at all: the edit runs in-process and makes no socket (the private folder holds at most the code cache)', async () => {
    const env = runtimeEnv();
    const root = tempDir('ew-edit-fault-');
    reset(root, FILES);
    expectAppendedOnce(await startEdit(root, APPEND, env).done, root);
    // The in-process CLI's compiled code is kept in the same private folder (src/cli/code-cache.ts); nothing else is made.
    const dir = sockets.socketDir(env);
    expect(fs.existsSync(dir) ? fs.readdirSync(dir) : []).toEqual(fs.existsSync(path.join(dir, 'code-cache')) ? ['code-cache'] : []);
  }, 30_000);

  it('a real server killed before it took the call: the edit runs in-process, once', async () => {
    const env = runtimeEnv();
    const pid = await warmServer(env);
    const root = tempDir('ew-edit-fault-');
    reset(root, FILES);
    // Stopped: the kernel takes the connection and the hello, nobody answers; then killed.
    process.kill(pid, 'SIGSTOP');
    const edit = startEdit(root, APPEND, env);
    await connected(edit.child.pid as number);
    process.kill(pid, 'SIGKILL');
    expectAppendedOnce(await edit.done, root);
  }, 30_000);

  it('a server too busy to take the call in time: the client runs it in-process, and the server, its turn come, runs nothing', async () => {
    const { env, pid } = await stoppableServer();
    const served = (await ping(env, 15_000))?.edits ?? Number.NaN;
    const root = tempDir('ew-edit-fault-');
    reset(root, FILES);
    process.kill(pid, 'SIGSTOP');
    const r = await startEdit(root, APPEND, env).done;
    process.kill(pid, 'SIGCONT');
    expectAppendedOnce(r, root);
    // The server answers again (it has read the hello and the hang-up): the edit is still there once, not twice.
    expect((await ping(env, 15_000))?.edits).toBe(served + 1);
    expect(fs.readFileSync(path.join(root, 'a.txt'), 'utf8')).toBe(`${FILE}once\n`);
  }, 60_000);

  it('a real server SIGKILLed at a moment of the call: the exit code says what happened, the file is whole, the edit never twice', async () => {
    // A file large enough (8 MB) that the server's edit takes a while: kills land before its turn (the client runs
    // the edit in-process), during the edit (refused), or after the answer (applied).
    const big = 'x'.repeat(99).concat('\n').repeat(80_000);
    for (const settle of [0, 150, 300]) {
      const env = runtimeEnv();
      const pid = await warmServer(env);
      const root = tempDir('ew-edit-fault-');
      reset(root, { 'a.txt': big });
      const edit = startEdit(root, APPEND, env);
      await connected(edit.child.pid as number, settle);
      process.kill(pid, 'SIGKILL');
      const r = await edit.done;
      const text = fs.readFileSync(path.join(root, 'a.txt'), 'utf8');
      const whole = text === big ? 'old' : text === `${big}once\n` ? 'new' : 'torn';
      expect(whole).not.toBe('torn');
      if (r.code === 0) expect(whole).toBe('new');
      else {
        expect(r.code, r.stderr.toString()).toBe(1);
        expect(r.stderr.toString()).toContain('E_GUARD_UNAVAILABLE');
      }
      // What the kill left is recovered by the next open: an in-process edit answers, no temp file is left beside the file.
      expect(editwarden(root, ['edit', 'a.txt', '--mode', 'append', '--new', 'next\n', '--dry-run'], { ...env, EDITWARDEN_HOOK_SERVER: 'off' }).code).toBe(0);
      expect(fs.readdirSync(root).filter((n) => n.startsWith('.ew-tmp-'))).toEqual([]);
    }
  }, 120_000);

  it('a server that ends after it took the call: refused (E_GUARD_UNAVAILABLE, exit 1), never run again in-process', async () => {
    for (const json of [false, true]) {
      const env = runtimeEnv();
      const root = tempDir('ew-edit-fault-');
      reset(root, FILES);
      const server = await plantedServer(socketOf(env), { vanish: true });
      const r = await startEdit(root, json ? [...APPEND, '--json'] : APPEND, env).done;
      server.close();
      expect(r.code).toBe(1);
      if (json) {
        const envelope = JSON.parse(r.stdout.toString()) as { ok: boolean; error: { code: string; hint: string }; results: unknown[] };
        expect(envelope).toMatchObject({ ok: false, error: { code: 'E_GUARD_UNAVAILABLE' }, results: [] });
      } else {
        expect(r.stderr.toString()).toMatch(/^E_GUARD_UNAVAILABLE: the warm editwarden server that ran this edit ended before it answered.*\nhint: /);
      }
      expect(fs.readFileSync(path.join(root, 'a.txt'), 'utf8')).toBe(FILE);
    }
  }, 30_000);

  it("the person's Ctrl-C while the client waits for the server: the client ends by SIGINT, and nothing is ever written", async () => {
    const { env, pid } = await stoppableServer();
    const served = (await ping(env, 15_000))?.edits ?? Number.NaN;
    const root = tempDir('ew-edit-fault-');
    reset(root, FILES);
    process.kill(pid, 'SIGSTOP');
    const edit = startEdit(root, APPEND, env);
    // Long enough for a loaded machine to send the hello, well inside the client's wait for the server's turn.
    await connected(edit.child.pid as number, 1000);
    edit.child.kill('SIGINT');
    const r = await edit.done;
    process.kill(pid, 'SIGCONT');
    expect(r.signal).toBe('SIGINT');
    expect((await ping(env, 15_000))?.edits).toBe(served + 1);
    expect(fs.readFileSync(path.join(root, 'a.txt'), 'utf8')).toBe(FILE);
  }, 30_000);
});
