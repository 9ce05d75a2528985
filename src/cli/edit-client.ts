/**
 * `editwarden edit …` as the binary runs it: a thin client on Node's
 * built-ins only. When this user's warm hook server (hook-server.ts) is
 * running and can be believed — the same socket, folder checks and build
 * check as the hook client — it hands the server the call (argv, stdin,
 * environment, working folder, umask, and whether each output is a terminal
 * and how wide), the server runs the very same `edit` command
 * (hook-edit.ts), and this process prints its stdout and stderr byte for
 * byte and exits with its code. A one-shot process cannot get below loading
 * the CLI: ~3.9–4.6× one `node -e 0` of CPU; this route, client and server,
 * ~1.5–1.6× (docs/benchmarks.md, "`edit` through the warm server, round 5").
 *
 * Otherwise — no server (none is started for an edit: only a hook starts
 * one), one that cannot be believed, another build, a server that does not
 * take the call — the edit runs in this process through the CLI, as before:
 * the full guard, never a fail-open. Calls whose meaning depends on this
 * process run here too: help (its width and colours are this terminal's),
 * a path into /proc or /dev (/dev/stdin, /proc/self/… name the server's own
 * there), stdin read from a terminal.
 *
 * Never runs an edit twice and never leaves a wrong exit code: the server
 * runs only after this client's go line (hook-edit.ts); until it is sent,
 * anything that goes wrong runs the edit here instead, and the person's
 * Ctrl-C ends this process with nothing run. Once it is sent, a server that
 * ends without an answer is refused (E_GUARD_UNAVAILABLE, exit code 1):
 * whether it wrote is not known here, and each file is whole either way.
 * `EDITWARDEN_HOOK_SERVER=off` always runs in-process.
 */
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import tty from 'node:tty';
import { findServer, readStdin, writeOut } from './hook-client.js';
import { inProcessCli } from './in-process.js';
import { EDIT_GO, type EditHello, type EditReply, lineReader, type OutputFacts } from './hook-socket.js';

/** How long the client waits for the server's turn before it runs the edit itself (a busy or stuck server). */
const READY_WAIT_MS = 3000;

/** Folders whose names mean this process (/proc/self, /dev/stdin, /dev/fd/N): a server would read its own there. */
const OWN_PROCESS_FOLDERS = ['/proc/', '/dev/'];

/**
 * The path the kernel reaches for `p` (absolute, as spelled: `..` after a link is the link target's parent): its
 * real path, or, when it does not exist here, its deepest existing ancestor's real path with the rest appended — a
 * name that is missing in this process may exist in the server's (`<link to /proc/self>/fd/9`).
 */
function kernelPath(p: string): string {
  let head = p;
  let tail = '';
  for (;;) {
    const real = exists(head) ? realOf(head) : null;
    if (real !== null) return tail === '' ? real : `${real === '/' ? '' : real}/${tail}`;
    const at = head.lastIndexOf('/');
    if (at <= 0) return p;
    tail = tail === '' ? head.slice(at + 1) : `${head.slice(at + 1)}/${tail}`;
    head = head.slice(0, at);
  }
}

/**
 * Whether the kernel finds `p` (not following a final link). Asked before realpath so that a name that is no path
 * (an `--old` text) costs no thrown error: each costs the client ~0.1 ms, the first much more.
 */
function exists(p: string): boolean {
  try {
    return fs.lstatSync(p, { throwIfNoEntry: false }) !== undefined;
  } catch {
    // ENOTDIR, ENAMETOOLONG, EACCES: not a path the server could open either.
    return false;
  }
}

/**
 * The real path of `p`, or null when it cannot be walked. The kernel's realpath(3) first (`..` after a link taken
 * physically); a magic link of /proc it cannot name (`/proc/self/fd/0` → `pipe:[…]`) is followed by Node's own
 * walk, which keeps the /proc path it went through.
 */
function realOf(p: string): string | null {
  try {
    return fs.realpathSync.native(p);
  } catch {
    try {
      return fs.realpathSync(p);
    } catch {
      return null;
    }
  }
}

/** Whether `arg`, taken as a path from `cwd`, names (or links into) one of OWN_PROCESS_FOLDERS. */
function namesThisProcess(arg: string, cwd: string): boolean {
  const candidates = [arg];
  const eq = arg.indexOf('=');
  if (arg.startsWith('--') && eq > 0) candidates.push(arg.slice(eq + 1));
  for (const c of candidates) {
    // Not a path the kernel would take (empty, a NUL, longer than PATH_MAX): the server cannot open it either.
    if (c === '' || c.includes('\0') || c.length > 4096) continue;
    const spelled = c.startsWith('/') ? c : `${cwd}/${c}`;
    for (const p of [path.resolve(spelled), kernelPath(spelled)]) if (OWN_PROCESS_FOLDERS.some((f) => p === f.slice(0, -1) || p.startsWith(f))) return true;
  }
  return false;
}

/** Whether the edit reads stdin (`--request -`): a lone `-` anywhere, as the command's own parsing may take it. */
function readsStdin(args: readonly string[]): boolean {
  return args.some((a) => a === '-' || a === '--request=-');
}

