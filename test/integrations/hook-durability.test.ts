/**
 * checkpoints.durability on the hook route: the warm hook server (a real
 * process under strace) answers a client's PreToolUse once the checkpoint of
 * the planned file is written, and makes it durable right after the answer —
 * before it answers anything else; a hook deciding in its own process (one
 * shot) is strict: the checkpoint is on disk before its answer.
 */
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { BIN, cleanup, project, tempDir } from './helpers.js';

const REPO = path.dirname(path.dirname(BIN));
const sockets = (await import(path.join(REPO, 'dist', 'cli', 'hook-socket.js'))) as {
  buildId(): string;
  socketPath(env: NodeJS.ProcessEnv, build: string): string;
  socketDir(env: NodeJS.ProcessEnv): string;
  ensurePrivateDir(dir: string): string | null;
};
const client = (await import(path.join(REPO, 'dist', 'cli', 'hook-client.js'))) as {
  askServer(socket: string, request: { build: string; ping: true }, timeoutMs: number): Promise<{ pid?: number } | null>;
};

afterAll(cleanup);
const started: number[] = [];
afterEach(() => {
  for (const pid of started.splice(0)) {
    try {
      process.kill(pid, 'SIGTERM');
    } catch {
      // Already gone.
    }
  }
});

function hook(root: string, input: unknown, env: NodeJS.ProcessEnv): { code: number | null; stdout: string } {
  const r = spawnSync(process.execPath, [BIN, 'hook', 'claude', 'pre-tool-use', '--root', root], { env, input: JSON.stringify(input), encoding: 'utf8' });
  return { code: r.status, stdout: r.stdout };
}

const edit = (root: string, from: string, to: string) => ({ tool_name: 'Edit', tool_use_id: `t-${from}`, tool_input: { file_path: path.join(root, 'a.txt'), old_string: from, new_string: to } });
const allowed = (out: string): boolean => !out.includes('"deny"');

/** The lines of an strace log (fds shown with their paths: -y). */
async function logLines(log: string, until: RegExp): Promise<string[]> {
  for (let i = 0; i < 100; i++) {
    const text = fs.existsSync(log) ? fs.readFileSync(log, 'utf8') : '';
    if (until.test(text)) return text.split('\n');
    await new Promise((r) => setTimeout(r, 50));
  }
  return fs.readFileSync(log, 'utf8').split('\n');
}

const MANIFEST_FSYNC = /fsync\(\d+<[^>]*\/checkpoints\/manifests\/files\/[^>]*\.json>\)/;

describe('a PreToolUse checkpoint on the hook route', () => {
  it('the warm server: answer first, the checkpoint on disk right after, before the next answer', async () => {
    const runtime = tempDir('ew-rt-');
    fs.chmodSync(runtime, 0o700);
    const env = { ...process.env, XDG_RUNTIME_DIR: runtime, EDITWARDEN_HOOK_SERVER_IDLE_MS: '20000', CLAUDE_PROJECT_DIR: '' };
    const build = sockets.buildId();
    const socket = sockets.socketPath(env, build);
    expect(sockets.ensurePrivateDir(sockets.socketDir(env))).toBeNull();
    const log = path.join(tempDir('ew-strace-'), 'server.txt');
    const tracer = spawn('strace', ['-f', '-y', '-qq', '-s', '256', '-e', 'trace=fsync,write,writev,sendto,sendmsg', '-o', log, process.execPath, BIN, 'hook-server', '--socket', socket, '--build', build], {
      env,
      detached: true,
      stdio: 'ignore',
      cwd: '/',
    });
    started.push(tracer.pid as number);
    let pid: number | undefined;
    for (let i = 0; i < 200 && pid === undefined; i++) {
      pid = (await client.askServer(socket, { build, ping: true }, 3000))?.pid;
      if (pid === undefined) await new Promise((r) => setTimeout(r, 100));
    }
    expect(pid).toBeDefined();
    started.push(pid as number);

    const root = project({ 'a.txt': 'one\ntwo\nthree\n' });
    const first = hook(root, edit(root, 'one', 'ONE'), env);
    expect(allowed(first.stdout), first.stdout).toBe(true);
    const second = hook(root, edit(root, 'two', 'TWO'), env);
    expect(allowed(second.stdout), second.stdout).toBe(true);
    process.kill(pid as number, 'SIGTERM');

    const lines = await logLines(log, /\+\+\+ (exited|killed)/);
    // The server's answers to hook calls (not pings): the reply carries the hook's exit code and output.
    const answers = lines.flatMap((l, i) => (/(write|writev|sendto|sendmsg)\(\d+<(UNIX|socket)[^>]*>.*exitCode/.test(l) ? [i] : []));
    const manifests = lines.flatMap((l, i) => (MANIFEST_FSYNC.test(l) ? [i] : []));
    expect(answers, 'two hook answers').toHaveLength(2);
    expect(manifests.length, 'two checkpoint manifests made durable').toBeGreaterThanOrEqual(2);
    // The first checkpoint reaches the disk after the first answer and before the second answer.
    const afterFirst = manifests.filter((m) => m > (answers[0] as number));
    expect(afterFirst.length).toBeGreaterThanOrEqual(2);
    expect(manifests.filter((m) => m < (answers[0] as number))).toEqual([]);
    expect(afterFirst[0] as number).toBeLessThan(answers[1] as number);
  }, 60_000);

  it('a hook deciding in its own process is strict: the checkpoint is on disk before it answers', async () => {
    const root = project({ 'a.txt': 'one\ntwo\n' });
    const log = path.join(tempDir('ew-strace-'), 'hook.txt');
    const r = spawnSync('strace', ['-f', '-y', '-qq', '-e', 'trace=fsync,write', '-o', log, process.execPath, BIN, 'hook', 'claude', 'pre-tool-use', '--root', root], {
      env: { ...process.env, EDITWARDEN_HOOK_SERVER: 'off' },
      input: JSON.stringify(edit(root, 'one', 'ONE')),
      encoding: 'utf8',
    });
    expect(r.status).toBe(0);
    expect(allowed(r.stdout), r.stdout).toBe(true);
    const lines = fs.readFileSync(log, 'utf8').split('\n');
    const manifest = lines.findIndex((l) => MANIFEST_FSYNC.test(l));
    const answer = lines.findIndex((l) => /write\(1</.test(l));
    expect(manifest).toBeGreaterThan(-1);
    expect(answer).toBeGreaterThan(manifest);
  });
});
