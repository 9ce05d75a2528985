/**
 * `editwarden hook-server --socket FILE --build ID` (hidden; started in the
 * background by the first hook, see hook-client.ts): keeps the CLI, the
 * config schema and the grammars loaded, and runs each hook call it is
 * handed through the same `editwarden hook …` command the hook would have
 * run in its own process — with that hook's environment, working folder and
 * umask put in place for the call, one call at a time — and sends back the
 * exit code and output. It serves the guarded shell's thin client too
 * (hook-shell.ts): such a call holds its connection for its whole command,
 * and the server ends neither idle nor on a lost socket while one is open.
 * And `editwarden edit`'s thin client (hook-edit.ts), when one is running.
 * Every call opens its project, reads its config and its trust records
 * afresh; what it keeps between calls is in hook-projects.ts, each cache
 * checked against the disk on every use.
 *
 * It answers only over a socket in this user's private folder
 * (hook-socket.ts), only callers of its own build, and ends itself when a
 * rebuild changed the build under it or after EDITWARDEN_HOOK_SERVER_IDLE_MS
 * (default 10 minutes) without a call.
 */
import fs from 'node:fs';
import net from 'node:net';
import { Writable } from 'node:stream';
import { Readable } from 'node:stream';
import type { Command } from 'commander';
import type { Io } from './output.js';
import { buildId, type EditHello, type HookReply, type HookRequest, type ShellHello, startClaimPath, unsafeDir, unsafeSocket } from './hook-socket.js';
import { askServer } from './hook-client.js';
import { isShellHello, serveShell } from './hook-shell.js';
import { isEditHello, serveEdit } from './hook-edit.js';
import { enterContext, Turns } from './hook-turns.js';
import path from 'node:path';
import { markLongLived, settleDurable, takeDurabilityFailure } from '../workspace/durable.js';

const DEFAULT_IDLE_MS = 10 * 60_000;

function collector(): { stream: Writable; text(): string } {
  const chunks: Buffer[] = [];
  const stream = new Writable({
    write(chunk: Buffer | string, _enc, done) {
      chunks.push(typeof chunk === 'string' ? Buffer.from(chunk) : chunk);
      done();
    },
  });
  return { stream, text: () => Buffer.concat(chunks).toString('utf8') };
}

function isRequest(v: unknown): v is HookRequest {
  if (typeof v !== 'object' || v === null) return false;
  const r = v as Record<string, unknown>;
  return Array.isArray(r.argv) && r.argv.every((a) => typeof a === 'string') && r.argv[0] === 'hook' && typeof r.stdin === 'string' && typeof r.cwd === 'string' && typeof r.umask === 'number' && typeof r.env === 'object' && r.env !== null;
}

/** Runs one hook call as the hook's own process would have: its env, cwd and umask in place, the CLI's hook command. */
async function runCall(request: HookRequest): Promise<HookReply> {
  const { run } = await import('./main.js');
  const build = request.build;
  if (!enterContext(request)) return { build, fallback: 'the working folder is gone' };
  const out = collector();
  const err = collector();
  const io: Io = { stdout: out.stream, stderr: err.stream, stdin: Readable.from([Buffer.from(request.stdin, 'utf8')]), env: process.env };
  const exitCode = await run(['node', 'editwarden', ...request.argv], io);
  return { build, exitCode, stdout: out.text(), stderr: err.text() };
}

/** How often a server checks that its socket is still its own. */
const SOCKET_CHECK_MS = 2000;

