/**
 * Conventions sampled from the project's own files, so the Editor writes
 * code that looks like its neighbours: indentation, quotes and semicolons,
 * line endings, final newlines, how names and files are spelled, and where
 * tests live. Pure: sampled texts in, observations with the evidence count
 * out. A convention is reported only when the sample shows one; a tie is
 * "mixed", never a guess.
 */
import path from 'node:path';
import { languageOf } from './imports.js';

interface Observed<T extends string> {
  value: T | 'mixed';
  /** How many samples (files or occurrences) voted, by value. */
  votes: Partial<Record<T, number>>;
}

export interface Conventions {
  sampled_files: string[];
  indentation: { style: 'spaces' | 'tabs' | 'mixed' | 'unknown'; width: number | null; files: number };
  quotes: Observed<'single' | 'double'> | null;
  semicolons: Observed<'always' | 'never'> | null;
  line_endings: Observed<'lf' | 'crlf'>;
  final_newline: Observed<'yes' | 'no'>;
  function_names: Observed<'camelCase' | 'snake_case' | 'PascalCase'> | null;
  file_names: Observed<'kebab-case' | 'snake_case' | 'camelCase' | 'PascalCase' | 'lowercase'> | null;
  tests: TestLayout;
}

export interface TestLayout {
  /** Test files found in the whole listing. */
  files: number;
  layout: 'beside-sources' | 'test-folder' | 'none' | 'mixed';
  /** Up to three test files to copy the style of. */
  examples: string[];
  /** How test files are named here ("*.test.ts", "test_*.py", …). */
  naming: string | null;
}

const TEST_FILE = /(?:^|\/)(?:__tests__\/.+|[^/]+\.(?:test|spec)\.[^/]+|test_[^/]+\.py|[^/]+_test\.(?:py|go|cc|cpp|c)|[^/]+Test\.(?:java|kt)|[^/]+_spec\.rb)$/;
const TEST_DIR = /(?:^|\/)(?:tests?|spec|__tests__)\//;

export function isTestFile(file: string): boolean {
  return TEST_FILE.test(file) || (TEST_DIR.test(file) && languageOf(file) !== null && !/(?:^|\/)(?:fixtures?|helpers?|data)\//.test(file));
}

function decide<T extends string>(votes: Partial<Record<T, number>>, margin = 2): Observed<T> | null {
  const entries = (Object.entries(votes) as Array<[T, number]>).filter(([, n]) => n > 0).sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1));
  if (entries.length === 0) return null;
  const [first, second] = entries;
  const value = !second || (first as [T, number])[1] >= margin * second[1] ? (first as [T, number])[0] : 'mixed';
  return { value, votes };
}

function bump<T extends string>(votes: Partial<Record<T, number>>, key: T, n = 1): void {
  votes[key] = (votes[key] ?? 0) + n;
}

function nameStyle(name: string): 'camelCase' | 'snake_case' | 'PascalCase' | null {
  if (!/[a-z]/i.test(name) || name.length < 3) return null;
  if (/^[a-z][a-z0-9]*(?:_[a-z0-9]+)+$/.test(name)) return 'snake_case';
  if (/^[a-z][a-z0-9]*(?:[A-Z][a-z0-9]*)+$/.test(name)) return 'camelCase';
  if (/^[A-Z][a-z0-9]+(?:[A-Z][a-z0-9]*)+$/.test(name)) return 'PascalCase';
  return null;
}

function fileStyle(file: string): 'kebab-case' | 'snake_case' | 'camelCase' | 'PascalCase' | 'lowercase' | null {
  const stem = path.posix.basename(file).replace(/\..*$/, '');
  if (stem.length < 3) return null;
  if (/^[a-z0-9]+$/.test(stem)) return 'lowercase';
  if (/^[a-z0-9]+(?:-[a-z0-9]+)+$/.test(stem)) return 'kebab-case';
  if (/^[a-z0-9]+(?:_[a-z0-9]+)+$/.test(stem)) return 'snake_case';
  if (/^[a-z][a-z0-9]*(?:[A-Z][a-z0-9]*)+$/.test(stem)) return 'camelCase';
  if (/^[A-Z][a-z0-9]*(?:[A-Z][a-z0-9]*)*$/.test(stem)) return 'PascalCase';
  return null;
}

const DECLARATION = /(?:\bfunction\s+|\bdef\s+|\bfunc\s+(?:\([^)]*\)\s*)?|\bfn\s+|\b(?:const|let)\s+)([A-Za-z_]\w*)/g;

/** Most common step between the indents of consecutive indented lines (2, 4, 8…). */
function indentUnit(lines: string[]): number | null {
  const steps = new Map<number, number>();
  let prev = 0;
  for (const line of lines) {
    if (line.trim() === '' || line.startsWith('\t')) continue;
    const width = line.length - line.trimStart().length;
    const step = width - prev;
    if (step > 0 && step <= 8) steps.set(step, (steps.get(step) ?? 0) + 1);
    prev = width;
  }
  const best = [...steps.entries()].sort((a, b) => b[1] - a[1] || a[0] - b[0])[0];
  return best ? best[0] : null;
}

