/**
 * What an edit format is: one record holding its name, how a reply written
 * in it is recognised, its parser and its renderer. `defineFormat` keeps the
 * name's literal type, so the list of records (formats/list.ts) is where the
 * union of names comes from; parsing, detection and rendering dispatch from
 * the records, never from a switch over names. Pure.
 *
 * It must never hold a second copy of a format's name: the record's `name`
 * is the one spelling (a parser stamps it on its requests' sources through
 * `source()`, typed by the list).
 */
import type { ParseOptions, ParseResult } from './parse-result.js';
import type { FileChange } from './render.js';

/**
 * How strongly a clue says "this reply is written in this format", strongest
 * first. `--format auto` trusts the strongest clue any format shows; a
 * format's clue sits above every format whose markers its own bodies may
 * quote, so a quoted marker never wins over the text that quotes it.
 */
export const EVIDENCE = [
  /** The whole text is one value of the format (a JSON request or array): nothing else can be quoted in it. */
  'whole-text',
  /** A marker line opening an envelope whose body lines all carry a prefix (" ", "-", "+"), so the body may quote any other format's marker line. */
  'prefixed-envelope',
  /** A marker line opening an envelope of raw code, which may quote a block marker or a diff. */
  'raw-envelope',
  /** A marker line opening a block of raw text, which may quote a diff. */
  'raw-block',
  /** Header lines only (a diff's file names, a hunk header): every other format may quote them, so they count last among markers. */
  'header',
  /** The text only looks like the format (it opens with "{" or "["): taken when nothing else matches, so that format's parser says what is wrong. */
  'shape',
] as const;
type Evidence = (typeof EVIDENCE)[number];

/** One thing that tells a reply in a format from the others. */
export interface Clue {
  evidence: Evidence;
  /** Whether `text` shows it. */
  test: (text: string) => boolean;
  /** How the refusal of an unrecognised reply names this clue (the clues without one are not listed). */
  shows?: string;
}

export interface Format<Name extends string = string> {
  /** The format's one name (`--format`, the apply_patch tool's `format`, a request's `source.format`). */
  readonly name: Name;
  /** How `--format auto` recognises it (formats/detect.ts orders every format's clues by their evidence). */
  readonly detect: readonly Clue[];
  /** Text → requests and per-item errors; pure, never throws for a bad item. */
  readonly parse: (text: string, options: ParseOptions) => ParseResult;
  /** A known change written as a careful model would write it; throws InexpressibleChange for what the format cannot say. */
  readonly render: (changes: FileChange[]) => string;
  /** A reply's requests apply each on its own unless the caller asks for all or nothing (apply/apply-reply.ts). */
  readonly eachOnItsOwn?: boolean;
}

/** Keeps the name's literal type, so the list of records is where the union of names comes from. */
export function defineFormat<const Name extends string>(format: Format<Name>): Format<Name> {
  return format;
}
