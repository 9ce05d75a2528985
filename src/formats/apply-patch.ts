/**
 * apply_patch envelopes as Codex writes them, parsed into edit requests.
 * Pure: text in, requests out; locating hunks is edit/hunks.ts's job.
 *
 * Grammar (codex-rs/apply-patch's, with the leniency noted below):
 *
 *   reply        := prose* envelope (prose | envelope)*
 *   envelope     := BEGIN LF operation* END LF?
 *   operation    := add | delete | update
 *   add          := ADD_FILE path LF ("+" TEXT LF)* no_newline?
 *   delete       := DELETE_FILE path LF
 *   update       := UPDATE_FILE path LF (MOVE_TO path LF)? chunk+
 *   chunk        := (CONTEXT TEXT LF | EMPTY_CONTEXT LF)* change_line+ (EOF_MARKER LF)?
 *                   (the first chunk may omit its @@ line)
 *   change_line  := (" " | "-" | "+") TEXT LF | LF (an empty context line) | no_newline
 *   no_newline   := "\ No newline at end of file" LF    (editwarden extension, from unified diffs:
 *                                                       the line above has no final newline)
 *
 * Leniency, because models need it: prose and a heredoc wrapper
 * (`apply_patch <<'EOF'` … `EOF`, which GPT-4.1 sends literally) around the
 * envelope are read past — a `cd DIR &&` in the wrapper is honoured, and a
 * wrapper editwarden cannot model refuses the envelope (shell-wrapper.ts); blanks around marker lines are ignored; several
 * consecutive `@@ ctx` lines narrow the location step by step. Whitespace
 * drift inside context lines is forgiven when the hunks are applied, not here.
 *
 * Each operation is one item: a malformed one is reported with its index and
 * line, and the others still parse.
 */
import { EditwardenError } from '../errors.js';
import type { EditRequest, Hunk, HunkLine } from '../edit/types.js';
import { normalizeEol } from '../edit/text.js';
import { parseError, source, type ItemError, type ParseResult } from './parse-result.js';
import { readPatchWrapper, underFolder, type PatchWrapper } from './shell-wrapper.js';
import { defined } from '../defined.js';

export const BEGIN_PATCH = '*** Begin Patch';
export const END_PATCH = '*** End Patch';
export const ADD_FILE = '*** Add File: ';
export const DELETE_FILE = '*** Delete File: ';
export const UPDATE_FILE = '*** Update File: ';
export const MOVE_TO = '*** Move to: ';
export const EOF_MARKER = '*** End of File';
const CONTEXT_MARKER = '@@ ';
const EMPTY_CONTEXT_MARKER = '@@';
const NO_NEWLINE_MARKER = '\\ No newline at end of file';

const HINT = `Write "${BEGIN_PATCH}", then per file "${ADD_FILE}PATH" (+ lines), "${DELETE_FILE}PATH" or "${UPDATE_FILE}PATH" (@@ context, then " ", "-", "+" lines), then "${END_PATCH}".`;

/** An operation marker line, with the blanks a model may put around it. */
function marker(line: string): string {
  return line.trim();
}

function isOperation(line: string): boolean {
  const m = marker(line);
  return m.startsWith(ADD_FILE.trim()) || m.startsWith(DELETE_FILE.trim()) || m.startsWith(UPDATE_FILE.trim()) || m === END_PATCH || m === BEGIN_PATCH;
}

/** A line only a patch chunk holds: a change line, an "@@" line, an end-of-file or no-newline marker. */
function isChangeShaped(line: string): boolean {
  return /^[ +-]\S/.test(line) || line.startsWith(EMPTY_CONTEXT_MARKER) || marker(line) === EOF_MARKER || marker(line) === NO_NEWLINE_MARKER;
}

function pathAfter(line: string, prefix: string): string {
  return marker(line).slice(prefix.trim().length).trim();
}

interface Cursor {
  lines: string[];
  i: number;
}

