/**
 * The common case, done on bytes: one exact, unique `old_text` replacement in
 * an LF-only UTF-8 file. Decoding megabytes into a string and encoding them
 * back costs more than the disk write itself; here the file is searched as
 * bytes and written as three pieces, and only the lines around the change are
 * decoded for the diff.
 *
 * This is an optimisation, never a second set of rules: it returns null for
 * anything it does not handle (CRs, BOM-less UTF-16, no or several matches,
 * guards that fire, syntax checks), and the general engine then decides —
 * including every refusal. A property test pins that both agree.
 */
import { isUtf8 } from 'node:buffer';
import { unifiedDiff } from './diff.js';
import type { FilePlan, PlanOptions } from './engine.js';
import { shrinksTooMuch } from './large-deletion.js';
import { decodeText, type TextDoc } from './text.js';
import type { EditRequest, EngineHooks } from './types.js';
import { defined } from '../defined.js';

const NL = 0x0a;
const CONTEXT = 3;

export function tryFastExactEdit(path: string, bytes: Uint8Array, requests: EditRequest[], options: PlanOptions, hooks: EngineHooks): FilePlan | null {
  if (requests.length !== 1) return null;
  const request = requests[0] as EditRequest;
  if (request.action !== 'edit' || request.replaceAll === true || request.oldText.length === 0) return null;
  if (hooks.newSyntaxErrors && hooks.syntaxPolicy !== 'off') return null;
  const { oldText, newText } = request;
  if (oldText === newText || oldText.includes('\r') || newText.includes('\r')) return null;
  // A whole-line quote that starts with a blank line may match from the end of the line above (whole-lines.ts).
  if (request.wholeLines && /^[ \t]*\n/.test(oldText)) return null;

  const buf = Buffer.isBuffer(bytes) ? bytes : Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  if (buf.length >= 2 && ((buf[0] === 0xff && buf[1] === 0xfe) || (buf[0] === 0xfe && buf[1] === 0xff))) return null;
  if (buf.indexOf(0x0d) !== -1 || buf.indexOf(0) !== -1 || !isUtf8(buf)) return null;
  const bom = buf.length >= 3 && buf[0] === 0xef && buf[1] === 0xbb && buf[2] === 0xbf ? 3 : 0;

  // UTF-8 is self-synchronising: a byte match of valid UTF-8 in valid UTF-8 starts and ends on characters.
  const needle = Buffer.from(oldText, 'utf8');
  const at = buf.indexOf(needle, bom);
  if (at === -1 || buf.indexOf(needle, at + 1) !== -1) return null;
  const end = at + needle.length;
  const insert = Buffer.from(newText, 'utf8');
  const afterLength = buf.length - needle.length + insert.length;
  if (afterLength > options.maxFileBytes) return null;

  const lineIndex = countByte(buf, NL, bom, at);
  if (request.force !== true && wouldShrinkTooMuch(buf, bom, at, end, insert, lineIndex, options)) return null;

  // Diff window: whole lines, one more than the diff's context on each side, so the
  // diff of the window is the diff of the file.
  let windowStart = lineStart(buf, at, bom);
  let windowStartLine = lineIndex;
  for (let k = 0; k <= CONTEXT && windowStart > bom; k++) {
    windowStart = lineStart(buf, windowStart - 1, bom);
    windowStartLine--;
  }
  let q = buf.indexOf(NL, end > at ? end - 1 : at);
  for (let k = 0; k <= CONTEXT && q !== -1; k++) q = buf.indexOf(NL, q + 1);
  const windowEnd = q === -1 ? buf.length : q + 1;
  const oldWindow = buf.toString('utf8', windowStart, windowEnd);
  const newWindow = buf.toString('utf8', windowStart, at) + newText + buf.toString('utf8', end, windowEnd);
  const d = unifiedDiff({
    oldPath: path,
    newPath: path,
    before: oldWindow,
    after: newWindow,
    lineOffset: windowStartLine,
    ...defined({ mode: options.mode }),
  });

  const pieces = [buf.subarray(0, at), insert, buf.subarray(end)] as const;
  let beforeDoc: TextDoc | undefined;
  let afterDoc: TextDoc | undefined;
  const plan: FilePlan = {
    path,
    // Decoded only if someone asks (tests, callers that need the text).
    get before(): TextDoc {
      beforeDoc ??= decodeText(buf, path);
      return beforeDoc;
    },
    get after(): TextDoc {
      afterDoc ??= decodeText(Buffer.concat(pieces), path);
      return afterDoc;
    },
    existedBefore: true,
    deleted: false,
    changed: true,
    afterBytes: pieces,
    steps: [
      {
        request,
        ok: true,
        applied: { action: 'edit', strategy: 'exact', count: 1, line: lineIndex + 1, notes: [...(request.readAs ?? [])] },
        diff: d.diff,
        added: d.added,
        removed: d.removed,
      },
    ],
    ok: true,
    diff: d.diff,
    added: d.added,
    removed: d.removed,
  };
  return plan;
}

/** Offset where the line holding `pos` starts (never before the BOM). */
function lineStart(buf: Buffer, pos: number, bom: number): number {
  if (pos <= bom) return bom;
  // Buffer.lastIndexOf counts a negative offset from the end: never pass one.
  const nl = buf.lastIndexOf(NL, pos - 1);
  return nl < bom ? bom : nl + 1;
}

/** Counts `byte` in buf[from, to) with native searches (no per-byte JS loop). */
function countByte(buf: Buffer, byte: number, from: number, to: number): number {
  let n = 0;
  for (let i = buf.indexOf(byte, from); i !== -1 && i < to; i = buf.indexOf(byte, i + 1)) n++;
  return n;
}

/** Lines as an editor counts them, for bytes[from, end) with `newlines` "\n" in it. */
function linesOf(newlines: number, lengthAfterBom: number, endsWithNewline: boolean): number {
  if (lengthAfterBom === 0) return 0;
  return endsWithNewline ? newlines : newlines + 1;
}

/** True when the large-deletion guard may fire: then the general engine decides (and refuses). */
function wouldShrinkTooMuch(buf: Buffer, bom: number, at: number, end: number, insert: Buffer, lineIndex: number, options: PlanOptions): boolean {
  const removedNl = countByte(buf, NL, at, end);
  const addedNl = countByte(insert, NL, 0, insert.length);
  // Lines can only shrink if newlines go, or if the change reaches the end (the last line's newline).
  if (addedNl > removedNl || (addedNl === removedNl && end < buf.length)) return false;
  const beforeNl = lineIndex + removedNl + countByte(buf, NL, end, buf.length);
  const beforeLines = linesOf(beforeNl, buf.length - bom, buf[buf.length - 1] === NL);
  const afterLength = buf.length - (end - at) + insert.length;
  const lastByte = end === buf.length ? (insert.length > 0 ? insert[insert.length - 1] : at > bom ? buf[at - 1] : undefined) : buf[buf.length - 1];
  const afterLines = linesOf(beforeNl - removedNl + addedNl, afterLength - bom, lastByte === NL);
  return shrinksTooMuch(beforeLines, afterLines, options);
}
