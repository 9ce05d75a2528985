/**
 * The working folder of a client's shell, carried from one guarded command
 * to the next as the client's own shell carries it.
 *
 * What each client's own shell carries (seen in the clients themselves):
 * Claude Code 2.1.197 runs every Bash call in a fresh shell as
 * `… && eval '<command>' && pwd -P >| <file>`, and reads that file back as
 * the session's working folder; the next call starts there. So `cd`
 * carries over (only when the command succeeded, as the `&&` says),
 * exported variables do not (each call is a new shell). Gemini CLI 0.61.0
 * runs each `run_shell_command` as its own `bash -c` in the project root or
 * the call's `dir_path`, and Codex 0.171 each `exec_command` in its
 * `workdir`: nothing carries over there, and nothing is carried here.
 *
 * A guarded command runs in editwarden's own process (`editwarden shell`),
 * so a `cd` in it cannot reach the client's shell by itself. For a client
 * that carries the folder, the command is run as Claude Code runs it
 * (`eval '<command>' && pwd -P >| <capture>`); the folder it ended in is
 * checked (inside the root, through the race-free resolver; outside, gone
 * or not a folder: the root, with a note) and written to
 * `.editwarden/shell-cwd/<session key>` in the trusted state folder; the
 * rewritten command line then moves the client's own shell there
 * (`cdBackLine`), and the client's own tracking does the rest — the next
 * call starts where the client says, which is where the command ended.
 * Only the working folder is carried; exported variables, aliases and
 * functions are not, as in the client's own shell.
 *
 * It must never hand out a folder outside the root, never read its state
 * through a symlink, and never make a command fail that did not fail.
 */
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { atomicWriteFile } from '../workspace/atomic.js';
import { ensureStateSubdir } from '../workspace/state-dir.js';
import type { Located } from '../workspace/resolver.js';
import type { SessionKey } from '../runs/ledger.js';

const CWD_DIR = 'shell-cwd';
/** A folder path longer than this is not one a shell reported. */
const MAX_PATH = 4096;

/** What the decision needs of the workspace: its root and the one resolver's walk. */
export interface FolderWorkspace {
  readonly root: string;
  locate(requested: string): Located;
}

/** A folder a command may start in or leave the session in: always the root or a real folder under it. */
export interface FolderDecision {
  /** Absolute real path, the root or inside it. */
  dir: string;
  /** Why it is not the folder asked for (null: it is). */
  note: string | null;
}

/**
 * Where `asked` (an absolute path as a shell reports it) really is, as a
 * folder of the root: walked component by component from the opened root
 * (a symlink inside the root is followed by re-walking its target; one
 * that leads out is refused), so what is handed out is the root or a real
 * folder under it. Anything else — outside the root, a symlink out, gone
 * since, a file — is the root, with a note that says why.
 */
export function folderInRoot(ws: FolderWorkspace, asked: string): FolderDecision {
  const atRoot = (why: string): FolderDecision => ({ dir: ws.root, note: `${why}; it runs in the project root ${ws.root} instead.` });
  if (asked === '' || asked.length > MAX_PATH || asked.includes('\0') || !path.isAbsolute(asked)) return atRoot(`the working folder ${JSON.stringify(asked.slice(0, 200))} is not an absolute path`);
  if (asked === ws.root) return { dir: ws.root, note: null };
  // Spelled outside the root: never walked (`..` inside it is walked as the kernel walks it, below).
  const lexical = path.relative(ws.root, path.resolve(asked));
  if (lexical.startsWith('..') || path.isAbsolute(lexical)) return atRoot(`the working folder ${asked} is outside the project`);
  let located: Located;
  try {
    located = ws.locate(asked);
  } catch {
    // A symlink that leads out, a loop, a folder editwarden's own rules deny (.editwarden/): not a folder to work in.
    return atRoot(`the working folder ${asked} leads outside the project or into a folder commands may not work in`);
  }
  located.parent?.close();
  if (located.stat === null) return atRoot(`the working folder ${asked} no longer exists`);
  if (!located.stat.isDirectory()) return atRoot(`${asked} is not a folder`);
  return { dir: located.absolute, note: null };
}

/** The state file of a session: a hash of client and session, so a hostile session id never becomes a path. */
function stateName(key: SessionKey): string {
  return createHash('sha256').update(`${key.client}\0${key.session}`).digest('hex').slice(0, 32);
}

/** The file the client's shell reads the carried folder from (absolute; its folder may not exist yet). */
export function carriedFolderFile(stateDir: string, key: SessionKey): string {
  return path.join(stateDir, CWD_DIR, stateName(key));
}

/**
 * What the rewritten command line runs after `editwarden shell` in the
 * client's own shell: when it succeeded, `cd` to the folder it left, so the
 * client's own tracking (`pwd -P` after the line) sees it. The exit code
 * is the command's whatever the `cd` does; a missing, empty or unfinished
 * file moves nothing. The file is read by the shell's own `read` (one line:
 * a carried folder never holds a newline, see `settle`), not `$(cat …)`,
 * and the exit code is set again by a subshell only when it is not 0: no
 * process is started after a guarded command that succeeded.
 */
