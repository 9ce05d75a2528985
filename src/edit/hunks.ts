/**
 * Applies the hunks of a line-addressed patch (unified diff, apply_patch) to
 * a text. Pure: "\n"-normalised text in, text out, no file system.
 *
 * Two modes, because the two callers want different things:
 * - strict = `git apply` semantics: context and removed lines must match
 *   byte for byte (including the "\ No newline at end of file" state); a
 *   hunk is searched outward from its claimed line (git's find_pos: at the
 *   line, then one forward, one back, …, over the whole file); a hunk that
 *   starts at line 0/1 must match at the beginning and a hunk without
 *   trailing context must match at the end (git's match_beginning /
 *   match_end). No whitespace tolerance.
 * - tolerant (default) = what a model's patch needs: the claimed line is
 *   tried first, then a window around it (OFFSET_WINDOW lines), then the
 *   whole file after the previous hunk, where a place is taken only when it
 *   is the only one (the
 *   offset is reported in the notes); context that differs only in
 *   whitespace or typographic punctuation is matched in passes of
 *   increasing leniency (codex's seek_sequence: exact, rstrip, trim,
 *   unicode look-alikes) and the pass used is the reported strategy.
 *   Context lines keep the file's own spelling; only '-' lines go and only
 *   '+' lines come.
 *
 * Must never: pick between two equally good locations (that is E_AMBIGUOUS,
 * never a guess); touch a line before the end of the previous hunk (hunks
 * apply in order and never overlap); change lines the patch did not name.
 */
import { EditwardenError, ErrorCode, quote } from '../errors.js';
import { describeLevel, fromLineImage, LineCache, matchesAt, normalize, STRICT_LEVELS, toLineImage, TOLERANT_LEVELS, type Level, type LineImage } from './hunk-lines.js';
import { describeNearMatch, findNearMatch } from './near-match.js';
import type { Hunk, MatchStrategy, PatchRequest } from './types.js';
import { defined } from '../defined.js';
import { appendAll } from '../arrays.js';

export interface HunkApplication {
  text: string;
  strategy: MatchStrategy;
  /** 1-based line of the first hunk in the old text. */
  line: number;
  notes: string[];
}

/** How far (in lines) the tolerant mode looks around a hunk's claimed line before it searches the whole file. */
export const OFFSET_WINDOW = 1000;

interface PreparedHunk {
  hunk: Hunk;
  index: number;
  old: string[];
  /** Number of context lines before the first change / after the last one. */
  leading: number;
  trailing: number;
}

function prepare(hunk: Hunk, index: number): PreparedHunk {
  const old: string[] = [];
  for (const l of hunk.lines) if (l.kind !== '+') old.push(l.text);
  let leading = 0;
  while (leading < hunk.lines.length && hunk.lines[leading]?.kind === ' ') leading++;
  let trailing = 0;
  if (leading < hunk.lines.length) {
    while (trailing < hunk.lines.length && hunk.lines[hunk.lines.length - 1 - trailing]?.kind === ' ') trailing++;
  }
  return { hunk, index, old, leading, trailing };
}

interface Placement {
  at: number;
  level: Level;
  /** Lines between the claimed position and the one used (0 when the hunk has no line numbers). */
  offset: number;
  /** The final-newline state of the file was forgiven (tolerant mode only). */
  eolForgiven: boolean;
}

interface SearchContext {
  image: LineImage;
  cache: LineCache;
  strict: boolean;
  path: string;
}

function hunkLabel(p: PreparedHunk): string {
  const where = p.hunk.patchLine !== undefined ? ` (patch line ${p.hunk.patchLine})` : '';
  return `hunk ${p.index + 1}${where}`;
}

/** In strict mode the last old line's newline must agree with the file's (git compares whole lines, newline included). */
function eolAgrees(ctx: SearchContext, p: PreparedHunk, at: number): boolean {
  const n = p.old.length;
  if (n === 0) return true;
  const touchesEnd = at + n === ctx.image.lines.length;
  const fileLastHasNewline = !touchesEnd || ctx.image.eofNewline;
  return fileLastHasNewline === !p.hunk.oldNoEol;
}

