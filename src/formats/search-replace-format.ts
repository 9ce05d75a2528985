/**
 * SEARCH/REPLACE blocks as one record: recognised by a SEARCH marker line,
 * parsed by search-replace.ts, rendered as the blocks Aider writes (a path
 * line, a fence, SEARCH, the old lines, the divider, the new lines, REPLACE).
 * Pure.
 */
import { defineFormat } from './format.js';
import { blockLines, InexpressibleChange, textEdits, type FileChange } from './render.js';
import { parseSearchReplace } from './search-replace.js';
import { appendAll } from '../arrays.js';

const NAME = 'search-replace';
const SEARCH_REPLACE = /^(?:<{5,9}|-{3,}) ?SEARCH[ \t]*\r?$/m;

function renderSearchReplace(changes: FileChange[]): string {
  const out: string[] = [];
  for (const c of changes) {
    if (c.after === null) throw new InexpressibleChange(NAME, c.path, 'SEARCH/REPLACE blocks cannot delete a file');
    if (c.moveTo !== undefined && c.moveTo !== c.path) throw new InexpressibleChange(NAME, c.path, 'SEARCH/REPLACE blocks cannot rename a file');
    if (c.before !== null && c.before !== '' && c.before.trim() === '') {
      throw new InexpressibleChange(NAME, c.path, 'the file has only blank lines, and a SEARCH text of blank lines names no place');
    }
    const edits = c.before === null ? [{ oldText: '', newText: c.after }] : textEdits({ ...c, before: c.before, after: c.after });
    for (const e of edits) {
      if (e.oldText === '' && e.newText === '' && c.before !== null) continue;
      appendAll(out, [c.path, '```', '<<<<<<< SEARCH', ...blockLines(NAME, c.path, e.oldText), '=======', ...blockLines(NAME, c.path, e.newText), '>>>>>>> REPLACE', '```', '']);
    }
  }
  return out.join('\n');
}

export const searchReplaceFormat = defineFormat({
  name: NAME,
  // Its text may quote a diff.
  detect: [{ evidence: 'raw-block', test: (text) => SEARCH_REPLACE.test(text), shows: '"<<<<<<< SEARCH"' }],
  parse: parseSearchReplace,
  render: renderSearchReplace,
});
