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
 * Bounded: each event is capped (events-cap.ts: long lists keep their
 * first entries and a count, the whole list goes to a side file
 * `events-diffs/<sha256>.list`; long texts are cut), so no line passes
 * EVENT_LINE_MAX. Once the log reaches EVENT_LOG_MAX_BYTES it is renamed to
 * `events.1.jsonl` (older generations shift to `.2`, `.3`); the oldest beyond
 * EVENT_LOG_KEEP is first summarised into the rotation index
 * (events-index.ts: its refusals, violations, deletions, undo steps and
 * sessions) and then deleted. A diff longer than INLINE_DIFF_MAX is stored
 * beside the log as a content-addressed side file (`events-diffs/<sha256>.diff`,
 * cut at BLOB_DIFF_MAX) and the event names it; side files no kept
 * generation names are deleted at rotation, and when they pass SIDE_FILES_MAX
 * the oldest events' side files go first (their events stay, saying the
 * side file is gone). On disk: see docs/report.md "The event log".
 *
 * Attacks it defends against: a repository that ships `.editwarden/` with
 * `events.jsonl -> /elsewhere` (O_NOFOLLOW: never followed), a FIFO in its
 * place (O_NONBLOCK and a regular-file check), a file of another user (the
 * state folder's owner check). It writes nothing outside the state folder.
 */
import { createHash, randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { BLOB_ID, ensureStateSubdir, ensureTrustedStateDir } from '../workspace/state-dir.js';
import { EVENT_FORMAT, type EditwardenEvent, type EventCuts, type EventDiff, type NewEvent } from './event-types.js';
import { capEvent, encodedLength, type CutList } from './events-cap.js';
import { indexGeneration } from './events-index.js';
import { checkedStat, DIFFS_DIR, EVENT_LINE_MAX, EVENT_LOG_MAX_BYTES, EVENTS_FILE, generationFile, openForAppend, openLogFile, walkLines } from './event-lines.js';
import { defined } from '../defined.js';

export * from './event-types.js';
export { DIFFS_DIR, EVENTS_FILE };

/** Rotated generations kept beside the current log (events.1.jsonl … events.3.jsonl). */
const EVENT_LOG_KEEP = 3;
/** Longest diff kept inside the event line (JSON-encoded bytes); a longer one goes to a side file. */
export const INLINE_DIFF_MAX = 16 * 1024;
/** Longest diff a side file keeps (the rest is cut, and the event says so). */
const BLOB_DIFF_MAX = 4 * 1024 * 1024;
/** Longest list side file (JSON): a longer list keeps its first entries there, and `cut.<field>.total` says how many it held. */
const BLOB_LIST_MAX = 4 * 1024 * 1024;
/** All side files together: past it, the side files of the oldest events are deleted (down to half of it). */
const SIDE_FILES_MAX = 32 * 1024 * 1024;

export interface EventLogOptions {
  /** Rotation size (tests use a small one). */
  maxBytes?: number;
  keep?: number;
  /** Side files' budget (tests use a small one). */
  sideFilesMax?: number;
}

/**
 * Appends one event to the root's log (the state folder is made or checked
 * first). Throws E_UNTRUSTED_STATE for a planted log; callers that record
 * evidence beside their real work catch it (a full disk must not fail an edit).
 */
export function appendEvent(stateDir: string, event: NewEvent, options: EventLogOptions = {}): EditwardenEvent {
  ensureTrustedStateDir(stateDir);
  const { diff: _inline, time, ...rest } = event as NewEvent & EventDiff;
  const capped = capEvent(rest as NewEvent);
  const diff = storeDiff(stateDir, event);
  const cut = storeLists(stateDir, capped.event.cut, capped.lists);
  const full = { v: EVENT_FORMAT, time: time ?? new Date().toISOString(), ...capped.event, ...defined({ cut }), ...diff } as EditwardenEvent;
  const ownBlobs = new Set([diff.diff_blob, ...Object.values(cut ?? {}).map((c) => (c as { blob?: string }).blob)].filter((b): b is string => typeof b === 'string'));
  if (ownBlobs.size > 0) keepSideFilesWithin(stateDir, options.sideFilesMax ?? SIDE_FILES_MAX, options.keep ?? EVENT_LOG_KEEP, ownBlobs);
  const file = path.join(stateDir, EVENTS_FILE);
  let fd = openForAppend(file, 'event log', true);
  try {
    let st = checkedStat(file, fd);
    if (st.size >= (options.maxBytes ?? EVENT_LOG_MAX_BYTES)) {
      fs.closeSync(fd);
      fd = -1;
      rotate(stateDir, st.ino, options.keep ?? EVENT_LOG_KEEP, ownBlobs);
      fd = openForAppend(file, 'event log', true);
      st = checkedStat(file, fd);
    }
    const torn = st.size > 0 && lastByte(fd, st.size) !== 0x0a;
    const line = `${torn ? '\n' : ''}${JSON.stringify(torn ? { ...full, after_torn: true } : full)}\n`;
    const bytes = Buffer.from(line, 'utf8');
    // capEvent's caps sum below the line cap; this says so if a new field ever breaks that.
    if (bytes.length > EVENT_LINE_MAX + 2) throw new Error(`an event of ${bytes.length} bytes passed the caps (${EVENT_LINE_MAX}); events-cap.ts misses a field`);
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
function rotate(stateDir: string, fullIno: number, keep: number, ownBlobs: ReadonlySet<string>): void {
  const at = (n: number): string => path.join(stateDir, generationFile(n));
  try {
    if (fs.lstatSync(at(0)).ino !== fullIno) return;
  } catch {
    return;
  }
  // The evidence first: the generation about to go is summarised into the index before it is deleted.
  try {
    indexGeneration(stateDir, at(keep));
  } catch {
    // A generation that is not editwarden's (a link, a FIFO: event-lines.ts refuses it) has no evidence to keep.
  }
  ignoreMissing(() => fs.unlinkSync(at(keep)));
  for (let n = keep - 1; n >= 1; n--) ignoreMissing(() => fs.renameSync(at(n), at(n + 1)));
  ignoreMissing(() => fs.renameSync(at(0), at(1)));
  pruneSideFiles(stateDir, namedSideFiles(stateDir, keep).named, ownBlobs);
}

function ignoreMissing(fn: () => void): void {
  try {
    fn();
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
}

const SIDE_FILE_REF = /"(?:diff_blob|blob)":"([0-9a-f]{64})"/g;

/** The side files the kept generations name, each with the place of its newest mention (higher = newer). */
function namedSideFiles(stateDir: string, keep: number): { named: Map<string, number> } {
  const named = new Map<string, number>();
  let place = 0;
  for (let n = keep; n >= 0; n--) {
    let opened: ReturnType<typeof openLogFile>;
    try {
      opened = openLogFile(path.join(stateDir, generationFile(n)));
    } catch {
      continue;
    }
    if (opened === null) continue;
    try {
      walkLines(opened, (line) => {
        place++;
        for (const m of line.matchAll(SIDE_FILE_REF)) named.set(m[1] as string, place);
      });
    } finally {
      fs.closeSync(opened.fd);
    }
  }
  return { named };
}

/** The side files on disk, with their sizes. */
function sideFiles(stateDir: string): Array<{ name: string; id: string; size: number }> {
  const dir = path.join(stateDir, DIFFS_DIR);
  let names: string[];
  try {
    names = fs.readdirSync(dir);
  } catch {
    return [];
  }
  const out: Array<{ name: string; id: string; size: number }> = [];
  for (const name of names) {
    const id = name.replace(/\.(?:diff|list)$/, '');
    if (!BLOB_ID.test(id)) continue;
    try {
      out.push({ name, id, size: fs.lstatSync(path.join(dir, name)).size });
    } catch {
      // Deleted meanwhile.
    }
  }
  return out;
}

/** Deletes the side files no kept generation names (they would otherwise outgrow the bounded log), except the event's own being written. */
function pruneSideFiles(stateDir: string, named: ReadonlyMap<string, number>, ownBlobs: ReadonlySet<string>): void {
  for (const f of sideFiles(stateDir)) if (!named.has(f.id) && !ownBlobs.has(f.id)) ignoreMissing(() => fs.unlinkSync(path.join(stateDir, DIFFS_DIR, f.name)));
}

/**
 * Keeps the side files within `max`: past it, the unnamed ones go, then those
 * the oldest generations name, until half of `max` is left — a flood of large
 * events cannot fill the disk, and costs the oldest events their side files
 * (never their lines, nor the rotation index).
 */
function keepSideFilesWithin(stateDir: string, max: number, keep: number, ownBlobs: ReadonlySet<string>): void {
  const files = sideFiles(stateDir);
  let total = files.reduce((n, f) => n + f.size, 0);
  if (total <= max) return;
  const { named } = namedSideFiles(stateDir, keep);
  // Unnamed first (-1), then by their newest mention, oldest first.
  const order = files.filter((f) => !ownBlobs.has(f.id)).sort((a, b) => (named.get(a.id) ?? -1) - (named.get(b.id) ?? -1));
  for (const f of order) {
    if (total <= max / 2) break;
    ignoreMissing(() => fs.unlinkSync(path.join(stateDir, DIFFS_DIR, f.name)));
    total -= f.size;
  }
}

/** The event's diff fields: inline when short, else written to a blob (atomically: a crash never leaves a blob with the wrong bytes under its name). */
function storeDiff(stateDir: string, event: NewEvent): EventDiff {
  const diff = (event as EventDiff).diff;
  if (diff === undefined || encodedLength(diff) <= INLINE_DIFF_MAX) return diff === undefined ? {} : { diff };
  const cut = diff.length > BLOB_DIFF_MAX;
  const kept = cut ? diff.slice(0, BLOB_DIFF_MAX) : diff;
  const id = writeSideFile(stateDir, kept, 'diff');
  return { diff_blob: id, ...defined({ diff_truncated: cut ? (true as const) : undefined }) };
}

/** The cuts with a side file named for each cut list (the whole list as JSON, up to BLOB_LIST_MAX: a longer one keeps its start). */
function storeLists(stateDir: string, cuts: EventCuts | undefined, lists: readonly CutList[]): EventCuts | undefined {
  if (cuts === undefined || lists.length === 0) return cuts;
  const out: EventCuts = { ...cuts };
  for (const { field, full } of lists) {
    let keep = full.length;
    let text = JSON.stringify(full);
    while (Buffer.byteLength(text, 'utf8') > BLOB_LIST_MAX && keep > 0) {
      keep = Math.floor((keep * BLOB_LIST_MAX) / Buffer.byteLength(text, 'utf8') / 1.01);
      text = JSON.stringify(full.slice(0, keep));
    }
    out[field] = { ...(out[field] as { total: number }), blob: writeSideFile(stateDir, text, 'list'), ...defined({ blob_entries: keep < full.length ? keep : undefined }) };
  }
  return out;
}

/** Writes a side file named by its sha256, atomically (a crash never leaves one with the wrong bytes under its name); returns the id. */
function writeSideFile(stateDir: string, text: string, ext: 'diff' | 'list'): string {
  const id = createHash('sha256').update(text, 'utf8').digest('hex');
  const dir = ensureStateSubdir(stateDir, DIFFS_DIR);
  const target = path.join(dir, `${id}.${ext}`);
  const temp = path.join(dir, `${id}.tmp-${process.pid}-${randomBytes(4).toString('hex')}`);
  const fd = fs.openSync(temp, fs.constants.O_WRONLY | fs.constants.O_CREAT | fs.constants.O_EXCL | fs.constants.O_NOFOLLOW, 0o644);
  try {
    fs.writeFileSync(fd, text, 'utf8');
  } finally {
    fs.closeSync(fd);
  }
  fs.renameSync(temp, target);
  return id;
}
