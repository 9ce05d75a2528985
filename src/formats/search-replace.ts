/**
 * SEARCH/REPLACE blocks as Aider, Cline and Roo Code write them, parsed into
 * edit requests. Pure: text in, requests out; finding the SEARCH text in the
 * file is the engine's job (with its uniqueness rule and tolerant strategies).
 *
 * Grammar (one reply; prose between blocks is ignored):
 *
 *   reply   := (prose | block)*
 *   block   := path_line? FENCE_OPEN? SEARCH LF roo_head? line* DIVIDER LF line* (DIVIDER LF)? end
 *   end     := REPLACE LF FENCE_CLOSE?
 *            | FENCE_CLOSE (CLOSING_TAG | FENCE | blank)*  — only the last block of the reply, inside a fence
 *              (Cline: a complete reply whose final REPLACE marker was left off)
 *   path_line := the nearest non-blank line above the block's fence (or above SEARCH),
 *              stripped of "#", "*", "_", "`", a "File:" label and a trailing ":" in any nesting;
 *              or "<path>PATH</path>" (Cline's and Roo's tool calls); or a fence line whose info
 *              string has a word holding a "." or "/" ("```src/app.py", Aider's rule; "```python
 *              src/app.py"; "```python title=\"src/app.py\""); a block directly after another block
 *              in the same fence (blank lines and Aider's "..." elision lines between) reuses its path;
 *              or (block-tolerance.ts) a path alone in a fence of its own right above the block's fence
 *              (DeepSeek); a bare name that is no file at the root is the one file of the tree so named
 *   FENCE_OPEN  := "```" / "````" / "~~~" (any length ≥ 3) with up to two info words,
 *                  or "<source>", "<code>", "<pre>", "<codeblock>", "<sourcecode>", "<diff>" with or
 *                  without a language ("<source>python": Aider's fence for files that hold "```";
 *                  "<diff>": Cline's replace_in_file and Roo's apply_diff)
 *   FENCE_CLOSE := the same backticks/tildes, or the matching "</source>" … tag
 *   SEARCH  := 3+ "<" or 3+ "-", then "SEARCH", optional ">"   (Aider: "<<<<<<< SEARCH"; Cline: "------- SEARCH")
 *   DIVIDER := 5–9 "="                                          (Aider's; Cline's 3+ would take markdown "===" underlines),
 *              or 10+ "=" when it is the block's one divider-like line (block-tolerance.ts)
 *   REPLACE := 3+ ">" or 3+ "+", then "REPLACE", optional ">"  (Aider: ">>>>>>> REPLACE"; Cline: "+++++++ REPLACE")
 *   roo_head := ":start_line:" N / ":end_line:" N / "-------" lines (roo-dialect.ts): metadata
 *   line    := TEXT LF | NO_NEWLINE LF   ("\ No newline at end of file", an editwarden
 *                                         extension: the text above ends without a newline)
 *              | "\" marker_line LF      (an escaped marker: the marker line as content, roo-dialect.ts)
 *              | N " | " TEXT LF          (Roo's line numbers: dropped when every line of the part has one,
 *                                         numbered consecutively, block-tolerance.ts)
 *
 * Meaning: SEARCH and REPLACE are whole lines (each with its newline). A
 * second DIVIDER right before REPLACE ends the replacement (Aider reads it so;
 * it is never a line of the new text). An empty SEARCH creates the file when
 * it does not exist and appends to it when it does (Aider's rule); the caller
 * says which through `fileExists`. A fence or marker line is never a path.
 * Roo's head becomes the request's `lineHint`; "\=======" and the other escaped
 * marker lines are content without their backslash (roo-dialect.ts says which,
 * in Roo's dialect and outside it); a hint line anywhere but the head is refused.
 *
 * Each block is one item: a malformed one is reported with its index and
 * line, and the next block is read from its own header (path line, fence),
 * so it keeps its file name.
 */
