/**
 * The root's event log, read back: the rotation index of generations
 * already dropped (events-index.ts: their compact evidence), then every kept
 * generation, oldest first, each line checked to be an event editwarden
 * wrote before anyone sees it. The log lives in state an agent never
 * writes, but a repository can ship a `.editwarden/` of its own and a
 * damaged disk can break a line, so nothing read is trusted unchecked — and
 * nothing read blinds the reader: a file that is a symlink, a FIFO, another
 * user's or a hard link is not read, a line that is not an event or is
 * longer than any editwarden writes is skipped, the part of a file past its
 * cap is not read — each with a note (`notes`), never a refusal of the whole
 * log. Only a state folder that is itself not editwarden's (a link, another
 * user's) is refused: there is no log to read. It never writes.
 */
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { BLOB_ID, checkStateStat, untrusted } from '../workspace/state-dir.js';
import type { EditwardenEvent } from './event-types.js';
import type { ListField } from './events-cap.js';
import { readIndex, type IndexedGeneration } from './events-index.js';
import { DIFFS_DIR, generationFile, openLogFile, parseEventLine, walkLines } from './event-lines.js';
import { appendAll } from '../arrays.js';

export { parseEventLine };

/** Largest side file read (they are cut at 4 MiB when written). */
const SIDE_FILE_READ_MAX = 5 * 1024 * 1024;

export interface EventLog {
  /** Oldest first: the index's compact copies (`indexed: true`) of dropped generations, then the kept generations' events. */
  events: EditwardenEvent[];
  /** Torn lines skipped (a writer killed mid-line). */
  torn: number;
  /** The files read, oldest first. */
  files: string[];
  /** The generations rotated away, in counts (their listed events are in `events`). */
  dropped: IndexedGeneration[];
  /** What was not read, for a person: skipped files, damaged or over-long lines, unread tails. Never the content. */
  notes: string[];
}

/** Every kept generation of the log at `stateDir` (and the index of those dropped), oldest first; an empty log when there is none. */
export function readEvents(stateDir: string): EventLog {
  const out: EventLog = { events: [], torn: 0, files: [], dropped: [], notes: [] };
  let st: fs.Stats;
  try {
    st = fs.lstatSync(stateDir);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return out;
    throw error;
  }
  checkStateStat(stateDir, st);
  const index = readIndex(stateDir);
  appendAll(out.events, index.events);
  appendAll(out.dropped, index.generations);
  appendAll(out.notes, index.notes);
  for (const n of generationsOf(stateDir)) readGeneration(out, path.join(stateDir, generationFile(n)));
  return out;
}

/** Rotated generations present (highest number = oldest), then the current log. */
function generationsOf(stateDir: string): number[] {
  const rotated = fs
    .readdirSync(stateDir)
    .map((name) => /^events\.([1-9]\d{0,3})\.jsonl$/.exec(name)?.[1])
    .filter((n): n is string => n !== undefined)
    .map(Number)
    .sort((a, b) => b - a);
  return [...rotated, 0];
}

function readGeneration(out: EventLog, file: string): void {
  let opened: ReturnType<typeof openLogFile>;
  try {
    opened = openLogFile(file);
  } catch (error) {
    out.notes.push(`${file} was not read: ${(error as Error).message}`);
    return;
  }
  if (opened === null) return;
  out.files.push(file);
  const bad: Array<{ line: number; why: string }> = [];
  let pendingTorn: { line: number; why: string } | null = null;
  try {
    const walk = walkLines(opened, (line, n) => {
      if (line === '') return;
      const parsed = parseEventLine(line);
      if (typeof parsed === 'string') {
        if (pendingTorn) bad.push(pendingTorn);
        pendingTorn = { line: n, why: parsed };
        return;
      }
      if (pendingTorn) {
        // The line a crashed writer left (the next writer marked its own) is no damage; any other is.
        if (parsed.after_torn === true) out.torn++;
        else bad.push(pendingTorn);
        pendingTorn = null;
      }
      out.events.push(parsed);
    });
    if (pendingTorn !== null) bad.push(pendingTorn);
    if (walk.unfinished) out.torn++;
    for (const n of walk.oversized) out.notes.push(`${file} line ${n} is longer than any event editwarden writes; skipped.`);
    if (walk.unread > 0) out.notes.push(`${file}: the last ${walk.unread} bytes were not read (larger than any log editwarden keeps).`);
  } finally {
    fs.closeSync(opened.fd);
  }
  for (const { line, why } of bad.slice(0, 20)) out.notes.push(`${file} line ${line} is not an event editwarden wrote (${why}); skipped.`);
  if (bad.length > 20) out.notes.push(`${file}: ${bad.length - 20} more lines that are not events were skipped.`);
}

/** The diff of an event: inline, or its blob read back and checked against its id (a swapped blob is refused). */
export function readEventDiff(stateDir: string, event: { diff?: string; diff_blob?: string }): string | null {
  if (event.diff !== undefined) return event.diff;
  if (event.diff_blob === undefined) return null;
  if (!BLOB_ID.test(event.diff_blob)) throw untrusted(`${JSON.stringify(event.diff_blob)} is not a diff blob id.`);
  const file = path.join(stateDir, DIFFS_DIR, `${event.diff_blob}.diff`);
  const text = readSideFile(file, event.diff_blob);
  if (text === null) return null;
  return text;
}

/** The whole of a cut list (`paths`, `written`, `removed`, `put_back`, `undoes`, `left`) from its side file, checked against its id; the inline entries when it was not cut; null when its side file is gone. */
export function readEventList(stateDir: string, event: EditwardenEvent, field: ListField): string[] | null {
  const inline = (event as unknown as Record<string, unknown>)[field];
  const cut = event.cut?.[field];
  if (cut === undefined) return Array.isArray(inline) ? (inline as string[]) : null;
  if (cut.blob === undefined) return null;
  if (!BLOB_ID.test(cut.blob)) throw untrusted(`${JSON.stringify(cut.blob)} is not a side file id.`);
  const text = readSideFile(path.join(stateDir, DIFFS_DIR, `${cut.blob}.list`), cut.blob);
  if (text === null) return null;
  const list: unknown = JSON.parse(text);
  if (!Array.isArray(list) || !list.every((p) => typeof p === 'string')) throw untrusted(`${cut.blob}.list is not a list of paths.`);
  return list as string[];
}

/** A side file's text, checked against the sha256 its name says (a swapped one is refused); null when it is gone. */
function readSideFile(file: string, id: string): string | null {
  const opened = openLogFile(file);
  if (opened === null) return null;
  let text: string;
  try {
    // editwarden's side files stop at 4 MiB (events.ts); a larger one is not its own.
    if (opened.size > SIDE_FILE_READ_MAX) throw untrusted(`${file} is ${opened.size} bytes, larger than any side file editwarden writes.`);
    text = fs.readFileSync(opened.fd, 'utf8');
  } finally {
    fs.closeSync(opened.fd);
  }
  if (createHash('sha256').update(text, 'utf8').digest('hex') !== id) throw untrusted(`${file} does not hold what its name says.`);
  return text;
}
