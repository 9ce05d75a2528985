/**
 * The other direction: a known change (file before → after) written in each
 * edit format, exactly as a careful model would write it — enough context for
 * every hunk or SEARCH text to name one place. Used by the round-trip tests,
 * the replay benchmark and for examples in prompts. Pure.
 *
 * It must never emit text that means something else: a change a format
 * cannot express (a deletion in SEARCH/REPLACE, a blank file in active edit,
 * a line that looks like a marker) is refused with InexpressibleChange, not
 * approximated.
 */
import { diffArrays } from 'diff';
import { EditwardenError, ErrorCode } from '../errors.js';
import { toLineImage } from '../edit/hunk-lines.js';
import type { FormatName } from './parse-result.js';
import { BEGIN_MARKER, END_MARKER, START_MARKER } from './active-edit.js';
import { ADD_FILE, BEGIN_PATCH, DELETE_FILE, END_PATCH, EOF_MARKER, MOVE_TO, UPDATE_FILE } from './apply-patch.js';
import { DIVIDER_MARKER, REPLACE_MARKER, SEARCH_MARKER } from './search-replace.js';
import { defined } from '../defined.js';

const NO_NEWLINE = '\\ No newline at end of file';

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
function align(before: string, after: string): Alignment {
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
    out.push(...run.filter((o) => o.kind === '-'), ...run.filter((o) => o.kind === '+'));
  }
  return out;
}

interface Slice {
  start: number;
  end: number;
}

const CONTEXT = 3;

