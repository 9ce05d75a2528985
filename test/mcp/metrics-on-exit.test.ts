/**
 * The MCP session's run is finished — metrics.json written, its end in the
 * event log — on every way a stdio client leaves: closing stdin, SIGINT,
 * SIGTERM, SIGHUP (a client in a closing terminal), SIGINT then SIGTERM in
 * quick succession, and while a long call is still running (the call is
 * cancelled; the session does not wait for a 300 s build nobody will read).
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { randomInt } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { readEvents } from '../../src/runs/events-read.js';
import { mcpProgram, REPO, tempRoot } from './helpers/server.js';

function start(root: string): { child: ChildProcess; send: (m: unknown) => void; replies: () => Array<{ id?: number; result?: unknown }>; exited: Promise<{ code: number | null; signal: string | null }> } {
  const child = spawn(process.execPath, [mcpProgram(), 'mcp', '--root', root], { stdio: ['pipe', 'pipe', 'pipe'], cwd: REPO, env: { ...process.env, NO_COLOR: '1' } });
  let out = '';
  child.stdout?.on('data', (d: Buffer) => {
    out += d.toString('utf8');
  });
  child.stderr?.resume();
  const exited = new Promise<{ code: number | null; signal: string | null }>((resolve) => child.on('exit', (code, signal) => resolve({ code, signal })));
  return {
    child,
    send: (m) => child.stdin?.write(`${JSON.stringify(m)}\n`),
    replies: () =>
      out
        .split('\n')
        .filter((l) => l.trim() !== '')
        .map((l) => JSON.parse(l) as { id?: number; result?: unknown }),
    exited,
  };
}

async function until(check: () => boolean, ms = 20_000): Promise<void> {
  const end = Date.now() + ms;
  while (!check()) {
    if (Date.now() > end) throw new Error('timed out waiting');
    await new Promise((r) => setTimeout(r, 25));
  }
}

/** Whether a process runs the command line `command` (a build of this test's own, told apart by its odd duration). */
function running(command: string): boolean {
  return spawnSync('pgrep', ['-x', '-f', command], { encoding: 'utf8' }).stdout.trim() !== '';
}

/**
 * A session that made one edit (its run is open), then is left by `leave`; the run's metrics.json must exist after
 * exit. With `verifyInFlight`, a build of 300 s is running when it is left (its own `sleep` process is seen first),
 * and must be gone once the session has ended.
 */
async function leaveAfterEdit(leave: (child: ChildProcess) => void, extra?: { verifyInFlight: boolean }): Promise<{ root: string; ms: number }> {
  const build = `sleep 300.${randomInt(1e6, 1e7)}`;
  const root = tempRoot({ 'a.txt': 'a\n', '.editwarden.yml': `verify:\n  build: "${build}"\n  timeout: 600\n` });
  const s = start(root);
  s.send({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'test', version: '0' } } });
  await until(() => s.replies().some((r) => r.id === 1));
  s.send({ jsonrpc: '2.0', method: 'notifications/initialized' });
  s.send({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'edit_file', arguments: { path: 'a.txt', old_text: 'a', new_text: 'b' } } });
  await until(() => s.replies().some((r) => r.id === 2));
  if (extra?.verifyInFlight) {
    s.send({ jsonrpc: '2.0', id: 3, method: 'tools/call', params: { name: 'verify', arguments: { kind: 'build' } } });
    // The build is running: its own `sleep` process exists (in the sandbox, under the server).
    await until(() => running(build));
  }
  const started = Date.now();
  leave(s.child);
  await s.exited;
  const ms = Date.now() - started;
  // Cancelled, not left behind: the build's process goes with the session.
  if (extra?.verifyInFlight) await until(() => !running(build));
  return { root, ms };
}

function expectFinished(root: string): void {
  const runs = fs.readdirSync(path.join(root, '.editwarden', 'runs'));
  expect(runs).toHaveLength(1);
  const metrics = JSON.parse(fs.readFileSync(path.join(root, '.editwarden', 'runs', runs[0] as string, 'metrics.json'), 'utf8')) as { calls: number; files: Array<{ path: string }> };
  expect(metrics.files.map((f) => f.path)).toEqual(['a.txt']);
  const events = readEvents(path.join(root, '.editwarden')).events;
  expect(events.map((e) => `${e.kind} ${e.route.via}`)).toEqual(expect.arrayContaining(['edit mcp', 'run-end mcp']));
  // The client's initialize name is the route's client.
  expect(events.every((e) => e.route.client === 'test')).toBe(true);
}

describe('the MCP session writes its metrics on every exit path', () => {
  for (const [name, leave] of [
    ['the client closes stdin', (c: ChildProcess) => c.stdin?.end()],
    ['SIGINT', (c: ChildProcess) => c.kill('SIGINT')],
    ['SIGTERM', (c: ChildProcess) => c.kill('SIGTERM')],
    ['SIGHUP (the terminal closed)', (c: ChildProcess) => c.kill('SIGHUP')],
  ] as const) {
    it(`when ${name}`, async () => {
      const { root } = await leaveAfterEdit(leave);
      expectFinished(root);
    }, 60_000);
  }

  it('when the client leaves while a 300 s build runs: the build is cancelled and the run finished at once, even under SIGINT then SIGTERM', async () => {
    const { root, ms } = await leaveAfterEdit(
      (c) => {
        c.kill('SIGINT');
        setTimeout(() => c.kill('SIGTERM'), 50);
      },
      { verifyInFlight: true },
    );
    // Not after the build: a session that waited for it would take its 300 s.
    expect(ms).toBeLessThan(60_000);
    expectFinished(root);
  }, 90_000);

  it('when the client closes stdin while a 300 s build runs', async () => {
    const { root, ms } = await leaveAfterEdit((c) => c.stdin?.end(), { verifyInFlight: true });
    expect(ms).toBeLessThan(60_000);
    expectFinished(root);
  }, 90_000);
});
