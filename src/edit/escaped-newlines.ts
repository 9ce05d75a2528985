/**
 * The escaped-newlines strategy: old_text whose line breaks arrived as the two
 * characters "\\n" (a tool argument JSON-escaped twice). Pure. Must never
 * write a literal "\\n" where the model meant a line break, and never apply
 * when the unescaped quote is not unique.
 */
import { findMatches, type MatchOutcome } from './match.js';

/**
 * old_text whose newlines arrived escaped ("\\n" as two characters: JSON
 * escaped twice). Applies only when the quote has no real line break and its
 * unescaped form matches exactly once. new_text is read by its own evidence:
 * without a real line break it was escaped the same way and is unescaped too;
 * with real line breaks it was not escaped, and is meant literally — unless it
 * also holds a "\\n" the matched lines do not have (half escaped, or a new
 * string escape? truly ambiguous: refused), so a literal "\\n" is never
 * written where a line break was meant.
 */
export function escapedNewlines(text: string, oldText: string, newText: string): { found: MatchOutcome; oldText: string; newText: string } | null {
  if (oldText.includes('\n') || !oldText.includes('\\n')) return null;
  const old = unescapeOnce(oldText);
  if (old === null || !old.includes('\n')) return null;
  const found = findMatches(text, old, false);
  if (found === null || found.matches.length !== 1) return null;
  const match = found.matches[0] as MatchOutcome['matches'][number];
  let next: string | null;
  if (newText.includes('\n')) {
    if (newText.includes('\\n') && !text.slice(match.start, match.end).includes('\\n')) return null;
    next = newText;
  } else next = unescapeOnce(newText);
  if (next === null) return null;
  return { found: { strategy: 'escaped-newlines', matches: found.matches }, oldText: old, newText: next };
}

/** One level of JSON-style unescaping (\\n \\t \\r \\" \\' \\\\); null when a backslash escapes anything else. */
function unescapeOnce(s: string): string | null {
  const simple: Record<string, string> = { n: '\n', t: '\t', r: '', '"': '"', "'": "'", '\\': '\\', '/': '/' };
  let out = '';
  for (let i = 0; i < s.length; i++) {
    const ch = s[i] as string;
    if (ch !== '\\') {
      out += ch;
      continue;
    }
    const next = s[i + 1];
    const mapped = next === undefined ? undefined : simple[next];
    if (mapped === undefined) return null;
    out += mapped;
    i++;
  }
  return out;
}
