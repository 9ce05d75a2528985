/**
 * A cheap pre-test for .gitignore rules: asking `ignore` about a path costs
 * microseconds (it normalises the path, checks its parents, runs every
 * rule), a third of a 50,000-file walk with an ordinary .gitignore. A rule
 * can match a file only if its last segment matches the file's name (a
 * folder the rules hide is never entered, and git cannot re-include inside
 * one), so one regular expression over the last segments tells which files
 * need the real test. It must never answer "no rule can match" for a name
 * some rule matches: it errs only towards testing (classes and anything
 * escaped widen it; case is ignored, as `ignore` does by default).
 */

/** True when some rule may match a file of this name (then the real rules decide). */
export type NameScreen = (name: string) => boolean;

/** The screen of one ignore file's text; null when the text is not worth reducing (every file is tested). */
export function nameScreen(text: string): NameScreen | null {
  const alternatives: string[] = [];
  for (const raw of text.split('\n')) {
    const line = raw.endsWith('\r') ? raw.slice(0, -1) : raw;
    if (line.trim() === '' || line.startsWith('#')) continue;
    // Escapes, and spaces that git trims or keeps depending on escapes: not worth reducing.
    if (line.includes('\\') || /^\s|\s$/.test(line)) return null;
    const pattern = (line.startsWith('!') ? line.slice(1) : line).replace(/\/+$/, '');
    const segment = pattern.slice(pattern.lastIndexOf('/') + 1);
    if (segment === '') return null;
    let re = '';
    for (const c of segment) {
      if (c === '[') {
        re += '.*'; // The rest of the name, whatever the class: wider, never narrower.
        break;
      }
      // `?` is one character, which may be two UTF-16 units: `.*` is wide enough for both.
      re += c === '*' || c === '?' ? '.*' : c.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
    }
    alternatives.push(re);
  }
  if (alternatives.length === 0) return () => false;
  const all = new RegExp(`^(?:${alternatives.join('|')})$`, 'is');
  return (name) => all.test(name);
}
