/**
 * The other direction, the part every format's renderer shares: a known
 * change (file before → after) aligned line by line, cut into hunks with
 * enough context for each to name one place, or into substring edits. Each
 * format's record writes these in its own syntax (`render` in
 * formats/<name>-format.ts; `renderChange` in formats/index.ts picks the
 * record). Used by the round-trip tests, the replay benchmark and for
 * examples in prompts. Pure.
 *
 * It must never emit text that means something else: a change a format
 * cannot express (a deletion in SEARCH/REPLACE, a blank file in active edit,
 * a line that looks like a marker) is refused with InexpressibleChange, not
 * approximated.
 */
import { diffArrays } from 'diff';
import { EditwardenError, ErrorCode } from '../errors.js';
import { toLineImage } from '../edit/hunk-lines.js';
import type { FormatName } from './list.js';
import { BEGIN_MARKER, END_MARKER, START_MARKER } from './active-edit.js';
import { DIVIDER_MARKER, REPLACE_MARKER, SEARCH_MARKER } from './search-replace.js';
import { defined } from '../defined.js';
import { appendAll } from '../arrays.js';

export const NO_NEWLINE = '\\ No newline at end of file';

/** One file's change. `before` null: the file is created; `after` null: it is deleted. */
export interface FileChange {
  path: string;
  before: string | null;
  after: string | null;
  /** The file is renamed to this path (with `after` as its new content). */
  moveTo?: string;
}

/** A change this format cannot write (E_INEXPRESSIBLE): refused rather than approximated. */
export class InexpressibleChange extends EditwardenError {
  declare readonly path: string;
  readonly format: FormatName;
  readonly reason: string;

  constructor(format: FormatName, path: string, reason: string) {
    super({
      code: ErrorCode.INEXPRESSIBLE,
      message: `${format} cannot express the change to ${path}: ${reason}`,
      hint: 'Write this change in another format (apply_patch and unified diffs express every change), or as whole-file content.',
      path,
    });
    this.name = 'InexpressibleChange';
    this.format = format;
    this.reason = reason;
  }
}

interface Op {
  kind: ' ' | '-' | '+';
  text: string;
  /** This op carries the last line of the old / new side, and that side has no final newline. */
  oldNoEol?: boolean;
  newNoEol?: boolean;
}

interface Alignment {
  ops: Op[];
  oldEofNewline: boolean;
  newEofNewline: boolean;
}

/** Line-level alignment of before and after, with the final-newline state carried on the ops. */
export function align(before: string, after: string): Alignment {
  const a = toLineImage(before);
  const b = toLineImage(after);
  const raw: Op[] = [];
  for (const change of diffArrays(a.lines, b.lines)) {
    const kind = change.added ? '+' : change.removed ? '-' : ' ';
    for (const text of change.value) raw.push({ kind, text });
  }
  // A shared line whose newline differs between the sides (it is the last line of one side only) is a change.
  let lastOld = -1;
  let lastNew = -1;
  raw.forEach((op, i) => {
    if (op.kind !== '+') lastOld = i;
    if (op.kind !== '-') lastNew = i;
  });
  const ops: Op[] = [];
  raw.forEach((op, i) => {
    const oldNoEol = i === lastOld && !a.eofNewline;
    const newNoEol = i === lastNew && !b.eofNewline;
    if (op.kind === ' ' && oldNoEol !== newNoEol) {
      ops.push({ kind: '-', text: op.text, ...defined({ oldNoEol: oldNoEol || undefined }) });
      ops.push({ kind: '+', text: op.text, ...defined({ newNoEol: newNoEol || undefined }) });
      return;
    }
    ops.push({ ...op, ...defined({ oldNoEol: op.kind !== '+' && oldNoEol ? oldNoEol : undefined, newNoEol: op.kind !== '-' && newNoEol ? newNoEol : undefined }) });
  });
  // Splitting may leave '+' before '-' order mixed; keep every '-' of a change run before its '+' lines.
  return { ops: normaliseRuns(ops), oldEofNewline: a.eofNewline, newEofNewline: b.eofNewline };
}

function normaliseRuns(ops: Op[]): Op[] {
  const out: Op[] = [];
  let i = 0;
  while (i < ops.length) {
    if ((ops[i] as Op).kind === ' ') {
      out.push(ops[i] as Op);
      i++;
      continue;
    }
    const run: Op[] = [];
    while (i < ops.length && (ops[i] as Op).kind !== ' ') run.push(ops[i++] as Op);
    appendAll(out, [...run.filter((o) => o.kind === '-'), ...run.filter((o) => o.kind === '+')]);
  }
  return out;
}

interface Slice {
  start: number;
  end: number;
}

const CONTEXT = 3;