/** Change runs with CONTEXT lines around them; runs closer than 2×CONTEXT share a slice (as diff -u does). */
function initialSlices(ops: Op[]): Slice[] {
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
function growSlices(ops: Op[], accept: (done: Slice[], s: Slice) => boolean): Slice[] {
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

function oldLines(ops: Op[], from: number, to: number): string[] {
  const out: string[] = [];
  for (let i = from; i < to; i++) if ((ops[i] as Op).kind !== '+') out.push((ops[i] as Op).text);
  return out;
}

function countOld(ops: Op[], from: number, to: number): number {
  let n = 0;
  for (let i = from; i < to; i++) if ((ops[i] as Op).kind !== '+') n++;
  return n;
}

function countNew(ops: Op[], from: number, to: number): number {
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
function hunkBody(ops: Op[], from: number, to: number): string[] {
  const out: string[] = [];
  for (let i = from; i < to; i++) {
    const op = ops[i] as Op;
    out.push(op.kind + op.text);
    if (op.oldNoEol || op.newNoEol) out.push(NO_NEWLINE);
  }
  return out;
}

function quotePath(path: string): string {
  if (!/[\t\n"\\]/.test(path)) return path;
  return `"${path.replace(/\\/g, '\\\\').replace(/"/g, '\\"').replace(/\t/g, '\\t').replace(/\n/g, '\\n')}"`;
}

function renderUdiff(changes: FileChange[]): string {
  const out: string[] = [];
  for (const c of changes) {
    const oldPath = c.path;
    const newPath = c.moveTo ?? c.path;
    out.push(`diff --git ${quotePath(`a/${oldPath}`)} ${quotePath(`b/${newPath}`)}`);
    if (c.before === null) out.push('new file mode 100644');
    if (c.after === null) out.push('deleted file mode 100644');
    if (c.moveTo !== undefined && c.moveTo !== c.path) out.push(`rename from ${quotePath(oldPath)}`, `rename to ${quotePath(newPath)}`);
    const { ops } = align(c.before ?? '', c.after ?? '');
    const slices = initialSlices(ops);
    if (slices.length === 0) continue;
    out.push(`--- ${c.before === null ? '/dev/null' : quotePath(`a/${oldPath}`)}`, `+++ ${c.after === null ? '/dev/null' : quotePath(`b/${newPath}`)}`);
    for (const s of slices) {
      const oldBefore = countOld(ops, 0, s.start);
      const newBefore = countNew(ops, 0, s.start);
      const oldCount = countOld(ops, s.start, s.end);
      const newCount = countNew(ops, s.start, s.end);
      const oldStart = oldCount === 0 ? oldBefore : oldBefore + 1;
      const newStart = newCount === 0 ? newBefore : newBefore + 1;
      out.push(`@@ -${oldStart},${oldCount} +${newStart},${newCount} @@`, ...hunkBody(ops, s.start, s.end));
    }
  }
  return out.join('\n') + '\n';
}

/** apply_patch: chunks have no line numbers, so each must match exactly one place after the previous one (or end the file). */
function renderApplyPatch(changes: FileChange[]): string {
  const out: string[] = [BEGIN_PATCH];
  for (const c of changes) {
    if (c.before === null) {
      out.push(ADD_FILE + c.path);
      const image = toLineImage(c.after ?? '');
      for (const line of image.lines) out.push('+' + line);
      if (!image.eofNewline) out.push(NO_NEWLINE);
      continue;
    }
    if (c.after === null) {
      out.push(DELETE_FILE + c.path);
      continue;
    }
    out.push(UPDATE_FILE + c.path);
    if (c.moveTo !== undefined && c.moveTo !== c.path) out.push(MOVE_TO + c.moveTo);
    const { ops } = align(c.before, c.after);
    const fileLines = toLineImage(c.before).lines;
    const slices = growSlices(ops, (_done, s) => {
      if (s.end >= ops.length) return true;
      const pattern = oldLines(ops, s.start, s.end);
      if (pattern.length === 0) return false;
      const cursor = countOld(ops, 0, s.start);
      let matches = 0;
      for (let at = cursor; at + pattern.length <= fileLines.length && matches < 2; at++) {
        let ok = true;
        for (let k = 0; k < pattern.length && ok; k++) ok = fileLines[at + k] === pattern[k];
        if (ok) matches++;
      }
      return matches === 1;
    });
    for (const s of slices) {
      out.push('@@');
      out.push(...hunkBody(ops, s.start, s.end));
      if (s.end >= ops.length && countOld(ops, s.start, s.end) > 0) out.push(EOF_MARKER);
    }
  }
  out.push(END_PATCH);
  return out.join('\n') + '\n';
}

interface TextEdit {
  oldText: string;
  newText: string;
}

/** Substring edits applied one after another (the engine's `edit`): each old text must occur once in the text as it is by then. */
function textEdits(c: FileChange & { before: string; after: string }): TextEdit[] {
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
function blockLines(format: FormatName, path: string, text: string): string[] {
  if (text === '') return [];
  const image = toLineImage(text);
  const bad = image.lines.find(markerLike);
  if (bad !== undefined) throw new InexpressibleChange(format, path, `the line ${JSON.stringify(bad)} would read as a marker`);
  return image.eofNewline ? image.lines : [...image.lines, NO_NEWLINE];
}

function renderSearchReplace(changes: FileChange[]): string {
  const out: string[] = [];
  for (const c of changes) {
    if (c.after === null) throw new InexpressibleChange('search-replace', c.path, 'SEARCH/REPLACE blocks cannot delete a file');
    if (c.moveTo !== undefined && c.moveTo !== c.path) throw new InexpressibleChange('search-replace', c.path, 'SEARCH/REPLACE blocks cannot rename a file');
    if (c.before !== null && c.before !== '' && c.before.trim() === '') {
      throw new InexpressibleChange('search-replace', c.path, 'the file has only blank lines, and a SEARCH text of blank lines names no place');
    }
    const edits = c.before === null ? [{ oldText: '', newText: c.after }] : textEdits({ ...c, before: c.before, after: c.after });
    for (const e of edits) {
      if (e.oldText === '' && e.newText === '' && c.before !== null) continue;
      out.push(c.path, '```', '<<<<<<< SEARCH', ...blockLines('search-replace', c.path, e.oldText), '=======', ...blockLines('search-replace', c.path, e.newText), '>>>>>>> REPLACE', '```', '');
    }
  }
  return out.join('\n');
}

function renderJson(changes: FileChange[]): string {
  const requests: Record<string, unknown>[] = [];
  for (const c of changes) {
    if (c.after === null) throw new InexpressibleChange('json', c.path, 'edit_file requests cannot delete a file');
    if (c.moveTo !== undefined && c.moveTo !== c.path) throw new InexpressibleChange('json', c.path, 'edit_file requests cannot rename a file');
    if (c.before === null) {
      requests.push({ path: c.path, mode: 'create', new_text: c.after });
      continue;
    }
    if (c.before.trim() === '') {
      // Nothing in the file to anchor an edit on: write it whole.
      requests.push({ path: c.path, mode: 'overwrite', new_text: c.after });
      continue;
    }
    for (const e of textEdits({ ...c, before: c.before, after: c.after })) {
      requests.push({ path: c.path, old_text: e.oldText, new_text: e.newText });
    }
  }
  return JSON.stringify(requests, null, 2);
}

function renderActiveEdit(changes: FileChange[]): string {
  const out: string[] = [];
  for (const c of changes) {
    if (c.after === null) throw new InexpressibleChange('active-edit', c.path, 'active edit directives cannot delete a file');
    if (c.moveTo !== undefined && c.moveTo !== c.path) throw new InexpressibleChange('active-edit', c.path, 'active edit directives cannot rename a file');
    if (c.after.trim() === '') throw new InexpressibleChange('active-edit', c.path, 'a replace directive needs code that is not blank');
    out.push(`Here is the new ${c.path}:`, BEGIN_MARKER, `Edit: ${c.path}`, 'action: replace', START_MARKER, ...blockLines('active-edit', c.path, c.after), END_MARKER, '');
  }
  return out.join('\n');
}

/** Writes `changes` in `format`; throws InexpressibleChange for what the format cannot say. */
export function renderChange(format: FormatName, changes: FileChange[]): string {
  switch (format) {
    case 'udiff':
      return renderUdiff(changes);
    case 'apply-patch':
      return renderApplyPatch(changes);
    case 'search-replace':
      return renderSearchReplace(changes);
    case 'json':
      return renderJson(changes);
    case 'active-edit':
      return renderActiveEdit(changes);
    default: {
      const never: never = format;
      throw new Error(`unknown format ${String(never)}`);
    }
  }
}
