/**
 * The edit engine: the current text of one file plus an ordered list of
 * requests → the new text, a diff per request, and the guards' verdicts.
 * Pure and synchronous: no file system, no clock, no tree-sitter (language
 * work comes in through EngineHooks prepared by the caller).
 */
import { EditwardenError, ErrorCode } from '../errors.js';
import { unifiedDiff } from './diff.js';
import { ambiguous, dramaticReduction, emptyOldTextOnContent, fileExists, missingOldText, noFile, tooLarge } from './errors.js';
import { applyHunks, checkDeletion } from './hunks.js';
import { shrinksTooMuch } from './large-deletion.js';
import { escapedNewlines } from './escaped-newlines.js';
import { LEADING_BLANK_NOTE, leadingBlankLacked } from './whole-lines.js';
import { findMatches, nonOverlapping, type TextMatch } from './match.js';
import { notFoundError } from './near-match.js';
import { countLines, encodeText, lineOf, linesOf, newDoc, normalizeEol, spliceDoc, spliceDocAll, type TextDoc } from './text.js';
import type { AppliedEdit, EditOptions, EditRequest, EngineHooks, MatchStrategy, SyntaxIssue } from './types.js';
import { defined } from '../defined.js';

/** One request's outcome within a file plan. */
interface PlannedStep {
  request: EditRequest;
  ok: boolean;
  applied?: AppliedEdit;
  error?: EditwardenError;
  /** Diff of this step alone (against the text the step started from). */
  diff: string;
  added: number;
  removed: number;
  /** New syntax errors allowed through under the 'warn' policy. */
  syntaxWarnings?: SyntaxIssue[];
}

export interface FilePlan {
  path: string;
  /** null: the file did not exist. */
  before: TextDoc | null;
  /** null: the file is deleted. */
  after: TextDoc | null;
  existedBefore: boolean;
  /** The plan removes the file. */
  deleted: boolean;
  /** Whether anything changes on disk (content, existence or location). */
  changed: boolean;
  /** Encoded result (undefined when deleted or unchanged-and-missing); may be pieces to write in order. */
  afterBytes?: Uint8Array | readonly Uint8Array[];
  moveTo?: string;
  steps: PlannedStep[];
  ok: boolean;
  /** Diff of the whole plan (before → after). */
  diff: string;
  added: number;
  removed: number;
}

export interface PlanOptions extends EditOptions {
  /** Keep going after a failed step (apply --partial); otherwise the file is all or nothing. */
  continueOnError?: boolean | undefined;
  /** File mode, for "new file mode" lines. */
  mode?: number;
}

