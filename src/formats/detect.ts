/**
 * `--format auto`: which edit format a reply is written in, from its text
 * alone. Pure. It must never guess between two formats that both appear:
 * the clue with the strongest evidence wins (formats/format.ts, EVIDENCE:
 * a format's clue sits above every format its bodies may quote), and text
 * with no clue at all is E_PARSE rather than "probably a diff".
 *
 * The clues are each format's own (its record's `detect`); this module only
 * orders them, once: by evidence, then by the list's order.
 */
import type { EditwardenError } from '../errors.js';
import { EVIDENCE, type Clue } from './format.js';
import { FORMAT_NAMES, FORMATS, type FormatName } from './list.js';
import { parseError } from './parse-result.js';

const CLUES: ReadonlyArray<{ clue: Clue; format: FormatName }> = FORMATS.flatMap((format) => format.detect.map((clue) => ({ clue, format: format.name })))
  .map((entry, order) => ({ ...entry, order }))
  .sort((a, b) => EVIDENCE.indexOf(a.clue.evidence) - EVIDENCE.indexOf(b.clue.evidence) || a.order - b.order)
  .map(({ clue, format }) => ({ clue, format }));

export function detectFormat(text: string): FormatName | undefined {
  for (const { clue, format } of CLUES) if (clue.test(text)) return format;
  return undefined;
}

/** "a, b, c or d" */
function oneOf(items: readonly string[]): string {
  return items.length < 2 ? items.join('') : `${items.slice(0, -1).join(', ')} or ${items[items.length - 1]}`;
}

export function unrecognisedFormat(): EditwardenError {
  const shown = CLUES.flatMap(({ clue }) => (clue.shows === undefined ? [] : [clue.shows]));
  return parseError(`Could not tell the edit format: the text has no ${oneOf(shown)}.`, 1, `Name the format with --format ${FORMAT_NAMES.join('|')}, or send the edits in one of these formats.`);
}