import { ErrorCode, EditwardenError } from '../errors.js';
import type { EditRequest } from '../edit/types.js';
import { normalizeEol } from '../edit/text.js';
import { parseError, probeExists, source, type ItemError, type ParseOptions, type ParseResult } from './parse-result.js';
import { fencedName, fencedNameNote, longDivider, resolveBareName, stripLineNumbers } from './block-tolerance.js';
import { readRooHead, speaksRoo, strayHint, unescapeMarkerLine, unescapeRooLine } from './roo-dialect.js';
import { defined } from '../defined.js';

export const SEARCH_MARKER = /^(?:<{3,}|-{3,}) ?SEARCH>?\s*$/;
export const DIVIDER_MARKER = /^={5,9}\s*$/;
export const REPLACE_MARKER = /^(?:>{3,}|\+{3,}) ?REPLACE>?\s*$/;
/** Fence tags Aider uses when a file already holds triple backticks. */
const FENCE_TAGS = 'source|code|pre|codeblock|sourcecode|diff';
/**
 * An opening fence; group 2 is its info string (a language, or — Aider's rule — a path), group 3 a second word
 * ("```python src/app.py": the language, then the path, as models write it). `<diff>` is the tag Cline's
 * `replace_in_file` and Roo's `apply_diff` put around their blocks.
 */
const FENCE = new RegExp(`^\\s*(\`{3,}|~{3,}|<(?:${FENCE_TAGS})>)\\s*([^\\s\`<>]*)(?:\\s+([^\\s\`<>]+))?\\s*$|^\\s*</(?:${FENCE_TAGS})>\\s*$`);
/** Aider's elision: a "..." line between two blocks of one fence stands for the unchanged code between them. */
const ELISION = /^\s*(?:\.\.\.|…)\s*$/;
/** A closing tag of a tool call around the blocks ("</replace_in_file>", "</apply_diff>"). */
const CLOSING_TAG = /^\s*<\/[A-Za-z_][\w-]*>\s*$/;
const NO_NEWLINE_MARKER = '\\ No newline at end of file';

export interface SearchReplaceOptions extends ParseOptions {
  /** The file every block edits, when the caller knows it (Cline's replace_in_file passes the path separately). */
  path?: string;
}

const HINT = 'Write the file path on its own line, then "<<<<<<< SEARCH", the exact lines to find, "=======", the new lines, and ">>>>>>> REPLACE".';

/** A SEARCH, divider or REPLACE marker line of this grammar. */
const isBlockMarker = (line: string): boolean => SEARCH_MARKER.test(line) || DIVIDER_MARKER.test(line) || REPLACE_MARKER.test(line);

