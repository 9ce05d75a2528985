/**
 * The real-file tolerance corpus: imperfect quotes cut from four vendored
 * source files (test/fixtures/tolerance/, TypeScript, Python, C, YAML), one class
 * per mistake models make, plus classes that must be refused. Deterministic
 * (a seeded generator); data only — the test runs it through editwarden and
 * the baselines.
 */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export interface RealCase {
  klass: string;
  /** true: the quote means one place and the edit must apply there; false: it must be refused. */
  shouldApply: boolean;
  file: string;
  oldText: string;
  newText: string;
  /** The file as it must be after a right application (should-apply cases). */
  expected?: string;
  /** 0-based line range [from, to) the change may touch (should-apply cases). */
  span?: [number, number];
  source: string;
}

const HERE = path.dirname(fileURLToPath(import.meta.url));
const FIXTURES = path.join(HERE, '..', 'fixtures', 'tolerance');
const SOURCES = [
  { name: 'eventsource-parse.ts.txt', comment: ' // edited' },
  { name: 'textwrap.py.txt', comment: '  # edited' },
  { name: 'xxmodule.c.txt', comment: ' /* edited */' },
  { name: 'fast-uri-ci.yml.txt', comment: '  # edited' },
];

/** mulberry32: a small seeded generator, so the corpus is the same on every run. */
function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const blank = (l: string): boolean => l.trim() === '';
const indentOf = (l: string): string => /^[ \t]*/.exec(l)?.[0] ?? '';
const join = (ls: string[]): string => `${ls.join('\n')}\n`;
const count = (hay: string, needle: string): number => {
  let n = 0;
  for (let i = hay.indexOf(needle); i !== -1; i = hay.indexOf(needle, i + 1)) n++;
  return n;
};

interface Window {
  from: number;
  lines: string[];
}

/** Mistakes applied to a window: the quote the model sends, and its new text (same mistake), or null when the window does not suit. */
type Mistake = (w: Window, changed: string[], r: () => number) => { oldText: string; newText: string; expected?: string[] } | null;

const dedent = (ls: string[], by: number): string[] => ls.map((l) => (blank(l) ? '' : l.slice(Math.min(by, indentOf(l).length))));
const minIndent = (ls: string[]): number => Math.min(...ls.filter((l) => !blank(l)).map((l) => indentOf(l).length));