export function planFile(path: string, before: TextDoc | null, requests: EditRequest[], options: PlanOptions, hooks: EngineHooks = {}): FilePlan {
  let current: TextDoc | null = before;
  let moveTo: string | undefined;
  const steps: PlannedStep[] = [];
  let failed = false;
  // Net line change since `before`, for the large-deletion guard without recounting megabytes.
  let netLines = 0;
  let originalLines: number | undefined;
  // Where the texts are known to agree (min over the steps), for the whole-plan diff.
  let span: Span | undefined = { prefix: Number.POSITIVE_INFINITY, suffix: Number.POSITIVE_INFINITY };
  const modeOpt = options.mode !== undefined ? { mode: options.mode } : {};
  for (const request of requests) {
    if (failed && !options.continueOnError) {
      steps.push({
        request,
        ok: false,
        error: new EditwardenError({
          code: ErrorCode.ABORTED,
          message: `Not applied: an earlier edit to ${path} in this request failed, and edits to one file apply all or nothing.`,
          hint: 'Fix the failing edit to this file and send them again.',
          path,
        }),
        diff: '',
        added: 0,
        removed: 0,
      });
      continue;
    }
    try {
      const step = applyOne(path, current, request, options, hooks);
      if (request.readAs && request.readAs.length > 0) step.applied.notes = [...request.readAs, ...step.applied.notes];
      const d = unifiedDiff({
        oldPath: path,
        newPath: step.moveTo ?? path,
        before: current?.text ?? null,
        after: step.doc?.text ?? null,
        ...modeOpt,
        ...(step.span ? { knownPrefix: step.span.prefix, knownSuffix: step.span.suffix } : {}),
      });
      if (before !== null && step.doc !== null && request.force !== true && !explicitOverwrite(request) && netLines + d.added - d.removed < 0) {
        originalLines ??= countLines(before.text);
        guardLines(path, originalLines, originalLines + netLines + d.added - d.removed, options);
      }
      const syntaxWarnings = checkSyntax(path, current, step.doc, hooks);
      steps.push({
        request,
        ok: true,
        applied: step.applied,
        diff: d.diff,
        added: d.added,
        removed: d.removed,
        ...defined({ syntaxWarnings: syntaxWarnings.length > 0 ? syntaxWarnings : undefined }),
      });
      netLines += d.added - d.removed;
      span = step.span && span ? { prefix: Math.min(span.prefix, step.span.prefix), suffix: Math.min(span.suffix, step.span.suffix) } : undefined;
      current = step.doc;
      if (step.moveTo !== undefined) moveTo = step.moveTo;
    } catch (error) {
      if (!(error instanceof EditwardenError)) throw error;
      failed = true;
      steps.push({ request, ok: false, error, diff: '', added: 0, removed: 0 });
    }
  }
  const ok = steps.every((s) => s.ok);
  const final = ok || options.continueOnError ? current : before;
  const applied = steps.filter((s) => s.ok);
  const single = applied.length === 1 && steps.length === 1 ? applied[0] : undefined;
  const whole = single
    ? { diff: single.diff, added: single.added, removed: single.removed }
    : unifiedDiff({
        oldPath: path,
        newPath: moveTo ?? path,
        before: before?.text ?? null,
        after: final?.text ?? null,
        ...modeOpt,
        ...(span && Number.isFinite(span.prefix) ? { knownPrefix: span.prefix, knownSuffix: span.suffix } : {}),
      });
  const plan: FilePlan = {
    path,
    before,
    after: final,
    existedBefore: before !== null,
    deleted: before !== null && final === null,
    changed: final?.text !== before?.text || moveTo !== undefined || (final === null) !== (before === null),
    steps,
    ok,
    diff: whole.diff,
    added: whole.added,
    removed: whole.removed,
  };
  if (moveTo !== undefined) plan.moveTo = moveTo;
  if (final !== null) {
    const bytes = encodeText(final);
    if (bytes.length > options.maxFileBytes) {
      const last = steps[steps.length - 1];
      if (last) Object.assign(last, { ok: false, error: tooLarge(path, bytes.length, options.maxFileBytes), diff: '', added: 0, removed: 0 });
      return { ...plan, after: before, deleted: false, changed: false, ok: false, diff: '', added: 0, removed: 0 };
    }
    plan.afterBytes = bytes;
  }
  return plan;
}

/** Text known to be unchanged at the start (`prefix` chars) and end (`suffix` chars). */
interface Span {
  prefix: number;
  suffix: number;
}

interface StepOutcome {
  doc: TextDoc | null;
  applied: AppliedEdit;
  moveTo?: string;
  span?: Span;
}

