// Checkpoint costs on synthetic repositories of 5,000 and 50,000 small files,
// next to what other agents use: `git stash push` + `pop`, and a shadow git
// repository (separate GIT_DIR, `git add -A` + `git commit`: how Cline and
// Gemini CLI checkpoint). Goal: a 1-file checkpoint ≥ 50× faster than a later
// shadow-git checkpoint, and flat from 5k to 50k files; an incremental
// workspace checkpoint (what every command's side-effect accounting pays)
// at most half the time of a later shadow-git checkpoint with the same
// 1-file change (rounds interleaved, medians); a command's added cost (its
// index before, the one-walk diff after: what a wrapped `true` pays on top
// of the bare command), goal ≤ 50 ms at 5k files.
// Run: npm run build && node bench/run.mjs checkpoint   (a few minutes)
// EW_BENCH_SIZES=5000,50000 overrides the sizes. EW_BENCH_BASE_DIST=/path/to/dist
// (e.g. main's build) measures that build's incremental checkpoint and wrapped
// command too, interleaved round by round on an identical repository of its own.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { execFileSync } from 'node:child_process';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { median, ms, ratio, timeIt } from './stats.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));
const distOf = (dir) => (p) => import(pathToFileURL(path.join(dir, p)).href);
const dist = distOf(path.join(here, '../dist'));
const BASE = process.env.EW_BENCH_BASE_DIST;

/** Rounds of the interleaved incremental-workspace-checkpoint vs shadow-git comparison. */
const ROUNDS = Number(process.env.EW_BENCH_ROUNDS ?? 7);
/**
 * Rounds run first and kept apart (a row of their own), as the search and verify benches warm up: the first
 * incremental checkpoints of a process run while V8 still compiles the walk and the capture and the stat threads
 * start, 2-4× a settled one (docs/benchmarks.md, "Checkpoint round 6"). Both sides run them alike.
 */
const WARM = Number(process.env.EW_BENCH_WARM ?? 3);
const GIT_ENV = { ...process.env, GIT_AUTHOR_NAME: 'bench', GIT_AUTHOR_EMAIL: 'b@b', GIT_COMMITTER_NAME: 'bench', GIT_COMMITTER_EMAIL: 'b@b' };
const git = (args, env = {}) => execFileSync('git', args, { env: { ...GIT_ENV, ...env }, stdio: ['ignore', 'pipe', 'pipe'], maxBuffer: 1 << 26 });
const timeOnce = (fn) => {
  const t0 = process.hrtime.bigint();
  fn();
  return Number(process.hrtime.bigint() - t0) / 1e6;
};

/** Temp folders of this run, removed at its end even when a measurement throws. */
const made = [];

/** N small source-like files, 100 per folder, two folder levels. */
function makeRepo(n) {
  const root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), `ew-bench-${n}-`)));
  made.push(root);
  fs.writeFileSync(path.join(root, '.gitignore'), 'node_modules/\n*.log\n');
  for (let i = 0; i < n; i++) {
    const dir = path.join(root, `pkg${Math.floor(i / 1000)}`, `mod${Math.floor(i / 100) % 10}`);
    if (i % 100 === 0) fs.mkdirSync(dir, { recursive: true });
    fs.writeFileSync(path.join(dir, `file${i}.ts`), `// file ${i}\nexport const value${i} = ${i};\nexport function f${i}(x: number): number {\n  return x * ${i % 97};\n}\n`);
  }
  return root;
}

/**
 * One build (its dist folder) on a fresh repository of its own: its incremental checkpoint and its wrapped command, one
 * round at a time. Both builds compared get one each, made the same way, so neither carries the other rows' history.
 */
