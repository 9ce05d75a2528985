/**
 * `editwarden shell … -- '<command>'` as the binary runs it (the command
 * line a client's PreToolUse hook rewrote its shell call to): a thin client
 * on Node's built-ins only. It asks this user's warm hook server
 * (hook-shell.ts) to open the project, take the checkpoint and prepare the
 * sandbox's argument vector; runs that prepared command itself, with the
 * runner the in-process route uses (verify/spawn-run.ts), so the client's
 * terminal, the streaming output, its signals (SIGTERM, SIGINT, SIGHUP end
 * the whole sandboxed tree) and the exit code are as before; and hands the
 * end back for the capture, the charge to the session's ledger, put-back
 * and the record. Loading the whole CLI, opening the project and two tree
 * walks in a new process cost ~5× one `node -e 0` per command.
 *
 * Fails closed, never open, exactly as the hook does: when no server can be
 * believed (none yet, a stale socket, a folder or socket of another user
 * or open to others, a server of another build, an answer that is not one)
 * the command runs through the CLI's own `shell` command in this process —
 * the full route, nothing skipped — and nothing ran before. When the server
 * ends while the command runs, the command is ended (as the client's own
 * Ctrl-C ends it) and refused (E_GUARD_UNAVAILABLE, exit code 2): its
 * changes could not be counted, so they are not let through as counted.
 * `EDITWARDEN_HOOK_SERVER=off` always runs in-process.
 */
import net from 'node:net';
import type { ErrorCode } from '../errors.js';
import { END_AT_ONCE, runSpawned, type CommandResult, type RunnableSpec } from '../verify/spawn-run.js';
import { findServer, startServer } from './hook-client.js';
import { nestedSandboxSigns } from '../sandbox/outer.js';
import { inProcessCli } from './in-process.js';
import { lineReader, markTime, type ShellEnd, type ShellHello, type ShellReply } from './hook-socket.js';

/** The refusal of a command whose guard went away (type-checked against the one list; errors.ts is not loaded here). */
const GUARD_UNAVAILABLE: ErrorCode = 'E_GUARD_UNAVAILABLE';

/** The signals a client stops its shell command with (as the in-process `shell` command listens for them). */
const SIGNALS = ['SIGTERM', 'SIGINT', 'SIGHUP'] as const;

/** What `editwarden shell` exits with when its effects were refused (integrations/shell.ts SHELL_REFUSED). */
const SHELL_REFUSED = 2;

/** One connection to the server, read as JSON lines; `next()` is null once the server closed it or sent what is not JSON. */
function connect(socket: string): { conn: net.Socket; next(): Promise<ShellReply | null> } {
  const conn = net.connect(socket);
  conn.setEncoding('utf8');
  const line = lineReader(conn);
  const next = async (): Promise<ShellReply | null> => {
    const text = await line();
    try {
      const reply = JSON.parse(text ?? '') as ShellReply;
      return typeof reply === 'object' && reply !== null ? reply : null;
    } catch {
      return null;
    }
  };
  return { conn, next };
}

/** A prepared command this client runs: the server's, well-formed, or none. */
function runnable(reply: ShellReply): { spec: RunnableSpec; cwd: string; display: string } | null {
  const r = reply.run;
  if (typeof r !== 'object' || r === null || typeof r.cwd !== 'string' || typeof r.display !== 'string') return null;
  const s = r.spec;
  if (typeof s !== 'object' || s === null || typeof s.file !== 'string' || !Array.isArray(s.args) || !s.args.every((a) => typeof a === 'string')) return null;
  if (typeof s.env !== 'object' || s.env === null || !Object.values(s.env).every((v) => typeof v === 'string')) return null;
  if (s.sandbox !== 'bwrap' && s.sandbox !== 'sandbox-exec' && s.sandbox !== 'none') return null;
  return { spec: { file: s.file, args: s.args, env: s.env, sandbox: s.sandbox, ...(s.witness === 'strace' ? { witness: 'strace' } : {}) }, cwd: r.cwd, display: r.display };
}

/** The final answer, when it is one: an integer exit code. */
function done(reply: ShellReply | null, build: string): reply is ShellReply & { exitCode: number } {
  return reply !== null && reply.build === build && reply.fallback === undefined && reply.run === undefined && typeof reply.exitCode === 'number' && Number.isInteger(reply.exitCode);
}

function say(base64: string | undefined): void {
  if (base64) process.stderr.write(Buffer.from(base64, 'base64'));
}

