/**
 * The rotation index: what a rotated-away generation of the event log held,
 * kept after the generation itself is deleted — so a flood of events can
 * push old lines out of the bounded log but never the evidence that they
 * happened. For each generation dropped it appends to `events-index.jsonl`:
 *
 *   - the compact copy (events-cap.ts: no diff, lists and texts cut, marked
 *     `indexed: true`) of each event a person must still see: every
 *     refusal, violation, undo, redo and run end, every edit or command
 *     that took something away (more lines removed than added, or files
 *     changed without a line added — deleted or overwritten binary files),
 *     and every command refused, stopped, or with protected files put back;
 *   - one `generation` line: the dropped generation's time span, its events
 *     counted by kind, and its sessions (route, events, first and last time).
 *
 * Bounded: when the index would pass INDEX_MAX_BYTES it is renamed to
 * `events-index.1.jsonl` (replacing the one before) and a new one begins, so
 * the newest 4–8 MiB of index are always kept — thousands of destructive
 * events, where the log alone lost them after three large commands.
 *
 * Must never: follow a link, read a file another user owns or one with a
 * second name (event-lines.ts opens every file), or drop the generation
 * before its index is written (the writer deletes it after indexGeneration).
 */
import fs from 'node:fs';
import path from 'node:path';
import { arrayOf, literal, looseObject, nullable, num, recordOf, str } from './line-shape.js';
import type { EditwardenEvent, EventRoute } from './event-types.js';
import { EVENT_FORMAT } from './event-types.js';
import { compactEvent } from './events-cap.js';
import { checkedStat, openForAppend, openLogFile, parseEventLine, walkLines } from './event-lines.js';

export const INDEX_FILE = 'events-index.jsonl';
const INDEX_OLD_FILE = 'events-index.1.jsonl';
/** Size at which the index is rotated (once: the one before is replaced). */
const INDEX_MAX_BYTES = 4 * 1024 * 1024;
/** Sessions a generation line names (the rest are counted). */
const SESSIONS_MAX = 50;

/** One session (or run, or route) of a dropped generation. */
interface IndexedSession {
  route: EventRoute;
  events: number;
  first: string;
  last: string;
}

/** What one rotated-away generation held, in counts. */
export interface IndexedGeneration {
  v: typeof EVENT_FORMAT;
  index: 'generation';
  /** When it was dropped. */
  time: string;
  first: string | null;
  last: string | null;
  events: number;
  /** Events listed in the index (the rest counted only). */
  listed: number;
  kinds: Record<string, number>;
  sessions: IndexedSession[];
  sessions_total: number;
  /** Lines of the generation that were not events (damaged, over-long), skipped. */
  skipped: number;
}

/** Whether the index lists an event (compact) rather than only counting it: what a person must still see after a flood. */
export function keptInIndex(event: EditwardenEvent): boolean {
  switch (event.kind) {
    case 'refusal':
    case 'network':
    case 'violation':
    case 'undo':
    case 'redo':
    case 'run-end':
      return true;
    case 'edit':
      return took(event.added, event.removed, event.paths.length);
    case 'command':
      // A command refused or stopped (its code) is kept too: an attempt a person must see.
      return took(event.changes.added, event.changes.removed, event.paths.length) || event.code !== undefined || event.put_back !== undefined || event.reverted === true;
    case 'checkpoint':
      return false;
    default: {
      const never: never = event;
      return never;
    }
  }
}

/** A change that took something away: more lines removed than added, or files changed without a line added (deleted or overwritten binary files). */
const took = (added: number, removed: number, files: number): boolean => removed > added || (added === 0 && files > 0);

const sessionKey = (route: EventRoute): string => JSON.stringify([route.via, route.client ?? '', route.session ?? '', route.run ?? '']);

