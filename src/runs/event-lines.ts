/**
 * The event log's files, line by line: their names, the check every one of
 * them passes before a byte is read or written, the grammar of one line, and
 * a reader that walks a file's lines in bounded memory. Shared by the writer
 * (events.ts), the rotation index (events-index.ts) and the reader
 * (events-read.ts), so each rule exists once.
 *
 * Grammar of a log file:
 *   file  = *( line LF ) [ torn ]     ; torn: what a writer killed mid-line left
 *   line  = <one JSON object: an event of event-types.ts>
 * A line longer than LINE_READ_MAX is not read at all (skipped with a note);
 * a file is read up to FILE_READ_MAX bytes (the rest is skipped with a note).
 *
 * Attacks it defends against: a log, generation, index or side file that is
 * a symlink (O_NOFOLLOW: never followed — `events.1.jsonl -> ../.git/config`
 * is not read), a FIFO or device in its place (O_NONBLOCK, then a
 * regular-file check: nothing blocks), a file of another user, a hard link
 * to a file elsewhere (more than one link: editwarden's own files have one),
 * and a huge or sparse file (read in slices up to a cap; one endless line is
 * skipped, not held in memory). It never writes.
 */
import fs from 'node:fs';
import { BLOB_ID, untrusted } from '../workspace/state-dir.js';
import { EVENT_FORMAT, EVENT_KINDS, type EditwardenEvent } from './event-types.js';
import { anyOf, arrayOf, bool, literal, looseObject, matching, nullable, num, oneOf, optional, type Shape, str, time } from './line-shape.js';

export const EVENTS_FILE = 'events.jsonl';
/** Side files: long diffs (`<sha256>.diff`) and the whole of cut lists (`<sha256>.list`). */
export const DIFFS_DIR = 'events-diffs';
/** Size at which the log is rotated (8 MiB: some 10,000 events with small diffs). */
export const EVENT_LOG_MAX_BYTES = 8 * 1024 * 1024;
/** Longest line editwarden writes (events-cap.ts keeps every event under it). */
export const EVENT_LINE_MAX = 96 * 1024;
/** Longest line the reader reads; a longer one (a damaged file, or an older editwarden's uncapped event) is skipped with a note. */
const LINE_READ_MAX = 1024 * 1024;
/** Most of one log file that is read: rotation keeps editwarden's own far below it; the rest of a larger file is skipped with a note. */
const FILE_READ_MAX = 4 * EVENT_LOG_MAX_BYTES;

/** The name of a generation: 0 is the current log, n ≥ 1 a rotated one. */
export function generationFile(n: number): string {
  return n === 0 ? EVENTS_FILE : `events.${n}.jsonl`;
}

/** A file of the log's, opened and checked: a regular file of this user with one link. */
export interface OpenLogFile {
  fd: number;
  size: number;
}

/** The log's fstat, refused unless it is a regular file of this user. */
export function checkedStat(file: string, fd: number): fs.Stats {
  const st = fs.fstatSync(fd);
  if (!st.isFile()) throw untrusted(`${file} is not a regular file.`);
  const uid = typeof process.getuid === 'function' ? process.getuid() : null;
  if (uid !== null && st.uid !== uid) throw untrusted(`${file} belongs to user ${st.uid}, not to the user running editwarden (${uid}).`);
  return st;
}

/**
 * Opens one of the log's files for reading: null when it does not exist;
 * throws E_UNTRUSTED_STATE when it is not one editwarden wrote (a link, not
 * a regular file, another user's, a hard link to something else).
 */
/**
 * Opens `file` (the log or its index) to append, never through a planted symlink (O_NOFOLLOW: ELOOP is refused as
 * untrusted state) and never waiting on a planted FIFO (O_NONBLOCK). `readBack`: opened for reading too (the log
 * reads its last byte to find a torn line; O_APPEND still puts every write at the end).
 */
export function openForAppend(file: string, what: string, readBack: boolean): number {
  try {
    const access = readBack ? fs.constants.O_RDWR : fs.constants.O_WRONLY;
    return fs.openSync(file, access | fs.constants.O_APPEND | fs.constants.O_CREAT | fs.constants.O_NOFOLLOW | fs.constants.O_NONBLOCK, 0o644);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ELOOP') throw untrusted(`${file} is a symlink; editwarden's ${what} must be a regular file.`);
    throw error;
  }
}

export function openLogFile(file: string): OpenLogFile | null {
  let fd: number;
  try {
    fd = fs.openSync(file, fs.constants.O_RDONLY | fs.constants.O_NOFOLLOW | fs.constants.O_NONBLOCK);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') return null;
    // A planted `events.1.jsonl -> ../.git/config`: never followed.
    if (code === 'ELOOP') throw untrusted(`${file} is a symlink; editwarden's event log must be a regular file.`);
    throw error;
  }
  try {
    const st = checkedStat(file, fd);
    // A hard link to `.git/config` is a regular file of this user: its second name gives it away (editwarden renames its files into place, one name each).
    if (st.nlink > 1) throw untrusted(`${file} has ${st.nlink} names (a hard link); editwarden's event log files have one.`);
    return { fd, size: st.size };
  } catch (error) {
    fs.closeSync(fd);
    throw error;
  }
}

