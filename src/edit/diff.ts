/**
 * Git-style unified diffs of "\n"-normalised texts. The common prefix and
 * suffix are cut off first (one edit in a 100k-line file diffs only the lines
 * around it), and jsdiff compares what is left. Pure.
 */
import { diffArrays } from 'diff';

export interface DiffInput {
  oldPath: string;
  newPath: string;
  /** null: the file does not exist on that side. */
  before: string | null;
  after: string | null;
  /** File mode for "new file mode" / "deleted file mode" lines (default 100644). */
  mode?: number;
  context?: number;
  /**
   * The texts are known to agree on their first `knownPrefix` chars and their
   * last `knownSuffix` chars (the engine knows where it spliced), which spares
   * scanning megabytes to find where they differ.
   */
  knownPrefix?: number;
  knownSuffix?: number;
  /** Lines that precede `before`/`after` in the real file (the texts are windows of it). */
  lineOffset?: number;
}

export interface DiffOutput {
  diff: string;
  added: number;
  removed: number;
}

type Op = { kind: ' ' | '-' | '+'; lines: string[] };

const NO_EOL = '\\ No newline at end of file';

export function unifiedDiff(input: DiffInput): DiffOutput {
  const context = input.context ?? 3;
  const a = input.before ?? '';
  const b = input.after ?? '';
  const header = diffHeader(input);
  if (a === b && input.before !== null && input.after !== null) {
    return { diff: input.oldPath !== input.newPath ? header : '', added: 0, removed: 0 };
  }
  const { prefix, suffix } = commonLineEdges(a, b, input.knownPrefix ?? 0, input.knownSuffix ?? 0);
  const midA = splitKeep(a.slice(prefix, a.length - suffix));
  const midB = splitKeep(b.slice(prefix, b.length - suffix));
  const prefixLines = countNl(a, 0, prefix);
  const ops: Op[] = [];
  const before = lastLines(a.slice(0, prefix), context);
  if (before.length > 0) ops.push({ kind: ' ', lines: before });
  let added = 0;
  let removed = 0;
  for (const op of middleOps(midA, midB)) {
    if (op.kind === '+') added += op.lines.length;
    if (op.kind === '-') removed += op.lines.length;
    ops.push(op);
  }
  const after = firstLines(a.slice(a.length - suffix), context);
  if (after.length > 0) ops.push({ kind: ' ', lines: after });
  const hunks = toHunks(ops, (input.lineOffset ?? 0) + prefixLines - before.length, context);
  if (hunks.length === 0) return { diff: header, added, removed };
  return { diff: `${header}${hunks.join('')}`, added, removed };
}

function diffHeader(input: DiffInput): string {
  const mode = (input.mode ?? 0o100644).toString(8).padStart(6, '0');
  const lines = [`diff --git a/${input.oldPath} b/${input.newPath}`];
  if (input.before === null) lines.push(`new file mode ${mode}`);
  if (input.after === null) lines.push(`deleted file mode ${mode}`);
  if (input.oldPath !== input.newPath && input.before !== null && input.after !== null) {
    lines.push(`rename from ${input.oldPath}`, `rename to ${input.newPath}`);
  }
  if (input.before === input.after) return `${lines.join('\n')}\n`;
  lines.push(input.before === null ? '--- /dev/null' : `--- a/${input.oldPath}`);
  lines.push(input.after === null ? '+++ /dev/null' : `+++ b/${input.newPath}`);
  return `${lines.join('\n')}\n`;
}

/** Lengths of the common prefix and suffix of a and b, cut at line boundaries. */
function commonLineEdges(a: string, b: string, knownPrefix: number, knownSuffix: number): { prefix: number; suffix: number } {
  const max = Math.min(a.length, b.length);
  const raw = commonPrefix(a, b, Math.min(knownPrefix, max), max);
  const prefix = raw === 0 ? 0 : a.lastIndexOf('\n', raw - 1) + 1;
  let suffix = commonSuffix(a, b, Math.min(knownSuffix, max - prefix), max - prefix);
  // The suffix must start at a line start in both texts.
  while (suffix > 0) {
    const ia = a.length - suffix;
    const ib = b.length - suffix;
    const lineStartA = ia === 0 || a[ia - 1] === '\n';
    const lineStartB = ib === 0 || b[ib - 1] === '\n';
    if (lineStartA && lineStartB && ia >= prefix && ib >= prefix) break;
    const nl = a.indexOf('\n', ia);
    suffix = nl === -1 ? 0 : a.length - (nl + 1);
  }
  return { prefix, suffix };
}

const CHUNK = 4096;

/** Length of the common prefix, scanning in chunks: native slice comparisons, then chars. */
function commonPrefix(a: string, b: string, from: number, max: number): number {
  let i = from;
  while (i + CHUNK <= max && a.slice(i, i + CHUNK) === b.slice(i, i + CHUNK)) i += CHUNK;
  while (i < max && a.charCodeAt(i) === b.charCodeAt(i)) i++;
  return i;
}