async function twin(dir, n, target) {
  const d = distOf(dir);
  const { openWorkspace } = await d('workspace/open.js');
  const { CommandEffects } = await d('guard/command-effects.js');
  const root = makeRepo(n);
  const abs = path.join(root, target);
  const cps = openWorkspace(root).transactions.checkpoints;
  cps.createWorkspace('first', 'bench', { kind: 'manual' });
  const effects = new CommandEffects(cps);
  const out = { checkpoint: [], unchanged: [], edited: [], unchangedCpu: [], editedCpu: [], reused: 0 };
  /** One wrapped command (index before, diff after); counts the indexes reused without a write (builds that have the lease). */
  const command = (cpuSamples) => {
    let mark = null;
    const cpu0 = process.cpuUsage();
    const t = timeOnce(() => {
      mark = effects.before('bench', { command: 'true', run: 'bench' });
      effects.after(mark);
    });
    const cpu = process.cpuUsage(cpu0);
    // CPU time too: on 2 shared cores the wall time is mostly the scheduler's.
    cpuSamples.push((cpu.user + cpu.system) / 1000);
    if (mark?.lease) out.reused++;
    return t;
  };
  return {
    checkpoint(i) {
      fs.writeFileSync(abs, `// interleaved round ${i}\n`);
      out.checkpoint.push(timeOnce(() => cps.createWorkspace(`round ${i}`, 'bench', { kind: 'manual' })));
    },
    warm() {
      effects.after(effects.before('warm', { command: 'true', run: 'bench' }));
    },
    wrapped(i) {
      out.unchanged.push(command(out.unchangedCpu));
      fs.writeFileSync(abs, `// edited before command ${i}\n`);
      out.edited.push(command(out.editedCpu));
    },
    /** The checkpoints so far, taken out (the warm-up rounds'). */
    takeCheckpoints: () => out.checkpoint.splice(0),
    medians: () => ({ checkpoint: median(out.checkpoint), unchanged: median(out.unchanged), edited: median(out.edited), unchangedCpu: median(out.unchangedCpu), editedCpu: median(out.editedCpu), reused: out.reused }),
  };
}