export function cdBackLine(file: string): string {
  const q = `'${file.replace(/'/g, `'\\''`)}'`;
  return `ew_s=$?; if [ $ew_s -eq 0 ]; then { IFS= read -r ew_d <${q}; } 2>/dev/null && [ -n "$ew_d" ] && cd -- "$ew_d" 2>/dev/null; fi; [ $ew_s -eq 0 ] || (exit $ew_s)`;
}

/** One guarded command's part in carrying the folder. */
export interface CarriedShell {
  /** The command line to run (Claude Code's own shape when the folder is carried). */
  command: string;
  /** A file to bind writable into the sandbox (the shell writes its final folder there), or null. */
  capture: string | null;
  /** After the command: reads where it ended, decides, writes the session's state; a note for the model, or null. */
  settle(exitCode: number | null): string | null;
  /** Removes the capture file (always, in a finally). */
  dispose(): void;
}

export interface CarryOptions {
  ws: FolderWorkspace;
  stateDir: string;
  /** The client's session; without one nothing is carried (nothing keys it). */
  session: SessionKey | null;
  /** Whether the client's own shell carries its folder (ClientIntegration.shell.carriesCwd). */
  carries: boolean;
  /** A private temp folder of this process (outside every writable root but the capture's own bind). */
  tmpDir: string;
}

/**
 * The command as it is run, and what happens to the folder it ends in.
 * A client that does not carry the folder gets its command unchanged.
 */
export function carryShellFolder(command: string, opts: CarryOptions): CarriedShell {
  if (!opts.carries || opts.session === null) return { command, capture: null, settle: () => null, dispose: () => undefined };
  const session = opts.session;
  const capture = path.join(fs.mkdtempSync(path.join(opts.tmpDir, 'ew-cwd-')), 'cwd');
  // The file exists before the command, so the sandbox can bind it (and only it) writable.
  fs.writeFileSync(capture, '', { mode: 0o600 });
  const quoted = `'${command.replace(/'/g, `'\\''`)}'`;
  return {
    // As Claude Code runs its own: the folder is recorded only when the command succeeded and did not `exit`.
    command: `eval ${quoted} && { pwd -P 2>/dev/null >| '${capture.replace(/'/g, `'\\''`)}' || :; }`,
    capture,
    settle(exitCode) {
      const file = carriedFolderFile(opts.stateDir, session);
      const reported = exitCode === 0 ? readCapture(capture) : null;
      if (reported === null) {
        // Nothing recorded (it failed, or ended with `exit`): the client's shell stays where it was, as in Claude Code —
        // an older file (a session resumed elsewhere) must not move it.
        fs.rmSync(file, { force: true });
        return null;
      }
      const decided = folderInRoot(opts.ws, reported);
      // The client's shell reads one line (cdBackLine): a folder whose name holds a newline is not carried.
      if (decided.dir.includes('\n')) {
        fs.rmSync(file, { force: true });
        return 'The next command will not start in that folder: its path holds a line break; it starts where this one started.';
      }
      const line = `${decided.dir}\n`;
      try {
        // Most commands end where they started: the file already says so, and is left as it is (no write, no fsync).
        if (readLine(file) !== line) {
          ensureStateSubdir(opts.stateDir, CWD_DIR);
          atomicWriteFile(file, Buffer.from(line), { mode: 0o644 });
        }
      } catch (error) {
        // The command ran and its result stands; only the folder is not carried.
        return `The working folder could not be kept for the next command (${error instanceof Error ? error.message : String(error)}).`;
      }
      return decided.note === null ? null : `The next command will not start in that folder: ${decided.note}`;
    },
    dispose() {
      // The folder holds the capture alone (only the capture is bound writable): two calls, no recursive walk.
      try {
        fs.unlinkSync(capture);
        fs.rmdirSync(path.dirname(capture));
      } catch {
        fs.rmSync(path.dirname(capture), { recursive: true, force: true });
      }
    },
  };
}

/** A file's text, never through a symlink nor blocking on a FIFO; null when it cannot be read. */
function readLine(file: string): string | null {
  try {
    const fd = fs.openSync(file, fs.constants.O_RDONLY | fs.constants.O_NOFOLLOW | fs.constants.O_NONBLOCK);
    try {
      return fs.readFileSync(fd, 'utf8').slice(0, MAX_PATH + 1);
    } finally {
      fs.closeSync(fd);
    }
  } catch {
    return null;
  }
}

/** The last line the shell wrote (`pwd -P` and a newline), or null when it wrote none. */
function readCapture(file: string): string | null {
  const text = readLine(file);
  if (text === null || !text.endsWith('\n')) return null;
  const line = text.slice(0, -1);
  return line === '' || line.includes('\n') ? null : line;
}
