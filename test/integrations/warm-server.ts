/**
 * A warm hook server of its own for a test: a private runtime folder, the
 * server started as a first hook or shell client starts it (the same
 * detached `editwarden hook-server` process), its ping (pid, calls served),
 * and the servers a test started ended by pid afterwards.
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { expect } from 'vitest';
import { BIN, tempDir } from './helpers.js';

const REPO = path.dirname(path.dirname(BIN));

interface SocketModule {
  buildId(): string;
  socketPath(env: NodeJS.ProcessEnv, build: string): string;
  socketDir(env: NodeJS.ProcessEnv): string;
  ensurePrivateDir(dir: string): string | null;
  startClaimPath(socket: string): string;
}
interface ClientModule {
  askServer(socket: string, request: { build: string; ping: true }, timeoutMs: number): Promise<{ pid?: number; calls?: number; shells?: number; edits?: number } | null>;
}
// The built modules: the build id is the one the binary computes (it names the dist/ files).
export const sockets = (await import(path.join(REPO, 'dist', 'cli', 'hook-socket.js'))) as SocketModule;
export const client = (await import(path.join(REPO, 'dist', 'cli', 'hook-client.js'))) as ClientModule;

const started: number[] = [];

/** Ends the servers this test file started (by pid). */
export function endServers(): void {
  for (const pid of started.splice(0)) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // Already gone.
    }
  }
}

/** An environment whose hook server lives in a runtime folder of its own. */
export function runtimeEnv(extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
  const runtime = tempDir('ew-rt-');
  fs.chmodSync(runtime, 0o700);
  return { ...process.env, XDG_RUNTIME_DIR: runtime, EDITWARDEN_HOOK_SERVER_IDLE_MS: '20000', ...extra };
}

/** The socket of this build's server for `env`. */
export function socketOf(env: NodeJS.ProcessEnv): string {
  return sockets.socketPath(env, sockets.buildId());
}

/**
 * A server start under way for `env`: the claim a client makes before it starts one (hook-socket.ts claimStart), fresh.
 * A client that then finds no server it can use decides by itself without starting another. For a fault test whose
 * socket a planted server holds: the server a client would start there cannot bind that socket, so it would only load
 * the CLI and leave (~0.2 s of CPU each), which is not what the test is about.
 */
export function startUnderWay(env: NodeJS.ProcessEnv): void {
  fs.writeFileSync(sockets.startClaimPath(socketOf(env)), '', { mode: 0o600 });
}

export async function ping(env: NodeJS.ProcessEnv, waitMs = 3000): Promise<{ pid?: number; calls?: number; shells?: number; edits?: number } | null> {
  const build = sockets.buildId();
  return client.askServer(sockets.socketPath(env, build), { build, ping: true }, waitMs);
}

/**
 * The answer of a server that is there: a busy server on a loaded machine (a load of 35 on 2 cores in CI's
 * ordinary-user pass) can take longer than a hook's 3 s to answer a ping, which is not the same as no server.
 */
async function pingAnswered(env: NodeJS.ProcessEnv): Promise<{ pid?: number; calls?: number; shells?: number; edits?: number } | null> {
  for (let attempt = 0; attempt < 3; attempt++) {
    const p = await ping(env, 15_000);
    if (p !== null) return p;
  }
  return null;
}

/**
 * This build's server for `env`, and waits until it answers; its pid (ended after the test unless `keepServer`).
 * Started the way a client that finds none starts it — the same detached `editwarden hook-server` process — or by
 * `start` (a first hook that starts it and decides by itself).
 */
export async function warmServer(env: NodeJS.ProcessEnv, start?: () => Promise<unknown>): Promise<number> {
  if (start) await start();
  else {
    const build = sockets.buildId();
    expect(sockets.ensurePrivateDir(sockets.socketDir(env))).toBeNull();
    // Its output goes to a file beside its socket folder: a server that ended early says why in the failure that follows.
    const log = fs.openSync(serverLog(env), 'a', 0o600);
    try {
      spawn(process.execPath, [BIN, 'hook-server', '--socket', sockets.socketPath(env, build), '--build', build], { env, detached: true, stdio: ['ignore', log, log], cwd: '/' }).unref();
    } finally {
      fs.closeSync(log);
    }
  }
  for (let i = 0; i < 100; i++) {
    const p = await ping(env);
    if (p?.pid) {
      started.push(p.pid);
      return p.pid;
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error('the hook server did not start');
}

/** A server the caller ends itself (one that serves more than one test). */
export function keepServer(pid: number): void {
  started.splice(started.indexOf(pid), 1);
}

/** The calls the server for `env` has served so far (throws when none answers). */
export async function callsServed(env: NodeJS.ProcessEnv): Promise<number> {
  const p = await pingAnswered(env);
  if (typeof p?.calls !== 'number') throw new Error(noServer(env, p));
  return p.calls;
}

/** The guarded shell calls the server for `env` has served so far (throws when none answers). */
export async function shellsServed(env: NodeJS.ProcessEnv): Promise<number> {
  const p = await pingAnswered(env);
  if (typeof p?.shells !== 'number') throw new Error(noServer(env, p));
  return p.shells;
}

/** Where warmServer sends the output of the server it starts for `env`. */
function serverLog(env: NodeJS.ProcessEnv): string {
  return path.join(env.XDG_RUNTIME_DIR ?? tempDir('ew-rt-log-'), 'hook-server.log');
}

/** Why no server answered, as far as the outside shows: the answer, the socket, the servers started, their output. */
function noServer(env: NodeJS.ProcessEnv, answer: unknown): string {
  const socket = socketOf(env);
  const alive = started.map((pid) => `${pid}: ${fs.existsSync(`/proc/${pid}`) ? 'running' : 'gone'}`);
  let output = '';
  try {
    output = fs.readFileSync(serverLog(env), 'utf8').slice(-2000);
  } catch {
    output = '(none kept)';
  }
  return `no hook server answers: ping answer ${JSON.stringify(answer)}; socket ${fs.existsSync(socket) ? 'present' : 'missing'}; servers started ${alive.join(', ') || 'none'}; their output: ${output}`;
}