/** The index lines of one generation file (read through its checks): compact events, then its generation line. */
function indexLines(file: string, now: Date): string[] {
  const opened = openLogFile(file);
  if (opened === null) return [];
  const kept: string[] = [];
  const summary: IndexedGeneration = { v: EVENT_FORMAT, index: 'generation', time: now.toISOString(), first: null, last: null, events: 0, listed: 0, kinds: {}, sessions: [], sessions_total: 0, skipped: 0 };
  const sessions = new Map<string, IndexedSession>();
  try {
    const walk = walkLines(opened, (line) => {
      if (line === '') return;
      const event = parseEventLine(line);
      if (typeof event === 'string') {
        summary.skipped++;
        return;
      }
      summary.events++;
      summary.first ??= event.time;
      summary.last = event.time;
      summary.kinds[event.kind] = (summary.kinds[event.kind] ?? 0) + 1;
      const key = sessionKey(event.route);
      const s = sessions.get(key);
      if (s) {
        s.events++;
        s.last = event.time;
      } else sessions.set(key, { route: compactEvent(event).route, events: 1, first: event.time, last: event.time });
      if (keptInIndex(event)) kept.push(JSON.stringify(compactEvent(event)));
    });
    summary.skipped += walk.oversized.length + (walk.unfinished ? 1 : 0);
  } finally {
    fs.closeSync(opened.fd);
  }
  summary.sessions_total = sessions.size;
  summary.sessions = [...sessions.values()].slice(-SESSIONS_MAX);
  // One generation never fills the index by itself: its newest events are the ones kept.
  let bytes = 0;
  let from = kept.length;
  while (from > 0 && bytes + (kept[from - 1] as string).length + 1 <= INDEX_MAX_BYTES / 2) bytes += (kept[--from] as string).length + 1;
  summary.listed = kept.length - from;
  return [...kept.slice(from), JSON.stringify(summary)];
}

/** Appends the index of the generation file `file` (about to be deleted) to the state folder's index, rotating the index at its cap. */
export function indexGeneration(stateDir: string, file: string, now = new Date()): void {
  const lines = indexLines(file, now);
  if (lines.length === 0) return;
  const text = Buffer.from(`${lines.join('\n')}\n`, 'utf8');
  const target = path.join(stateDir, INDEX_FILE);
  let fd = openForAppend(target, 'event index', false);
  try {
    if (checkedStat(target, fd).size + text.length > INDEX_MAX_BYTES) {
      fs.closeSync(fd);
      fd = -1;
      fs.renameSync(target, path.join(stateDir, INDEX_OLD_FILE));
      fd = openForAppend(target, 'event index', false);
      checkedStat(target, fd);
    }
    fs.writeSync(fd, text);
  } finally {
    if (fd >= 0) fs.closeSync(fd);
  }
}

const generationLine = looseObject({
  v: literal(EVENT_FORMAT),
  index: literal('generation'),
  time: str,
  first: nullable(str),
  last: nullable(str),
  events: num,
  listed: num,
  kinds: recordOf(num),
  sessions: arrayOf(looseObject({ route: looseObject({ via: str }), events: num, first: str, last: str })),
  sessions_total: num,
  skipped: num,
});

/** The index read back: compact events (oldest first) and generation lines; what could not be read is a note, never a refusal. */
export interface EventIndex {
  events: EditwardenEvent[];
  generations: IndexedGeneration[];
  notes: string[];
}

export function readIndex(stateDir: string): EventIndex {
  const out: EventIndex = { events: [], generations: [], notes: [] };
  for (const name of [INDEX_OLD_FILE, INDEX_FILE]) {
    const file = path.join(stateDir, name);
    let opened: ReturnType<typeof openLogFile>;
    try {
      opened = openLogFile(file);
    } catch (error) {
      out.notes.push(`${file} was not read: ${(error as Error).message}`);
      continue;
    }
    if (opened === null) continue;
    let bad = 0;
    try {
      const walk = walkLines(opened, (line) => {
        if (line === '') return;
        const value = lineValue(line);
        if (value === null) bad++;
        else if ('index' in value) out.generations.push(value);
        else out.events.push(value);
      });
      bad += walk.oversized.length + (walk.unfinished ? 1 : 0);
      if (walk.unread > 0) out.notes.push(`${file}: the last ${walk.unread} bytes were not read (the file is larger than any index editwarden writes).`);
    } finally {
      fs.closeSync(opened.fd);
    }
    if (bad > 0) out.notes.push(`${file}: ${bad} line(s) that are not index entries were skipped.`);
  }
  return out;
}

function lineValue(line: string): EditwardenEvent | IndexedGeneration | null {
  let value: unknown;
  try {
    value = JSON.parse(line);
  } catch {
    return null;
  }
  if (typeof value === 'object' && value !== null && (value as { index?: unknown }).index === 'generation') {
    return generationLine(value, '') === null ? (value as IndexedGeneration) : null;
  }
  const event = parseEventLine(line);
  // Only compact copies belong in the index.
  return typeof event === 'string' || event.indexed !== true ? null : event;
}
