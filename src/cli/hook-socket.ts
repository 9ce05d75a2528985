/**
 * Where the warm hook server listens, and whether a hook may believe it.
 * Shared by the thin hook client (hook-client.ts, loaded without the CLI
 * bundle) and the server (hook-server.ts): imports only Node's built-ins.
 *
 * The socket lives in a private folder of this user: `$XDG_RUNTIME_DIR`
 * (made 0700 and user-owned by the login session) or the temp folder, in
 * `editwarden-<uid>/`. Node exposes no SO_PEERCRED, so a server cannot ask
 * who is on the other end and a client cannot ask who listens: the folder's
 * permissions are the whole check. A folder that is a symlink, owned by
 * another user, or open to group or others is not used; neither is a socket
 * file owned by another user. Inside a 0700 folder of ours nobody else can
 * plant or swap a socket between the check and the connect.
 *
 * The socket's name carries the build (package version, the bundle's
 * identity on disk, this Node): a hook never talks to a server of another
 * editwarden version or build, and the server checks the build again on
 * every call.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type net from 'node:net';
import type { CommandResult, RunnableSpec } from '../verify/spawn-run.js';

/**
 * Paths next to this module come from `import.meta.dirname` (the bundles
 * rewrite it to this module's tsc output folder): URL helpers cost the thin
 * client ~4 ms on first use.
 */

/** The binary a server is started with (this package's bin script). */
export function binPath(): string {
  return path.join(import.meta.dirname, '../../bin/editwarden');
}

/**
 * This build's identity: what a rebuild or an upgrade changes (the bundle's
 * inode, size and time, package.json's too), and the Node running it.
 */
export function buildId(): string {
  const parts = [process.version, process.execPath];
  for (const rel of ['../cli-bundle/cli.mjs', '../../package.json', './hook-client.js']) {
    try {
      const s = fs.statSync(path.join(import.meta.dirname, rel));
      parts.push(`${rel}:${s.dev}:${s.ino}:${s.size}:${Math.trunc(s.mtimeMs)}`);
    } catch {
      parts.push(`${rel}:missing`);
    }
  }
  return fnv1a(parts.join('\n'));
}

/**
 * FNV-1a, 2 × 32 bits: names the socket of a build. Not a security check
 * (the folder is) — node:crypto is not loaded for it, it costs the thin
 * client ~5 ms per hook.
 */
export function fnv1a(text: string): string {
  let a = 0x811c9dc5;
  let b = 0x01000193;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    a = Math.imul(a ^ c, 0x01000193) >>> 0;
    b = Math.imul(b ^ c, 0x811c9dc5 | 1) >>> 0;
  }
  return a.toString(16).padStart(8, '0') + b.toString(16).padStart(8, '0');
}

function uid(): number {
  return typeof process.getuid === 'function' ? process.getuid() : -1;
}

/** The folder the socket lives in (not checked: see privateDir). */
export function socketDir(env: NodeJS.ProcessEnv): string {
  const base = env.XDG_RUNTIME_DIR && path.isAbsolute(env.XDG_RUNTIME_DIR) ? env.XDG_RUNTIME_DIR : os.tmpdir();
  return path.join(base, `editwarden-${uid()}`);
}

/** The socket of this user's server for this build. */
export function socketPath(env: NodeJS.ProcessEnv, build: string): string {
  return path.join(socketDir(env), `hook-${build}.sock`);
}

/** Why `dir` cannot hold a socket a hook believes, or null when it is a private folder of this user. */
export function unsafeDir(dir: string): string | null {
  let s: fs.Stats;
  try {
    s = fs.lstatSync(dir);
  } catch {
    return `${dir} does not exist`;
  }
  if (s.isSymbolicLink() || !s.isDirectory()) return `${dir} is not a folder`;
  if (s.uid !== uid()) return `${dir} belongs to uid ${s.uid}`;
  if ((s.mode & 0o077) !== 0) return `${dir} is open to other users (mode ${(s.mode & 0o777).toString(8)})`;
  return null;
}

/** Makes the private folder if it is missing; returns why it cannot be used, or null. */
export function ensurePrivateDir(dir: string): string | null {
  if (fs.existsSync(dir)) return unsafeDir(dir);
  try {
    fs.mkdirSync(dir, { mode: 0o700 });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') return `${dir} cannot be made`;
  }
  return unsafeDir(dir);
}

/** Why the socket file cannot be believed (not a socket, another user's), or null. Missing is reported as 'missing'. */
export function unsafeSocket(file: string): string | null {
  let s: fs.Stats;
  try {
    s = fs.lstatSync(file);
  } catch {
    return 'missing';
  }
  if (!s.isSocket()) return `${file} is not a socket`;
  if (s.uid !== uid()) return `${file} belongs to uid ${s.uid}`;
  return null;
}

/**
 * A hook's claim to be starting the server of `socket`: the file `<socket>.starting`, in the same private folder.
 * Hooks fired back to back (a client's pre- and post-hook, parallel sessions) all find no server while the first one
 * they started is still loading (~0.6 s of CPU, more under load); each would start one more that loads everything
 * only to fail at listen(). A claim younger than START_CLAIM_MS leaves the start to its maker (the hook decides by
 * itself meanwhile, as it does while no server is up); the server removes it once it listens; an older one is stale
 * (its server died before listening) and is taken over. Any failure to claim starts a server, as before.
 */
const START_CLAIM_MS = 10_000;

export function startClaimPath(socket: string): string {
  return `${socket}.starting`;
}

