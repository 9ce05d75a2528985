/**
 * Unified diffs (git diff, diff -u, hg, svn; several files per text) parsed
 * into edit requests. Pure: text in, requests out; locating hunks in a file
 * is edit/hunks.ts's job, not this module's.
 *
 * Grammar (one reply; anything outside a file patch is prose and skipped):
 *
 *   diff       := (prose | file_patch)*
 *   file_patch := git_header? ext_header* (old_name new_name)? body
 *   git_header := "diff --git " A_PATH " " B_PATH LF
 *   ext_header := ("old mode " | "new mode " | "deleted file mode " | "new file mode "
 *                 | "rename from " | "rename to " | "copy from " | "copy to "
 *                 | "similarity index " | "dissimilarity index " | "index ") TEXT LF
 *   old_name   := "--- " PATH ("\t" TEXT)? LF          PATH may be "/dev/null" or C-quoted
 *   new_name   := "+++ " PATH ("\t" TEXT)? LF
 *   body       := hunk* | binary
 *   hunk       := "@@ -" N ("," N)? " +" N ("," N)? " @@" TEXT? LF hunk_line*   (counts decide where it ends)
 *               | "@@" TEXT? LF hunk_line*                                       (no numbers: ends at the first other line)
 *   hunk_line  := (" " | "-" | "+") TEXT LF
 *               | LF                                  an empty context line whose space a mailer stripped
 *               | "\" TEXT LF                         "\ No newline at end of file": the line above has no newline
 *   binary     := "GIT binary patch" LF … | "Binary files " TEXT " differ" LF
 *
 * Names: a git diff's `a/` and `b/` prefixes are dropped (also when a plain
 * diff uses both); without git headers the old name is the file patched (as
 * patch(1) and python-patch do), the new name only when the old is /dev/null.
 * Each file patch is one item: a malformed one is reported with its index and
 * line and the others still parse. Binary patches, mode changes, symlinks and
 * submodules are refused with E_BINARY; context diffs (`*** 1,5 ****`) and
 * copies with E_PARSE.
 */
import { EditwardenError, ErrorCode } from '../errors.js';
import type { DeleteRequest, EditRequest, Hunk, HunkLine } from '../edit/types.js';
import { normalizeEol } from '../edit/text.js';
import { parseError, source, type ItemError, type ParseResult } from './parse-result.js';
import { nameOf, splitGitHeader, stripPrefix, unquoteGitPath } from './udiff-names.js';
import { defined } from '../defined.js';

export { unquoteGitPath } from './udiff-names.js';

const GIT_HEADER = 'diff --git ';
const OLD_NAME = '--- ';
const NEW_NAME = '+++ ';
const HUNK_HEADER = '@@';
const NO_NEWLINE = '\\';
const GIT_BINARY = 'GIT binary patch';
const BINARY_FILES = 'Binary files ';
const CONTEXT_DIFF_SEPARATOR = '***************';

const EXT_HEADERS = ['old mode ', 'new mode ', 'deleted file mode ', 'new file mode ', 'rename from ', 'rename to ', 'copy from ', 'copy to ', 'similarity index ', 'dissimilarity index ', 'index '] as const;

const NUMBERED_HUNK = /^@@\s+-(\d+)(?:,(\d+))?\s+\+(\d+)(?:,(\d+))?\s*(?:@@|$)/;
/**
 * A hunk header outside any file patch. It is whatever parseHunk reads as a header inside one (any line opening
 * with "@@", numbered or bare), so a hunk that lost its file header is refused in every shape a model writes it:
 * the bare "@@" of apply_patch style was once read as prose there, and its edit lines silently dropped.
 */
const ORPHAN_HUNK = /^@@/;

/** A delete request carrying the hunks that remove the old content, so the engine can check the file is what the patch saw. */
export interface VerifiedDeleteRequest extends DeleteRequest {
  hunks?: Hunk[];
}

interface FileHeader {
  line: number;
  git: boolean;
  gitA?: string;
  gitB?: string;
  oldName?: string | null;
  newName?: string | null;
  newFile: boolean;
  deleted: boolean;
  renameFrom?: string;
  renameTo?: string;
  copy: boolean;
  oldMode?: string;
  newMode?: string;
  fileMode?: string;
  binary: boolean;
}

const HINT_HUNK = 'Each hunk starts "@@ -OLD,COUNT +NEW,COUNT @@" and its body has exactly COUNT old (" " and "-") and new (" " and "+") lines; fix the counts or drop the numbers ("@@ @@") to let editwarden count.';

