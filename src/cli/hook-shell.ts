/**
 * The warm server's side of the guarded shell: a thin client
 * (hook-shell-client.ts) hands it `editwarden shell … -- '<command>'`'s
 * argv, environment, working folder and umask; the server runs the same
 * route as the in-process command (integrations/shell.ts
 * `runGuardedShell`: the Project, the sandbox's policy, the checkpoint
 * before) up to the point where the command would start, and sends the
 * prepared command — the sandbox's argument vector, its environment, the
 * write witness — back to the client, which runs it in its own process
 * (its terminal, its streaming output, its signals, its exit code). When
 * the client hands the end back (the runner's result), the same route goes
 * on here: the capture, the charge to the session ledger, put-back, the
 * record and the event log; editwarden's own words and the exit code go
 * back to the client.
 *
 * While the command runs, the server serves other calls (hook-turns.ts).
 * What it believes from the client: the call (as the in-process command
 * would have read it from its own argv and process) and how the command
 * ended (exit code, signal, output tail — what the record says), never the
 * sandbox it ran in (at most what was asked) nor what it changed (measured
 * here, on disk). A client that goes away mid-command counts as a command
 * ended by SIGKILL: its changes are still captured and recorded.
 */
import type net from 'node:net';
import { Command } from 'commander';
import { registerShell } from './commands/shell.js';
import { runGuardedShell, type ShellIo, type ShellRequest } from '../integrations/shell.js';
import type { CommandResult, RunnableSpec } from '../verify/spawn-run.js';
import type { Io } from './output.js';
import { projectState } from './hook-projects.js';
import { enterContext, type CallContext, type Turns } from './hook-turns.js';
import { lineReader, markTime, type ShellHello, type ShellReply } from './hook-socket.js';
import { Writable, Readable } from 'node:stream';

export function isShellHello(v: unknown): v is ShellHello {
  if (typeof v !== 'object' || v === null) return false;
  const s = (v as { shell?: unknown }).shell;
  if (typeof s !== 'object' || s === null) return false;
  const r = s as Record<string, unknown>;
  return (
    Array.isArray(r.argv) &&
    r.argv.every((a) => typeof a === 'string') &&
    r.argv[0] === 'shell' &&
    typeof r.cwd === 'string' &&
    typeof r.umask === 'number' &&
    typeof r.env === 'object' &&
    r.env !== null &&
    Object.values(r.env).every((x) => typeof x === 'string')
  );
}

/** The runner's result as the client reported it, held to what the server asked: never a sandbox or witness it did not prepare. */
function endOf(line: string | null, spec: RunnableSpec, options: { cwd: string; display: string }): CommandResult {
  const gone: CommandResult = {
    command: options.display,
    cwd: options.cwd,
    exit_code: null,
    signal: 'SIGKILL',
    timed_out: false,
    aborted: true,
    duration_ms: 0,
    started_at: new Date().toISOString(),
    stdout_bytes: 0,
    stderr_bytes: 0,
    leftovers: 'empty',
    sandbox: spec.sandbox,
    ...(spec.witness !== undefined ? { witness: spec.witness } : {}),
    tail: '',
    stdoutTail: '',
    stderrTail: '',
    artifactDir: null,
  };
  let end: Record<string, unknown>;
  try {
    end = (JSON.parse(line ?? '') as { end: Record<string, unknown> }).end;
    if (typeof end !== 'object' || end === null) return gone;
  } catch {
    return gone;
  }
  const str = (v: unknown, d: string): string => (typeof v === 'string' ? v : d);
  const num = (v: unknown): number => (typeof v === 'number' && Number.isFinite(v) ? v : 0);
  const exit = end.exit_code;
  const { witness: _asked, ...plain } = gone;
  return {
    ...plain,
    exit_code: typeof exit === 'number' && Number.isInteger(exit) ? exit : null,
    signal: typeof end.signal === 'string' ? end.signal : null,
    timed_out: end.timed_out === true,
    aborted: end.aborted === true,
    duration_ms: num(end.duration_ms),
    started_at: str(end.started_at, gone.started_at),
    stdout_bytes: num(end.stdout_bytes),
    stderr_bytes: num(end.stderr_bytes),
    ...(typeof end.spawn_error === 'string' ? { spawn_error: end.spawn_error } : {}),
    leftovers: end.leftovers === 'terminated' || end.leftovers === 'killed' || end.leftovers === 'survivors' ? end.leftovers : 'empty',
    // What ran is what was prepared, or nothing at all (a working folder gone before the start): never more.
    sandbox: end.sandbox === 'none' ? 'none' : spec.sandbox,
    ...(spec.witness !== undefined && end.witness === spec.witness ? { witness: spec.witness } : {}),
    tail: str(end.tail, ''),
    stdoutTail: str(end.stdoutTail, ''),
    stderrTail: str(end.stderrTail, ''),
  };
}

