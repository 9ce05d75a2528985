// search_files over a 50,000-file tree next to `grep -rn` on the same tree,
// in the same run, interleaved (so page cache and machine noise hit both
// alike), warm cache. Goal: not slower than grep. Both search for a literal
// that occurs in 1% of the files; the tree has no .gitignore, so both read
// every file.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { spawnSync } from 'node:child_process';
import { searchFiles } from '../dist/tools/search.js';
import { median, ms } from './stats.mjs';

const FILES = 50_000;
const PER_DIR = 100;

function makeTree(root) {
  const lines = [];
  for (let i = 0; i < 40; i++) lines.push(`export function helper${i}(value: number): number { return value * ${i} + 1; } // filler text`);
  const body = `${lines.join('\n')}\n`;
  for (let f = 0; f < FILES; f++) {
    const dir = path.join(root, `pkg${Math.floor(f / PER_DIR / 10)}`, `mod${Math.floor(f / PER_DIR)}`);
    if (f % PER_DIR === 0) fs.mkdirSync(dir, { recursive: true });
    const extra = f % 100 === 7 ? 'const marker = "needle_7f3a";\n' : '';
    fs.writeFileSync(path.join(dir, `file${f}.ts`), body + extra);
  }
}

function grep(root, needle) {
  const r = spawnSync('grep', ['-rn', needle, '.'], { cwd: root, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
  return r.stdout.split('\n').filter(Boolean).length;
}

function ours(root, needle, regex) {
  const out = searchFiles(root, { pattern: needle, regex, caseSensitive: true, start: '', globs: [], maxResults: 100_000, maxFileBytes: 10 * 1024 * 1024 });
  return out.matches.length;
}

export async function run() {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'ew-bench-search-'));
  try {
    makeTree(root);
    const needle = 'needle_7f3a';
    const expected = grep(root, needle);
    if (ours(root, needle, false) !== expected) throw new Error(`search found a different number of matches than grep (${expected})`);
    const g = [];
    const lit = [];
    const re = [];
    for (let i = 0; i < 5; i++) {
      let t0 = process.hrtime.bigint();
      grep(root, needle);
      g.push(Number(process.hrtime.bigint() - t0) / 1e6);
      t0 = process.hrtime.bigint();
      ours(root, needle, false);
      lit.push(Number(process.hrtime.bigint() - t0) / 1e6);
      t0 = process.hrtime.bigint();
      ours(root, 'needle_[0-9a-f]{4}', true);
      re.push(Number(process.hrtime.bigint() - t0) / 1e6);
    }
    const base = median(g);
    return [
      { case: 'search_files literal, 50,000 files', value: ms(median(lit)), baseline: `grep -rn ${ms(base)}`, ratio: `${(median(lit) / base).toFixed(2)}x`, goal: 'not slower than grep -rn', note: `median of 5, ${expected} matches; ${median(lit) <= base ? 'met' : 'NOT met'}` },
      { case: 'search_files regex, 50,000 files', value: ms(median(re)), baseline: `grep -rn (literal) ${ms(base)}`, ratio: `${(median(re) / base).toFixed(2)}x`, goal: '(informative)', note: 'median of 5' },
    ];
  } finally {
    fs.rmSync(root, { recursive: true, force: true });
  }
}

if (import.meta.url === `file://${process.argv[1]}`) console.table(await run());