function isHunkLine(line: string | undefined): boolean {
  return line !== undefined && (line === '' || line[0] === ' ' || line[0] === '-' || line[0] === '+' || line[0] === NO_NEWLINE);
}

function startsFilePatch(lines: string[], i: number): boolean {
  const line = lines[i] as string;
  if (line.startsWith(GIT_HEADER)) return true;
  return line.startsWith(OLD_NAME) && (lines[i + 1] ?? '').startsWith(NEW_NAME) && (lines[i + 2] ?? '').startsWith(HUNK_HEADER);
}

/** Parses one hunk starting at `lines[i]` (its header). Returns the hunk and the index after it. */
function parseHunk(lines: string[], i: number): { hunk: Hunk; next: number } {
  const header = lines[i] as string;
  const patchLine = i + 1;
  const numbered = NUMBERED_HUNK.exec(header);
  const body: HunkLine[] = [];
  const hunk: Hunk = { lines: body, patchLine };
  let j = i + 1;
  let lastKind: HunkLine['kind'] | undefined;
  const noEol = (kind: HunkLine['kind'] | undefined, at: number): void => {
    if (kind === undefined) throw parseError('A "\\ No newline at end of file" line follows no line of the hunk.', at + 1, HINT_HUNK);
    if (kind !== '+') hunk.oldNoEol = true;
    if (kind !== '-') hunk.newNoEol = true;
  };
  if (numbered) {
    const nums = [numbered[1], numbered[2] ?? '1', numbered[3], numbered[4] ?? '1'].map((n) => Number(n));
    if (nums.some((n) => !Number.isSafeInteger(n))) {
      throw parseError(`Hunk header ${JSON.stringify(header)} has a line number too large to be real.`, patchLine, HINT_HUNK);
    }
    const [oldStart, oldCount, , newCount] = nums as [number, number, number, number];
    if (oldCount === 0 && newCount === 0) throw parseError(`The hunk at line ${patchLine} promises no lines at all ("${header.slice(0, 40)}").`, patchLine, HINT_HUNK);
    hunk.oldStart = oldStart;
    if (oldCount === 0 && oldStart === 0) hunk.oldStart = 0;
    let oldLeft = oldCount;
    let newLeft = newCount;
    while (oldLeft > 0 || newLeft > 0) {
      // The '' after a final newline is the end of the text, not an empty context line.
      const line = j === lines.length - 1 && lines[j] === '' ? undefined : lines[j];
      if (line === undefined || !isHunkLine(line) || (line.startsWith(OLD_NAME) && (lines[j + 1] ?? '').startsWith(NEW_NAME))) {
        throw parseError(
          `The hunk at line ${patchLine} ends early: ${oldLeft} old and ${newLeft} new line(s) of the ${oldCount}/${newCount} its header promises are missing (line ${j + 1}${line === undefined ? ' is the end of the text' : ` is ${JSON.stringify(line.slice(0, 60))}`}).`,
          j + 1,
          HINT_HUNK,
        );
      }
      if (line[0] === NO_NEWLINE) {
        noEol(lastKind, j);
        j++;
        continue;
      }
      const kind: HunkLine['kind'] = line === '' ? ' ' : (line[0] as HunkLine['kind']);
      if (kind !== '+' && oldLeft === 0) throw parseError(`The hunk at line ${patchLine} has more old lines than its header's ${oldCount} (line ${j + 1}).`, j + 1, HINT_HUNK);
      if (kind !== '-' && newLeft === 0) throw parseError(`The hunk at line ${patchLine} has more new lines than its header's ${newCount} (line ${j + 1}).`, j + 1, HINT_HUNK);
      if (kind !== '+') oldLeft--;
      if (kind !== '-') newLeft--;
      body.push({ kind, text: line.slice(1) });
      lastKind = kind;
      j++;
    }
    if ((lines[j] ?? '').startsWith(NO_NEWLINE)) {
      noEol(lastKind, j);
      j++;
    }
    // More body than the header promised: never drop it silently (that would apply part of the diff).
    const overflowEnd = overflowAfter(lines, j);
    if (overflowEnd > j) {
      const first = lines[j] === '' ? lines.slice(j, overflowEnd).findIndex((l) => l !== '') + j : j;
      if (lines[j] === '') {
        throw parseError(
          `The hunk at line ${patchLine} ends after the ${oldCount} old and ${newCount} new line(s) its header promises, but line ${first + 1} (${JSON.stringify((lines[first] as string).slice(0, 60))}), after a blank line, looks like more of it: its header counts are wrong, or the blank line ends it — editwarden will not guess which.`,
          first + 1,
          HINT_HUNK,
        );
      }
      for (let k = j; k < overflowEnd; k++) {
        const line = lines[k] as string;
        if (line[0] === NO_NEWLINE) {
          noEol(lastKind, k);
          continue;
        }
        if (hunk.oldNoEol === true || hunk.newNoEol === true) {
          throw parseError(`Line ${k + 1} follows a "\\ No newline at end of file" line inside the hunk at line ${patchLine}.`, k + 1, HINT_HUNK);
        }
        const kind: HunkLine['kind'] = line === '' ? ' ' : (line[0] as HunkLine['kind']);
        body.push({ kind, text: line.slice(1) });
        lastKind = kind;
      }
      const bodyOld = body.filter((l) => l.kind !== '+').length;
      const bodyNew = body.filter((l) => l.kind !== '-').length;
      hunk.recount = { line: j + 1, header: { old: oldCount, new: newCount }, body: { old: bodyOld, new: bodyNew } };
      j = overflowEnd;
    }
  } else {
    // No numbers (`@@ @@`, `@@ ... @@`): the body runs to the first line that cannot be part of it.
    while (j < lines.length) {
      const line = lines[j] as string;
      if (!isHunkLine(line) || startsFilePatch(lines, j)) break;
      if (line[0] === NO_NEWLINE) noEol(lastKind, j);
      else {
        const kind: HunkLine['kind'] = line === '' ? ' ' : (line[0] as HunkLine['kind']);
        body.push({ kind, text: line.slice(1) });
        lastKind = kind;
      }
      j++;
    }
    // Blank lines after the body are the prose's, not context.
    while (body.length > 0 && body[body.length - 1]?.kind === ' ' && body[body.length - 1]?.text === '' && lines[j - 1] === '') {
      body.pop();
      j--;
    }
    if (body.length === 0) throw parseError(`The hunk at line ${patchLine} has no lines.`, patchLine, HINT_HUNK);
  }
  return { hunk, next: j };
}