/** Whether this call may run in the server: what it reads and prints means the same there (see the module's comment). */
export function servable(args: readonly string[], cwd: string, stdinIsTerminal: boolean): boolean {
  if (args.some((a) => a === '--help' || /^-[^-]*h/.test(a))) return false;
  if (readsStdin(args) && stdinIsTerminal) return false;
  return !args.some((a) => namesThisProcess(a, cwd));
}

function outputFacts(fd: 1 | 2): OutputFacts {
  if (!tty.isatty(fd)) return { isTTY: false };
  const columns = (fd === 1 ? process.stdout : process.stderr).columns;
  return columns > 0 ? { isTTY: true, columns } : { isTTY: true };
}

/**
 * The server's run of the edit: its reply, `not taken` (nothing ran: run it here) or `lost` (the server was told
 * to go and ended without an answer).
 */
async function throughServer(socket: string, hello: EditHello): Promise<(EditReply & { exitCode: number }) | 'not taken' | 'lost'> {
  const conn = net.connect(socket);
  conn.setEncoding('utf8');
  conn.on('error', () => undefined);
  const nextLine = lineReader(conn);
  const parse = (line: string | null): EditReply | null => {
    try {
      const reply = JSON.parse(line ?? '') as EditReply;
      // Another build's server (or anything else on the socket) is not believed.
      return typeof reply === 'object' && reply !== null && reply.build === hello.build ? reply : null;
    } catch {
      return null;
    }
  };
  try {
    conn.write(`${JSON.stringify(hello)}\n`);
    let timer: NodeJS.Timeout | undefined;
    const first = parse(await Promise.race([nextLine(), new Promise<null>((resolve) => (timer = setTimeout(() => resolve(null), READY_WAIT_MS)))]));
    clearTimeout(timer);
    if (first?.ready !== true) return 'not taken';
    // From here the edit is the server's: it is never run here too.
    conn.write(`${EDIT_GO}\n`);
    const last = parse(await nextLine());
    if (last === null || last.ready !== undefined || last.fallback !== undefined) return 'lost';
    if (typeof last.exitCode !== 'number' || !Number.isInteger(last.exitCode)) return 'lost';
    return last as EditReply & { exitCode: number };
  } finally {
    conn.destroy();
  }
}

/** The refusal of an edit whose server ended mid-call: errors.ts's one envelope or text, and its exit code. */
async function refuseLost(argv: readonly string[]): Promise<number> {
  const { EditwardenError } = await import('../errors.js');
  const { defaultIo, refuseCommand } = await import('./output.js');
  const error = new EditwardenError({
    code: 'E_GUARD_UNAVAILABLE',
    message: 'the warm editwarden server that ran this edit ended before it answered: whether it wrote the edit is not known here (each file it touched is whole, the old content or the new).',
    hint: 'Look at the file (git diff, or `editwarden log`) before going on; run the edit again if it is not there: with no server answering it runs in-process.',
  });
  return refuseCommand(error, argv.includes('--json'), defaultIo(), { results: [] });
}

async function exit(code: number): Promise<never> {
  process.exitCode = code;
  process.exit(code);
}

/** Runs `editwarden edit …` (argv as process.argv) and exits with its code. */
export async function editMain(argv: string[]): Promise<void> {
  const args = argv.slice(3);
  const cwd = process.cwd();
  const server = servable(args, cwd, tty.isatty(0)) ? findServer(process.env, false) : null;
  // Read once, when the edit reads it: the server's run or, when it does not take the call, this process's.
  let stdin: Buffer | null = null;
  if (server !== null && server.state === 'believed') {
    if (readsStdin(args)) stdin = await readStdin(null, []);
    const env: Record<string, string> = {};
    for (const [k, v] of Object.entries(process.env)) if (v !== undefined) env[k] = v;
    const hello: EditHello = {
      build: server.build,
      edit: { argv: argv.slice(2), stdin: (stdin ?? Buffer.alloc(0)).toString('utf8'), env, cwd, umask: process.umask(), stdout: outputFacts(1), stderr: outputFacts(2) },
    };
    const reply = await throughServer(server.socket, hello);
    if (reply === 'lost') await exit(await refuseLost(argv));
    if (typeof reply === 'object') {
      if (reply.stdout) writeOut(1, Buffer.from(reply.stdout, 'base64'));
      if (reply.stderr) writeOut(2, Buffer.from(reply.stderr, 'base64'));
      await exit(reply.exitCode);
    }
  }
  await inProcess(argv, stdin);
}

/** The CLI's own `edit`, in this process, as bin/editwarden runs every one-shot command; `stdin`: what was already read of it. */
async function inProcess(argv: string[], stdin: Buffer | null): Promise<void> {
  // As bin/editwarden does for every one-shot command: baseline wasm tier only, the code cache (see there).
  const cli = await inProcessCli('edit');
  if (stdin === null) {
    await cli.main(argv);
    return;
  }
  // Stdin was read for a server that did not take the call: the command reads what came.
  cli.tolerateClosedReaders();
  const { Readable } = await import('node:stream');
  const code = await cli.run(argv, { stdout: process.stdout, stderr: process.stderr, stdin: Readable.from([stdin]), env: process.env });
  await new Promise<void>((resolve) => process.stdout.write('', () => resolve()));
  await new Promise<void>((resolve) => process.stderr.write('', () => resolve()));
  await exit(code);
}
