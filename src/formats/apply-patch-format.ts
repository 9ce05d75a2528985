/**
 * apply_patch envelopes as one record: recognised by `*** Begin Patch`,
 * parsed by apply-patch.ts, rendered with chunks that carry no line numbers
 * (each names one place by its context). Pure.
 */
import { toLineImage } from '../edit/hunk-lines.js';
import { ADD_FILE, BEGIN_PATCH, DELETE_FILE, END_PATCH, EOF_MARKER, MOVE_TO, parseApplyPatch, UPDATE_FILE } from './apply-patch.js';
import { defineFormat } from './format.js';
import { align, countOld, growSlices, hunkBody, NO_NEWLINE, oldLines, type FileChange } from './render.js';
import { appendAll } from '../arrays.js';

const APPLY_PATCH = /^[ \t]*\*\*\* Begin Patch[ \t]*\r?$/m;

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
      appendAll(out, hunkBody(ops, s.start, s.end));
      if (s.end >= ops.length && countOld(ops, s.start, s.end) > 0) out.push(EOF_MARKER);
    }
  }
  out.push(END_PATCH);
  return out.join('\n') + '\n';
}

export const applyPatchFormat = defineFormat({
  name: 'apply-patch',
  // Every body line carries a prefix, so an envelope may quote any other format's marker line (" ---BEGIN---").
  detect: [{ evidence: 'prefixed-envelope', test: (text) => APPLY_PATCH.test(text), shows: `"${BEGIN_PATCH}"` }],
  parse: (text) => parseApplyPatch(text),
  render: renderApplyPatch,
});
