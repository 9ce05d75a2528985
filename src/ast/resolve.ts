/**
 * Resolves an AST path (`Namespace-Class-method`, optionally `name#N`) to
 * exactly one declaration of an outline, or explains why it cannot: several
 * candidates (E_AST_AMBIGUOUS, each with kind and line) or none
 * (E_AST_NOT_FOUND, with the nearest existing paths).
 *
 * Grammar of a path:
 *   path    = segment *( "-" segment )
 *   segment = name [ "#" digits ]      ; "#N" picks the N-th declaration of that path (1-based)
 * Names may themselves contain "-" (CSS, JSON keys): a path is matched against
 * whole joined paths, never split blindly.
 *
 * Must never: throw anything but EditwardenError, whatever the input string.
 */
import { EditwardenError, ErrorCode, quote } from '../errors.js';
import type { AstEntry } from './outline.js';

/** `#N` at the end of a segment: digits followed by "-" or the end. */
const ORDINAL = /#(\d+)(?=-|$)/g;

interface ParsedPath {
  base: string;
  /** Ordinals with the length of `base` they apply to. */
  picks: { prefixLength: number; ordinal: number }[];
}

export function parseAstPath(query: string): ParsedPath {
  const trimmed = query.trim();
  const picks: ParsedPath['picks'] = [];
  let base = '';
  let last = 0;
  for (const match of trimmed.matchAll(ORDINAL)) {
    base += trimmed.slice(last, match.index);
    picks.push({ prefixLength: base.length, ordinal: Number(match[1]) });
    last = match.index + match[0].length;
  }
  base += trimmed.slice(last);
  return { base, picks };
}

function isSelfOrDescendant(entry: AstEntry, ancestor: AstEntry): boolean {
  for (let e: AstEntry | undefined = entry; e; e = e.parent) if (e === ancestor) return true;
  return false;
}

function describe(entry: AstEntry): string {
  const lines = entry.nodeLine === entry.endLine ? `line ${entry.nodeLine}` : `lines ${entry.nodeLine}-${entry.endLine}`;
  return `${entry.address} (${entry.kind}, ${lines})`;
}

const HINT = 'Address a declaration by the names of its enclosing declarations joined by "-" (e.g. Class-method); `editwarden ast list <file>` prints every path.';

export function resolveAstPath(entries: readonly AstEntry[], query: string, file?: string): AstEntry {
  const where = file ? ` in ${file}` : '';
  const pathInfo = file !== undefined ? { path: file } : {};
  const { base, picks } = parseAstPath(query);
  if (base === '' || base.startsWith('-') || base.endsWith('-')) {
    throw new EditwardenError({ code: ErrorCode.AST_NOT_FOUND, message: `${quote(query)} is not an AST path${where}.`, hint: HINT, ...pathInfo });
  }
  let candidates = entries.filter((e) => e.path === base);
  for (const pick of picks) {
    const prefix = base.slice(0, pick.prefixLength);
    const group = entries.filter((e) => e.path === prefix);
    const chosen = group[pick.ordinal - 1];
    if (!chosen) {
      const count = group.length === 0 ? 'no declaration' : group.length === 1 ? 'only one declaration' : `only ${group.length} declarations`;
      throw new EditwardenError({
        code: ErrorCode.AST_NOT_FOUND,
        message: `${quote(query)}: there is ${count} at ${quote(prefix)}${where}, so #${pick.ordinal} does not exist.`,
        hint: group.length > 0 ? `Use one of: ${group.map(describe).join('; ')}.` : HINT,
        ...pathInfo,
      });
    }
    candidates = candidates.filter((c) => isSelfOrDescendant(c, chosen));
  }
  const [only, ...others] = candidates;
  if (only && others.length === 0) return only;
  if (only) {
    throw new EditwardenError({
      code: ErrorCode.AST_AMBIGUOUS,
      message: `AST path ${quote(query)} matches ${candidates.length} declarations${where}: ${candidates.map(describe).join('; ')}.`,
      hint: `Pick one with #N, e.g. ${quote(candidates[1]?.address ?? `${base}#2`)}.`,
      ...pathInfo,
      line: only.nodeLine,
    });
  }
  const near = nearestPaths(entries, base);
  throw new EditwardenError({
    code: ErrorCode.AST_NOT_FOUND,
    message:
      entries.length === 0
        ? `No declaration at AST path ${quote(query)}${where}: the file has no addressable declarations.`
        : `No declaration at AST path ${quote(query)}${where}.${near.length > 0 ? ` Nearest: ${near.map(describe).join('; ')}.` : ''}`,
    hint: entries.length === 0 ? 'Edit this file with old_text/new_text instead.' : HINT,
    ...pathInfo,
  });
}

/** Levenshtein distance, bounded: gives up (returns `limit + 1`) once every cell of a row exceeds `limit`. */
function editDistance(a: string, b: string, limit = Infinity): number {
  if (Math.abs(a.length - b.length) > limit) return limit + 1;
  let prev = Array.from({ length: b.length + 1 }, (_, i) => i);
  for (let i = 1; i <= a.length; i++) {
    const row = [i];
    let best = i;
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      const value = Math.min((prev[j] ?? 0) + 1, (row[j - 1] ?? 0) + 1, (prev[j - 1] ?? 0) + cost);
      row.push(value);
      if (value < best) best = value;
    }
    if (best > limit) return limit + 1;
    prev = row;
  }
  return prev[b.length] ?? 0;
}

/**
 * Up to `max` existing paths nearest to `base`: same path in another case,
 * then paths ending with the asked name (the agent left out an enclosing
 * class), then small edit distances on the whole path or on the last name.
 */
function nearestPaths(entries: readonly AstEntry[], base: string, max = 5): AstEntry[] {
  const wanted = base.toLowerCase();
  const lastName = wanted.split('-').pop() ?? wanted;
  const scored: { entry: AstEntry; score: number }[] = [];
  for (const entry of entries) {
    const path = entry.path.toLowerCase();
    let score: number;
    if (path === wanted) score = 0;
    else if (path.endsWith(`-${wanted}`) || wanted.endsWith(`-${path}`)) score = 1;
    else {
      const limit = Math.max(2, Math.floor(wanted.length / 3));
      const whole = editDistance(wanted, path, limit);
      const name = editDistance(lastName, entry.name.toLowerCase(), Math.max(1, Math.floor(lastName.length / 3)));
      const best = Math.min(whole, name + 1);
      if (best > limit) continue;
      score = 1 + best;
    }
    scored.push({ entry, score });
  }
  scored.sort((x, y) => x.score - y.score || x.entry.start - y.entry.start);
  return scored.slice(0, max).map((s) => s.entry);
}
