/**
 * The edit formats editwarden reads and writes: one record each
 * (formats/<name>-format.ts, built with `defineFormat`), in the order
 * `--format` and the apply_patch tool list them. This list is where the
 * union of format names comes from; parsing, detection and rendering
 * dispatch from its records. Adding a format is its file plus one line here
 * (docs/architecture.md, "How to add a format").
 */
import { activeEditFormat } from './active-edit-format.js';
import { applyPatchFormat } from './apply-patch-format.js';
import type { Format } from './format.js';
import { jsonFormat } from './json-format.js';
import { searchReplaceFormat } from './search-replace-format.js';
import { udiffFormat } from './udiff-format.js';

export const FORMATS = [jsonFormat, activeEditFormat, searchReplaceFormat, applyPatchFormat, udiffFormat] as const;

export type FormatName = (typeof FORMATS)[number]['name'];
// A request's source names its format (edit/types.ts): the floor below learns the names from this list.
declare module '../edit/types.js' {
  interface RequestOrigins extends Record<FormatName, true> {}
}

export const FORMAT_NAMES: readonly FormatName[] = FORMATS.map((f) => f.name);

/** The format a reply no clue recognised is reported under (its refusal's `source.format`): the list's first, JSON, the shape of a tool call's arguments. */
export const FALLBACK_FORMAT: FormatName = FORMATS[0].name;

const BY_NAME: ReadonlyMap<string, Format<FormatName>> = new Map(FORMATS.map((f) => [f.name, f]));

/** The record of a format named in the list (a name the type allows is always there). */
export function formatNamed(name: FormatName): Format<FormatName> {
  const format = BY_NAME.get(name);
  if (!format) throw new Error(`unknown format ${String(name)}`);
  return format;
}
