/**
 * Unified diffs as one record: recognised by a `--- ` / `+++ ` pair, a
 * `diff --git` line or an `@@ -N` hunk header, parsed by udiff.ts, rendered
 * as `git diff` writes them (3 lines of context, hunks closer than 6 lines
 * merged). Pure.
 */
import { defineFormat } from './format.js';
import { align, countNew, countOld, hunkBody, initialSlices, type FileChange } from './render.js';
import { parseUnifiedDiff } from './udiff.js';
import { appendAll } from '../arrays.js';

const UNIFIED_DIFF = /^(?:diff --git |--- [^\n]*\r?\n\+\+\+ |@@ -\d)/m;

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
      appendAll(out, [`@@ -${oldStart},${oldCount} +${newStart},${newCount} @@`, ...hunkBody(ops, s.start, s.end)]);
    }
  }
  return out.join('\n') + '\n';
}

export const udiffFormat = defineFormat({
  name: 'udiff',
  // Header lines only: every other format may quote a diff.
  detect: [{ evidence: 'header', test: (text) => UNIFIED_DIFF.test(text), shows: 'unified diff ("--- a/…" / "+++ b/…")' }],
  parse: (text) => parseUnifiedDiff(text),
  render: renderUdiff,
});
