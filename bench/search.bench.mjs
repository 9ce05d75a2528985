// search_files over a 50,000-file tree next to `grep -rn` on the same tree,
// in the same run. Runs are interleaved (grep, ours, ours, grep, …) so page
// cache and the load of a shared machine hit both alike; medians are
// reported, and CPU time (user + system) next to wall time, since CPU time
// barely depends on what else the machine runs. Both search for a literal
// that occurs in 1% of the files and print every matching line (grep into a
// pipe this process drains, ours formatted as the tool formats it); the
// tree has no .gitignore, so both read every file. Goal: CPU time ≤ 1.0× grep's.
// SEARCH_BENCH_FILES=5000: the tree of issue 44's row (5,000 files).
// The tool's route for a literal is the calling thread, opening each file by
// name in the lent working folder (src/tools/search-cwd.ts); the worker
// threads (each file opened through /proc/self/fd/N/name) have a row of
// their own, as has a regular expression (leased worker threads).
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { spawnSync } from 'node:child_process';
import { searchFiles } from '../dist/tools/search.js';
import { SearchPool } from '../dist/tools/search-worker.js';
import { median, ms } from './stats.mjs';

const FILES = Number(process.env.SEARCH_BENCH_FILES ?? 50_000);
const PER_DIR = 100;
const RUNS = 11;

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

function secondsOf(text) {
  const m = /(\d+)m([\d.]+)s/.exec(text);
  return m ? Number(m[1]) * 60 + Number(m[2]) : 0;
}

/**
 * grep's wall time (spawned, output drained through a pipe) and its CPU
 * time (the shell's `times` for its child, in a second run, output again to
 * a pipe: GNU grep stops reading a file at its first match when it writes to /dev/null).
 */
function grep(root, args) {
  const t0 = process.hrtime.bigint();
  const r = spawnSync('grep', ['-rn', ...args, '.'], { cwd: root, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
  const wall = Number(process.hrtime.bigint() - t0) / 1e6;
  const quoted = args.map((a) => `'${a}'`).join(' ');
  const t = spawnSync('/bin/bash', ['-c', `grep -rn ${quoted} .; times >&2`], { cwd: root, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
  const [user, sys] = (t.stderr.trim().split('\n')[1] ?? '').split(/\s+/).map(secondsOf);
  return { wall, cpu: ((user ?? 0) + (sys ?? 0)) * 1000, lines: r.stdout.split('\n').filter(Boolean).length };
}

const query = (pattern, regex) => ({ pattern, regex, caseSensitive: true, start: '', globs: [], maxResults: 100_000, maxFileBytes: 10 * 1024 * 1024 });

/** Wall and CPU time of one of our searches; CPU time is the whole process's, worker threads included. */
async function timed(search) {
  const c0 = process.cpuUsage();
  const t0 = process.hrtime.bigint();
  const out = await search();
  // What the tool returns: one line per match.
  const text = out.matches.map((m) => `${m.path}:${m.line}:${m.text}`).join('\n');
  const wall = Number(process.hrtime.bigint() - t0) / 1e6;
  const c = process.cpuUsage(c0);
  return { wall, cpu: (c.user + c.system) / 1000, lines: out.matches.length, bytes: text.length };
}

export async function run() {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'ew-bench-search-'));
  const pool = new SearchPool();
  const threads = new SearchPool(undefined, { literalOnThreads: true });
  try {
    makeTree(root);
    const needle = 'needle_7f3a';
    const regex = 'needle_[0-9a-f]{4}';
    const cases = {
      grep: () => grep(root, [needle]),
      grepRegex: () => grep(root, ['-E', regex]),
      pool: () => timed(() => pool.search(root, query(needle, false))),
      single: () => timed(async () => searchFiles(root, query(needle, false))),
      threads: () => timed(() => threads.search(root, query(needle, false))),
      poolRegex: () => timed(() => pool.search(root, query(regex, true))),
    };
    const names = Object.keys(cases);
    const samples = Object.fromEntries(names.map((n) => [n, []]));
    // One warm-up round: page cache, JIT, the pool's threads.
    for (const n of names) await cases[n]();
    for (let i = 0; i < RUNS; i++) {
      for (const n of i % 2 === 0 ? names : [...names].reverse()) samples[n].push(await cases[n]());
    }
    const expected = samples.grep[0].lines;
    for (const n of names) if (samples[n].some((s) => s.lines !== expected)) throw new Error(`${n} found a different number of matching lines than grep (${expected})`);
    const wall = (n) => median(samples[n].map((s) => s.wall));
    const cpu = (n) => median(samples[n].map((s) => s.cpu));
    const cores = os.availableParallelism();
    const row = (name, n, base, goal) => ({
      case: name,
      value: `${ms(wall(n))} (CPU ${ms(cpu(n))})`,
      baseline: `grep -rn${base === 'grepRegex' ? ' -E' : ''} ${ms(wall(base))} (CPU ${ms(cpu(base))})`,
      ratio: `${(wall(n) / wall(base)).toFixed(2)}x (CPU ${(cpu(n) / cpu(base)).toFixed(2)}x)`,
      goal,
      // The goal is on CPU time (user + system, worker threads included): it barely depends on what else the machine runs.
      ...(goal.startsWith('≤') ? { met: cpu(n) <= Number(goal.replace(/[^0-9.]/g, '')) * cpu(base) ? 'met' : 'not met' } : {}),
      note: `median of ${RUNS}, interleaved; ${expected} matching lines; ${cores} cores; load ${os.loadavg()[0].toFixed(1)}`,
    });
    return [
      row(`search_files literal, ${FILES.toLocaleString('en')} files (CPU vs grep -rn)`, 'pool', 'grep', '≤ 1.0× CPU'),
      row('search_files literal, one thread (searchFiles)', 'single', 'grep', '(informative)'),
      row('search_files literal on the worker threads (procfs opens)', 'threads', 'grep', '(informative)'),
      row(`search_files regex, ${FILES.toLocaleString('en')} files`, 'poolRegex', 'grepRegex', '(informative)'),
    ];
  } finally {
    await pool.close();
    await threads.close();
    fs.rmSync(root, { recursive: true, force: true });
  }
}

if (import.meta.url === `file://${process.argv[1]}`) console.table(await run());