function parseAdd(c: Cursor, path: string, index: number, line: number): EditRequest {
  const added: string[] = [];
  let noEol = false;
  while (c.i < c.lines.length) {
    const l = c.lines[c.i] as string;
    if (l.startsWith('+')) {
      if (noEol) throw parseError(`A "+" line follows "${NO_NEWLINE_MARKER}" in the new file ${path}.`, c.i + 1, HINT, path);
      added.push(l.slice(1));
    } else if (l.trim() === NO_NEWLINE_MARKER && added.length > 0) noEol = true;
    else if (isOperation(l)) break;
    else if (l.trim() === '' && isOperation(c.lines[c.i + 1] ?? END_PATCH)) {
      // A blank line before the next marker separates operations.
    } else {
      throw parseError(`Line ${c.i + 1} of the new file ${path} does not start with "+": ${JSON.stringify(l.slice(0, 60))}.`, c.i + 1, 'Every line of an added file starts with "+" (an empty line is "+" alone).', path);
    }
    c.i++;
  }
  const content = added.length === 0 ? '' : added.join('\n') + (noEol ? '' : '\n');
  return { action: 'create', path, content, source: source('apply-patch', index, line) };
}

function parseUpdate(c: Cursor, path: string, index: number, line: number): EditRequest {
  let moveTo: string | undefined;
  if (c.i < c.lines.length && marker(c.lines[c.i] as string).startsWith(MOVE_TO.trim())) {
    moveTo = pathAfter(c.lines[c.i] as string, MOVE_TO);
    if (moveTo === '') throw parseError(`"${MOVE_TO.trim()}" names no file.`, c.i + 1, HINT, path);
    c.i++;
  }
  const hunks: Hunk[] = [];
  let current: Hunk | undefined;
  let anchors: string[] = [];
  let anchorLine = 0;
  const finish = (): void => {
    if (current && current.lines.length > 0) hunks.push(current);
    current = undefined;
  };
  while (c.i < c.lines.length) {
    const l = c.lines[c.i] as string;
    const m = marker(l);
    if (isOperation(l)) break;
    if (m === EOF_MARKER) {
      if (!current || current.lines.length === 0) throw parseError(`"${EOF_MARKER}" follows no change lines.`, c.i + 1, HINT, path);
      current.atEof = true;
      finish();
      c.i++;
      continue;
    }
    if (l.startsWith(EMPTY_CONTEXT_MARKER)) {
      if (current && current.lines.length > 0) finish();
      const ctx = l.startsWith(CONTEXT_MARKER) ? l.slice(CONTEXT_MARKER.length) : l.slice(EMPTY_CONTEXT_MARKER.length);
      if (anchors.length === 0) anchorLine = c.i + 1;
      if (ctx.trim() !== '') anchors.push(ctx);
      c.i++;
      continue;
    }
    if (l.trim() === NO_NEWLINE_MARKER) {
      const last = current?.lines[current.lines.length - 1];
      if (!current || !last) throw parseError(`"${NO_NEWLINE_MARKER}" follows no change line.`, c.i + 1, HINT, path);
      if (last.kind !== '+') current.oldNoEol = true;
      if (last.kind !== '-') current.newNoEol = true;
      c.i++;
      continue;
    }
    const first = l[0];
    let kind: HunkLine['kind'];
    if (l === '') {
      // Blank lines: an empty context line inside a chunk; a separator before a marker.
      if (isOperation(c.lines[c.i + 1] ?? END_PATCH) || marker(c.lines[c.i + 1] ?? '') === EOF_MARKER) {
        c.i++;
        continue;
      }
      kind = ' ';
    } else if (first === ' ' || first === '-' || first === '+') kind = first;
    else {
      throw parseError(`Unexpected line ${c.i + 1} in the update of ${path}: ${JSON.stringify(l.slice(0, 60))}. Every line of a chunk starts with " " (context), "-" (removed) or "+" (added), or is an "@@" line.`, c.i + 1, HINT, path);
    }
    if (!current) {
      current = { lines: [], patchLine: anchors.length > 0 || anchorLine > 0 ? anchorLine : c.i + 1 };
      if (anchors.length > 0) current.anchors = anchors;
      anchors = [];
      anchorLine = 0;
    }
    current.lines.push({ kind, text: l.slice(1) });
    c.i++;
  }
  finish();
  if (hunks.length === 0) {
    if (moveTo === undefined) throw parseError(`The update of ${path} has no changes.`, line, HINT, path);
  }
  return { action: 'patch', path, hunks, ...defined({ moveTo }), source: source('apply-patch', index, line) };
}

