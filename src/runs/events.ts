/**
 * The root's event log, written: `.editwarden/events.jsonl`, one event
 * (event-types.ts) per line, appended by every route — the ToolRunner for
 * editwarden's own runs, a client's hooks, undo/redo, the shell guard. This
 * is the one writer of the log; events-read.ts is its one reader.
 *
 * Crash-safe and append-only: the file is opened with O_APPEND and each
 * event is one write() of one whole line, so concurrent writers (a hook and
 * an MCP server in one root) never interleave inside a line, and a writer
 * killed mid-write leaves at most one torn last line. The next writer sees
 * the file does not end in a newline, starts its line on a fresh one and
 * marks it `after_torn`, so the reader skips exactly that fragment and
 * refuses any other line it cannot read.
 *
 * Bounded: once the log reaches EVENT_LOG_MAX_BYTES it is renamed to
 * `events.1.jsonl` (older generations shift to `.2`, `.3`; the oldest beyond
 * EVENT_LOG_KEEP is deleted) and a new log begins. A diff longer than
 * INLINE_DIFF_MAX is stored beside the log as a content-addressed blob
 * (`events-diffs/<sha256>.diff`, cut at BLOB_DIFF_MAX) and the event names
 * it; blobs no kept generation names are deleted at rotation.
 *
 * Attacks it defends against: a repository that ships `.editwarden/` with
 * `events.jsonl -> /elsewhere` (O_NOFOLLOW: never followed), a FIFO in its
 * place (O_NONBLOCK and a regular-file check), a file of another user (the
 * state folder's owner check). It writes nothing outside the state folder.
 */