function applyOne(path: string, current: TextDoc | null, request: EditRequest, options: PlanOptions, hooks: EngineHooks): StepOutcome {
  const base = { notes: [] as string[] };
  switch (request.action) {
    case 'edit': {
      if (request.oldText.length === 0) return emptyOldText(path, current, request.newText);
      if (current === null) throw noFile(path, 'edit');
      let oldText = normalizeEol(request.oldText);
      let newText = normalizeEol(request.newText);
      const lacked = request.wholeLines && !options.strict ? leadingBlankLacked(current.text, oldText, newText) : undefined;
      if (lacked) {
        oldText = lacked.oldText;
        newText = lacked.newText;
      }
      // A harmless no-op (SEARCH equal to REPLACE) is reported as such, never a refusal that aborts the reply's
      // other edits — but only when its anchor is there: telling a model a missing quote "succeeded" hides its mistake.
      if (oldText === newText) {
        const found = findMatches(current.text, oldText, options.strict);
        if (found === null) throw notFoundError(path, current.text, oldText, options.strict);
        return noOpStep(current, lineOf(current.text, found.matches[0]?.start ?? 0), NO_OP_IDENTICAL);
      }
      const step = replaceText(path, current, oldText, newText, { replaceAll: request.replaceAll === true, strict: options.strict, lineHint: request.lineHint });
      if (lacked) step.applied.notes.unshift(LEADING_BLANK_NOTE);
      return step;
    }
    case 'create': {
      if (current !== null) throw fileExists(path);
      return { doc: newDoc(request.content), applied: { action: 'create', strategy: 'whole-file', count: 1, line: 1, ...base } };
    }
    case 'overwrite': {
      const content = normalizeEol(request.content);
      if (current === null) {
        return {
          doc: newDoc(request.content),
          applied: { action: 'overwrite', strategy: 'whole-file', count: 1, line: 1, notes: ['the file did not exist; it was created'] },
        };
      }
      return { doc: { ...current, text: content, ...defined({ eols: current.eols ? respread(current, content) : undefined }) }, applied: { action: 'overwrite', strategy: 'whole-file', count: 1, line: 1, ...base } };
    }
    case 'append':
    case 'prepend': {
      if (current === null) throw noFile(path, request.action);
      const content = normalizeEol(request.content);
      const text = current.text;
      if (request.action === 'append') {
        const sep = text.length > 0 && !text.endsWith('\n') && content.length > 0 ? '\n' : '';
        const doc = spliceDoc(current, text.length, text.length, sep + content);
        return { doc, applied: { action: 'append', strategy: 'whole-file', count: 1, line: countLines(text) + 1, ...base } };
      }
      const sep = text.length > 0 && content.length > 0 && !content.endsWith('\n') ? '\n' : '';
      const doc = spliceDoc(current, 0, 0, content + sep);
      return { doc, applied: { action: 'prepend', strategy: 'whole-file', count: 1, line: 1, ...base } };
    }
    case 'insert': {
      if (current === null) throw noFile(path, 'insert');
      return insertLines(path, current, request.line, normalizeEol(request.content));
    }
    case 'delete': {
      if (current === null) throw noFile(path, 'delete');
      // A diff that deletes a file lists its lines: refuse when the file no longer holds exactly them.
      if (request.hunks && request.hunks.length > 0) checkDeletion(current.text, path, request.hunks, { strict: options.strict });
      return { doc: null, applied: { action: 'delete', strategy: 'whole-file', count: 1, line: 1, ...base } };
    }
    case 'patch': {
      if (current === null) throw noFile(path, 'patch');
      // A pure rename (git "rename from/to" with no hunks) changes no text.
      const result = request.hunks.length === 0 ? { text: current.text, strategy: 'exact' as const, line: 1, notes: [] } : applyHunks(current.text, request, { strict: options.strict || request.strict === true });
      const doc = result.text === current.text ? current : replaceWhole(current, result.text);
      const applied: AppliedEdit = { action: 'patch', strategy: result.strategy, count: request.hunks.length, line: result.line, notes: result.notes };
      return request.moveTo !== undefined ? { doc, applied, moveTo: request.moveTo } : { doc, applied };
    }
    case 'ast': {
      if (current === null) throw noFile(path, 'ast');
      if (!hooks.applyAst) {
        throw new EditwardenError({
          code: ErrorCode.PARSE,
          message: `AST paths are not available for ${path}: no grammar is loaded for this kind of file.`,
          hint: 'Use old_text/new_text (mode edit) for this file, or check the supported languages in docs/editing.md.',
          path,
        });
      }
      const result = hooks.applyAst(path, current.text, request);
      return { doc: replaceWhole(current, normalizeEol(result.text)), applied: { action: 'ast', strategy: 'ast', count: 1, line: result.line, notes: result.notes } };
    }
    default: {
      const never: never = request;
      throw new Error(`unknown action ${JSON.stringify(never)}`);
    }
  }
}

/**
 * An empty old_text names no place. opencode and gemini-cli read it as "create this file", and so does this
 * engine — only where that is what it can mean: the file does not exist (or exists and is empty). On a file
 * with content it is refused, with a hint saying what to quote instead.
 */
function emptyOldText(path: string, current: TextDoc | null, newText: string): StepOutcome {
  const notes = [current === null ? 'old_text was empty and the file did not exist: it was created' : 'old_text was empty and the file was empty: new_text was written into it'];
  if (current === null) return { doc: newDoc(newText), applied: { action: 'edit', strategy: 'whole-file', count: 1, line: 1, notes } };
  if (current.text.length > 0) throw current.text.trim() === '' ? missingOldText(path) : emptyOldTextOnContent(path);
  return { doc: replaceWhole(current, normalizeEol(newText)), applied: { action: 'edit', strategy: 'whole-file', count: 1, line: 1, notes } };
}