/** True when this hook should start the server: it made the claim, or took over a stale one, or could not tell. */
export function claimStart(socket: string, now = Date.now()): boolean {
  const claim = startClaimPath(socket);
  try {
    fs.closeSync(fs.openSync(claim, 'wx', 0o600));
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') return true;
  }
  try {
    if (now - fs.lstatSync(claim).mtimeMs < START_CLAIM_MS) return false;
    const at = new Date(now);
    fs.utimesSync(claim, at, at);
  } catch {
    // Removed meanwhile (its server now listens) or unreadable: start one; a second server only fails at listen().
  }
  return true;
}

/** One call from a hook to the server: the hook's argv, its stdin, and the process state the slow path reads. */
export interface HookRequest {
  build: string;
  argv: string[];
  stdin: string;
  env: Record<string, string>;
  cwd: string;
  umask: number;
}

/** The server's answer: the hook's output, or `fallback` (the hook decides by itself). */
export interface HookReply {
  build: string;
  exitCode?: number;
  stdout?: string;
  stderr?: string;
  fallback?: string;
  /** To a ping: the server's pid and CPU so far (µs), for the bench and the tests. */
  pid?: number;
  calls?: number;
  /** Of `calls`, the guarded shell's (hook-shell.ts). */
  shells?: number;
  /** Of `calls`, the thin edit's (hook-edit.ts). */
  edits?: number;
  cpu?: number;
}

/**
 * The guarded shell's exchange (hook-shell-client.ts ⇄ hook-shell.ts), one JSON per line on one connection:
 * the client's `ShellHello`; the server's `ShellReply` (run this, or done, or decide in-process); after a run,
 * the client's `ShellEnd`; the server's final `ShellReply` (done).
 */
export interface ShellHello {
  build: string;
  shell: { argv: string[]; env: Record<string, string>; cwd: string; umask: number };
}

export interface ShellReply {
  build: string;
  /** Run this prepared command (its sandbox's argument vector, environment and witness) in the client, then send `ShellEnd`. */
  run?: { spec: RunnableSpec; cwd: string; display: string };
  /** Done: the client writes `stderr` (base64, editwarden's own words) and exits with this code. */
  exitCode?: number;
  stderr?: string;
  /** Not served (another build, not a shell call the server reads): the client decides in-process, nothing ran. */
  fallback?: string;
}

/**
 * A terminal fact of one of the client's outputs, as the in-process command would have read it from
 * process.stdout / process.stderr: whether it is a terminal (colour, cli/output.ts useColor) and its width.
 */
export interface OutputFacts {
  isTTY: boolean;
  columns?: number;
}

/**
 * The thin edit's exchange (edit-client.ts ⇄ hook-edit.ts), one JSON per line on one connection: the client's
 * `EditHello`; when its turn has come the server's `EditReply` with `ready` (or a `fallback`: nothing ran); the
 * client's `EDIT_GO` line (without it the server runs nothing: a client that gave up or was stopped meanwhile is
 * never raced by a second run of its edit); the server's final `EditReply`.
 */
export interface EditHello {
  build: string;
  edit: { argv: string[]; stdin: string; env: Record<string, string>; cwd: string; umask: number; stdout: OutputFacts; stderr: OutputFacts };
}

/** The line that commits the client to the server's run of its edit. */
export const EDIT_GO = 'go';

export interface EditReply {
  build: string;
  /** The server's turn has come: answer EDIT_GO to have it run the edit. */
  ready?: true;
  /** Done: the command's exit code, and its stdout and stderr (base64, byte for byte). */
  exitCode?: number;
  stdout?: string;
  stderr?: string;
  /** Not run (another build, a call it does not serve): the client runs the edit in-process. */
  fallback?: string;
}

/** How the command ended in the client: the runner's result (spawn-run.ts). */
export interface ShellEnd {
  end: CommandResult;
}

/** The lines that come on `conn` after `rest` (already read), one per call; null once it is closed. Both ends of the shell's exchange read it so. */
export function lineReader(conn: net.Socket, rest = ''): () => Promise<string | null> {
  let buffer = rest;
  let closed = false;
  let waiting: ((line: string | null) => void) | null = null;
  const deliver = (): void => {
    if (waiting === null) return;
    const at = buffer.indexOf('\n');
    if (at < 0 && !closed) return;
    const w = waiting;
    waiting = null;
    if (at < 0) {
      w(null);
      return;
    }
    const line = buffer.slice(0, at);
    buffer = buffer.slice(at + 1);
    w(line);
  };
  conn.on('data', (d: string) => {
    buffer += d;
    deliver();
  });
  const close = (): void => {
    closed = true;
    deliver();
  };
  conn.on('error', close);
  conn.on('close', close);
  return () =>
    new Promise((resolve) => {
      waiting = resolve;
      deliver();
    });
}

/**
 * `EDITWARDEN_SHELL_TIMES=<file>`: the guarded shell's client and server append `<who>:<stage> <ms since the epoch>`
 * there as each stage ends (bench/guarded-shell.mjs prints where the time goes). Unset: nothing is written.
 */
export function markTime(env: NodeJS.ProcessEnv, who: 'client' | 'server', stage: string): void {
  const file = env.EDITWARDEN_SHELL_TIMES;
  if (!file || !path.isAbsolute(file)) return;
  try {
    fs.appendFileSync(file, `${who}:${stage} ${(performance.timeOrigin + performance.now()).toFixed(2)}\n`);
  } catch {
    // A measurement aid: a file that cannot be written changes nothing.
  }
}
