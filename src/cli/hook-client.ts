/**
 * `editwarden hook …` as the binary runs it: a thin client that loads only
 * Node's built-ins, hands the call (argv, stdin, environment, working
 * folder, umask) to this user's warm hook server (hook-server.ts) over a
 * unix socket, and prints its answer. A native edit costs a pre and a post
 * hook, each its own process: loading the CLI bundle, the config schema and
 * the grammars in each of them cost ~6× one `node -e 0` (docs/benchmarks.md).
 *
 * Fails closed, never open: when no server can be believed (none yet, a
 * stale socket, a folder or socket of another user or open to others, a
 * server of another build, a server that dies mid-call or answers nonsense)
 * the hook decides by itself, in this process, exactly as before — the same
 * command of the CLI bundle. The server only ever saves time.
 * `EDITWARDEN_HOOK_SERVER=off` always decides in-process.
 */
import fs from 'node:fs';
import net from 'node:net';
import { inProcessCli } from './in-process.js';
import { binPath, buildId, claimStart, ensurePrivateDir, type HookReply, type HookRequest, socketDir, socketPath, unsafeDir, unsafeSocket } from './hook-socket.js';

/** The hook's own deadline (`--deadline`, as the hook command reads it): after it, the call is refused. */
function deadlineOf(argv: readonly string[]): number {
  const at = argv.findIndex((a) => a === '--deadline' || a.startsWith('--deadline='));
  const raw = at < 0 ? undefined : argv[at]?.includes('=') ? argv[at]?.slice('--deadline='.length) : argv[at + 1];
  const n = Number(raw);
  return n > 0 ? n : 50_000;
}

/**
 * The hook input, without blocking the event loop: a client that never
 * finishes its input must still get an answer by the deadline. A pipe or
 * socket is read as a net.Socket on fd 0 (process.stdin's set-up costs the
 * thin client ~4 ms; a read() of fd 0 in libuv's thread pool would keep the
 * process from exiting while the client holds the pipe open); a file is read
 * at once. null: the deadline passed first (what was read is in `partial`); no deadline (null): until its end.
 */
export function readStdin(deadlineMs: number | null, partial: Buffer[]): Promise<Buffer | null> {
  const stat = fs.fstatSync(0);
  if (stat.isFile()) return Promise.resolve(fs.readFileSync(0));
  const stream: NodeJS.ReadableStream = stat.isFIFO() || stat.isSocket() ? new net.Socket({ fd: 0, readable: true, writable: false }) : process.stdin;
  return new Promise((resolve) => {
    const timer = deadlineMs === null ? undefined : setTimeout(() => resolve(null), deadlineMs);
    const done = (): void => {
      clearTimeout(timer);
      resolve(Buffer.concat(partial));
    };
    stream.on('data', (chunk: Buffer | string) => partial.push(typeof chunk === 'string' ? Buffer.from(chunk) : chunk));
    stream.on('end', done);
    // A broken input ends it: what came is judged (a cut-off JSON is refused).
    stream.on('error', done);
  });
}

/**
 * Writes all of `text` to fd (process.stdout's set-up costs the thin client ~3 ms); a full non-blocking pipe goes
 * through the stream. A reader that went away is not a failure, as in-process (main.ts tolerateClosedReaders): the
 * rest is dropped.
 */
export function writeOut(fd: 1 | 2, text: string | Buffer): void {
  const bytes = typeof text === 'string' ? Buffer.from(text, 'utf8') : text;
  let at = 0;
  try {
    while (at < bytes.length) at += fs.writeSync(fd, bytes, at);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'EPIPE') return;
    if (code !== 'EAGAIN') throw error;
    const stream = fd === 1 ? process.stdout : process.stderr;
    stream.on('error', () => undefined);
    stream.write(bytes.subarray(at));
  }
}

/** The server's answer to `request`, or null when it cannot be believed (then the hook decides by itself). */
export function askServer(socket: string, request: HookRequest | { build: string; ping: true }, timeoutMs: number): Promise<HookReply | null> {
  return new Promise((resolve) => {
    let text = '';
    let done = false;
    const finish = (reply: HookReply | null): void => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      conn.destroy();
      resolve(reply);
    };
    const conn = net.connect(socket);
    const timer = setTimeout(() => finish(null), timeoutMs);
    conn.setEncoding('utf8');
    conn.on('connect', () => conn.end(`${JSON.stringify(request)}\n`));
    conn.on('data', (d: string) => {
      text += d;
    });
    conn.on('error', () => finish(null));
    conn.on('close', () => {
      try {
        const reply = JSON.parse(text) as HookReply;
        // Another build's server (or anything else on the socket) is not believed.
        finish(reply && reply.build === request.build ? reply : null);
      } catch {
        finish(null);
      }
    });
  });
}

