/**
 * The write witness: which files a command's own process tree wrote, so an
 * undo or put-back of its step can tell its changes from a person's made in
 * the same window (issue 37). The command runs under `strace -f` (outside
 * the sandbox, its log outside every writable root), which records every
 * successful system call that can change a path, from every process the
 * command started and none other; this module parses that log.
 *
 * The log's grammar (strace -f -y -xx, one call per line):
 *
 *   line   = PID SP call "(" args ")" SP* "=" SP ret
 *   args   = arg ("," SP arg)*
 *   arg    = STRING | FD | other            STRING = '"' ("\x" HEX HEX)* '"'
 *   FD     = (digits | "AT_FDCWD") "<" ("\x" HEX HEX)* ">"   (the kernel's path of the folder or file)
 *   ret    = digits ["<" path ">"] | ...
 *
 * `-xx` prints every byte of a string or path as `\xHH`, so a name holding
 * `"`, `<`, `>` or a newline cannot be misread. Lines that are not calls
 * (signals, exits) are skipped.
 *
 * What it can and cannot tell (docs/undo.md): a path named with a folder
 * (`openat`, `renameat2`, `unlinkat`: nearly every program) is exact; a
 * relative name given to an old call without one (`rename("a","b")`, as
 * Node's fs.rename does) is matched by its tail, which may credit the
 * command with a same-named file elsewhere; a write through a descriptor
 * the command did not open (none reach it: the sandbox starts it with
 * stdin, stdout and stderr only) is not seen. It never credits a file the
 * command's processes did not name. A machine without strace, or where
 * ptrace is not permitted, has no witness: then every change in the window
 * is the command's, and the step says so.
 *
 * It must never run the command itself; spawn.ts wraps the argv.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { childProcess } from '../builtins.js';
import { systemProgram } from './system-program.js';

/** Calls that open: a write is one whose flags ask for writing (the path is the returned descriptor's). */
const OPENS = new Set(['open', 'openat', 'openat2', 'creat']);
const WRITE_FLAGS = /\b(O_WRONLY|O_RDWR|O_CREAT|O_TRUNC|O_TMPFILE)\b/;
/**
 * Calls whose first string names a path they do not change (a symlink's target). A hard link's source is
 * credited (link, linkat): a write through the new name changes the source's bytes.
 */
const SKIP_FIRST = new Set(['symlink', 'symlinkat']);
/** Every call that changes a path's content, name, mode, owner or times ('?': unknown on this architecture is no error). */
const TRACED = [
  'open',
  'openat',
  'openat2',
  'creat',
  'unlink',
  'unlinkat',
  'rename',
  'renameat',
  'renameat2',
  'link',
  'linkat',
  'symlink',
  'symlinkat',
  'mkdir',
  'mkdirat',
  'rmdir',
  'truncate',
  'ftruncate',
  'chmod',
  'fchmod',
  'fchmodat',
  'chown',
  'fchown',
  'lchown',
  'fchownat',
  'utime',
  'utimes',
  'utimensat',
  'futimesat',
  'mknod',
  'mknodat',
  // io_uring opens, renames and unlinks without these calls: a command that sets one up is not witnessed at all.
  'io_uring_setup',
];

/** What the witness saw, as paths relative to the root. */
export interface WitnessLog {
  /** Root-relative paths a call named exactly (through a folder descriptor or an absolute path). */
  paths: Set<string>;
  /** Relative names given without a folder (the process's working folder is not in the log): matched by their tail. */
  tails: Set<string>;
  /** Paths a rename moved: everything below them moved with them. */
  trees: Set<string>;
  /** False when the command used a way to change files the log cannot show (io_uring): then the log credits nothing. Absent: complete. */
  complete?: boolean;
}

/** Probes by program and its identity on disk: a program replaced in place (an upgrade) is probed again. */
const probed = new Map<string, string | null>();

/**
 * The strace at a system location (system-program.ts: strace runs outside the sandbox and starts bubblewrap
 * itself, so a "strace" found through PATH could run the command unconfined), or null (none, too old, or ptrace not permitted here). Probed once per program
 * file. `EDITWARDEN_STRACE` names another program (tests point it at a missing or failing one), as EDITWARDEN_BWRAP
 * does for bubblewrap: the environment of editwarden's own process, which a repository does not set.
 */
export function witnessProgram(env: NodeJS.ProcessEnv = process.env): string | null {
  const named = env.EDITWARDEN_STRACE;
  const program = named !== undefined && named !== '' ? (isExecutable(named) ? named : undefined) : (systemProgram('strace') ?? undefined);
  if (program === undefined) return null;
  let key: string;
  try {
    const s = fs.statSync(program);
    key = `${program}\0${s.dev}:${s.ino}:${s.size}:${s.mtimeMs}:${s.ctimeMs}`;
  } catch {
    return null;
  }
  const known = probed.get(key);
  if (known !== undefined) return known;
  let found: string | null = null;
  try {
    // A real trace of a program that does nothing: strace present, new enough for the flags below, and allowed to ptrace.
    // This Node by its own path, never a `true` found through PATH: the probe runs outside any sandbox.
    childProcess().execFileSync(program, [...traceFlags('/dev/null'), '--', process.execPath, '-e', '0'], { stdio: 'ignore', timeout: 10_000 });
    found = program;
  } catch {
    found = null;
  }
  probed.set(key, found);
  return found;
}

function isExecutable(file: string): boolean {
  try {
    fs.accessSync(file, fs.constants.X_OK);
    return fs.statSync(file).isFile();
  } catch {
    return false;
  }
}