function notFound(ctx: SearchContext, p: PreparedHunk, claimed: number | undefined, detail: string): EditwardenError {
  // What differs at the claimed line, and the closest place anywhere in the file when that is elsewhere.
  const atClaim = claimed !== undefined ? firstMismatch(ctx, p, Math.min(Math.max(claimed, 0), ctx.image.lines.length)) : '';
  const closest = p.old.length > 0 ? findNearMatch(ctx.image.lines.join('\n'), p.old.join('\n')) : null;
  const elsewhere = closest && (claimed === undefined || Math.abs(closest.line - 1 - claimed) > 0) ? ` ${describeNearMatch(closest).replace('old_text', "the hunk's old lines")}` : '';
  const near = atClaim + elsewhere;
  return new EditwardenError({
    code: ErrorCode.NOT_FOUND,
    message: `${hunkLabel(p)} of the patch to ${ctx.path} does not match the file: ${detail}.${near}`,
    hint: 'Re-read the file and regenerate the hunk with its context and removed lines copied exactly from the current text (or use an edit with old_text/new_text).',
    path: ctx.path,
    ...defined({ line: claimed !== undefined ? Math.max(1, claimed + 1) : undefined }),
  });
}

/** Names the first line that differs at the claimed position, so a model can see what it got wrong. */
function firstMismatch(ctx: SearchContext, p: PreparedHunk, at: number): string {
  for (let k = 0; k < p.old.length; k++) {
    const actual = ctx.image.lines[at + k];
    if (actual === undefined) return ` The file ends at line ${ctx.image.lines.length}, before the hunk's line ${k + 1} (${quote(p.old[k] as string, 80)}).`;
    if (actual !== p.old[k]) return ` At line ${at + k + 1} the file has ${quote(actual, 80)} where the hunk expects ${quote(p.old[k] as string, 80)}.`;
  }
  return '';
}

function ambiguous(ctx: SearchContext, p: PreparedHunk, candidates: number[]): EditwardenError {
  const lines = candidates
    .slice(0, 5)
    .map((c) => c + 1)
    .join(', ');
  return new EditwardenError({
    code: ErrorCode.AMBIGUOUS,
    message: `${hunkLabel(p)} of the patch to ${ctx.path} matches ${candidates.length} places (lines ${lines}${candidates.length > 5 ? ', …' : ''}) and none is where the patch says.`,
    hint: 'Add more context lines (or an @@ line naming the enclosing function or class) so the hunk matches exactly one place, or correct its line numbers.',
    path: ctx.path,
    line: (candidates[0] as number) + 1,
  });
}

/** git's find_pos: exact matches only, outward from the claimed line, forward first. */
function placeStrictNumbered(ctx: SearchContext, p: PreparedHunk, cursor: number): Placement {
  const oldStart = p.hunk.oldStart as number;
  const n = p.old.length;
  const total = ctx.image.lines.length;
  const matchBeginning = oldStart <= 1;
  const matchEnd = p.trailing === 0;
  let line = n === 0 ? oldStart : oldStart - 1;
  if (matchBeginning) line = 0;
  else if (matchEnd) line = total - n;
  if (line > total) line = total;
  if (line < 0) line = 0;
  const fits = (at: number): boolean => at >= cursor && at + n <= total && (!matchBeginning || at === 0) && (!matchEnd || at + n === total) && matchesAt(ctx.cache, p.old, at, 'exact') && eolAgrees(ctx, p, at);
  const claimed = n === 0 ? oldStart : oldStart - 1;
  if (fits(line)) return { at: line, level: 'exact', offset: line - claimed, eolForgiven: false };
  for (let d = 1; line + d <= total || line - d >= 0; d++) {
    if (fits(line + d)) return { at: line + d, level: 'exact', offset: line + d - claimed, eolForgiven: false };
    if (fits(line - d)) return { at: line - d, level: 'exact', offset: line - d - claimed, eolForgiven: false };
  }
  const why =
    matchBeginning && matchEnd && n === 0
      ? 'a hunk with no old lines at line 0 creates a file, but the file is not empty'
      : matchBeginning
        ? 'its old lines are not at the beginning of the file'
        : matchEnd
          ? 'a hunk without trailing context must match at the end of the file, and its old lines are not there'
          : 'its context and removed lines occur nowhere in the file';
  throw notFound(ctx, p, claimed, why);
}