/** What walking a file's lines met besides lines: an unfinished last line, over-long lines, an unread tail. */
export interface LineWalk {
  /** The bytes after the last newline (a line a writer did not finish), when any. */
  unfinished: boolean;
  /** Lines longer than LINE_READ_MAX, by number (not read). */
  oversized: number[];
  /** Bytes past FILE_READ_MAX that were not read. */
  unread: number;
}

const SLICE = 1024 * 1024;

/**
 * Calls `onLine` for each complete line of an opened file, in order, with
 * its 1-based number; never holds more than one line (≤ lineMax) and one
 * slice in memory. Closes nothing: the caller owns `fd`.
 */
export function walkLines(file: OpenLogFile, onLine: (line: string, n: number) => void, limits: { lineMax?: number; fileMax?: number; slice?: number } = {}): LineWalk {
  const lineMax = limits.lineMax ?? LINE_READ_MAX;
  const toRead = Math.min(file.size, limits.fileMax ?? FILE_READ_MAX);
  const out: LineWalk = { unfinished: false, oversized: [], unread: file.size - toRead };
  const buf = Buffer.alloc(Math.min(limits.slice ?? SLICE, Math.max(toRead, 1)));
  let parts: Buffer[] = [];
  let held = 0;
  let skipping = false;
  let n = 1;
  let pos = 0;
  while (pos < toRead) {
    const got = fs.readSync(file.fd, buf, 0, Math.min(buf.length, toRead - pos), pos);
    if (got === 0) break;
    pos += got;
    let start = 0;
    for (let nl = buf.indexOf(0x0a, start); nl !== -1 && nl < got; nl = buf.indexOf(0x0a, start)) {
      if (!skipping && held + (nl - start) <= lineMax) {
        parts.push(buf.subarray(start, nl));
        onLine(Buffer.concat(parts).toString('utf8'), n);
      } else if (!skipping) out.oversized.push(n);
      parts = [];
      held = 0;
      skipping = false;
      start = nl + 1;
      n++;
    }
    if (start < got && !skipping) {
      if (held + (got - start) > lineMax) {
        // An endless line (a sparse file is one line of NULs): dropped as it goes, counted once.
        out.oversized.push(n);
        skipping = true;
        parts = [];
        held = 0;
      } else {
        parts.push(Buffer.from(buf.subarray(start, got)));
        held += got - start;
      }
    }
  }
  out.unfinished = held > 0;
  return out;
}

const strings = arrayOf(str);
const blobId = matching(BLOB_ID, 'a blob id');
const listCut = looseObject({ total: num, blob: optional(blobId) });

/** The fields each kind must have, with their types; unknown fields pass (newer writers may add some). */
const base = looseObject({
  v: literal(EVENT_FORMAT),
  time,
  kind: oneOf(EVENT_KINDS),
  route: looseObject({ via: str, client: optional(str), session: optional(str), run: optional(str) }),
  paths: strings,
  checkpoint: optional(str),
  diff: optional(str),
  diff_blob: optional(blobId),
  cut: optional(looseObject({ paths: optional(listCut), written: optional(listCut), removed: optional(listCut), put_back: optional(listCut), undoes: optional(listCut), left: optional(listCut), texts: optional(strings) })),
  indexed: optional(literal(true)),
});
const byKind: Readonly<Record<string, Shape>> = {
  edit: looseObject({ tool: str, added: num, removed: num }),
  refusal: looseObject({ tool: str, code: str, message: str, hint: str }),
  command: looseObject({ tool: str, command: str, exit_code: nullable(num), changes: looseObject({ added: num, removed: num }) }),
  violation: looseObject({ type: str, constraint: str, message: str, hint: str, prevented: bool, limit: anyOf(num, str, strings), actual: anyOf(num, str) }),
  checkpoint: looseObject({ label: str }),
  undo: looseObject({ label: str, written: strings, removed: strings }),
  redo: looseObject({ label: str, written: strings, removed: strings }),
  network: looseObject({ tool: str, command: str, host: str, port: nullable(num), method: str, reason: str, code: str, message: str, count: num }),
  'run-end': looseObject({
    status: str,
    outcome: str,
    started_at: str,
    calls: num,
    totals: looseObject({ files: num, lines_added: num, lines_removed: num, tokens: num, elapsed_seconds: num }),
    limits: looseObject({ max_files: nullable(num), max_lines_changed: nullable(num), max_tokens: nullable(num), timeout_seconds: nullable(num) }),
  }),
};

/** One line as an event, or why it is not one (the reason never quotes the line: a damaged line may hold anything). */
export function parseEventLine(line: string): EditwardenEvent | string {
  let value: unknown;
  try {
    value = JSON.parse(line);
  } catch {
    return 'it is not JSON';
  }
  const head = base(value, '');
  if (head !== null) return head;
  const body = byKind[(value as { kind: string }).kind];
  if (body === undefined) return 'unknown kind';
  return body(value, '') ?? (value as EditwardenEvent);
}
