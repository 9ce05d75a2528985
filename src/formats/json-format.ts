/**
 * The JSON edit format as one record: `edit_file` requests (one object or an
 * array), recognised when the whole reply is a JSON value (or, failing every
 * other format, when it only opens like one, so the parser says what is
 * wrong), parsed by json.ts, rendered as the requests a careful model would
 * send. Pure.
 */
import { defineFormat } from './format.js';
import { parseJson } from './json.js';
import { InexpressibleChange, textEdits, type FileChange } from './render.js';

const NAME = 'json';

const opensLikeJson = (text: string): boolean => {
  const trimmed = text.trimStart();
  return trimmed.startsWith('{') || trimmed.startsWith('[');
};

function isJsonValue(text: string): boolean {
  if (!opensLikeJson(text)) return false;
  try {
    JSON.parse(text);
    return true;
  } catch {
    // Not JSON after all (a diff of a JSON file starts with "---", so this is rare): the other formats' markers decide.
    return false;
  }
}

function renderJson(changes: FileChange[]): string {
  const requests: Record<string, unknown>[] = [];
  for (const c of changes) {
    if (c.after === null) throw new InexpressibleChange(NAME, c.path, 'edit_file requests cannot delete a file');
    if (c.moveTo !== undefined && c.moveTo !== c.path) throw new InexpressibleChange(NAME, c.path, 'edit_file requests cannot rename a file');
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

export const jsonFormat = defineFormat({
  name: NAME,
  detect: [
    { evidence: 'whole-text', test: isJsonValue, shows: 'JSON request' },
    { evidence: 'shape', test: opensLikeJson },
  ],
  parse: (text) => parseJson(text),
  render: renderJson,
});