/** The envelope's operations read from the wrapper's folder, or all refused with the wrapper's error. */
function settleWrapper(wrapper: PatchWrapper, requests: EditRequest[], from: number, errors: ItemError[]): void {
  if (wrapper.kind === 'none' || (wrapper.kind === 'apply_patch' && wrapper.dir === '')) return;
  const made = requests.splice(from);
  if (wrapper.kind === 'refused') {
    for (const r of made) errors.push({ index: r.source?.index ?? 0, line: r.source?.line ?? 1, path: r.path, error: wrapper.error });
    return;
  }
  for (const r of made) {
    const moved = r.action === 'patch' && r.moveTo !== undefined ? { moveTo: underFolder(wrapper.dir, r.moveTo) } : {};
    requests.push({ ...r, path: underFolder(wrapper.dir, r.path), ...moved });
  }
}

export function parseApplyPatch(input: string): ParseResult {
  const lines = normalizeEol(input).split('\n');
  const requests: EditRequest[] = [];
  const errors: ItemError[] = [];
  const c: Cursor = { lines, i: 0 };
  let index = 0;
  let envelopes = 0;
  /** First line not read by an earlier envelope: prose above a begin marker starts no earlier. */
  let proseFrom = 0;
  while (c.i < lines.length) {
    if (marker(lines[c.i] as string) !== BEGIN_PATCH) {
      c.i++;
      continue;
    }
    envelopes++;
    // Patch lines right above the begin marker: it came late (swapped or moved down), and those lines are an
    // operation or chunk that no envelope holds. Refused, never skipped as prose.
    let stray = c.i;
    while (stray > proseFrom && ((lines[stray - 1] as string).trim() === '' || isChangeShaped(lines[stray - 1] as string) || marker(lines[stray - 1] as string).startsWith('*** '))) stray--;
    while (stray < c.i && (lines[stray] as string).trim() === '') stray++;
    if (stray < c.i) {
      errors.push({
        index: index++,
        line: stray + 1,
        error: parseError(`Lines ${stray + 1}–${c.i} look like patch lines but stand before "${BEGIN_PATCH}" (line ${c.i + 1}), outside any patch; they are not applied.`, stray + 1, HINT),
      });
    }
    // The shell line right above the envelope ("cd 'foo bar' && apply_patch <<'PATCH'"): its cd is honoured, never dropped.
    let above = stray - 1;
    while (above >= proseFrom && (lines[above] as string).trim() === '') above--;
    const wrapper = above >= proseFrom ? readPatchWrapper(lines[above] as string, above + 1) : ({ kind: 'none' } as const);
    const requestsBefore = requests.length;
    const beginLine = c.i + 1;
    c.i++;
    let ended = false;
    while (c.i < lines.length) {
      const l = lines[c.i] as string;
      const m = marker(l);
      if (m === END_PATCH) {
        ended = true;
        c.i++;
        // A second end marker before the next begin: this one came early (inside an operation), and the lines
        // up to the second are the rest of it. The operation it cut is refused with them, never applied in part.
        let k = c.i;
        while (k < lines.length && marker(lines[k] as string) !== BEGIN_PATCH && marker(lines[k] as string) !== END_PATCH) k++;
        // The first non-blank line after the end marker is a change line: the marker came early (swapped up or
        // duplicated into the last chunk) and the change lines after it are the rest of the operation it cut.
        let after = c.i;
        while (after < lines.length && (lines[after] as string).trim() === '') after++;
        const cutShort = after < lines.length && isChangeShaped(lines[after] as string);
        if (cutShort) {
          k = after;
          while (k + 1 < lines.length && ((lines[k + 1] as string).trim() === '' || isChangeShaped(lines[k + 1] as string))) k++;
        }
        if (cutShort || (k < lines.length && marker(lines[k] as string) === END_PATCH)) {
          const cut = requests.length > requestsBefore ? requests.pop() : undefined;
          const from = cut?.source?.line ?? c.i;
          errors.push({
            index: cut?.source?.index ?? index++,
            line: from,
            ...defined({ path: cut ? cut.path : undefined }),
            error: parseError(
              cutShort
                ? `The "${END_PATCH}" at line ${c.i} is followed by change lines (line ${after + 1}): it cut ${cut ? `the operation on ${cut.path} at line ${from}` : 'the patch'} short, so it and the lines up to line ${k + 1} are not applied.`
                : `The patch that begins at line ${beginLine} is ended twice (lines ${c.i} and ${k + 1}): the first "${END_PATCH}" cut ${cut ? `the operation on ${cut.path} at line ${from}` : 'the patch'} short, so it and the lines up to line ${k + 1} are not applied.`,
              from,
              `End every patch with one "${END_PATCH}" line, after its last operation.`,
              cut?.path,
            ),
          });
          c.i = k + 1;
        }
        break;
      }
      if (m === BEGIN_PATCH) break;
      if (m === '') {
        c.i++;
        continue;
      }
      const itemLine = c.i + 1;
      const itemIndex = index++;
      let path: string | undefined;
      try {
        if (m.startsWith(ADD_FILE.trim())) {
          path = pathAfter(l, ADD_FILE);
          if (path === '') throw parseError(`"${ADD_FILE.trim()}" names no file.`, itemLine, HINT);
          c.i++;
          requests.push(parseAdd(c, path, itemIndex, itemLine));
        } else if (m.startsWith(DELETE_FILE.trim())) {
          path = pathAfter(l, DELETE_FILE);
          if (path === '') throw parseError(`"${DELETE_FILE.trim()}" names no file.`, itemLine, HINT);
          c.i++;
          requests.push({ action: 'delete', path, source: source('apply-patch', itemIndex, itemLine) });
        } else if (m.startsWith(UPDATE_FILE.trim())) {
          path = pathAfter(l, UPDATE_FILE);
          if (path === '') throw parseError(`"${UPDATE_FILE.trim()}" names no file.`, itemLine, HINT);
          c.i++;
          requests.push(parseUpdate(c, path, itemIndex, itemLine));
        } else {
          throw parseError(`Line ${itemLine} is not a file operation: ${JSON.stringify(l.slice(0, 60))}. Valid operations: "${ADD_FILE}PATH", "${DELETE_FILE}PATH", "${UPDATE_FILE}PATH".`, itemLine, HINT);
        }
      } catch (error) {
        if (!(error instanceof EditwardenError)) throw error;
        errors.push({ index: itemIndex, line: itemLine, ...defined({ path }), error });
        // Skip to the next operation of this envelope.
        c.i = Math.max(c.i, itemLine);
        while (c.i < lines.length && !isOperation(lines[c.i] as string)) c.i++;
      }
    }
    if (!ended) {
      // Without the end marker the last operation may be cut off mid-file: refuse it rather than write half a file.
      const last = requests.length > requestsBefore ? requests.pop() : undefined;
      const message = `The patch that begins at line ${beginLine} has no "${END_PATCH}" line; the text may have been cut off${last ? `, so its last operation (${last.path}) is not applied` : ''}.`;
      errors.push({
        index: last?.source?.index ?? index++,
        line: last?.source?.line ?? beginLine,
        ...defined({ path: last ? last.path : undefined }),
        error: parseError(message, last?.source?.line ?? beginLine, `End every patch with "${END_PATCH}".`, last?.path),
      });
    }
    settleWrapper(wrapper, requests, requestsBefore, errors);
    proseFrom = c.i;
  }
  if (envelopes === 0) {
    errors.push({ index: 0, line: 1, error: parseError(`No "${BEGIN_PATCH}" line found.`, 1, HINT) });
  }
  return { requests, errors };
}