interface ReplaceOptions {
  replaceAll: boolean;
  strict: boolean;
  lineHint?: { start: number; end?: number } | undefined;
}

function replaceText(path: string, current: TextDoc, oldText: string, newText: string, { replaceAll, strict, lineHint }: ReplaceOptions): StepOutcome {
  let found = findMatches(current.text, oldText, strict);
  if (found === null && !strict) {
    const atEof = finalNewlineTolerant(current.text, oldText, newText);
    if (atEof) {
      found = atEof.found;
      newText = atEof.newText;
    }
  }
  if (found === null && !strict) {
    const unescaped = escapedNewlines(current.text, oldText, newText);
    if (unescaped) {
      found = unescaped.found;
      oldText = unescaped.oldText;
      newText = unescaped.newText;
    }
  }
  if (found === null) throw notFoundError(path, current.text, oldText, strict);
  let matches = found.matches;
  // A line hint (Roo's ":start_line:") only picks between places old_text matches; it never moves the edit elsewhere.
  if (matches.length > 1 && !replaceAll && lineHint !== undefined) matches = pickByLineHint(current.text, matches, lineHint);
  if (matches.length > 1 && !replaceAll) {
    throw ambiguous(path, oldText, linesOf(current.text, matches.map(startOf)), found.strategy, lineHint?.start);
  }
  if (replaceAll) matches = nonOverlapping(matches);
  const firstLine = lineOf(current.text, matches[0]?.start ?? 0);
  // Every match replaced in one pass over the text; the text is inserted literally (no $& patterns).
  const edits = [...matches].sort((a, b) => a.start - b.start).map((m) => ({ start: m.start, end: m.end, insert: m.transform ? m.transform(newText) : newText }));
  const doc = spliceDocAll(current, edits);
  // A tolerant match whose replacement only restores what the file already has changes nothing.
  if (doc.text === current.text) return noOpStep(current, firstLine, NO_OP_RESTORES);
  const notes: string[] = [];
  if (found.strategy !== 'exact') notes.push(`matched with tolerance for ${found.strategy}`);
  if (replaceAll) notes.push(`replaced ${matches.length} occurrence${matches.length === 1 ? '' : 's'}`);
  const strategy: MatchStrategy = found.strategy;
  // Folded, not spread: a replace_all of 200,000 matches is past the arguments a call can take (a RangeError).
  const span = { prefix: matches.reduce((min, m) => Math.min(min, m.start), Number.POSITIVE_INFINITY), suffix: current.text.length - matches.reduce((max, m) => Math.max(max, m.end), Number.NEGATIVE_INFINITY) };
  return { doc, applied: { action: 'edit', strategy, count: matches.length, line: firstLine, notes }, span };
}

const startOf = (m: TextMatch): number => m.start;
const lastCharOf = (m: TextMatch): number => Math.max(m.start, m.end - 1);

/** The one match that starts at the hinted line (and ends at the hinted end line, when given); all of them when none or several do. */
function pickByLineHint(text: string, matches: TextMatch[], hint: { start: number; end?: number }): TextMatch[] {
  const starts = linesOf(text, matches.map(startOf));
  const ends = hint.end === undefined ? [] : linesOf(text, matches.map(lastCharOf));
  const at = matches.filter((_, k) => starts[k] === hint.start && (hint.end === undefined || ends[k] === hint.end));
  return at.length === 1 ? at : matches;
}

const NO_OP_IDENTICAL = 'no-op: new_text is identical to old_text, so nothing changed (the other edits still apply)';
const NO_OP_RESTORES = 'no-op: new_text only restores what the file already has at the matched place, so nothing changed';

/** A step that changes nothing: ok, with a note saying so. */
function noOpStep(current: TextDoc, line: number, note: string): StepOutcome {
  return { doc: current, applied: { action: 'edit', strategy: 'exact', count: 0, line, notes: [note] }, span: { prefix: current.text.length, suffix: 0 } };
}

/**
 * Models often end old_text with a newline the file's last line does not
 * have. Matched only at the very end of the file, and new_text then keeps the
 * file's final-newline state.
 */
