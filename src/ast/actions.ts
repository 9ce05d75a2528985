/**
 * The four AST actions as pure text operations on a resolved declaration:
 * replace, remove (with the blank line it leaves), append (after) and prepend
 * (before). Leading comments belong to the declaration; inserted code is
 * re-indented to the declaration's indentation.
 *
 * Must never: parse (it works on the ranges the outline computed), or touch
 * text outside the declaration's lines and the blank lines around them.
 */
import type { AstRequest } from '../edit/types.js';
import type { AstEntry } from './outline.js';
import { lineStarts } from './outline.js';

export type AstAction = AstRequest['astAction'];

export interface ActionResult {
  text: string;
  /** 1-based line in the old text where the change happens. */
  line: number;
  notes: string[];
}

const isBlankLine = (line: string | undefined): boolean => line !== undefined && line.trim() === '';
const indentOf = (line: string): string => (/^[ \t]*/.exec(line) ?? [''])[0];

/** Removes the common leading whitespace of the non-blank lines and the blank lines around the block. */
export function dedent(content: string): string[] {
  const lines = content.replace(/\r\n?/g, '\n').split('\n');
  while (lines.length > 0 && isBlankLine(lines[0])) lines.shift();
  while (lines.length > 0 && isBlankLine(lines[lines.length - 1])) lines.pop();
  let common: string | undefined;
  for (const line of lines) {
    if (line.trim() === '') continue;
    const indent = indentOf(line);
    if (common === undefined) common = indent;
    else {
      let i = 0;
      while (i < common.length && i < indent.length && common[i] === indent[i]) i++;
      common = common.slice(0, i);
    }
  }
  const cut = common?.length ?? 0;
  return lines.map((line) => (line.trim() === '' ? '' : line.slice(cut)));
}

/** Content re-indented to `indent`; the first line is left bare when it continues a line (`bareFirst`). */
export function reindent(content: string, indent: string, bareFirst = false): string {
  return dedent(content)
    .map((line, i) => (line === '' || (bareFirst && i === 0) ? line : indent + line))
    .join('\n');
}

function describeIndent(indent: string): string {
  if (indent === '') return 'column 0';
  if (/^\t+$/.test(indent)) return `${indent.length} tab${indent.length > 1 ? 's' : ''}`;
  if (/^ +$/.test(indent)) return `${indent.length} space${indent.length > 1 ? 's' : ''}`;
  return JSON.stringify(indent);
}

class Lines {
  readonly starts: number[];
  constructor(readonly text: string) {
    this.starts = lineStarts(text);
  }
  /** Number of lines; the empty string after a final newline is not a line. */
  get count(): number {
    return this.text.endsWith('\n') ? this.starts.length - 1 : this.starts.length;
  }
  /** 0-based row → its text without the newline (undefined outside the file). */
  at(row: number): string | undefined {
    const start = this.starts[row];
    if (start === undefined || row < 0 || row >= this.count) return undefined;
    const next = this.starts[row + 1];
    return this.text.slice(start, next === undefined ? this.text.length : next - 1);
  }
  start(row: number): number {
    return this.starts[row] ?? this.text.length;
  }
  /** Offset of the newline ending `row` (or the end of the text). */
  end(row: number): number {
    const next = this.starts[row + 1];
    return next === undefined ? this.text.length : next - 1;
  }
  blankRunAbove(row: number): number {
    let n = 0;
    while (row - 1 - n >= 0 && isBlankLine(this.at(row - 1 - n))) n++;
    return n;
  }
  blankRunBelow(row: number): number {
    let n = 0;
    while (row + 1 + n < this.count && isBlankLine(this.at(row + 1 + n))) n++;
    return n;
  }
}

function span(entry: AstEntry): string {
  const comments = entry.nodeLine - entry.startLine;
  const lines = entry.startLine === entry.endLine ? `line ${entry.startLine}` : `lines ${entry.startLine}-${entry.endLine}`;
  return `${entry.address} (${entry.kind}, ${lines}${comments > 0 ? `, with ${comments} line${comments > 1 ? 's' : ''} of leading comments` : ''})`;
}

/** Notes whether the inserted code's indentation was changed. */
function indentNote(content: string, indent: string): string[] {
  const first = content
    .replace(/\r\n?/g, '\n')
    .split('\n')
    .find((l) => l.trim() !== '');
  if (first === undefined || indentOf(first) === indent) return [];
  return [`re-indented the new code to ${describeIndent(indent)}`];
}

export function applyAstAction(text: string, entry: AstEntry, action: AstAction, content: string): ActionResult {
  switch (action) {
    case 'replace':
      return content.trim() === '' ? removeItem(text, entry) : replace(text, entry, content);
    case 'remove':
      return removeItem(text, entry);
    case 'append':
      return insertItem(text, entry, content, 'after');
    case 'prepend':
      return insertItem(text, entry, content, 'before');
    default: {
      const never: never = action;
      throw new Error(`unknown AST action ${String(never)}`);
    }
  }
}