function collector(into: Buffer[]): Writable {
  return new Writable({
    write(chunk: Buffer | string, _enc, done) {
      into.push(typeof chunk === 'string' ? Buffer.from(chunk) : chunk);
      done();
    },
  });
}

/** Serves one guarded shell call on `conn` (its hello already read; `rest` is what came after it). */
export async function serveShell(conn: net.Socket, hello: ShellHello, rest: string, turns: Turns, build: string): Promise<void> {
  const send = (reply: ShellReply): void => {
    if (!conn.destroyed) conn.write(`${JSON.stringify(reply)}\n`);
  };
  const nextLine = lineReader(conn, rest);
  const ctx: CallContext = { cwd: hello.shell.cwd, env: hello.shell.env, umask: hello.shell.umask };
  let endTurn = await turns.take();
  markTime(hello.shell.env, 'server', 'turn');
  const said: Buffer[] = [];
  const saidSoFar = (): string => Buffer.concat(said.splice(0)).toString('base64');
  let ran = false;
  try {
    if (!enterContext(ctx)) {
      send({ build, fallback: 'the working folder is gone' });
      return;
    }
    const route = (req: ShellRequest): Promise<number> => {
      const state = projectState(req.root);
      const io: ShellIo = {
        // The command's own output goes to the client's terminal, never through here.
        stdout: () => undefined,
        stderr: (chunk) => said.push(chunk),
        warm: { nestedSearch: (realRoot) => state.nestedSearch(realRoot), tree: (realRoot) => state.tree(realRoot) },
        mark: (stage) => markTime(process.env, 'server', stage),
        run: async (spec, options) => {
          ran = true;
          send({ build, run: { spec, cwd: options.cwd, display: options.display }, stderr: saidSoFar() });
          // Other calls are served while the command runs.
          endTurn();
          const line = await nextLine();
          endTurn = await turns.take();
          // The capture reads absolute paths; a working folder removed by the command changes nothing of it.
          enterContext(ctx);
          return endOf(line, spec, options);
        },
      };
      return runGuardedShell(req, io);
    };
    const program = new Command().exitOverride().configureOutput({ writeOut: () => undefined, writeErr: () => undefined });
    let code: number | null = null;
    const io: Io = { stdout: collector([]), stderr: collector(said), stdin: Readable.from([]), env: process.env };
    try {
      registerShell(program, io, (c) => (code = c), route);
      await program.parseAsync(['node', 'editwarden', ...hello.shell.argv]);
    } catch (error) {
      if (!ran) {
        // Nothing ran: the client runs the command line in-process, and prints what that says (a usage error, the failure).
        send({ build, fallback: `not served: ${error instanceof Error ? error.message : String(error)}` });
        return;
      }
      said.push(Buffer.from(`editwarden shell failed: ${error instanceof Error ? error.message : String(error)}\n`));
      code = 1;
    }
    if (code === null) {
      send({ build, fallback: 'not a shell call' });
      return;
    }
    send({ build, exitCode: code, stderr: saidSoFar() });
  } finally {
    endTurn();
    conn.end();
  }
}
