/**
 * The warm server's side of the thin edit: a thin client (edit-client.ts)
 * hands it `editwarden edit …`'s argv, stdin, environment, working folder,
 * umask and the terminal facts of its outputs; the server runs the very
 * same command code the in-process route runs (main.ts `run`, the `edit`
 * command) with that process state put in place (hook-turns.ts), and sends
 * back the exit code, stdout and stderr byte for byte.
 *
 * Must never run an edit the client has not committed to: the server says
 * `ready` when its turn has come and runs only after the client's go line.
 * A client that gave up waiting (and runs the edit in-process), or died
 * (its person's Ctrl-C), sends none: its edit is never run twice, nor run
 * after the person stopped it. Serves nothing but `edit`.
 */
import type net from 'node:net';
import { Readable, Writable } from 'node:stream';
import type { Io } from './output.js';
import { EDIT_GO, type EditHello, type EditReply, lineReader, type OutputFacts } from './hook-socket.js';
import { enterContext, type Turns } from './hook-turns.js';

/** How long the server waits for the go line after `ready`: the client answers at once, a stopped one must not hold every turn. */
const GO_WAIT_MS = 5000;

export function isEditHello(v: unknown): v is EditHello {
  if (typeof v !== 'object' || v === null) return false;
  const e = (v as { edit?: unknown }).edit;
  if (typeof e !== 'object' || e === null) return false;
  const r = e as Record<string, unknown>;
  return (
    Array.isArray(r.argv) &&
    r.argv.every((a) => typeof a === 'string') &&
    r.argv[0] === 'edit' &&
    typeof r.stdin === 'string' &&
    typeof r.cwd === 'string' &&
    typeof r.umask === 'number' &&
    typeof r.env === 'object' &&
    r.env !== null &&
    Object.values(r.env).every((x) => typeof x === 'string') &&
    isOutputFacts(r.stdout) &&
    isOutputFacts(r.stderr)
  );
}

function isOutputFacts(v: unknown): v is OutputFacts {
  if (typeof v !== 'object' || v === null) return false;
  const o = v as Record<string, unknown>;
  return typeof o.isTTY === 'boolean' && (o.columns === undefined || (typeof o.columns === 'number' && Number.isInteger(o.columns) && o.columns > 0));
}

/** An output that keeps every byte written to it and shows the client's terminal facts (isTTY, columns) as its own. */
function captured(facts: OutputFacts): { stream: Writable & { isTTY?: boolean; columns?: number }; bytes(): Buffer } {
  const chunks: Buffer[] = [];
  const stream: Writable & { isTTY?: boolean; columns?: number } = new Writable({
    write(chunk: Buffer | string, _enc, done) {
      chunks.push(typeof chunk === 'string' ? Buffer.from(chunk) : chunk);
      done();
    },
  });
  // As a pipe's or a file's process.stdout: no isTTY at all, not `false`.
  if (facts.isTTY) {
    stream.isTTY = true;
    if (facts.columns !== undefined) stream.columns = facts.columns;
  }
  return { stream, bytes: () => Buffer.concat(chunks) };
}

/** Runs the edit as the client's own process would have: its context in place, main.ts's `run`. */
async function runEdit(call: EditHello['edit'], build: string): Promise<EditReply> {
  const { run } = await import('./main.js');
  const out = captured(call.stdout);
  const err = captured(call.stderr);
  const io: Io = { stdout: out.stream, stderr: err.stream, stdin: Readable.from([Buffer.from(call.stdin, 'utf8')]), env: process.env };
  const exitCode = await run(['node', 'editwarden', ...call.argv], io);
  return { build, exitCode, stdout: out.bytes().toString('base64'), stderr: err.bytes().toString('base64') };
}

/**
 * Serves one thin edit on `conn` (its hello already read, of this build; `rest` is what came after it). `refuse`:
 * why the server will not run it (its deferred fsyncs failed), or null. Resolves once answered; rejects on the
 * unexpected (the server then ends: it cannot vouch for its state).
 */
export async function serveEdit(conn: net.Socket, hello: EditHello, rest: string, turns: Turns, build: string, refuse: () => string | null): Promise<void> {
  const send = (reply: EditReply): void => {
    if (!conn.destroyed) conn.write(`${JSON.stringify(reply)}\n`);
  };
  const nextLine = lineReader(conn, rest);
  const endTurn = await turns.take();
  try {
    const why = refuse();
    if (why !== null || !enterContext({ cwd: hello.edit.cwd, env: hello.edit.env, umask: hello.edit.umask })) {
      send({ build, fallback: why ?? 'the working folder is gone' });
      return;
    }
    send({ build, ready: true });
    let timer: NodeJS.Timeout | undefined;
    const go = await Promise.race([nextLine(), new Promise<null>((resolve) => (timer = setTimeout(() => resolve(null), GO_WAIT_MS)))]);
    clearTimeout(timer);
    // No go (the client gave up, died or hung up): nothing runs.
    if (go !== EDIT_GO) return;
    send(await runEdit(hello.edit, build));
  } finally {
    endTurn();
    conn.end();
  }
}