async function measure(n) {
  const { openWorkspace } = await dist('workspace/open.js');
  const root = makeRepo(n);
  const target = 'pkg0/mod0/file7.ts';
  const abs = path.join(root, target);
  const rows = {};

  // editwarden: 1-file checkpoint and restore.
  const { ws, transactions } = openWorkspace(root);
  const cps = transactions.checkpoints;
  let lastId = '';
  let round = 0;
  const checkpointSamples = timeIt(() => {
    lastId = cps.createFiles([target], 'bench', '1-file edit', { kind: 'manual' }).id;
    fs.writeFileSync(abs, `// edited ${round++}\n`);
  }, 30);
  rows.fileCheckpoint = median(checkpointSamples);
  rows.fileRestore = median(
    timeIt(() => {
      fs.writeFileSync(abs, `// edited again ${round++}\n`);
      cps.restore(lastId);
    }, 30),
  );
  rows.txCommit = median(timeIt((i) => ws.transact((tx) => ws.commit(tx, [{ kind: 'write', path: target, bytes: Buffer.from(`// commit ${i}\n`) }])), 30));

  // editwarden: workspace checkpoint, first (reads every file) and then incremental ones (stat cache).
  await new Promise((r) => setTimeout(r, 200));
  rows.wsFirst = timeOnce(() => cps.createWorkspace('first', 'bench', { kind: 'manual' }));
  // git stash push + pop of a 1-file edit (needs a repository with a commit).
  git(['-C', root, 'init', '-q']);
  git(['-C', root, 'add', '-A']);
  git(['-C', root, 'commit', '-q', '-m', 'base']);
  rows.stash = median(
    Array.from({ length: 3 }, (_, i) => {
      fs.writeFileSync(abs, `// stash round ${i}\n`);
      return timeOnce(() => {
        git(['-C', root, 'stash', 'push', '-q']);
        git(['-C', root, 'stash', 'pop', '-q']);
      });
    }),
  );

  // Shadow git: a separate GIT_DIR over the same work tree.
  const shadow = fs.mkdtempSync(path.join(os.tmpdir(), 'ew-shadow-'));
  made.push(shadow);
  const env = { GIT_DIR: shadow, GIT_WORK_TREE: root };
  rows.shadowFirst = timeOnce(() => {
    git(['init', '-q'], env);
    git(['add', '-A'], env);
    git(['commit', '-q', '--allow-empty', '-m', 'checkpoint 1'], env);
  });
  rows.shadowLater = median(
    Array.from({ length: 3 }, (_, i) => {
      fs.writeFileSync(abs, `// shadow round ${i}\n`);
      return timeOnce(() => {
        git(['add', '-A'], env);
        git(['commit', '-q', '--allow-empty', '-m', `checkpoint ${i + 2}`], env);
      });
    }),
  );
  // This build and the other one (EW_BENCH_BASE_DIST) on twin repositories, warmed the same way.
  const mine = await twin(path.join(here, '../dist'), n, target);
  const base = BASE ? await twin(BASE, n, target) : null;
  // The same 1-file change before each incremental workspace checkpoint and each shadow-git one, interleaved.
  const ours = [];
  const theirs = [];
  const shadowOnce = (i) => {
    fs.writeFileSync(abs, `// interleaved round ${i}\n`);
    theirs.push(
      timeOnce(() => {
        git(['add', '-A'], env);
        git(['commit', '-q', '--allow-empty', '-m', `round ${i}`], env);
      }),
    );
  };
  const oursOnce = (i) => {
    fs.writeFileSync(abs, `// interleaved round ${i}\n`);
    ours.push(timeOnce(() => cps.createWorkspace(`round ${i}`, 'bench', { kind: 'manual' })));
  };
  for (let i = 0; i < WARM + ROUNDS; i++) {
    if (i === WARM) {
      // The warm-up rounds end: their figures go to rows of their own.
      rows.coldOurs = median(ours.splice(0));
      rows.coldTheirs = median(theirs.splice(0));
      rows.coldMine = median(mine.takeCheckpoints());
      base?.takeCheckpoints();
    }
    if (i % 2 === 0) {
      oursOnce(i);
      shadowOnce(i);
      mine.checkpoint(i);
      base?.checkpoint(i);
    } else {
      base?.checkpoint(i);
      mine.checkpoint(i);
      shadowOnce(i);
      oursOnce(i);
    }
  }
  rows.wsSecond = median(ours);
  rows.shadowPaired = median(theirs);
  // What a command run through editwarden adds over the bare command: its index before (kept as the next one's base) and the one-walk diff after.
  // Two cases: the tree unchanged since the last command (a read-only command after another), and a file edited since (the index is rewritten).
  mine.warm();
  base?.warm();
  await new Promise((r) => setTimeout(r, 2500)); // Past the racy window of the warm-up's scan (index-diff.ts), for every build alike.
  for (let i = 0; i < ROUNDS; i++) {
    if (base && i % 2 === 1) base.wrapped(i);
    mine.wrapped(i);
    if (base && i % 2 === 0) base.wrapped(i);
  }
  rows.mine = mine.medians();
  rows.wrapped = rows.mine.unchanged;
  rows.wrappedEdited = rows.mine.edited;
  if (base) rows.base = base.medians();
  // The walk alone (list, rules, one lstat per file): on the calling thread only, and with the stats on the pool's threads.
  const { walkWorkspace } = await dist('workspace/checkpoints/walk.js');
  const { sharedStatPool } = await dist('workspace/checkpoints/stat-pool.js');
  const pool = sharedStatPool();
  pool.start();
  pool.waitReady(10_000);
  const walkOne = [];
  const walkThreads = [];
  for (let i = 0; i < ROUNDS; i++) {
    walkOne.push(timeOnce(() => walkWorkspace(root, undefined, undefined, { pool: null })));
    walkThreads.push(timeOnce(() => walkWorkspace(root)));
  }
  rows.walkOne = median(walkOne);
  rows.walkThreads = median(walkThreads);
  rows.walkPoolUsable = pool.usable;
  // The floor of any checkpoint that must notice an edit without a file watcher: one lstat per file (what git does too).
  const files = Array.from({ length: n }, (_, i) => path.join(root, `pkg${Math.floor(i / 1000)}`, `mod${Math.floor(i / 100) % 10}`, `file${i}.ts`));
  rows.lstatFloor = median(
    Array.from({ length: 3 }, () =>
      timeOnce(() => {
        for (const f of files) fs.lstatSync(f);
      }),
    ),
  );
  // The same floor in C (bench/stat-floor.c): what any language pays for the stats alone, on one thread and on every core.
  rows.cFloor = cFloor(root, 1);
  rows.cFloorParallel = cFloor(root, os.availableParallelism());
  fs.rmSync(root, { recursive: true, force: true });
  fs.rmSync(shadow, { recursive: true, force: true });
  return rows;
}

