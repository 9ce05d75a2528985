/**
 * Every event's line has a cap (EVENT_LINE_MAX): a command that creates
 * 9,500 files, a 1 MiB command line or a client's oversized session id must
 * not write a 35 MiB line that blinds the reader, nor a few such lines that
 * rotate the rest of the log away. Long lists keep their first entries and
 * say how many they held (`cut.<field>.total`); the whole list goes to a side
 * file the writer names (`cut.<field>.blob`); long texts keep their start and
 * say how much was cut. The same rules, tighter, make the compact copy of an
 * event the rotation index keeps (events-index.ts).
 *
 * Pure: no file system (the writer stores the side files). Must never drop
 * a field, change a number, or cut inside a character.
 */
import type { EditwardenEvent, EventCuts, NewEvent } from './event-types.js';

/** The lists an event may carry that are cut with a count (and kept whole in a side file). */
export const LIST_FIELDS = ['paths', 'written', 'removed', 'put_back', 'undoes', 'left', 'created', 'deleted'] as const;
export type ListField = (typeof LIST_FIELDS)[number];

export interface Caps {
  /** Most entries a list keeps inline. */
  listEntries: number;
  /** Most bytes (JSON-encoded) a list keeps inline. */
  listBytes: number;
  /** Most bytes (JSON-encoded) of a text field, by name; `default` for the others. */
  texts: Record<string, number> & { default: number };
  /** Most bytes of each `route` field. */
  routeText: number;
}

/** The caps of a logged event: with an inline diff of at most INLINE_DIFF_MAX they keep the line under EVENT_LINE_MAX (the sum is below it). */
export const EVENT_CAPS: Caps = { listEntries: 100, listBytes: 6 * 1024, texts: { command: 4096, output: 8192, message: 2048, hint: 2048, label: 1024, default: 512 }, routeText: 256 };
/** The caps of an event's compact copy in the rotation index (some 1–3 KiB a line). */
const INDEX_CAPS: Caps = { listEntries: 5, listBytes: 1024, texts: { command: 1024, output: 512, default: 256 }, routeText: 128 };

/** Fields that are not cut as text: the diff goes to a blob by its own rule, the rest are short by construction. */
const NOT_TEXT = new Set(['diff', 'diff_blob', 'kind', 'v']);

/** A list cut by capEvent, whole, for the writer's side file. */
export interface CutList {
  field: ListField;
  full: string[];
}

/** Bytes of a string as it stands in a JSON line. */
export function encodedLength(text: string): number {
  return Buffer.byteLength(JSON.stringify(text), 'utf8') - 2;
}

/** `text` cut so that it and its note fit in `max` JSON-encoded bytes; unchanged when it already fits. */
export function cutText(text: string, max: number): string {
  if (encodedLength(text) <= max) return text;
  const note = (n: number): string => `… [${n} more characters cut]`;
  const room = Math.max(0, max - encodedLength(note(text.length)));
  // Each character takes at least one byte: the kept start is never longer than `room`.
  let lo = 0;
  let hi = Math.min(text.length, room);
  while (lo < hi) {
    const mid = Math.ceil((lo + hi) / 2);
    if (encodedLength(text.slice(0, mid)) <= room) lo = mid;
    else hi = mid - 1;
  }
  // Never split a surrogate pair.
  if (lo > 0 && /[\uD800-\uDBFF]/.test(text.charAt(lo - 1))) lo--;
  return `${text.slice(0, lo)}${note(text.length - lo)}`;
}

/** How many of a list's first entries fit the caps. */
function keptEntries(list: readonly string[], caps: Caps): number {
  let bytes = 0;
  let n = 0;
  for (const entry of list) {
    if (n >= caps.listEntries) break;
    bytes += encodedLength(entry) + 3;
    if (bytes > caps.listBytes) break;
    n++;
  }
  return n;
}

/**
 * The event within `caps`: lists cut (their totals in `cut`), texts cut (their
 * names in `cut.texts`), and the whole of each cut list for a side file.
 * An event already cut keeps its first totals (a list is never counted twice).
 */
export function capEvent<E extends NewEvent | EditwardenEvent>(event: E, caps: Caps = EVENT_CAPS): { event: E; lists: CutList[] } {
  const out: Record<string, unknown> = { ...event };
  const cut: EventCuts = { ...event.cut };
  const lists: CutList[] = [];
  for (const field of LIST_FIELDS) {
    const list = out[field];
    if (!Array.isArray(list)) continue;
    const keep = keptEntries(list as string[], caps);
    if (keep === list.length) continue;
    out[field] = list.slice(0, keep);
    const before = cut[field];
    cut[field] = before ? { ...before } : { total: list.length };
    if (!before) lists.push({ field, full: list as string[] });
  }
  const texts = new Set(cut.texts ?? []);
  for (const [key, value] of Object.entries(out)) {
    if (NOT_TEXT.has(key)) continue;
    if (typeof value === 'string') {
      const short = cutText(value, caps.texts[key] ?? caps.texts.default);
      if (short !== value) {
        out[key] = short;
        texts.add(key);
      }
    } else if (key === 'limit' && Array.isArray(value)) {
      // A pattern list from the config: its first entries say which limit it was.
      const keep = keptEntries(value as string[], caps);
      if (keep < value.length) {
        out[key] = [...(value as string[]).slice(0, keep), `… [${value.length - keep} more]`];
        texts.add(key);
      }
    }
  }
  const route = event.route as unknown as Record<string, unknown>;
  const shortRoute: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(route)) {
    shortRoute[key] = typeof value === 'string' ? cutText(value, caps.routeText) : value;
    if (shortRoute[key] !== value) texts.add(`route.${key}`);
  }
  out.route = shortRoute;
  if (texts.size > 0) cut.texts = [...texts];
  if (Object.keys(cut).length > 0) out.cut = cut;
  return { event: out as E, lists };
}

/** The compact copy of an event the rotation index keeps: no diff or side files (they go with the generation), lists and texts cut tighter. */
export function compactEvent(event: EditwardenEvent): EditwardenEvent {
  const { diff: _d, diff_blob: _b, diff_truncated: _t, ...rest } = event as EditwardenEvent & { diff?: string; diff_blob?: string; diff_truncated?: true };
  const { event: small } = capEvent(rest as EditwardenEvent, INDEX_CAPS);
  const cut = small.cut ? { ...small.cut } : undefined;
  // The side files go with the generation; the totals stay.
  if (cut) for (const field of LIST_FIELDS) if (cut[field]) cut[field] = { total: (cut[field] as { total: number }).total };
  return { ...small, ...(cut ? { cut } : {}), indexed: true };
}