const SHOULD_APPLY: Record<string, Mistake> = {
  'indent shifted: old only': (w, changed) => {
    const m = minIndent(w.lines);
    if (m < 4) return null;
    return { oldText: join(dedent(w.lines, m)), newText: join(changed) };
  },
  'indent shifted: old and new': (w, changed) => {
    const m = minIndent(w.lines);
    if (m < 4) return null;
    return { oldText: join(dedent(w.lines, m)), newText: join(dedent(changed, m)) };
  },
  'tabs for spaces': (w, changed) => {
    if (minIndent(w.lines) < 4 || w.lines.some((l) => l.includes('\t'))) return null;
    const tabs = (ls: string[]): string[] =>
      ls.map((l) => {
        const lead = indentOf(l);
        return lead.length % 4 === 0 ? '\t'.repeat(lead.length / 4) + l.slice(lead.length) : l;
      });
    if (w.lines.some((l) => indentOf(l).length % 4 !== 0)) return null;
    return { oldText: join(tabs(w.lines)), newText: join(tabs(changed)) };
  },
  'trailing spaces': (w, changed) => ({ oldText: join(w.lines.map((l) => (blank(l) ? l : `${l}  `))), newText: join(changed) }),
  'smart quotes': (w, changed) => {
    if (!w.lines.some((l) => /["']/.test(l))) return null;
    let open = true;
    const smart = w.lines.map((l) => l.replace(/'/g, '\u2019').replace(/"/g, () => ((open = !open) ? '\u201D' : '\u201C')));
    return { oldText: join(smart), newText: join(changed) };
  },
  'blank line missing': (w, changed) => {
    const inner = w.lines.findIndex((l, k) => k > 0 && k < w.lines.length - 1 && blank(l));
    if (inner < 0 || changed.length !== w.lines.length) return null;
    return { oldText: join(w.lines.filter((_, k) => k !== inner)), newText: join(changed.filter((_, k) => k !== inner)), expected: changed };
  },
  'blank line extra': (w, changed) => {
    const at = w.lines.findIndex((l, k) => k > 0 && !blank(l) && !blank(w.lines[k - 1] as string));
    if (at < 0) return null;
    const add = (ls: string[]): string[] => [...ls.slice(0, at), '', ...ls.slice(at)];
    return { oldText: join(add(w.lines)), newText: join(add(changed)), expected: changed };
  },
  'escaped newlines': (w, changed) => {
    const escape = (ls: string[]): string => JSON.stringify(ls.join('\n')).slice(1, -1);
    return { oldText: escape(w.lines), newText: escape(changed) };
  },
  'truncated first line': (w, changed) => {
    const first = w.lines[0] as string;
    const lead = indentOf(first).length;
    const cut = lead + Math.floor((first.length - lead) / 2);
    if (first.length - lead < 8 || (changed[0] as string) !== first) return null;
    return { oldText: join([first.slice(cut), ...w.lines.slice(1)]), newText: join([first.slice(cut), ...changed.slice(1)]) };
  },
  'truncated last line': (w, changed) => {
    const last = w.lines[w.lines.length - 1] as string;
    const lead = indentOf(last).length;
    const keep = lead + Math.ceil((last.length - lead) / 2);
    if (last.length - lead < 8 || (changed[changed.length - 1] as string) !== last) return null;
    const cutLast = (ls: string[]): string => `${[...ls.slice(0, -1), last.slice(0, keep)].join('\n')}`;
    return { oldText: cutLast(w.lines), newText: cutLast(changed) };
  },
  'doubled inner spaces': (w, changed) => {
    if (!w.lines.some((l) => / \S/.test(l.trimStart()))) return null;
    const doubled = w.lines.map((l) => indentOf(l) + l.slice(indentOf(l).length).replace(/(\S) (?=\S)/g, '$1  '));
    return { oldText: join(doubled), newText: join(changed) };
  },
  "multi-line re-indent: quote from the first line's first character": (w, changed) => {
    // Copied from the first non-blank character of an indented line (retyped with a trailing blank: not exact),
    // further lines as the file has them; new_text written from column 0 in the frame of its first line. Every
    // line of it must move by the first line's indentation (issue 42: gemini-cli's regression case).
    const lead = indentOf(w.lines[0] as string).length;
    if (lead < 2 || w.lines.some((l) => !blank(l) && indentOf(l).length < lead) || !w.lines.slice(1).some((l) => !blank(l) && indentOf(l).length > lead)) return null;
    return { oldText: join([`${(w.lines[0] as string).slice(lead)} `, ...w.lines.slice(1)]), newText: join(dedent(changed, lead)) };
  },
  "dedent closing brace: quote one level shallower, new at the file's indentation": (w, changed) => {
    // Two closing lines a level apart: quoted one level shallower, the inner one reads like the outer one at the
    // file's indentation. new_text is at the file's indentation: no brace a level too deep, none lost.
    const closers = w.lines.filter((l) => /^\s*[}\])]/.test(l)).map((l) => indentOf(l));
    const step = closers.flatMap((a) => closers.map((b) => (a.startsWith(b) && a.length > b.length ? a.length - b.length : 0))).find((d) => d > 0);
    if (step === undefined || minIndent(w.lines) < step) return null;
    return { oldText: join(dedent(w.lines, step)), newText: join(changed) };
  },
  'escaped newlines: old only': (w, changed) => {
    // old_text JSON-escaped twice, new_text sent with real line breaks (meant literally, "\\n" in code included).
    const escape = (ls: string[]): string => JSON.stringify(ls.join('\n')).slice(1, -1);
    return { oldText: escape(w.lines), newText: changed.join('\n') };
  },
};

/** Must-refuse classes: the quote names no single place of the file. */
const MUST_REFUSE: Record<string, (w: Window, file: string[], r: () => number, comment: string) => { file?: string[]; oldText: string; newText: string } | null> = {
  'one line changed': (w, _file, _r, comment) => {
    const k = w.lines.findIndex((l) => /[A-Za-z_]{3,}/.test(l));
    if (k < 0) return null;
    const altered = [...w.lines];
    altered[k] = (altered[k] as string).replace(/([A-Za-z_]{3,})/, '$1_x');
    const changed = [...altered];
    changed[k] = `${changed[k]}${comment}`;
    return { oldText: join(altered), newText: join(changed) };
  },
  'one line missing': (w, _file, _r, comment) => {
    const k = w.lines.findIndex((l, i) => i > 0 && i < w.lines.length - 1 && !blank(l));
    if (k < 0) return null;
    const without = w.lines.filter((_, i) => i !== k);
    return { oldText: join(without), newText: join([...without.slice(0, -1), `${without[without.length - 1]}${comment}`]) };
  },
  'ambiguous before normalising': (w, file, _r, comment) => {
    const copy = [...file, '', ...w.lines];
    return { file: copy, oldText: join(w.lines), newText: join([...w.lines.slice(0, -1), `${w.lines[w.lines.length - 1]}${comment}`]) };
  },
  'ambiguous after normalising': (w, file, _r, comment) => {
    const m = minIndent(w.lines);
    const deeper = w.lines.map((l) => (blank(l) ? l : `    ${l}`));
    const copy = [...file, '', ...deeper];
    // Quoted at an indentation neither copy has: both match once whitespace is forgiven.
    const q = ' '.repeat(m >= 2 ? m - 2 : m + 2);
    const quote = dedent(w.lines, m).map((l) => (blank(l) ? l : `${q}${l}`));
    return { file: copy, oldText: join(quote), newText: join([...quote.slice(0, -1), `${quote[quote.length - 1]}${comment}`]) };
  },
  'ambiguous after normalising at two places': (w, file, _r, comment) => {
    // A second copy, deeper and with its last line nested differently: no re-indentation maps the quote onto
    // it, but with indentation ignored it holds the same lines. Two places: refused, not taken at the other.
    const m = minIndent(w.lines);
    const last = w.lines.length - 1;
    const copy = w.lines.map((l, k) => (blank(l) ? l : `${k === last ? '      ' : '    '}${l}`));
    const q = ' '.repeat(m >= 2 ? m - 2 : m + 2);
    const quote = dedent(w.lines, m).map((l) => (blank(l) ? l : `${q}${l}`));
    return { file: [...file, '', ...copy], oldText: join(quote), newText: join([...quote.slice(0, -1), `${quote[last]}${comment}`]) };
  },
};

export const SHOULD_APPLY_CLASSES = Object.keys(SHOULD_APPLY);
export const MUST_REFUSE_CLASSES = Object.keys(MUST_REFUSE);

/** A window is usable when its lines are unique in the file even with whitespace ignored (the quote then means one place). */
function windows(lines: string[], r: () => number, want: number, accept: (w: Window) => boolean): Window[] {
  const squash = (ls: string[]): string => ls.map((l) => l.replace(/\s+/g, '')).join('\n');
  const all = squash(lines);
  const out: Window[] = [];
  const used = new Set<number>();
  for (let tries = 0; tries < 4000 && out.length < want; tries++) {
    const size = 3 + Math.floor(r() * 5);
    const from = Math.floor(r() * (lines.length - size));
    if (used.has(from)) continue;
    const w = { from, lines: lines.slice(from, from + size) };
    if (blank(w.lines[0] as string) || blank(w.lines[w.lines.length - 1] as string)) continue;
    if (w.lines.filter((l) => !blank(l)).length < 3) continue;
    if (count(all, squash(w.lines)) !== 1) continue;
    if (!accept(w)) continue;
    used.add(from);
    out.push(w);
  }
  return out;
}

/** The window with one middle line edited (a comment appended) — what the model asks for. */
function change(w: Window, comment: string): string[] {
  const k = w.lines.findIndex((l, i) => i > 0 && i < w.lines.length - 1 && !blank(l));
  const at = Math.max(k, 0);
  return w.lines.map((l, i) => (i === at ? `${l}${comment}` : l));
}

export function buildRealCorpus(perClassPerFile = 10): RealCase[] {
  const cases: RealCase[] = [];
  SOURCES.forEach((src, fileIndex) => {
    const text = fs.readFileSync(path.join(FIXTURES, src.name), 'utf8');
    const lines = text.replace(/\n$/, '').split('\n');
    Object.entries(SHOULD_APPLY).forEach(([klass, mistake], classIndex) => {
      const r = rng(1000 * (fileIndex + 1) + classIndex);
      const accept = (w: Window): boolean => mistake(w, change(w, src.comment), r) !== null;
      for (const w of windows(lines, r, perClassPerFile, accept)) {
        const changed = change(w, src.comment);
        const made = mistake(w, changed, r);
        if (!made) continue;
        const after = [...lines.slice(0, w.from), ...(made.expected ?? changed), ...lines.slice(w.from + w.lines.length)];
        cases.push({
          klass,
          shouldApply: true,
          file: text,
          oldText: made.oldText,
          newText: made.newText,
          expected: join(after),
          span: [w.from, w.from + w.lines.length],
          source: `${src.name}:${w.from + 1}`,
        });
      }
    });
    Object.entries(MUST_REFUSE).forEach(([klass, make], classIndex) => {
      const r = rng(7000 * (fileIndex + 1) + classIndex);
      const accept = (w: Window): boolean => make(w, lines, r, src.comment) !== null;
      for (const w of windows(lines, r, perClassPerFile, accept)) {
        const made = make(w, lines, r, src.comment);
        if (!made) continue;
        cases.push({ klass, shouldApply: false, file: made.file ? join(made.file) : text, oldText: made.oldText, newText: made.newText, source: `${src.name}:${w.from + 1}` });
      }
    });
  });
  return cases;
}