/** Tolerant placement of a hunk with line numbers: the claimed line, then a bounded window, pass by pass. */
function placeTolerantNumbered(ctx: SearchContext, p: PreparedHunk, cursor: number, lastOffset: number): Placement {
  const oldStart = p.hunk.oldStart as number;
  const n = p.old.length;
  const total = ctx.image.lines.length;
  const claimedRaw = n === 0 ? oldStart : oldStart - 1;
  const claimed = claimedRaw + lastOffset;
  if (n === 0) {
    // Nothing to match (diff -U0 insertion): the line number is the only address there is.
    const at = Math.min(Math.max(claimedRaw, cursor), total);
    if (claimedRaw > total || claimedRaw < cursor) {
      throw notFound(ctx, p, claimedRaw, `it inserts after line ${oldStart} but has no context, and that line is ${claimedRaw > total ? 'past the end of the file' : 'inside the previous hunk'}`);
    }
    return { at, level: 'exact', offset: 0, eolForgiven: false };
  }
  const low = Math.max(cursor, claimed - OFFSET_WINDOW);
  const high = Math.min(total - n, claimed + OFFSET_WINDOW);
  for (const level of TOLERANT_LEVELS) {
    const pattern = p.old.map((l) => normalize(level, l));
    const at0 = Math.min(Math.max(claimed, cursor), Math.max(total - n, cursor));
    const candidates: number[] = [];
    for (let at = low; at <= high; at++) if (matchesAt(ctx.cache, pattern, at, level)) candidates.push(at);
    if (candidates.length === 0) continue;
    const chosen = candidates.includes(at0) ? at0 : candidates.includes(claimedRaw) && claimedRaw >= cursor ? claimedRaw : candidates.length === 1 ? (candidates[0] as number) : undefined;
    if (chosen === undefined) throw ambiguous(ctx, p, candidates);
    return { at: chosen, level, offset: chosen - claimedRaw, eolForgiven: !eolAgrees(ctx, p, chosen) };
  }
  // Header line numbers from models are often far off: the whole file (after the previous hunk) is searched,
  // and a place found there is taken only when it is the only one.
  for (const level of TOLERANT_LEVELS) {
    const pattern = p.old.map((l) => normalize(level, l));
    const candidates: number[] = [];
    for (let at = cursor; at <= total - n && candidates.length < 6; at++) if (matchesAt(ctx.cache, pattern, at, level)) candidates.push(at);
    if (candidates.length === 0) continue;
    if (candidates.length > 1) throw ambiguous(ctx, p, candidates);
    const at = candidates[0] as number;
    return { at, level, offset: at - claimedRaw, eolForgiven: !eolAgrees(ctx, p, at) };
  }
  throw notFound(ctx, p, claimedRaw, `its context and removed lines occur nowhere in the file after line ${cursor}, even ignoring whitespace`);
}

/** Finds `pattern` at or after `from`, pass by pass; returns every match of the first pass that has any. */
function seekAll(ctx: SearchContext, pattern: readonly string[], from: number, levels: readonly Level[], firstOnly: boolean): { level: Level; matches: number[] } | undefined {
  const total = ctx.image.lines.length;
  for (const level of levels) {
    const norm = pattern.map((l) => normalize(level, l));
    const matches: number[] = [];
    for (let at = from; at + norm.length <= total; at++) {
      if (matchesAt(ctx.cache, norm, at, level)) {
        matches.push(at);
        if (firstOnly || matches.length > 5) break;
      }
    }
    if (matches.length > 0) return { level, matches };
  }
  return undefined;
}

/**
 * Placement of a hunk without line numbers (apply_patch): after the `@@`
 * anchors, if any, else anywhere after the previous hunk. An anchor is a
 * signpost, so the first match after it is meant; without anchors the
 * hunk's lines must occur exactly once.
 */