import { createHash, randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { BLOB_ID, ensureStateSubdir, ensureTrustedStateDir, untrusted } from '../workspace/state-dir.js';
import { EVENT_FORMAT, type EditwardenEvent, type EventDiff, type NewEvent } from './event-types.js';
import { defined } from '../defined.js';

export * from './event-types.js';

export const EVENTS_FILE = 'events.jsonl';
/** Size at which the log is rotated (8 MiB: some 10,000 events with small diffs). */
export const EVENT_LOG_MAX_BYTES = 8 * 1024 * 1024;
/** Rotated generations kept beside the current log (events.1.jsonl … events.3.jsonl). */
const EVENT_LOG_KEEP = 3;
/** Longest diff kept inside the event line; a longer one goes to a blob. */
export const INLINE_DIFF_MAX = 16 * 1024;
/** Longest diff a blob keeps (the rest is cut, and the event says so). */
const BLOB_DIFF_MAX = 4 * 1024 * 1024;
export const DIFFS_DIR = 'events-diffs';

export interface EventLogOptions {
  /** Rotation size (tests use a small one). */
  maxBytes?: number;
  keep?: number;
}

/** The name of a generation: 0 is the current log, n ≥ 1 a rotated one. */
export function generationFile(n: number): string {
  return n === 0 ? EVENTS_FILE : `events.${n}.jsonl`;
}

/**
 * Appends one event to the root's log (the state folder is made or checked
 * first). Throws E_UNTRUSTED_STATE for a planted log; callers that record
 * evidence beside their real work catch it (a full disk must not fail an edit).
 */
export function appendEvent(stateDir: string, event: NewEvent, options: EventLogOptions = {}): EditwardenEvent {
  ensureTrustedStateDir(stateDir);
  const { diff: _inline, time, ...rest } = event as NewEvent & EventDiff;
  const full = { v: EVENT_FORMAT, time: time ?? new Date().toISOString(), ...rest, ...storeDiff(stateDir, event) } as EditwardenEvent;
  const file = path.join(stateDir, EVENTS_FILE);
  let fd = openForAppend(file);
  try {
    let st = checkedStat(file, fd);
    if (st.size >= (options.maxBytes ?? EVENT_LOG_MAX_BYTES)) {
      fs.closeSync(fd);
      fd = -1;
      rotate(stateDir, st.ino, options.keep ?? EVENT_LOG_KEEP);
      fd = openForAppend(file);
      st = checkedStat(file, fd);
    }
    const torn = st.size > 0 && lastByte(fd, st.size) !== 0x0a;
    const line = `${torn ? '\n' : ''}${JSON.stringify(torn ? { ...full, after_torn: true } : full)}\n`;
    const bytes = Buffer.from(line, 'utf8');
    // One write() of the whole line: O_APPEND places it after every other writer's whole line.
    const written = fs.writeSync(fd, bytes);
    if (written !== bytes.length) throw new Error(`short write to ${file} (${written} of ${bytes.length} bytes)`);
    return full;
  } finally {
    if (fd >= 0) fs.closeSync(fd);
  }
}

/** appendEvent for callers whose real work must not fail on a record: the error is returned, not thrown. */
export function recordEvent(stateDir: string, event: NewEvent, options: EventLogOptions = {}): Error | null {
  try {
    appendEvent(stateDir, event, options);
    return null;
  } catch (error) {
    return error instanceof Error ? error : new Error(String(error));
  }
}

function openForAppend(file: string): number {
  try {
    return fs.openSync(file, fs.constants.O_RDWR | fs.constants.O_APPEND | fs.constants.O_CREAT | fs.constants.O_NOFOLLOW | fs.constants.O_NONBLOCK, 0o644);
  } catch (error) {
    // ELOOP: a planted symlink in the log's place (O_RDWR: the last byte is read to find a torn line; O_APPEND still puts every write at the end).
    if ((error as NodeJS.ErrnoException).code === 'ELOOP') throw untrusted(`${file} is a symlink; editwarden's event log must be a regular file.`);
    throw error;
  }
}

/** The log's fstat, refused unless it is a regular file of this user. */
export function checkedStat(file: string, fd: number): fs.Stats {
  const st = fs.fstatSync(fd);
  if (!st.isFile()) throw untrusted(`${file} is not a regular file.`);
  const uid = typeof process.getuid === 'function' ? process.getuid() : null;
  if (uid !== null && st.uid !== uid) throw untrusted(`${file} belongs to user ${st.uid}, not to the user running editwarden (${uid}).`);
  return st;
}

function lastByte(fd: number, size: number): number {
  const one = Buffer.alloc(1);
  fs.readSync(fd, one, 0, 1, size - 1);
  return one[0] as number;
}

/**
 * Shifts the generations and starts a new log. Only the writer that still
 * sees the full log under the name rotates it (another writer may have just
 * done so); two writers racing here can at worst shift a generation early —
 * the current log is never lost or torn, since renames move whole files.
 */
function rotate(stateDir: string, fullIno: number, keep: number): void {
  const at = (n: number): string => path.join(stateDir, generationFile(n));
  try {
    if (fs.lstatSync(at(0)).ino !== fullIno) return;
  } catch {
    return;
  }
  ignoreMissing(() => fs.unlinkSync(at(keep)));
  for (let n = keep - 1; n >= 1; n--) ignoreMissing(() => fs.renameSync(at(n), at(n + 1)));
  ignoreMissing(() => fs.renameSync(at(0), at(1)));
  pruneDiffBlobs(stateDir, keep);
}

function ignoreMissing(fn: () => void): void {
  try {
    fn();
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
}

/** Deletes the diff blobs that no kept generation names (blobs would otherwise outgrow the bounded log). */
function pruneDiffBlobs(stateDir: string, keep: number): void {
  const dir = path.join(stateDir, DIFFS_DIR);
  let names: string[];
  try {
    names = fs.readdirSync(dir);
  } catch {
    return;
  }
  const named = new Set<string>();
  for (let n = 1; n <= keep; n++) {
    let text: string;
    try {
      const fd = fs.openSync(path.join(stateDir, generationFile(n)), fs.constants.O_RDONLY | fs.constants.O_NOFOLLOW | fs.constants.O_NONBLOCK);
      try {
        text = fs.fstatSync(fd).isFile() ? fs.readFileSync(fd, 'utf8') : '';
      } finally {
        fs.closeSync(fd);
      }
    } catch {
      continue;
    }
    for (const m of text.matchAll(/"diff_blob":"([0-9a-f]{64})"/g)) named.add(m[1] as string);
  }
  for (const name of names) {
    const id = name.replace(/\.diff$/, '');
    if (BLOB_ID.test(id) && !named.has(id)) ignoreMissing(() => fs.unlinkSync(path.join(dir, name)));
  }
}

/** The event's diff fields: inline when short, else written to a blob (atomically: a crash never leaves a blob with the wrong bytes under its name). */
function storeDiff(stateDir: string, event: NewEvent): EventDiff {
  const diff = (event as EventDiff).diff;
  if (diff === undefined || diff.length <= INLINE_DIFF_MAX) return diff === undefined ? {} : { diff };
  const cut = diff.length > BLOB_DIFF_MAX;
  const kept = cut ? diff.slice(0, BLOB_DIFF_MAX) : diff;
  const id = createHash('sha256').update(kept, 'utf8').digest('hex');
  const dir = ensureStateSubdir(stateDir, DIFFS_DIR);
  const target = path.join(dir, `${id}.diff`);
  const temp = path.join(dir, `${id}.tmp-${process.pid}-${randomBytes(4).toString('hex')}`);
  const fd = fs.openSync(temp, fs.constants.O_WRONLY | fs.constants.O_CREAT | fs.constants.O_EXCL | fs.constants.O_NOFOLLOW, 0o644);
  try {
    fs.writeFileSync(fd, kept, 'utf8');
  } finally {
    fs.closeSync(fd);
  }
  fs.renameSync(temp, target);
  return { diff_blob: id, ...defined({ diff_truncated: cut ? (true as const) : undefined }) };
}