/**
 * Where this user's server for this build listens, when a client may use it: `believed` (a socket of ours in a
 * private folder of ours) or `missing` (none yet: start one). Null: no server may be used (turned off, a path too
 * long for a socket, a folder or socket that is not private and ours) — decide in-process.
 */
export function findServer(env: NodeJS.ProcessEnv, make = true): { build: string; socket: string; state: 'believed' | 'missing' } | null {
  if (env.EDITWARDEN_HOOK_SERVER === 'off') return null;
  const build = buildId();
  const socket = socketPath(env, build);
  // A socket path longer than sun_path (108 bytes, less on some systems) cannot be bound: no server is tried.
  // `make`: the private folder is made when missing (a caller that will start a server); else a missing one is no server.
  if (Buffer.byteLength(socket) > 100 || (make ? ensurePrivateDir(socketDir(env)) : unsafeDir(socketDir(env))) !== null) return null;
  const why = unsafeSocket(socket);
  if (why === null) return { build, socket, state: 'believed' };
  return why === 'missing' ? { build, socket, state: 'missing' } : null;
}

/** Starts this user's server for this build in the background (it ends itself when idle), unless a hook just did (claimStart). */
export async function startServer(socket: string, build: string): Promise<void> {
  if (!claimStart(socket)) return;
  try {
    // Loaded only here: a hook that finds its server pays for no child_process.
    const { spawn } = await import('node:child_process');
    const child = spawn(process.execPath, [binPath(), 'hook-server', '--socket', socket, '--build', build], { detached: true, stdio: 'ignore', cwd: '/' });
    child.on('error', () => undefined);
    child.unref();
  } catch {
    // No server: every hook keeps deciding by itself.
  }
}

/** What the server must answer for the call to count: an exit code and text, nothing else. */
function answered(reply: HookReply | null): reply is HookReply & { exitCode: number } {
  return reply !== null && reply.fallback === undefined && typeof reply.exitCode === 'number' && Number.isInteger(reply.exitCode);
}

/** Runs `editwarden hook …` (argv as process.argv) and exits with its code. */
export async function hookMain(argv: string[]): Promise<void> {
  const deadline = deadlineOf(argv);
  const started = Date.now();
  const partial: Buffer[] = [];
  const stdin = await readStdin(deadline, partial);
  const server = stdin === null ? null : findServer(process.env);
  if (server !== null && stdin !== null) {
    const { build, socket } = server;
    if (server.state === 'believed') {
      const env: Record<string, string> = {};
      for (const [k, v] of Object.entries(process.env)) if (v !== undefined) env[k] = v;
      const request: HookRequest = { build, argv: argv.slice(2), stdin: stdin.toString('utf8'), env, cwd: process.cwd(), umask: process.umask() };
      // A server that hangs leaves a fifth of the deadline for deciding here.
      const reply = await askServer(socket, request, Math.max(1, deadline * 0.8 - (Date.now() - started)));
      if (answered(reply)) {
        if (reply.stdout) writeOut(1, reply.stdout);
        if (reply.stderr) writeOut(2, reply.stderr);
        process.exit(reply.exitCode);
      }
      if (reply === null) await startServer(socket, build);
    } else {
      await startServer(socket, build);
    }
  }
  // Decide by itself: the CLI's own hook command, in this process, within what is left of the deadline.
  // The time already spent counts against the deadline (all of it when the input never ended).
  const waited = stdin === null ? deadline : Date.now() - started;
  // As bin/editwarden does for every one-shot command: baseline wasm tier only for the grammars, the code cache (see there).
  const cli = await inProcessCli('hook');
  cli.tolerateClosedReaders();
  const { Readable } = await import('node:stream');
  // Input that never ended by the deadline: the hook command gets what came and no end, and refuses at once.
  const input = stdin === null ? new Readable({ read: () => undefined }) : Readable.from([stdin]);
  if (stdin === null) for (const chunk of partial) input.push(chunk);
  const code = await cli.run([...argv, '--waited', String(waited)], { stdout: process.stdout, stderr: process.stderr, stdin: input, env: process.env });
  process.exitCode = code;
  await new Promise<void>((resolve) => process.stdout.write('', () => resolve()));
  await new Promise<void>((resolve) => process.stderr.write('', () => resolve()));
  // Wasm compile jobs of the grammars can keep Node alive after the answer (see main.ts): the answer is out, end.
  process.exit(code);
}