async function exit(code: number): Promise<never> {
  await new Promise<void>((resolve) => process.stdout.write('', () => resolve()));
  await new Promise<void>((resolve) => process.stderr.write('', () => resolve()));
  process.exit(code);
}

/**
 * Through the server: the exit code, or why the server did not take the call (then nothing ran: decide
 * in-process) — 'no answer' (none, or none to believe) or 'declined'. Never declines once the command started.
 */
async function throughServer(socket: string, build: string): Promise<number | 'no answer' | 'declined'> {
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(process.env)) if (v !== undefined) env[k] = v;
  const hello: ShellHello = { build, shell: { argv: process.argv.slice(2), env, cwd: process.cwd(), umask: process.umask() } };
  const { conn, next } = connect(socket);
  // The client's own signals: before the start they stop the command before it starts, during it they end its tree.
  const controller = new AbortController();
  let started = false;
  const stop = (signal: NodeJS.Signals): void => {
    if (started) {
      controller.abort();
      return;
    }
    // Nothing runs yet (the server has not answered, however long it takes): the client ends as the signal says.
    for (const s of SIGNALS) process.removeAllListeners(s);
    conn.destroy();
    process.kill(process.pid, signal);
  };
  for (const s of SIGNALS) process.on(s, stop);
  markTime(process.env, 'client', 'started');
  conn.write(`${JSON.stringify(hello)}\n`);
  const first = await next();
  markTime(process.env, 'client', 'prepared');
  if (done(first, build)) {
    conn.destroy();
    say(first.stderr);
    return first.exitCode;
  }
  const prepared = first !== null && first.build === build ? runnable(first) : null;
  if (first === null || prepared === null) {
    conn.destroy();
    return first !== null && first.build === build && typeof first.fallback === 'string' ? 'declined' : 'no answer';
  }
  started = true;
  say(first.stderr);
  // The server that ends mid-command: the command is ended, as the client's Ctrl-C would end it, and refused below.
  let lost = false;
  const lostServer = (): void => {
    lost = true;
    // At once: nothing it does from here is counted (spawn-run.ts END_AT_ONCE).
    controller.abort(END_AT_ONCE);
  };
  conn.once('close', lostServer);
  const result: CommandResult = await runSpawned(prepared.spec, {
    display: prepared.display,
    cwd: prepared.cwd,
    timeoutMs: 0,
    onOutput: (e) => (e.stream === 'stdout' ? process.stdout.write(e.chunk) : process.stderr.write(e.chunk)),
    signal: controller.signal,
  });
  markTime(process.env, 'client', 'ran');
  let last: ShellReply | null = null;
  if (!lost) {
    conn.off('close', lostServer);
    const end: ShellEnd = { end: result };
    conn.write(`${JSON.stringify(end)}\n`);
    last = await next();
  }
  conn.destroy();
  markTime(process.env, 'client', 'answered');
  if (done(last, build)) {
    say(last.stderr);
    return last.exitCode;
  }
  const how = lost ? 'while the command ran; the command was ended' : `after the command ended (exit code ${result.exit_code ?? result.signal ?? 'unknown'})`;
  process.stderr.write(
    `editwarden refused this command's effects: ${GUARD_UNAVAILABLE}: the warm editwarden server that guards this command ended ${how}, so what it changed was not counted, checkpointed as an undo step or recorded.\nhint: Look at what it changed (git status, git diff) before going on, then run the command again: it is guarded in-process when no server answers.\n`,
  );
  return SHELL_REFUSED;
}

/** Runs `editwarden shell …` (argv as process.argv) and exits with its code. */
export async function shellMain(argv: string[]): Promise<void> {
  // Inside another sandbox (Codex's): a server outside it cannot be reached (Codex 0.171's seccomp refuses connect(),
  // EPERM) and would prepare a bubblewrap that cannot start here; one started from here would end with the sandbox.
  // The command runs in-process, under that sandbox where it is proved to confine writes (sandbox/outer.ts).
  const server = nestedSandboxSigns() ? null : findServer(process.env);
  if (server !== null && server.state === 'believed') {
    const code = await throughServer(server.socket, server.build);
    if (typeof code === 'number') await exit(code);
    // Not taken (nothing ran): a server that did not answer is replaced; this call runs in-process.
    if (code === 'no answer') await startServer(server.socket, server.build);
  } else if (server !== null) {
    await startServer(server.socket, server.build);
  }
  for (const s of SIGNALS) process.removeAllListeners(s);
  // In-process: the CLI's own shell command, the full route (as bin/editwarden runs every one-shot command).
  const cli = await inProcessCli('shell');
  await cli.main(argv);
}
