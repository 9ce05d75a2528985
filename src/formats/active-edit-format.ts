/**
 * Active edit directives as one record: recognised by the `---BEGIN---`
 * marker line, parsed by active-edit.ts, rendered as one `replace` directive
 * per file. Each directive of a reply applies on its own, as the Active Edit
 * Tool design asks ("Continue processing other edits if one fails … Report
 * success/failure for each edit directive"). Pure.
 */
import { BEGIN_MARKER, END_MARKER, parseActiveEdit, START_MARKER } from './active-edit.js';
import { defineFormat } from './format.js';
import { blockLines, InexpressibleChange, type FileChange } from './render.js';
import { appendAll } from '../arrays.js';

const NAME = 'active-edit';
const ACTIVE_EDIT = /^[ \t]*---BEGIN---[ \t]*\r?$/m;

function renderActiveEdit(changes: FileChange[]): string {
  const out: string[] = [];
  for (const c of changes) {
    if (c.after === null) throw new InexpressibleChange(NAME, c.path, 'active edit directives cannot delete a file');
    if (c.moveTo !== undefined && c.moveTo !== c.path) throw new InexpressibleChange(NAME, c.path, 'active edit directives cannot rename a file');
    if (c.after.trim() === '') throw new InexpressibleChange(NAME, c.path, 'a replace directive needs code that is not blank');
    appendAll(out, [`Here is the new ${c.path}:`, BEGIN_MARKER, `Edit: ${c.path}`, 'action: replace', START_MARKER, ...blockLines(NAME, c.path, c.after), END_MARKER, '']);
  }
  return out.join('\n');
}

export const activeEditFormat = defineFormat({
  name: NAME,
  // Its code may quote a SEARCH/REPLACE block or a diff.
  detect: [{ evidence: 'raw-envelope', test: (text) => ACTIVE_EDIT.test(text), shows: `"${BEGIN_MARKER}"` }],
  parse: parseActiveEdit,
  render: renderActiveEdit,
  eachOnItsOwn: true,
});