export function testLayout(files: readonly string[]): TestLayout {
  const tests = files.filter(isTestFile);
  if (tests.length === 0) return { files: 0, layout: 'none', examples: [], naming: null };
  let beside = 0;
  let folder = 0;
  const naming = new Map<string, number>();
  for (const t of tests) {
    if (TEST_DIR.test(t)) folder++;
    else beside++;
    const base = path.posix.basename(t);
    const ext = path.posix.extname(base);
    const pattern = /\.(test|spec)\./.test(base)
      ? base.replace(/^.*?\.(test|spec)\./, '*.$1.')
      : base.startsWith('test_')
        ? `test_*${ext}`
        : /_test\./.test(base)
          ? `*_test${ext}`
          : /Test\./.test(base)
            ? `*Test${ext}`
            : `${path.posix.dirname(t).split('/')[0]}/*${ext}`;
    naming.set(pattern, (naming.get(pattern) ?? 0) + 1);
  }
  const layout = beside > 0 && folder > 0 ? (beside >= 2 * folder ? 'beside-sources' : folder >= 2 * beside ? 'test-folder' : 'mixed') : beside > 0 ? 'beside-sources' : 'test-folder';
  const topNaming = [...naming.entries()].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1))[0]?.[0] ?? null;
  return { files: tests.length, layout, examples: tests.slice(0, 3), naming: topNaming };
}

/** Conventions of the sampled texts (`sample` maps a relative path to its text). */
export function sampleConventions(sample: ReadonlyMap<string, string>, allFiles: readonly string[]): Conventions {
  const indentVotes: { spaces: number; tabs: number } = { spaces: 0, tabs: 0 };
  const widths = new Map<number, number>();
  const quotes: Partial<Record<'single' | 'double', number>> = {};
  const semis: Partial<Record<'always' | 'never', number>> = {};
  const eols: Partial<Record<'lf' | 'crlf', number>> = {};
  const finals: Partial<Record<'yes' | 'no', number>> = {};
  const names: Partial<Record<'camelCase' | 'snake_case' | 'PascalCase', number>> = {};
  let jsLike = false;
  for (const [file, text] of sample) {
    if (text.length === 0) continue;
    bump(eols, text.includes('\r\n') ? 'crlf' : 'lf');
    bump(finals, text.endsWith('\n') ? 'yes' : 'no');
    const lines = text.replace(/\r\n/g, '\n').split('\n');
    const tabbed = lines.filter((l) => l.startsWith('\t')).length;
    const spaced = lines.filter((l) => l.startsWith('  ')).length;
    if (tabbed + spaced > 0) {
      if (tabbed > spaced) indentVotes.tabs++;
      else {
        indentVotes.spaces++;
        const unit = indentUnit(lines);
        if (unit) widths.set(unit, (widths.get(unit) ?? 0) + 1);
      }
    }
    const lang = languageOf(file);
    if (lang === 'js' || lang === 'python') {
      // String literals outside comments, roughly: a quote opening after a non-word character.
      const code = lines.filter((l) => !/^\s*(?:\/\/|#|\*)/.test(l)).join('\n');
      bump(quotes, 'single', (code.match(/(?<![\w'"])'[^'\n\\]{0,80}'/g) ?? []).length);
      bump(quotes, 'double', (code.match(/(?<![\w'"])"[^"\n\\]{0,80}"/g) ?? []).length);
    }
    if (lang === 'js') {
      jsLike = true;
      for (const l of lines) {
        const t = l.trim();
        if (!/^(?:const|let|var|return|import|export\s+(?:const|default)|throw)\b/.test(t)) continue;
        if (t.endsWith(';')) bump(semis, 'always');
        else if (!/[{([,=>+\-*/|&?:]$/.test(t)) bump(semis, 'never');
      }
    }
    for (const m of text.matchAll(DECLARATION)) {
      const style = nameStyle(m[1] as string);
      // Constants in SCREAMING_CASE and one-word names say nothing about the style.
      if (style) bump(names, style);
    }
  }
  const fileVotes: Partial<Record<'kebab-case' | 'snake_case' | 'camelCase' | 'PascalCase' | 'lowercase', number>> = {};
  for (const f of allFiles) {
    if (languageOf(f) === null || isTestFile(f)) continue;
    const s = fileStyle(f);
    if (s && s !== 'lowercase') bump(fileVotes, s);
  }
  const width = [...widths.entries()].sort((a, b) => b[1] - a[1] || a[0] - b[0])[0]?.[0] ?? null;
  const indentFiles = indentVotes.spaces + indentVotes.tabs;
  const style = indentFiles === 0 ? 'unknown' : indentVotes.tabs >= 2 * indentVotes.spaces ? 'tabs' : indentVotes.spaces >= 2 * indentVotes.tabs ? 'spaces' : 'mixed';
  return {
    sampled_files: [...sample.keys()],
    indentation: { style, width: style === 'spaces' ? width : null, files: indentFiles },
    quotes: decide(quotes),
    semicolons: jsLike ? decide(semis) : null,
    line_endings: decide(eols) ?? { value: 'lf', votes: {} },
    final_newline: decide(finals) ?? { value: 'yes', votes: {} },
    function_names: decide(names),
    file_names: decide(fileVotes),
    tests: testLayout(allFiles),
  };
}