/**
 * Where the lines after a numbered hunk's counted body stop looking like hunk
 * lines: the end of the overflow (exclusive), or `j` when there is none.
 * Stops at a hunk header, a file header or any other line; blank lines at the
 * end of the run are separators (prose follows), not context.
 */
function overflowAfter(lines: string[], j: number): number {
  let k = j;
  while (k < lines.length && isHunkLine(lines[k]) && !startsFilePatch(lines, k) && !((lines[k] as string).startsWith(OLD_NAME) && (lines[k + 1] ?? '').startsWith(NEW_NAME))) k++;
  while (k > j && lines[k - 1] === '') k--;
  return k;
}

function newFileContent(hunks: Hunk[], line: number, path: string): string {
  const added: string[] = [];
  let noEol = false;
  for (const h of hunks) {
    for (const l of h.lines) {
      if (l.kind !== '+') throw parseError(`The patch creates ${path}, but a hunk has old lines (${JSON.stringify(l.kind + l.text)}).`, h.patchLine ?? line, 'A new file\'s hunk is "@@ -0,0 +1,N @@" followed by N "+" lines only.', path);
      added.push(l.text);
    }
    noEol = h.newNoEol === true;
  }
  if (added.length === 0) return '';
  return added.join('\n') + (noEol ? '' : '\n');
}

function refuseBinary(path: string, line: number, why: string): EditwardenError {
  return new EditwardenError({
    code: ErrorCode.BINARY,
    message: `The patch for ${path} (line ${line}) ${why}; editwarden applies text changes only.`,
    hint: 'Leave binary files, file modes, symlinks and submodules out of the patch; change them with a command the person approves.',
    path,
    line,
  });
}