export async function serveHooks(socket: string, build: string, idleMs: number): Promise<void> {
  const dir = path.dirname(socket);
  if (unsafeDir(dir) !== null || build !== buildId()) return;
  const existing = unsafeSocket(socket);
  if (existing === null) {
    // A live server of this build already answers: this one is not needed.
    if ((await askServer(socket, { build, ping: true }, 2000)) !== null) {
      fs.rmSync(startClaimPath(socket), { force: true });
      return;
    }
    fs.rmSync(socket, { force: true });
  } else if (existing !== 'missing') {
    return;
  }
  // This process answers, then settles: its projects may defer a checkpoint's fsync (checkpoints.durability).
  markLongLived();
  const turns = new Turns();
  let idle: NodeJS.Timeout | undefined;
  let ours = -1;
  let calls = 0;
  // Calls that hold their connection open now — guarded shell commands (minutes, maybe) and thin edits — and whether the server ends once they are done.
  let shells = 0;
  let leaving = false;
  let shellCalls = 0;
  let editCalls = 0;
  const server = net.createServer({ allowHalfOpen: true }, (conn) => {
    let text = '';
    let shell = false;
    conn.setEncoding('utf8');
    conn.on('error', () => undefined);
    const onData = (d: string): void => {
      text += d;
      const at = text.indexOf('\n');
      if (at < 0) return;
      // A guarded shell call keeps its connection open for the whole command (hook-shell.ts); a hook call ends its side.
      let first: unknown;
      try {
        first = JSON.parse(text.slice(0, at));
      } catch {
        return;
      }
      const edit = isEditHello(first);
      if (!edit && !isShellHello(first)) return;
      conn.off('data', onData);
      shell = true;
      rearm();
      if ((first as { build?: unknown }).build !== build || buildId() !== build) {
        conn.end(`${JSON.stringify({ build: buildId() === build ? build : 'gone', fallback: 'another build' })}\n`);
        return;
      }
      calls++;
      if (edit) editCalls++;
      else shellCalls++;
      shells++;
      // What the last answer deferred (checkpoints.durability) is on disk before this command's checkpoint is taken.
      settleDurable();
      // A deferred fsync that failed leaves this server unable to vouch for its checkpoints: the edit runs in-process, and this server ends.
      let undurable = false;
      const refuse = (): string | null => {
        if (takeDurabilityFailure() === null) return null;
        undurable = true;
        return 'a checkpoint could not be made durable';
      };
      const rest = text.slice(at + 1);
      (edit ? serveEdit(conn, first as EditHello, rest, turns, build, refuse) : serveShell(conn, first as ShellHello, rest, turns, build)).then(
        () => {
          shells--;
          if (undurable || (leaving && shells === 0)) leave();
          rearm();
          // Once the answer is out: the client goes on while its checkpoint reaches the disk.
          if (edit) setImmediate(settleDurable);
        },
        () => {
          // Unexpected: the client decides in-process (or, mid-command, refuses), and this server, in a state it cannot vouch for, ends.
          conn.destroy();
          shells = 0;
          leave();
        },
      );
    };
    conn.on('data', onData);
    conn.on('end', () => {
      if (shell) return;
      void turns.take().then(async (endTurn) => {
        rearm();
        let reply: HookReply;
        let parsed: unknown;
        try {
          parsed = JSON.parse(text);
        } catch {
          parsed = null;
        }
        const asked = parsed as { build?: unknown; ping?: unknown } | null;
        if (asked?.build !== build) reply = { build, fallback: 'another build' };
        else if (buildId() !== build) reply = { build: 'gone', fallback: 'this server was rebuilt under it' };
        else if (asked.ping === true) reply = { build, pid: process.pid, calls, shells: shellCalls, edits: editCalls, cpu: Object.values(process.cpuUsage()).reduce((a, b) => a + b, 0) };
        else if (!isRequest(parsed)) reply = { build, fallback: 'not a hook call' };
        else {
          calls++;
          try {
            // The last answer's deferred fsyncs (checkpoints.durability) are on disk before this call is answered;
            // one that failed leaves this server unable to vouch for its checkpoints: the hook decides by itself (strict), and this server ends.
            settleDurable();
            reply = takeDurabilityFailure() === null ? await runCall(parsed) : { build: 'gone', fallback: 'a checkpoint could not be made durable' };
          } catch {
            // Unexpected: the hook decides by itself, and this server, in a state it cannot vouch for, ends.
            reply = { build: 'gone', fallback: 'the server failed' };
          }
        }
        endTurn();
        conn.end(`${JSON.stringify(reply)}\n`, () => {
          if (reply.build === 'gone') leave();
        });
        // Once the answer is out: the client goes on while its checkpoint reaches the disk.
        setImmediate(settleDurable);
      });
    });
  });
  const leave = (): never => {
    // Only our own socket goes: another server may have taken the name since.
    try {
      if (fs.lstatSync(socket).ino === ours) fs.rmSync(socket);
    } catch {
      // Already gone.
    }
    process.exit(0);
  };
  const rearm = (): void => {
    clearTimeout(idle);
    idle = setTimeout(() => (shells > 0 ? rearm() : leave()), idleMs);
  };
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(socket, () => resolve());
  }).catch(() => process.exit(0));
  fs.chmodSync(socket, 0o600);
  ours = fs.lstatSync(socket).ino;
  // Listening: the hooks find this server now; the start claim (hook-socket.ts claimStart) has done its job.
  fs.rmSync(startClaimPath(socket), { force: true });
  rearm();
  // No hook can reach a server whose socket is gone (its folder removed, the name taken by another): it ends now, not after the idle time.
  setInterval(() => {
    let ino: number | null = null;
    try {
      ino = fs.lstatSync(socket).ino;
    } catch {
      ino = null;
    }
    if (ino === ours) return;
    // A command running in a shell client still gets its capture and record: the server ends after the last one.
    if (shells === 0) process.exit(0);
    leaving = true;
    server.close();
  }, SOCKET_CHECK_MS).unref();
  await new Promise(() => undefined);
}

export function registerHookServer(program: Command, _io: Io, _setExit: (code: number) => void): void {
  program
    .command('hook-server')
    .description('Serve hook calls for this user and build over a private unix socket (started by the hooks themselves).')
    .requiredOption('--socket <file>', 'the socket, in the private folder')
    .requiredOption('--build <id>', 'the build the hooks run')
    .action(async (flags: { socket: string; build: string }) => {
      const idle = Number(process.env.EDITWARDEN_HOOK_SERVER_IDLE_MS);
      await serveHooks(flags.socket, flags.build, idle > 0 ? idle : DEFAULT_IDLE_MS);
    });
}