/** Change runs with CONTEXT lines around them; runs closer than 2×CONTEXT share a slice (as diff -u does). */
export function initialSlices(ops: Op[]): Slice[] {
  const slices: Slice[] = [];
  for (let i = 0; i < ops.length; i++) {
    if ((ops[i] as Op).kind === ' ') continue;
    const start = Math.max(0, i - CONTEXT);
    let end = i + 1;
    let gap = 0;
    while (end < ops.length) {
      if ((ops[end] as Op).kind !== ' ') gap = 0;
      else if (++gap > 2 * CONTEXT) break;
      end++;
    }
    end = Math.min(ops.length, end - Math.max(0, gap - CONTEXT));
    const last = slices[slices.length - 1];
    if (last && start <= last.end) last.end = end;
    else slices.push({ start, end });
    i = end - 1;
  }
  return slices;
}

/**
 * Grows each slice's context until `accept` says it names one place, merging
 * with neighbours it runs into. Always terminates: a slice spanning the whole
 * file is accepted.
 */
export function growSlices(ops: Op[], accept: (done: Slice[], s: Slice) => boolean): Slice[] {
  const queue = initialSlices(ops);
  const done: Slice[] = [];
  for (let q = 0; q < queue.length; q++) {
    let s: Slice = { ...(queue[q] as Slice) };
    let grow = 1;
    while (!accept(done, s)) {
      const floor = done.length > 0 ? (done[done.length - 1] as Slice).end : 0;
      if (s.start <= floor && s.end >= ops.length) {
        if (done.length === 0) break;
        s = { start: (done.pop() as Slice).start, end: s.end };
        continue;
      }
      s = { start: Math.max(floor, s.start - grow), end: Math.min(ops.length, s.end + grow) };
      grow *= 2;
      while (q + 1 < queue.length && (queue[q + 1] as Slice).start <= s.end) {
        s.end = Math.max(s.end, (queue[q + 1] as Slice).end);
        q++;
      }
    }
    done.push(s);
  }
  return done;
}

export function oldLines(ops: Op[], from: number, to: number): string[] {
  const out: string[] = [];
  for (let i = from; i < to; i++) if ((ops[i] as Op).kind !== '+') out.push((ops[i] as Op).text);
  return out;
}

export function countOld(ops: Op[], from: number, to: number): number {
  let n = 0;
  for (let i = from; i < to; i++) if ((ops[i] as Op).kind !== '+') n++;
  return n;
}

export function countNew(ops: Op[], from: number, to: number): number {
  let n = 0;
  for (let i = from; i < to; i++) if ((ops[i] as Op).kind !== '-') n++;
  return n;
}

/** One side's text of ops[from, to), line endings included (none after a last line without newline). */
function sideText(ops: Op[], from: number, to: number, side: 'old' | 'new'): string {
  let out = '';
  for (let i = from; i < to; i++) {
    const op = ops[i] as Op;
    if (side === 'old' ? op.kind === '+' : op.kind === '-') continue;
    out += op.text + ((side === 'old' ? op.oldNoEol : op.newNoEol) ? '' : '\n');
  }
  return out;
}

/** Hunk body lines ("-x", "+y", " z", and the no-newline markers). */
export function hunkBody(ops: Op[], from: number, to: number): string[] {
  const out: string[] = [];
  for (let i = from; i < to; i++) {
    const op = ops[i] as Op;
    out.push(op.kind + op.text);
    if (op.oldNoEol || op.newNoEol) out.push(NO_NEWLINE);
  }
  return out;
}

interface TextEdit {
  oldText: string;
  newText: string;
}

/** Substring edits applied one after another (the engine's `edit`): each old text must occur once in the text as it is by then. */
export function textEdits(c: FileChange & { before: string; after: string }): TextEdit[] {
  const { ops } = align(c.before, c.after);
  const slices = growSlices(ops, (_done, s) => {
    const search = sideText(ops, s.start, s.end, 'old');
    if (search === '') return countOld(ops, 0, ops.length) === 0;
    // Blank lines alone name no place (SEARCH/REPLACE refuses them): take in a line with text.
    if (search.trim() === '') return false;
    const current = sideText(ops, 0, s.start, 'new') + sideText(ops, s.start, ops.length, 'old');
    const first = current.indexOf(search);
    return first !== -1 && current.indexOf(search, first + 1) === -1;
  });
  return slices.map((s) => ({ oldText: sideText(ops, s.start, s.end, 'old'), newText: sideText(ops, s.start, s.end, 'new') }));
}

function markerLike(line: string): boolean {
  const t = line.trim();
  return SEARCH_MARKER.test(line) || DIVIDER_MARKER.test(line) || REPLACE_MARKER.test(line) || t === NO_NEWLINE || t === BEGIN_MARKER || t === START_MARKER || t === END_MARKER;
}

/** Whole lines as a block body, with the no-newline marker where the text does not end with one. */
export function blockLines(format: FormatName, path: string, text: string): string[] {
  if (text === '') return [];
  const image = toLineImage(text);
  const bad = image.lines.find(markerLike);
  if (bad !== undefined) throw new InexpressibleChange(format, path, `the line ${JSON.stringify(bad)} would read as a marker`);
  return image.eofNewline ? image.lines : [...image.lines, NO_NEWLINE];
}