/** Turns a parsed file patch into its request, or refuses it. */
function toRequest(h: FileHeader, hunks: Hunk[], index: number): EditRequest {
  // git, hg and most model-written diffs prefix a/ and b/ (one side may be /dev/null); plain diff -u does not.
  const oldPrefixed = h.oldName === null || (typeof h.oldName === 'string' && h.oldName.startsWith('a/'));
  const newPrefixed = h.newName === null || (typeof h.newName === 'string' && h.newName.startsWith('b/'));
  const stripA = h.git || (oldPrefixed && newPrefixed && !(h.oldName === null && h.newName === null));
  const clean = (name: string | undefined | null, prefix: string): string | undefined => {
    if (name === null || name === undefined) return undefined;
    return stripA ? stripPrefix(name, prefix) : name;
  };
  const oldPath = h.renameFrom ?? clean(h.oldName, 'a/') ?? (h.oldName === null ? undefined : clean(h.gitA, 'a/'));
  const newPath = h.renameTo ?? clean(h.newName, 'b/') ?? (h.newName === null ? undefined : clean(h.gitB, 'b/'));
  const deleted = h.deleted || (h.newName === null && h.oldName !== undefined);
  const created = h.newFile || (h.oldName === null && h.newName !== undefined);
  const path = (created ? newPath : oldPath) ?? newPath ?? oldPath;
  if (path === undefined || path === '') {
    throw parseError('A file patch names no file.', h.line, 'Start each file with "--- a/PATH" and "+++ b/PATH" lines (or a "diff --git a/PATH b/PATH" header).');
  }
  if (h.binary) throw refuseBinary(path, h.line, 'is a binary patch');
  for (const mode of [h.fileMode, h.oldMode, h.newMode]) {
    if (mode === '120000') throw refuseBinary(path, h.line, 'makes or changes a symlink');
    if (mode === '160000') throw refuseBinary(path, h.line, 'changes a submodule');
  }
  if (h.oldMode !== undefined && h.newMode !== undefined && h.oldMode !== h.newMode) {
    throw refuseBinary(path, h.line, `changes the file mode (${h.oldMode} → ${h.newMode})`);
  }
  if (h.copy) throw parseError(`The patch copies a file to ${path} (line ${h.line}); copies are not supported.`, h.line, 'Create the new file with its full content instead.', path);
  const src = source('udiff', index, h.line);
  if (created) {
    return { action: 'create', path, content: newFileContent(hunks, h.line, path), source: src };
  }
  if (deleted) {
    const request: VerifiedDeleteRequest = { action: 'delete', path, source: src };
    if (hunks.length > 0) request.hunks = hunks;
    return request;
  }
  const moveTo = newPath !== undefined && oldPath !== undefined && newPath !== oldPath && (h.git || h.renameTo !== undefined) ? newPath : undefined;
  if (hunks.length === 0 && moveTo === undefined) {
    throw parseError(`The patch for ${path} (line ${h.line}) has no hunks.`, h.line, 'Add at least one "@@" hunk with the lines to change.', path);
  }
  return { action: 'patch', path, hunks, ...defined({ moveTo }), source: src };
}

/** Skips a binary payload: base85 lines up to the blank line that ends each of its (up to two) blocks. */
function skipBinary(lines: string[], j: number): number {
  let k = j + 1;
  while (k < lines.length && !startsFilePatch(lines, k)) k++;
  return k;
}