function placeByContext(ctx: SearchContext, p: PreparedHunk, cursor: number): Placement {
  const levels = ctx.strict ? STRICT_LEVELS : TOLERANT_LEVELS;
  const total = ctx.image.lines.length;
  let from = cursor;
  let anchorAt: number | undefined;
  for (const anchor of p.hunk.anchors ?? []) {
    const found = seekAll(ctx, [anchor], from, levels, true);
    if (!found) throw notFound(ctx, p, undefined, `its @@ line ${quote(anchor, 80)} occurs nowhere ${from > 0 ? `after line ${from}` : 'in the file'}`);
    anchorAt = found.matches[0] as number;
    from = anchorAt + 1;
  }
  const n = p.old.length;
  if (n === 0) {
    // Only additions: right after the last anchor, else at the end of the file (codex does the same).
    return { at: anchorAt !== undefined ? anchorAt + 1 : total, level: 'exact', offset: 0, eolForgiven: false };
  }
  if (p.hunk.atEof && total - n >= cursor) {
    const end = total - n;
    for (const level of levels) {
      if (
        matchesAt(
          ctx.cache,
          p.old.map((l) => normalize(level, l)),
          end,
          level,
        )
      ) {
        return { at: end, level, offset: 0, eolForgiven: !ctx.strict && !eolAgrees(ctx, p, end) };
      }
    }
    if (ctx.strict) throw notFound(ctx, p, end, 'it is marked "*** End of File" but its lines are not the last lines of the file');
  }
  let found = seekAll(ctx, p.old, from, levels, anchorAt !== undefined);
  // A model often repeats the anchor as the hunk's first context line; then it starts at the anchor itself.
  if (!found && anchorAt !== undefined && !ctx.strict) found = seekAll(ctx, p.old, anchorAt, levels, true);
  if (!found) throw notFound(ctx, p, undefined, `its context and removed lines occur nowhere ${from > 0 ? `after line ${from}` : 'in the file'}${ctx.strict ? '' : ', even ignoring whitespace'}`);
  if (anchorAt === undefined && found.matches.length > 1) throw ambiguous(ctx, p, found.matches);
  const at = found.matches[0] as number;
  const eolForgiven = !eolAgrees(ctx, p, at);
  if (eolForgiven && ctx.strict) throw notFound(ctx, p, at, 'the "\\ No newline at end of file" state of its last line differs from the file');
  return { at, level: found.level, offset: 0, eolForgiven };
}

const STRATEGY_RANK: Record<MatchStrategy, number> = {
  exact: 0,
  offset: 1,
  'line-numbers': 1,
  'trailing-whitespace': 2,
  'blank-lines': 2,
  'final-newline': 2,
  indentation: 3,
  'surrounding-whitespace': 3,
  'escaped-newlines': 4,
  'whitespace-runs': 3,
  'inner-whitespace': 4,
  unicode: 4,
  'indentation+unicode': 5,
  fuzz: 6,
  ast: 0,
  'whole-file': 0,
};

function worse(a: MatchStrategy, b: MatchStrategy): MatchStrategy {
  return STRATEGY_RANK[b] > STRATEGY_RANK[a] ? b : a;
}