function commonSuffix(a: string, b: string, from: number, max: number): number {
  let n = from;
  while (n + CHUNK <= max && a.slice(a.length - n - CHUNK, a.length - n) === b.slice(b.length - n - CHUNK, b.length - n)) n += CHUNK;
  while (n < max && a.charCodeAt(a.length - n - 1) === b.charCodeAt(b.length - n - 1)) n++;
  return n;
}

/** Lines with their terminators ("a\n", "b"): a missing final newline is a different line. */
function splitKeep(text: string): string[] {
  if (text.length === 0) return [];
  const out: string[] = [];
  let from = 0;
  for (let i = text.indexOf('\n'); i !== -1; i = text.indexOf('\n', from)) {
    out.push(text.slice(from, i + 1));
    from = i + 1;
  }
  if (from < text.length) out.push(text.slice(from));
  return out;
}

function lastLines(text: string, n: number): string[] {
  if (n === 0 || text.length === 0) return [];
  let from = text.length - 1; // text ends with "\n" here (cut at a line boundary)
  for (let k = 0; k < n; k++) {
    const prev = text.lastIndexOf('\n', from - 1);
    from = prev;
    if (prev === -1) break;
  }
  return splitKeep(text.slice(from + 1));
}

function firstLines(text: string, n: number): string[] {
  let end = 0;
  for (let k = 0; k < n && end < text.length; k++) {
    const nl = text.indexOf('\n', end);
    end = nl === -1 ? text.length : nl + 1;
  }
  return splitKeep(text.slice(0, end));
}

function countNl(text: string, from: number, to: number): number {
  let n = 0;
  for (let i = text.indexOf('\n', from); i !== -1 && i < to; i = text.indexOf('\n', i + 1)) n++;
  return n;
}

function middleOps(oldLines: string[], newLines: string[]): Op[] {
  if (oldLines.length === 0 && newLines.length === 0) return [];
  if (oldLines.length === 0) return [{ kind: '+', lines: newLines }];
  if (newLines.length === 0) return [{ kind: '-', lines: oldLines }];
  // Bounded effort: a wholesale rewrite is shown as remove-all + add-all rather than stalling.
  const changes = diffArrays(oldLines, newLines, { maxEditLength: 5000, timeout: 2000 });
  if (!changes)
    return [
      { kind: '-', lines: oldLines },
      { kind: '+', lines: newLines },
    ];
  const ops: Op[] = [];
  for (const change of changes) {
    const kind = change.added ? '+' : change.removed ? '-' : ' ';
    // A replaced block reads best as all removals, then all additions.
    ops.push({ kind, lines: change.value });
  }
  return ops;
}

/** Groups ops into "@@ -l,s +l,s @@" hunks with `context` lines around each change. */
function toHunks(ops: Op[], firstLine: number, context: number): string[] {
  // Flatten to single lines with their positions; the ops are already small (around the change).
  type Row = { kind: ' ' | '-' | '+'; text: string };
  const rows: Row[] = [];
  for (const op of ops) for (const text of op.lines) rows.push({ kind: op.kind, text });
  const hunks: string[] = [];
  let i = 0;
  let oldLine = firstLine; // 0-based line index in old of rows[i] (for ' ' and '-')
  let newLine = firstLine;
  while (i < rows.length) {
    // Find the next change.
    let j = i;
    let o = oldLine;
    let n = newLine;
    while (j < rows.length && (rows[j] as Row).kind === ' ') {
      j++;
      o++;
      n++;
    }
    if (j >= rows.length) break;
    const startRow = Math.max(i, j - context);
    const lead = j - startRow;
    const hunkOld = o - lead;
    const hunkNew = n - lead;
    // Extend through changes separated by ≤ 2*context unchanged lines.
    let end = j;
    let k = j;
    while (k < rows.length) {
      if ((rows[k] as Row).kind !== ' ') {
        end = k;
        k++;
        continue;
      }
      let run = 0;
      while (k + run < rows.length && (rows[k + run] as Row).kind === ' ') run++;
      if (k + run >= rows.length || run > 2 * context) break;
      k += run;
    }
    const stopRow = Math.min(rows.length, end + 1 + context);
    const body: string[] = [];
    let oldCount = 0;
    let newCount = 0;
    for (let r = startRow; r < stopRow; r++) {
      const row = rows[r] as Row;
      const text = row.text.endsWith('\n') ? row.text.slice(0, -1) : row.text;
      body.push(`${row.kind}${text}`);
      if (!row.text.endsWith('\n')) body.push(NO_EOL);
      if (row.kind !== '+') oldCount++;
      if (row.kind !== '-') newCount++;
    }
    const oldStart = oldCount === 0 ? hunkOld : hunkOld + 1;
    const newStart = newCount === 0 ? hunkNew : hunkNew + 1;
    hunks.push(`@@ -${range(oldStart, oldCount)} +${range(newStart, newCount)} @@\n${body.join('\n')}\n`);
    // Advance counters to stopRow.
    for (let r = i; r < stopRow; r++) {
      const row = rows[r] as Row;
      if (row.kind !== '+') oldLine++;
      if (row.kind !== '-') newLine++;
    }
    i = stopRow;
  }
  return hunks;
}

function range(start: number, count: number): string {
  return count === 1 ? `${start}` : `${start},${count}`;
}