export function parseUnifiedDiff(input: string): ParseResult {
  const text = normalizeEol(input);
  const lines = text.split('\n');
  const requests: EditRequest[] = [];
  const errors: ItemError[] = [];
  let index = 0;
  let i = 0;
  let sawContextDiff = false;
  /** Lines before this belong to an earlier item. */
  let consumed = 0;
  while (i < lines.length) {
    const line = lines[i] as string;
    const svnEmpty = line.startsWith('Index: ') && /^={20,}$/.test(lines[i + 1] ?? '') && !(lines[i + 2] ?? '').startsWith(OLD_NAME) && !(lines[i + 2] ?? '').startsWith('Cannot display');
    if (line.startsWith('*** ') && (lines[i + 1] ?? '').startsWith('--- ') && (lines[i + 2] ?? '') === CONTEXT_DIFF_SEPARATOR) {
      sawContextDiff = true;
      errors.push({
        index: index++,
        line: i + 1,
        error: parseError('This is a context diff ("*** a", "--- b", "***************"); only unified diffs are understood.', i + 1, 'Produce the diff with `diff -u` or `git diff`.'),
      });
      i += 3;
      while (i < lines.length && !startsFilePatch(lines, i)) i++;
      continue;
    }
    if (svnEmpty) {
      // svn shows an added empty file as its Index header alone.
      const path = line.slice('Index: '.length).trim();
      requests.push({ action: 'create', path, content: '', source: source('udiff', index++, i + 1) });
      i += 2;
      continue;
    }
    // A "+++ " line no "--- " line precedes: a file header that lost its first line; its hunks have no file.
    const strayNewName = line.startsWith(NEW_NAME) && !(lines[i - 1] ?? '').startsWith(OLD_NAME) && isHunkLine(lines[i + 1]) && (lines[i + 1] ?? '') !== '';
    if (ORPHAN_HUNK.test(line) || strayNewName) {
      // A hunk no file header introduces (its header was lost, or an earlier hunk's counts were wrong):
      // refused, never skipped as prose — skipping it would apply the diff without this part.
      const at = i;
      i++;
      while (i < lines.length && (isHunkLine(lines[i]) || ORPHAN_HUNK.test(lines[i] as string)) && !startsFilePatch(lines, i) && !(i > at + 1 && ORPHAN_HUNK.test(lines[i] as string) && !strayNewName)) i++;
      // The refusal covers every line since the previous item (a file header that lost a line, stray text).
      let from = consumed;
      while (from < at && (lines[from] as string).trim() === '') from++;
      consumed = i;
      errors.push({
        index: index++,
        line: at + 1,
        fromLine: from + 1,
        error: parseError(
          `The hunk at line ${at + 1} (${JSON.stringify(line.slice(0, 60))}) belongs to no file: no "--- a/PATH" / "+++ b/PATH" header comes before it.`,
          at + 1,
          'Put the "--- a/PATH" and "+++ b/PATH" lines before the hunks of each file, and make each hunk header\'s counts match its body (or drop the numbers: "@@ @@").',
        ),
      });
      continue;
    }
    if (!startsFilePatch(lines, i) && !(line.startsWith(OLD_NAME) && (lines[i + 1] ?? '').startsWith(NEW_NAME))) {
      i++;
      continue;
    }
    const itemIndex = index++;
    const header: FileHeader = { line: i + 1, git: false, newFile: false, deleted: false, copy: false, binary: false };
    let hunks: Hunk[] = [];
    try {
      if (line.startsWith(GIT_HEADER)) {
        header.git = true;
        const { a, b } = splitGitHeader(line.slice(GIT_HEADER.length));
        if (a !== undefined) header.gitA = a;
        if (b !== undefined) header.gitB = b;
        i++;
        for (;;) {
          const ext = lines[i];
          const kind = ext === undefined ? undefined : EXT_HEADERS.find((h) => ext.startsWith(h));
          if (ext === undefined || kind === undefined) break;
          const value = ext.slice(kind.length).trim();
          switch (kind) {
            case 'old mode ':
              header.oldMode = value;
              break;
            case 'new mode ':
              header.newMode = value;
              break;
            case 'deleted file mode ':
              header.deleted = true;
              header.fileMode = value;
              break;
            case 'new file mode ':
              header.newFile = true;
              header.fileMode = value;
              break;
            case 'rename from ':
              header.renameFrom = unquoteGitPath(value);
              break;
            case 'rename to ':
              header.renameTo = unquoteGitPath(value);
              break;
            case 'copy from ':
            case 'copy to ':
              header.copy = true;
              break;
            case 'index ': {
              const mode = value.split(' ')[1];
              if (mode !== undefined) header.fileMode = mode;
              break;
            }
            case 'similarity index ':
            case 'dissimilarity index ':
              break;
            default: {
              const never: never = kind;
              throw new Error(`unhandled header ${String(never)}`);
            }
          }
          i++;
        }
      }
      const current = lines[i] ?? '';
      if (current.startsWith(GIT_BINARY) || (current.startsWith(BINARY_FILES) && current.endsWith(' differ'))) {
        header.binary = true;
        i = current.startsWith(GIT_BINARY) ? skipBinary(lines, i) : i + 1;
      } else if (current.startsWith(OLD_NAME) && (lines[i + 1] ?? '').startsWith(NEW_NAME)) {
        header.oldName = nameOf(current.slice(OLD_NAME.length));
        header.newName = nameOf((lines[i + 1] as string).slice(NEW_NAME.length));
        i += 2;
      }
      for (;;) {
        // Blank lines between two hunks of one file separate them (models write them); they are not a body.
        let k = i;
        while (hunks.length > 0 && k < lines.length && lines[k] === '') k++;
        if (k >= lines.length || !(lines[k] as string).startsWith(HUNK_HEADER)) break;
        const { hunk, next } = parseHunk(lines, k);
        hunks.push(hunk);
        i = next;
      }
      requests.push(toRequest(header, hunks, itemIndex));
      consumed = i;
    } catch (error) {
      if (!(error instanceof EditwardenError)) throw error;
      errors.push({ index: itemIndex, line: header.line, error, ...defined({ path: error.path }) });
      hunks = [];
      // Resume at the next file patch.
      i = Math.max(i, header.line);
      while (i < lines.length && !startsFilePatch(lines, i) && !(lines[i] as string).startsWith('Index: ')) i++;
      consumed = i;
    }
  }
  if (requests.length === 0 && errors.length === 0 && !sawContextDiff) {
    errors.push({
      index: 0,
      line: 1,
      error: parseError('No unified diff found: no "--- a/PATH" / "+++ b/PATH" pair followed by an "@@" hunk.', 1, 'Send a diff as `git diff` prints it: "--- a/PATH", "+++ b/PATH", then "@@ -L,N +L,M @@" hunks.'),
    });
  }
  return { requests, errors };
}