export function applyHunks(text: string, request: PatchRequest, options: { strict: boolean }): HunkApplication {
  const strict = options.strict || request.strict === true;
  const image = toLineImage(text);
  const ctx: SearchContext = { image, cache: new LineCache(image.lines), strict, path: request.path };
  // A patch without hunks is a pure rename (git `rename from/to`): the text stays as it is.
  if (request.hunks.length === 0) return { text, strategy: 'exact', line: 1, notes: [] };
  const out: string[] = [];
  const notes: string[] = [];
  let strategy: MatchStrategy = 'exact';
  let cursor = 0;
  let lastOffset = 0;
  let firstLine = 0;
  let eofNewline = image.eofNewline;
  // Hunks that only add lines, with neither context nor an anchor, before other hunks: their place is the end of
  // the file (codex's apply_patch puts them there, against the original lines), so they go there after the rest.
  const atEnd: string[] = [];
  request.hunks.forEach((hunk, index) => {
    const p = prepare(hunk, index);
    if (!strict && hunk.oldStart === undefined && p.old.length === 0 && (hunk.anchors ?? []).length === 0 && index < request.hunks.length - 1) {
      for (const l of hunk.lines) atEnd.push(l.text);
      notes.push(`${hunkLabel(p)} only adds lines, with no context: they were added at the end of the file (as Codex's apply_patch does), after the other hunks were placed.`);
      return;
    }
    if (hunk.recount) {
      const r = hunk.recount;
      const counts = `its header promises ${r.header.old} old and ${r.header.new} new line(s), but its body has ${r.body.old} and ${r.body.new} (line ${r.line} of the patch is past the header's count)`;
      if (strict) {
        throw new EditwardenError({
          code: ErrorCode.PARSE,
          message: `${hunkLabel(p)} of the patch to ${request.path} is miscounted: ${counts}. Strict mode applies a hunk only as its header counts it.`,
          hint: 'Fix the counts in the "@@ -OLD,COUNT +NEW,COUNT @@" header to match the body (or drop the numbers: "@@ @@"), or apply without --strict to let editwarden recount.',
          path: request.path,
          line: r.line,
        });
      }
      notes.push(`${hunkLabel(p)}: ${counts}; recounted from the body (like git apply --recount) and applied whole.`);
    }
    let placement: Placement;
    if (hunk.oldStart !== undefined) {
      if (!Number.isSafeInteger(hunk.oldStart) || hunk.oldStart < 0) throw notFound(ctx, p, undefined, `its start line ${hunk.oldStart} is out of range`);
      placement = strict ? placeStrictNumbered(ctx, p, cursor) : placeTolerantNumbered(ctx, p, cursor, lastOffset);
    } else {
      placement = placeByContext(ctx, p, cursor);
    }
    const { at } = placement;
    if (firstLine === 0) firstLine = at + 1;
    if (placement.offset !== 0) {
      lastOffset = placement.offset;
      notes.push(`${hunkLabel(p)} applied at line ${at + 1} (offset ${placement.offset > 0 ? '+' : ''}${placement.offset} line${Math.abs(placement.offset) === 1 ? '' : 's'}).`);
      strategy = worse(strategy, 'offset');
    }
    if (placement.level !== 'exact') {
      strategy = worse(strategy, placement.level);
      notes.push(`${hunkLabel(p)} matched only after ignoring ${describeLevel(placement.level)}.`);
    }
    for (let i = cursor; i < at; i++) out.push(image.lines[i] as string);
    let k = at;
    for (const l of hunk.lines) {
      if (l.kind === ' ') out.push(image.lines[k++] as string);
      else if (l.kind === '-') k++;
      else out.push(l.text);
    }
    cursor = at + p.old.length;
    if (cursor === image.lines.length) {
      // This hunk decides how the file ends: as its new side says (patch(1) and python-patch do the same when they forgive).
      eofNewline = hunk.newNoEol !== true;
      if (placement.eolForgiven) notes.push(`${hunkLabel(p)}: the patch and the file disagree about the newline at the end of the file; the file now ends ${eofNewline ? 'with' : 'without'} one, as the patch's new side says.`);
    }
  });
  for (let i = cursor; i < image.lines.length; i++) out.push(image.lines[i] as string);
  appendAll(out, atEnd);
  if (firstLine === 0) firstLine = image.lines.length + 1;
  return { text: fromLineImage({ lines: out, eofNewline }), strategy, line: Math.max(1, firstLine), notes };
}

/**
 * For a patch that deletes a file: the hunks must remove every line, so a
 * deletion is never applied to a file that differs from what the patch saw.
 * Throws E_NOT_FOUND when they do not (git: "src still has content after full delete").
 */
export function checkDeletion(text: string, path: string, hunks: Hunk[], options: { strict: boolean }): void {
  if (hunks.length === 0) return;
  const left = applyHunks(text, { action: 'patch', path, hunks }, options).text;
  if (left !== '') {
    throw new EditwardenError({
      code: ErrorCode.NOT_FOUND,
      message: `The patch deletes ${path}, but its hunks do not cover the whole file (${left.split('\n').length} line(s) would be left).`,
      hint: 'Re-read the file: it has content the deletion patch does not know about. Regenerate the patch from the current text.',
      path,
    });
  }
}