/** The C stat floor's binary, compiled once per run; null (its rows left out, said once) where no C compiler is found. */
let statFloorBin;
function statFloor() {
  if (statFloorBin !== undefined) return statFloorBin;
  const out = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'ew-stat-floor-')), 'stat-floor');
  made.push(path.dirname(out));
  try {
    execFileSync('cc', ['-O2', '-pthread', '-o', out, path.join(here, 'stat-floor.c')], { stdio: ['ignore', 'pipe', 'pipe'] });
    statFloorBin = out;
  } catch {
    process.stderr.write('checkpoint bench: no C compiler (cc), the C floor rows are left out\n');
    statFloorBin = null;
  }
  return statFloorBin;
}

/** Median ms of 9 walks of `root` by the C floor with `threads` threads; null without a compiler. */
function cFloor(root, threads) {
  const bin = statFloor();
  return bin === null ? null : Number(execFileSync(bin, [root, '9', String(threads)], { encoding: 'utf8' }).trim());
}

export async function run() {
  const sizes = (process.env.EW_BENCH_SIZES ?? '5000,50000').split(',').map(Number);
  const results = {};
  try {
    for (const n of sizes) {
      process.stderr.write(`checkpoint bench: ${n} files…\n`);
      results[n] = await measure(n);
    }
  } finally {
    for (const dir of made.splice(0)) fs.rmSync(dir, { recursive: true, force: true });
  }
  const out = [];
  const k = (n) => `${n / 1000}k`;
  for (const n of sizes) {
    const r = results[n];
    out.push(
      { case: `1-file checkpoint, ${k(n)} files`, value: ms(r.fileCheckpoint), baseline: `shadow-git later ${ms(r.shadowLater)}`, ratio: ratio(r.shadowLater, r.fileCheckpoint), goal: '≥ 50x', note: 'median of 30' },
      { case: `1-file restore (+ safety checkpoint), ${k(n)}`, value: ms(r.fileRestore), baseline: `git stash push+pop ${ms(r.stash)}`, ratio: ratio(r.stash, r.fileRestore), goal: '', note: 'median of 30; stash median of 3' },
      { case: `1-file ws.commit (checkpoint+journal+write), ${k(n)}`, value: ms(r.txCommit), baseline: `shadow-git later ${ms(r.shadowLater)}`, ratio: ratio(r.shadowLater, r.txCommit), goal: '', note: 'median of 30, fsynced' },
      { case: `workspace checkpoint, first, ${k(n)}`, value: ms(r.wsFirst), baseline: `shadow-git first ${ms(r.shadowFirst)}`, ratio: ratio(r.shadowFirst, r.wsFirst), goal: '', note: 'reads + stores every file' },
      {
        case: `incremental workspace checkpoint, ${k(n)} files`,
        value: ms(r.wsSecond),
        baseline: `shadow-git later ${ms(r.shadowPaired)}`,
        ratio: ratio(r.wsSecond, r.shadowPaired),
        goal: '≤ 0.5×',
        met: r.wsSecond <= 0.5 * r.shadowPaired ? 'met' : 'not met',
        note: `time ratio ours/git; medians of ${ROUNDS} interleaved rounds after ${WARM} warm-up rounds (next row), same 1-file change; stat cache; load ${os.loadavg()[0].toFixed(1)}`,
      },
      ...(WARM > 0
        ? [
            {
              case: `incremental workspace checkpoint, ${k(n)} files, the process's first ${WARM} rounds (warm-up)`,
              value: ms(r.coldOurs),
              baseline: `shadow-git later ${ms(r.coldTheirs)}`,
              ratio: ratio(r.coldOurs, r.coldTheirs),
              note: `medians of the warm-up rounds, the same interleaving; twin repository ${ms(r.coldMine)}: V8 still compiling, the stat threads starting`,
            },
          ]
        : []),
      {
        case: `incremental workspace checkpoint, ${k(n)} files, twin repository`,
        value: ms(r.mine.checkpoint),
        baseline: `shadow-git later ${ms(r.shadowPaired)}`,
        ratio: ratio(r.mine.checkpoint, r.shadowPaired),
        note: "a fresh repository of its own (no other rows' history), the same rounds",
      },
      ...(r.base
        ? [
            {
              case: `incremental workspace checkpoint, ${k(n)} files, ${BASE}`,
              value: ms(r.base.checkpoint),
              baseline: `shadow-git later ${ms(r.shadowPaired)}`,
              ratio: ratio(r.base.checkpoint, r.shadowPaired),
              note: `its twin repository, the same rounds, interleaved with this build's twin (${ms(r.mine.checkpoint)})`,
            },
          ]
        : []),
      {
        case: `wrapped command overhead (index before + diff after), ${k(n)} files, tree unchanged since the last command`,
        value: ms(r.wrapped),
        baseline: r.base ? `${BASE}: ${ms(r.base.unchanged)} (CPU ${ms(r.base.unchangedCpu)})` : `floor: lstat per file ×2 ${ms(2 * r.lstatFloor)}`,
        ratio: r.base ? ratio(r.wrapped, r.base.unchanged) : ratio(r.wrapped, 2 * r.lstatFloor),
        goal: n <= 5000 ? '≤ 50 ms' : '',
        met: n <= 5000 ? (r.wrapped <= 50 ? 'met' : 'not met') : '',
        note: `added over the bare command (a wrapped \`true\`), median of ${ROUNDS}${r.base ? ' interleaved' : ''}; CPU ${ms(r.mine.unchangedCpu)}; index reused (no write) ${r.mine.reused} of ${2 * ROUNDS} commands; floor (two stat passes) ${ms(2 * r.lstatFloor)}; load ${os.loadavg()[0].toFixed(1)}`,
      },
      {
        case: `wrapped command overhead, ${k(n)} files, a file edited since the last command`,
        value: ms(r.wrappedEdited),
        baseline: r.base ? `${BASE}: ${ms(r.base.edited)} (CPU ${ms(r.base.editedCpu)})` : `floor: lstat per file ×2 ${ms(2 * r.lstatFloor)}`,
        ratio: r.base ? ratio(r.wrappedEdited, r.base.edited) : ratio(r.wrappedEdited, 2 * r.lstatFloor),
        goal: n <= 5000 ? '≤ 50 ms' : '',
        met: n <= 5000 ? (r.wrappedEdited <= 50 ? 'met' : 'not met') : '',
        note: `the index is written anew (its manifest, the stat cache), median of ${ROUNDS}; CPU ${ms(r.mine.editedCpu)}; load ${os.loadavg()[0].toFixed(1)}`,
      },
      {
        case: `the walk alone (list + rules + lstat), stats on the pool's threads, ${k(n)} files`,
        value: ms(r.walkThreads),
        baseline: `calling thread only ${ms(r.walkOne)}`,
        ratio: ratio(r.walkThreads, r.walkOne),
        note: `walkWorkspace, median of ${ROUNDS} interleaved rounds; threads ${r.walkPoolUsable ? 'up' : 'NOT up (both rows on one thread)'}; load ${os.loadavg()[0].toFixed(1)}`,
      },
      {
        case: `floor: one lstat per file (Node, by path), ${k(n)} files`,
        value: ms(r.lstatFloor),
        baseline: `shadow-git later ${ms(r.shadowPaired)}`,
        ratio: ratio(r.lstatFloor, r.shadowPaired),
        note: 'what any checkpoint that must see every edit pays before anything else (median of 3)',
      },
      ...(r.cFloor === null
        ? []
        : [
            {
              case: `floor in C: readdir + lstat of every entry, one thread, ${k(n)} files`,
              value: ms(r.cFloor),
              baseline: `shadow-git later ${ms(r.shadowPaired)}`,
              ratio: ratio(r.cFloor, r.shadowPaired),
              note: 'bench/stat-floor.c, median of 9: the stats alone, nothing compared or written',
            },
            {
              case: `floor in C, ${os.availableParallelism()} threads, ${k(n)} files`,
              value: ms(r.cFloorParallel),
              baseline: `shadow-git later ${ms(r.shadowPaired)}`,
              ratio: ratio(r.cFloorParallel, r.shadowPaired),
              note: 'the same walk, folders shared out through one queue (as git splits its index stats over threads)',
            },
          ]),
    );
  }
  if (sizes.length >= 2) {
    const small = results[sizes[0]];
    const large = results[sizes[sizes.length - 1]];
    out.push({
      case: `1-file checkpoint, ${k(sizes[sizes.length - 1])} vs ${k(sizes[0])} files`,
      value: ms(large.fileCheckpoint),
      baseline: ms(small.fileCheckpoint),
      ratio: ratio(large.fileCheckpoint, small.fileCheckpoint),
      goal: 'flat (~1x)',
      note: `shadow-git later grows ${ratio(large.shadowLater, small.shadowLater)}`,
    });
  }
  return out;
}
