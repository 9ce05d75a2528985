/**
 * A faithful re-implementation of Codex's `seek_sequence`
 * (openai/codex, codex-rs/apply-patch/src/seek_sequence.rs: exact, then
 * trim_end, then trim, then Unicode punctuation normalised — first match
 * wins, no uniqueness check), written here from reading it, and the way
 * apply_patch uses it for one chunk: the old lines are replaced by the new
 * lines verbatim. A baseline for the tolerance corpus; test code only.
 */

function normalise(s: string): string {
  return [...s.trim()]
    .map((c) => {
      if ('\u2010\u2011\u2012\u2013\u2014\u2015\u2212'.includes(c)) return '-';
      if ('\u2018\u2019\u201A\u201B'.includes(c)) return "'";
      if ('\u201C\u201D\u201E\u201F'.includes(c)) return '"';
      if ('\u00A0\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009\u200A\u202F\u205F\u3000'.includes(c)) return ' ';
      return c;
    })
    .join('');
}

/** Rust's str::trim_end / trim: Unicode White_Space, as JavaScript's trimEnd / trim. */
export function seekSequence(lines: string[], pattern: string[], start: number, eof: boolean): number | undefined {
  if (pattern.length === 0) return start;
  if (pattern.length > lines.length) return undefined;
  const searchStart = eof && lines.length >= pattern.length ? lines.length - pattern.length : start;
  const last = lines.length - pattern.length;
  // Each pass compares the lines as `key` maps them (Codex compares a.trim() == b.trim(), …): mapped once per pass
  // here instead of once per comparison, the same matches at a fraction of the cost.
  const pass = (key: (s: string) => string): number | undefined => {
    const keyed = lines.map(key);
    const wanted = pattern.map(key);
    for (let i = searchStart; i <= last; i++) {
      let ok = true;
      for (let p = 0; p < wanted.length; p++) {
        if (keyed[i + p] !== wanted[p]) {
          ok = false;
          break;
        }
      }
      if (ok) return i;
    }
    return undefined;
  };
  return pass((s) => s) ?? pass((s) => s.trimEnd()) ?? pass((s) => s.trim()) ?? pass(normalise);
}

/** One apply_patch chunk built from a quote: old lines → new lines at the first place seek_sequence finds. Throws when not found. */
export function codexReplace(content: string, oldText: string, newText: string): string {
  const lines = content.split('\n');
  const endsWithNewline = lines[lines.length - 1] === '';
  if (endsWithNewline) lines.pop();
  const split = (t: string): string[] => {
    const ls = t.split('\n');
    if (ls[ls.length - 1] === '') ls.pop();
    return ls;
  };
  const oldLines = split(oldText);
  const at = seekSequence(lines, oldLines, 0, false);
  if (at === undefined) throw new Error('Failed to find expected lines');
  lines.splice(at, oldLines.length, ...split(newText));
  return lines.join('\n') + (endsWithNewline ? '\n' : '');
}