function finalNewlineTolerant(text: string, oldText: string, newText: string): { found: NonNullable<ReturnType<typeof findMatches>>; newText: string } | null {
  if (!oldText.endsWith('\n') || text.endsWith('\n') || oldText.length < 2) return null;
  const trimmed = oldText.slice(0, -1);
  const found = findMatches(text, trimmed, false);
  if (found === null) return null;
  const atEnd = found.matches.filter((m) => m.end === text.length);
  if (atEnd.length !== 1 || found.matches.length !== 1) return null;
  return {
    found: { strategy: found.strategy === 'exact' ? 'final-newline' : found.strategy, matches: atEnd },
    newText: newText.endsWith('\n') ? newText.slice(0, -1) : newText,
  };
}

function insertLines(path: string, current: TextDoc, line: number, content: string): StepOutcome {
  const total = countLines(current.text);
  if (!Number.isInteger(line) || line < 0 || line > total) {
    throw new EditwardenError({
      code: ErrorCode.NOT_FOUND,
      message: `Cannot insert after line ${line} of ${path}: it has ${total} lines.`,
      hint: `Use a line number from 0 (top of the file) to ${total} (end of the file).`,
      path,
    });
  }
  const text = current.text;
  let offset = 0;
  for (let k = 0; k < line; k++) offset = text.indexOf('\n', offset) + 1 || text.length;
  let insert = content.endsWith('\n') || content.length === 0 ? content : `${content}\n`;
  if (offset === text.length && text.length > 0 && !text.endsWith('\n')) {
    insert = `\n${insert.endsWith('\n') ? insert.slice(0, -1) : insert}`;
  }
  return { doc: spliceDoc(current, offset, offset, insert), applied: { action: 'insert', strategy: 'line-numbers', count: 1, line: line + 1, notes: [] } };
}

/** Replaces the whole text of a document, keeping per-line endings where lines line up. */
function replaceWhole(current: TextDoc, text: string): TextDoc {
  if (!current.eols) return { ...current, text };
  return { ...current, text, eols: respread(current, text) };
}

function respread(current: TextDoc, text: string): TextDoc['eols'] {
  const eols = current.eols ?? [];
  const n = (text.match(/\n/g) ?? []).length;
  const out: NonNullable<TextDoc['eols']> = [];
  for (let i = 0; i < n; i++) out.push(eols[i] ?? current.eol);
  return out;
}

/** An overwrite the request named as such: the design's "explicit, dangerous" mode, not under the large-deletion heuristic. */
function explicitOverwrite(request: EditRequest): boolean {
  return request.action === 'overwrite' && request.explicit === true;
}

/** The large-deletion guard: a file of ≥ min lines may not be left with less than `ratio` of them. */
function guardLines(path: string, beforeLines: number, afterLines: number, options: PlanOptions): void {
  if (shrinksTooMuch(beforeLines, afterLines, options)) throw dramaticReduction(path, beforeLines, afterLines, options.dramaticRatio);
}

function checkSyntax(path: string, before: TextDoc | null, after: TextDoc | null, hooks: EngineHooks): SyntaxIssue[] {
  const policy = hooks.syntaxPolicy ?? 'refuse';
  if (policy === 'off' || !hooks.newSyntaxErrors || after === null) return [];
  const issues = hooks.newSyntaxErrors(path, before?.text ?? null, after.text);
  if (issues.length === 0 || policy === 'warn') return issues;
  const first = issues[0] as SyntaxIssue;
  // An error node can start far above the edit (a parser that wraps the file from line 1 in one ERROR):
  // the line to name is the first one the edit changed, where the model must look.
  const edited = firstChangedLine(before?.text ?? '', after.text);
  const line = Math.max(first.line, edited);
  const where = line === first.line ? `at line ${first.line}, column ${first.column}: ${JSON.stringify(first.snippet)}` : `at line ${line}, the first line it changed (the parser's error region starts at line ${first.line})`;
  throw new EditwardenError({
    code: ErrorCode.SYNTAX,
    message: `This edit would introduce a syntax error in ${path} ${where}${issues.length > 1 ? ` (and ${issues.length - 1} more)` : ''}.`,
    hint: 'Check brackets, quotes and indentation in new_text; the file was not changed. Set edit.syntax_guard: warn to allow it anyway.',
    path,
    line,
  });
}

/** 1-based line of the first character where `after` differs from `before`. */
function firstChangedLine(before: string, after: string): number {
  const max = Math.min(before.length, after.length);
  let i = 0;
  while (i < max && before.charCodeAt(i) === after.charCodeAt(i)) i++;
  return lineOf(after, i);
}