/** The arguments that make strace the witness of what follows `--`, its log written to `log`. */
export function traceFlags(log: string): string[] {
  return ['-f', '-qq', '--seccomp-bpf', '-y', '-xx', '-s', '65535', '-e', 'status=successful', '-e', `trace=${TRACED.map((c) => `?${c}`).join(',')}`, '-o', log];
}

const LINE = /^\d+\s+([a-z0-9_]+)\((.*)\)\s*=\s*(-?\d+)(?:<((?:\\x[0-9a-f]{2})*)>)?/;
const TOKEN = /"((?:\\x[0-9a-f]{2})*)"|(?:\d+|AT_FDCWD)<((?:\\x[0-9a-f]{2})*)>|NULL/g;

/** Decodes a `\xHH…` run (strace -xx) to the bytes' UTF-8 text. */
function unhex(text: string): string {
  const bytes = Buffer.alloc(text.length / 4);
  for (let i = 0; i < bytes.length; i++) bytes[i] = Number.parseInt(text.slice(i * 4 + 2, i * 4 + 4), 16);
  return bytes.toString('utf8');
}

type Arg = { kind: 'str'; value: string } | { kind: 'fd'; path: string } | { kind: 'null' };

/** Parses a witness log into the paths under `root` (a real path) the traced processes changed. */
export function parseWitness(text: string, root: string): WitnessLog {
  const out: WitnessLog = { paths: new Set(), tails: new Set(), trees: new Set() };
  let moving = false;
  const add = (abs: string): void => {
    const rel = path.posix.relative(root, path.posix.normalize(abs));
    if (rel === '' || rel.startsWith('../') || rel === '..' || path.posix.isAbsolute(rel)) return;
    out.paths.add(rel);
    if (moving) out.trees.add(rel);
  };
  for (const line of text.split('\n')) {
    const m = LINE.exec(line);
    if (!m) continue;
    const call = m[1] as string;
    const argText = m[2] as string;
    moving = call.startsWith('rename');
    if (call === 'io_uring_setup') out.complete = false;
    if (OPENS.has(call)) {
      // The descriptor returned is the file the kernel opened: its path is exact whatever the name given.
      if ((call === 'creat' || WRITE_FLAGS.test(argText)) && m[4] !== undefined) add(unhex(m[4]));
      continue;
    }
    const args: Arg[] = [];
    for (const t of argText.matchAll(TOKEN)) {
      if (t[1] !== undefined) args.push({ kind: 'str', value: unhex(t[1]) });
      else if (t[2] !== undefined) args.push({ kind: 'fd', path: unhex(t[2]) });
      else args.push({ kind: 'null' });
    }
    let skip = SKIP_FIRST.has(call) ? 1 : 0;
    let folder: string | null = null;
    let named = false;
    for (const a of args) {
      if (a.kind === 'fd') {
        folder = a.path;
        continue;
      }
      if (skip > 0) {
        skip--;
        folder = null;
        continue;
      }
      named = true;
      if (a.kind === 'null') {
        // utimensat(fd, NULL, …): the descriptor's own file.
        if (folder !== null) add(folder);
      } else if (path.posix.isAbsolute(a.value)) add(a.value);
      else if (folder !== null) add(`${folder}/${a.value}`);
      else {
        const tail = path.posix.normalize(a.value).replace(/\/+$/, '');
        out.tails.add(tail);
        if (moving) out.trees.add(tail);
      }
      folder = null;
    }
    // fchmod(fd), ftruncate(fd), fchown(fd): the descriptor's file.
    if (!named && folder !== null) add(folder);
  }
  return out;
}

/** Whether the witness saw the command's processes change `rel` (a root-relative path). */
export function witnessed(log: WitnessLog, rel: string): boolean {
  if (log.paths.has(rel)) return true;
  const tailOf = (tail: string, p: string): boolean => tail !== '.' && tail !== '..' && !tail.startsWith('../') && (p === tail || p.endsWith(`/${tail}`));
  for (const tail of log.tails) if (tailOf(tail, rel)) return true;
  // A folder a rename moved carried every file below it.
  const parts = rel.split('/');
  for (let i = 1; i < parts.length; i++) {
    const up = parts.slice(0, i).join('/');
    if (log.trees.has(up)) return true;
    for (const tree of log.trees) if (tailOf(tree, up)) return true;
  }
  return false;
}

/** The largest log read (~500k traced calls at ~250 bytes each): past it, the witness is not used for that command. */
const MAX_LOG_BYTES = 128 * 1024 * 1024;

/** Where one command's witness log is written: a private folder of the system's temp (never inside the sandbox, whose /tmp is its own). */
export class WitnessFile {
  readonly path: string;
  private readonly dir: string;

  constructor() {
    this.dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ew-witness-'));
    this.path = path.join(this.dir, 'log');
  }

  /**
   * What the log says, for `root` (a real path); null when no witness wrote
   * it, or when it is over MAX_LOG_BYTES (a build that opened millions of
   * files): then the step is judged by times, as without a witness.
   */
  read(root: string): WitnessLog | null {
    let text: string;
    try {
      if (fs.statSync(this.path).size > MAX_LOG_BYTES) return null;
      text = fs.readFileSync(this.path, 'utf8');
    } catch {
      return null;
    }
    const log = parseWitness(text, root);
    // Attack: writes through io_uring reach no traced call; such a command is judged as one without a witness.
    return log.complete === false ? null : log;
  }

  dispose(): void {
    // strace writes the log alone (-o): two calls, no recursive walk — after every guarded command.
    try {
      fs.rmSync(this.path, { force: true });
      fs.rmdirSync(this.dir);
    } catch {
      fs.rmSync(this.dir, { recursive: true, force: true });
    }
  }
}