/** A line that is a fence or a block marker: never a file name. */
export function isFenceOrMarker(line: string): boolean {
  const t = line.trim();
  return FENCE.test(t) || SEARCH_MARKER.test(t) || DIVIDER_MARKER.test(t) || REPLACE_MARKER.test(t) || /^[`~<>=+\-*#]*$/.test(t) || /^<\/?[A-Za-z]+>/.test(t);
}

/** Aider's rule: a fence whose info string holds "." or "/" ("```src/app.py") names the file. */
function pathOnFence(line: string): string | undefined {
  const m = FENCE.exec(line.trim());
  // "```src/app.py" (Aider's rule) or "```python src/app.py" (the language first): the word that looks like a path.
  // A word may be a markdown attribute naming the file: "```python title=\"src/app.py\"" (mkdocs), "filename=src/app.py".
  const words = [m?.[3], m?.[2]].map((w) => w?.replace(/^(?:title|file|filename|path)=(["']?)(.*)\1$/i, '$2'));
  const info = words.find((w) => w !== undefined && w !== '' && (w.includes('.') || w.includes('/')));
  if (info === undefined) return undefined;
  return isFenceOrMarker(info) ? undefined : info;
}

/** Aider's strip_filename: what is left of a path line once markdown decoration is gone. */
export function cleanPathLine(line: string): string | undefined {
  let name = line.trim();
  // A tool call's path parameter: "<path>src/app.py</path>" (Cline's replace_in_file, Roo's apply_diff).
  const tagged = /^<path>\s*([^<>]+?)\s*<\/path>$/.exec(name);
  if (tagged) name = tagged[1] as string;
  if (name === '' || isFenceOrMarker(name) || ELISION.test(name)) return undefined;
  // Decoration in any order and nesting ("**`src/app.py`**:", "### src/app.py:", "File: src/app.py"), stripped
  // until nothing changes: Aider strips ":" then "#", "`", "*"; models also nest them the other way round.
  for (let before = ''; before !== name; ) {
    before = name;
    name = name
      .replace(/^#+\s*/, '')
      .replace(/^(?:file(?:name)?|path)\s*:\s*/i, '')
      .replace(/^\*+|\*+$/g, '')
      .replace(/^_+|_+$/g, '')
      .replace(/^`+|`+$/g, '')
      .replace(/:$/, '')
      .trim();
  }
  // A path line is one token: prose above a block ("Here is the fix:") is not a file name.
  if (name === '' || /\s/.test(name) || name.length > 500) return undefined;
  // Defends against: a file created under the name of a fence or marker ("<source>", "```", "=======").
  if (isFenceOrMarker(name) || !/[A-Za-z0-9_]/.test(name)) return undefined;
  return name;
}

/**
 * The header of the block whose SEARCH marker is at `at`: its path (from the
 * path line above, or a fence that names it) and the first line of the header.
 * Lines before `floor` belong to an earlier item and are never read.
 */
function blockHeader(lines: string[], at: number, floor: number): { path?: string; start: number; fenced?: true } {
  let k = at - 1;
  while (k >= floor && (lines[k] as string).trim() === '') k--;
  if (k >= floor && FENCE.test(lines[k] as string)) {
    const onFence = pathOnFence(lines[k] as string);
    if (onFence !== undefined) return { path: onFence, start: k };
    const fence = k;
    k--;
    while (k >= floor && (lines[k] as string).trim() === '') k--;
    const path = k >= floor ? cleanPathLine(lines[k] as string) : undefined;
    if (path !== undefined) return { path, start: k };
    const named = k - 2 >= floor ? fencedName(lines, k, (l) => FENCE.test(l), cleanPathLine) : undefined;
    return named ? { ...named, fenced: true } : { start: fence };
  }
  const path = k >= floor ? cleanPathLine(lines[k] as string) : undefined;
  return path !== undefined ? { path, start: k } : { start: at };
}

/** The path line of a block: a path-like line whose next non-blank line is a fence or a SEARCH marker. */
function isPathOfNextBlock(lines: string[], at: number): boolean {
  if (cleanPathLine(lines[at] as string) === undefined) return false;
  let n = at + 1;
  while (n < lines.length && (lines[n] as string).trim() === '') n++;
  return n < lines.length && (FENCE.test(lines[n] as string) || SEARCH_MARKER.test(lines[n] as string));
}

/** Whether a SEARCH marker comes before the next fence line: the fence open at `from` holds an edit block. */
function blockAhead(lines: string[], from: number): boolean {
  for (let n = from; n < lines.length && !FENCE.test(lines[n] as string); n++) if (SEARCH_MARKER.test(lines[n] as string)) return true;
  return false;
}

/** The request's `readAs` notes, left out when the parser forgave nothing. */
const readAsField = (readAs: string[]): { readAs?: string[] } => (readAs.length > 0 ? { readAs } : {});

function toText(lines: string[]): string {
  if (lines.length === 0) return '';
  if (lines[lines.length - 1]?.trim() === NO_NEWLINE_MARKER) return lines.slice(0, -1).join('\n');
  return lines.join('\n') + '\n';
}

/**
 * The fence line that ends a reply whose last block lost its REPLACE marker: the first fence (or `</diff>`)
 * after the divider, followed by nothing but blanks, fences and closing tags. -1 when the reply goes on
 * after it (then the marker was lost, not left off, and the block is refused) or has no closer (cut off?).
 */
function closingFenceOfReply(lines: string[], from: number): number {
  let close = from;
  while (close < lines.length && !FENCE.test(lines[close] as string)) close++;
  if (close >= lines.length) return -1;
  for (let k = close + 1; k < lines.length; k++) {
    const l = lines[k] as string;
    if (l.trim() !== '' && !FENCE.test(l) && !CLOSING_TAG.test(l)) return -1;
  }
  return close;
}

export function parseSearchReplace(input: string, options: SearchReplaceOptions = {}): ParseResult {
  const lines = normalizeEol(input).split('\n');
  const requests: EditRequest[] = [];
  const errors: ItemError[] = [];
  let index = 0;
  let previousPath: string | undefined;
  /** Index of the first line not yet owned by an earlier item. */
  let previousEnd = 0;
  /** Whether the last item was a block that parsed (a block right after it, in the same fence, reuses its path). */
  let previousOk = false;
  /** Whether a code fence is open (fence lines outside blocks open and close one). */
  let fenceOpen = false;
  /** Whether a block began inside the open fence. */
  let fenceHasBlock = false;
  /** The request of the last block, while only blank lines follow it: a stray line after it withdraws it. */
  let lastOk: { request: EditRequest; fromLine: number } | undefined;
  /** Roo Code's dialect: escaped marker lines are content once their backslash is gone. */
  const roo = speaksRoo(lines, (l) => SEARCH_MARKER.test(l));
  let i = 0;
  while (i < lines.length) {
    const line = lines[i] as string;
    if (!SEARCH_MARKER.test(line) && !REPLACE_MARKER.test(line)) {
      if (FENCE.test(line)) {
        fenceOpen = !fenceOpen;
        fenceHasBlock = false;
        lastOk = undefined;
        i++;
        continue;
      }
      // Inside a code fence that holds a block, only blocks, blank lines and path lines stand. Any other line is
      // a block's lost line (a REPLACE marker that came early, a SEARCH marker that came late): refused with the
      // block it belongs to, never skipped as prose. A fence that holds no block (a shell command) is prose.
      if (fenceOpen && line.trim() !== '' && !ELISION.test(line) && !isPathOfNextBlock(lines, i) && (fenceHasBlock || blockAhead(lines, i))) {
        let last = i;
        for (let n = i + 1; n < lines.length && !FENCE.test(lines[n] as string) && !SEARCH_MARKER.test(lines[n] as string) && !REPLACE_MARKER.test(lines[n] as string); n++) {
          if ((lines[n] as string).trim() !== '' && !ELISION.test(lines[n] as string) && !isPathOfNextBlock(lines, n)) last = n;
        }
        const cut = lastOk;
        if (cut) requests.splice(requests.indexOf(cut.request), 1);
        const at = cut?.request.source?.line ?? i + 1;
        errors.push({
          index: cut?.request.source?.index ?? index++,
          line: at,
          fromLine: cut?.fromLine ?? i + 1,
          ...defined({ path: cut ? cut.request.path : undefined }),
          error: parseError(
            cut
              ? `Line ${i + 1} follows the ">>>>>>> REPLACE" of the block at line ${at} inside its code fence: the REPLACE marker came early, so the block and the lines up to line ${last + 1} are not applied.`
              : `Lines ${i + 1}–${last + 1} stand inside a code fence with SEARCH/REPLACE blocks but belong to no block (a marker may be missing); they are not applied.`,
            at,
            HINT,
            cut?.request.path,
          ),
        });
        lastOk = undefined;
        previousOk = false;
        previousEnd = last + 1;
        i = last + 1;
        continue;
      }
      i++;
      continue;
    }
    if (!SEARCH_MARKER.test(line)) {
      // A stray REPLACE marker outside a block means a SEARCH marker was lost: the lines since the
      // previous item are that block, refused. (A lone "=======" may be a markdown underline.)
      if (REPLACE_MARKER.test(line)) {
        errors.push({
          index: index++,
          line: i + 1,
          fromLine: previousEnd + 1,
          error: parseError(`Line ${i + 1} closes a block ("${line.trim()}") that no "<<<<<<< SEARCH" opened; the lines since line ${previousEnd + 1} are not applied.`, i + 1, HINT),
        });
        previousEnd = i + 1;
        previousOk = false;
        lastOk = undefined;
      }
      i++;
      continue;
    }
    const itemIndex = index++;
    const startLine = i + 1;
    if (fenceOpen) fenceHasBlock = true;
    const header = blockHeader(lines, i, previousEnd);
    let path: string | undefined = options.path;
    if (path === undefined) {
      // A block right after a parsed block (same fence) reuses its path; so does a block with no path line of its own.
      let k = i - 1;
      while (k >= previousEnd && ((lines[k] as string).trim() === '' || ELISION.test(lines[k] as string))) k--;
      const sameFence = previousOk && k < previousEnd;
      // Without a path line of its own a block reuses the previous one only when nothing but blanks and fences
      // stands between them: a line that is not a path may be a mangled one, and guessing would edit the wrong file.
      let onlyDecoration = true;
      for (let m = previousEnd; m < i && onlyDecoration; m++) onlyDecoration = (lines[m] as string).trim() === '' || FENCE.test(lines[m] as string) || ELISION.test(lines[m] as string);
      path = sameFence ? previousPath : (header.path ?? (onlyDecoration ? previousPath : undefined));
    }
    // Find the divider and the REPLACE marker.
    let divider = -1;
    let end = -1;
    let j = i + 1;
    for (; j < lines.length; j++) {
      const l = lines[j] as string;
      if (SEARCH_MARKER.test(l)) break;
      if (divider === -1 && DIVIDER_MARKER.test(l)) divider = j;
      else if (divider !== -1 && REPLACE_MARKER.test(l)) {
        end = j;
        break;
      }
    }
    // Cline's longer divider ("=========="): the block's one divider-like line, where the grammar found none
    // before the REPLACE marker that closes the block.
    let longDividerAt = -1;
    if (divider === -1) {
      let close = i + 1;
      while (close < j && !REPLACE_MARKER.test(lines[close] as string)) close++;
      if (close < j) {
        longDividerAt = longDivider(lines, i, close);
        if (longDividerAt !== -1) {
          divider = longDividerAt;
          end = close;
          j = close;
        }
      }
    }
    // Cline: the last block of a complete reply may lack its REPLACE marker; the fence or tag that closes the
    // reply ends it. Only the last block, only inside a fence, and only when nothing but closers follows.
    let implicitEnd = false;
    if (divider !== -1 && end === -1 && j === lines.length && fenceOpen) {
      end = closingFenceOfReply(lines, divider + 1);
      implicitEnd = end !== -1;
    }
    // A second divider right before REPLACE ends the replacement (Aider's reading): it is not new text.
    const replaceEnd = end !== -1 && end - 1 > divider && DIVIDER_MARKER.test(lines[end - 1] as string) ? end - 1 : end;
    try {
      // Each refusal's hint names the one line to add or move, in the block's own dialect (Cline's "+" markers or Aider's).
      const closer = line.trim().startsWith('-') ? '+++++++ REPLACE' : '>>>>>>> REPLACE';
      if (divider === -1)
        throw parseError(`The block at line ${startLine} has no "=======" line between SEARCH and REPLACE.`, startLine, `Add a line "=======" between the last line to find and the first new line of the block at line ${startLine}.`, path);
      if (end === -1) {
        throw parseError(
          `The block at line ${startLine} has no "${closer}" line${j < lines.length ? ` before the next block (line ${j + 1})` : ''}; its replacement may be cut off, so it is not applied.`,
          startLine,
          `Add a line "${closer}" right after the last new line of the block at line ${startLine}.`,
          path,
        );
      }
      if (path === undefined) {
        throw parseError(
          `The block at line ${startLine} names no file: put the path on the line above it (or above its code fence).`,
          startLine,
          'Write the file path alone on the line above the opening fence (for example "src/app.py"), with no other words on that line.',
        );
      }
      const head = readRooHead(lines, i + 1, divider);
      const searchLines = lines.slice(i + 1 + head.length, divider);
      const replaceLines = lines.slice(divider + 1, replaceEnd);
      const stray = strayHint(searchLines, i + 2 + head.length, 'SEARCH', path) ?? strayHint(replaceLines, divider + 2, 'REPLACE', path);
      if (stray) throw stray;
      const unescape = roo ? unescapeRooLine : (l: string): string => unescapeMarkerLine(l, isBlockMarker);
      const readAs: string[] = [];
      if (header.fenced && path === header.path) readAs.push(fencedNameNote(path));
      if (longDividerAt !== -1) readAs.push(`the divider "${(lines[longDividerAt] as string).trim()}" (${(lines[longDividerAt] as string).trim().length} "=") was read as "======="`);
      const numbered = stripLineNumbers(searchLines, replaceLines);
      if (numbered) readAs.push(numbered.note);
      const searchRaw = numbered?.search ?? searchLines;
      const replaceRaw = numbered?.replace ?? replaceLines;
      const searchContent = searchRaw.map(unescape);
      const replaceContent = replaceRaw.map(unescape);
      if (!roo && [...searchRaw, ...replaceRaw].some((l, k) => l !== (k < searchRaw.length ? searchContent[k] : replaceContent[k - searchRaw.length]))) {
        readAs.push('escaped marker lines ("\\=======", "\\>>>>>>> REPLACE", …) were read as the marker lines without their backslash');
      }
      const search = toText(searchContent);
      const replace = toText(replaceContent);
      if (search.trim() !== '' && options.path === undefined && path === header.path) {
        const resolved = resolveBareName(path, options, startLine);
        path = resolved.path;
        if (resolved.note) readAs.push(resolved.note);
      }
      const src = source('search-replace', itemIndex, startLine);
      if (search === '') {
        requests.push({ ...(probeExists(options, path) ? { action: 'append', path, content: replace } : { action: 'create', path, content: replace }), source: src, ...readAsField(readAs) });
      } else if (search.trim() === '') {
        throw new EditwardenError({
          code: ErrorCode.MISSING_OLD_TEXT,
          message: `The SEARCH part of the block at line ${startLine} is only whitespace; it cannot name a unique place in ${path}.`,
          hint: 'Copy a few distinctive lines of the file into SEARCH (or leave it empty to create the file).',
          path,
          line: startLine,
        });
      } else {
        requests.push({ action: 'edit', path, oldText: search, newText: replace, ...defined({ lineHint: head.lineHint }), wholeLines: true, source: src, ...readAsField(readAs) });
      }
      const made = requests[requests.length - 1];
      lastOk = made && made.source?.index === itemIndex ? { request: made, fromLine: Math.min(header.start, previousEnd) + 1 } : undefined;
      previousPath = path;
      // A fence that ended the block in place of its REPLACE marker is read next, so it closes the fence.
      previousEnd = implicitEnd ? end : end + 1;
      previousOk = true;
      i = previousEnd;
    } catch (error) {
      if (!(error instanceof EditwardenError)) throw error;
      // The refusal covers the block and whatever stood between it and the previous item (a mangled header).
      errors.push({ index: itemIndex, line: startLine, fromLine: Math.min(header.start, previousEnd) + 1, ...defined({ path }), error });
      previousOk = false;
      lastOk = undefined;
      if (end !== -1) {
        previousEnd = end + 1;
        i = end + 1;
      } else {
        // Resume at the next block's own header, so it keeps its path line and fence.
        const next = j < lines.length ? blockHeader(lines, j, i + 1).start : j;
        previousEnd = Math.max(i + 1, next);
        // Read on from that header (not from its SEARCH marker), so its fence line opens a fence here too.
        i = Math.max(i + 1, Math.min(j, next));
        // Fence lines inside the refused text are not counted; a fence in the next header opens a fence afresh.
        if (lines.slice(next, j).some((l) => FENCE.test(l))) fenceOpen = false;
      }
    }
  }
  if (requests.length === 0 && errors.length === 0) {
    errors.push({ index: 0, line: 1, error: parseError('No SEARCH/REPLACE block found.', 1, HINT) });
  }
  return { requests, errors };
}