function replace(text: string, entry: AstEntry, content: string): ActionResult {
  const lines = new Lines(text);
  const from = entry.startsLine ? lines.start(entry.startLine - 1) : entry.start;
  const body = reindent(content, entry.indent, !entry.startsLine);
  return {
    text: text.slice(0, from) + body + text.slice(entry.end),
    line: entry.startLine,
    notes: [`replaced ${span(entry)}`, ...indentNote(content, entry.indent)],
  };
}

/** In a comma-separated list the separator goes with the item: the one after it, or before it for the last item. */
function removeItem(text: string, entry: AstEntry): ActionResult {
  if (entry.commaAfter) return remove(text, { ...entry, end: entry.commaAfter.end });
  if (entry.commaBefore) {
    const { start, end } = entry.commaBefore;
    const width = end - start;
    const shifted: AstEntry = { ...entry, start: entry.start - width, nodeStart: entry.nodeStart - width, end: entry.end - width };
    return remove(text.slice(0, start) + text.slice(end), shifted);
  }
  return remove(text, entry);
}

function insertItem(text: string, entry: AstEntry, content: string, where: 'before' | 'after'): ActionResult {
  if (!entry.commaAfter && !entry.commaBefore && !entry.inCommaList) return insert(text, entry, content, where);
  const item = content.replace(/,\s*$/, '');
  if (where === 'before') return insert(text, entry, `${item},`, where);
  if (entry.commaAfter) return insert(text, { ...entry, end: entry.commaAfter.end }, `${item},`, where);
  // The last item gets the comma it now needs; the new item ends the list without one.
  const withComma = text.slice(0, entry.end) + ',' + text.slice(entry.end);
  return insert(withComma, { ...entry, end: entry.end + 1 }, item, where);
}

function remove(text: string, entry: AstEntry): ActionResult {
  const lines = new Lines(text);
  const firstRow = entry.startLine - 1;
  const lastRow = entry.endLine - 1;
  const wholeLines = entry.startsLine && (lines.at(lastRow) ?? '').slice(entry.end - lines.start(lastRow)).trim() === '';
  const notes = [`removed ${span(entry)}`];
  if (!wholeLines) {
    let out = text.slice(0, entry.start) + text.slice(entry.end);
    // A declaration sharing its line with others: if its removal empties the line, drop the line.
    const outLines = new Lines(out);
    if (isBlankLine(outLines.at(firstRow)) && !isBlankLine(lines.at(firstRow))) {
      out = out.slice(0, outLines.start(firstRow)) + out.slice(Math.min(out.length, outLines.end(firstRow) + 1));
    }
    return { text: out, line: entry.startLine, notes };
  }
  let cutFirst = firstRow;
  let cutLast = lastRow;
  const above = lines.blankRunAbove(firstRow);
  const below = lines.blankRunBelow(lastRow);
  // The non-blank neighbours: a lesser-indented one (or none) is the start or end of the enclosing block or file.
  const before = lines.at(firstRow - 1 - above);
  const after = lines.at(lastRow + 1 + below);
  const opensBlock = before === undefined || indentOf(before).length < entry.indent.length;
  const closesBlock = after === undefined || indentOf(after).length < entry.indent.length;
  // Remove the blank run the removal leaves behind: two runs would meet, or one would open or close a block.
  if (below > 0 && (above > 0 || opensBlock)) cutLast += below;
  else if (above > 0 && closesBlock) cutFirst -= above;
  if (cutFirst !== firstRow || cutLast !== lastRow) notes.push('removed the blank line left behind');
  let from = lines.start(cutFirst);
  let to = lines.end(cutLast) + 1;
  if (to > text.length) {
    // Last line of the file: take the newline before it instead, so no stray blank line is left at the end.
    to = text.length;
    from = Math.max(0, from - 1);
  }
  return { text: text.slice(0, from) + text.slice(to), line: entry.startLine, notes };
}

function insert(text: string, entry: AstEntry, content: string, where: 'before' | 'after'): ActionResult {
  if (content.trim() === '') return { text, line: entry.startLine, notes: [`nothing to insert ${where} ${entry.address}`] };
  const lines = new Lines(text);
  const firstRow = entry.startLine - 1;
  const lastRow = entry.endLine - 1;
  // Keep the file's spacing between declarations: as many blank lines as already separate this one from its neighbours.
  const gap = Math.min(2, Math.max(lines.blankRunAbove(firstRow), lines.blankRunBelow(lastRow)));
  const blank = '\n'.repeat(gap);
  const notes = [`inserted ${where} ${span(entry)}`, ...indentNote(content, entry.indent)];
  if (where === 'before') {
    if (!entry.startsLine) {
      return { text: text.slice(0, entry.start) + reindent(content, entry.indent, true) + '\n' + entry.indent + text.slice(entry.start), line: entry.startLine, notes };
    }
    const at = lines.start(firstRow);
    return { text: text.slice(0, at) + reindent(content, entry.indent) + '\n' + blank + text.slice(at), line: entry.startLine, notes };
  }
  const endsLine = (lines.at(lastRow) ?? '').slice(entry.end - lines.start(lastRow)).trim() === '';
  const at = endsLine ? lines.end(lastRow) : entry.end;
  return { text: text.slice(0, at) + '\n' + blank + reindent(content, entry.indent) + text.slice(at), line: entry.endLine, notes };
}
