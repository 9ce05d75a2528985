// The time a guarded command adds (its index before, its diff after: CommandEffects around a `true`, as the process that
// keeps the project open runs them) when the tree is watched (docs/checkpoints.md, "The watch") against the stat walk,
// at 5,000 and 200,000 files, interleaved round by round on the same tree, medians. Goal (issue 44): a command that
// changes nothing costs about the same at 200k as at 5k — growth ≤ 4×. Also what the watch cannot make cheap: the first
// command in a project (the index is built once: every file read and stored), the helper's first scan of the tree,
// and a command after a tracked file was edited (the walk runs: a changed tree is walked as before).
// Run: npm run build && node bench/run.mjs watch   (minutes: it writes and indexes a 200,000-file tree)
// EW_BENCH_SIZES=5000,200000 overrides the sizes; EW_BENCH_ROUNDS=15 the rounds.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { median, ms, ratio } from './stats.mjs';

export const onlyWhenNamed = true;

const here = path.dirname(fileURLToPath(import.meta.url));
const dist = (p) => import(pathToFileURL(path.join(here, '../dist', p)).href);
const ROUNDS = Number(process.env.EW_BENCH_ROUNDS ?? 15);
const SIZES = (process.env.EW_BENCH_SIZES ?? '5000,200000').split(',').map(Number);

/** `n` small files, 100 per folder, two folder levels (as the checkpoint bench's trees). */
function makeTree(n) {
  const root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'ew-bench-watch-')));
  fs.writeFileSync(path.join(root, '.gitignore'), 'node_modules/\n*.log\n');
  for (let i = 0; i < n; i++) {
    const dir = path.join(root, 'src', `p${Math.floor(i / 1000)}`, `m${Math.floor(i / 100) % 10}`);
    if (i % 100 === 0) fs.mkdirSync(dir, { recursive: true });
    fs.writeFileSync(path.join(dir, `f${i}.ts`), `export const v${i} = ${i};\n`);
  }
  return root;
}

const wall = (fn) => {
  const t0 = process.hrtime.bigint();
  fn();
  return Number(process.hrtime.bigint() - t0) / 1e6;
};

export async function run() {
  const { openWorkspace } = await dist('workspace/open.js');
  const { CommandEffects } = await dist('guard/command-effects.js');
  const { WatchedTree } = await dist('workspace/checkpoints/watched-tree.js');
  const { TreeWatch } = await dist('workspace/checkpoints/tree-watch.js');
  const rows = [];
  const made = [];
  const per = {};
  try {
    for (const n of SIZES) {
      const root = makeTree(n);
      made.push(root);
      const cps = openWorkspace(root).transactions.checkpoints;
      const effects = new CommandEffects(cps);
      const tree = new WatchedTree(root, { timeoutMs: 60_000 });
      // As the guarded shell runs `true`: under the write witness, which names only bubblewrap's own setup.
      const witness = { paths: new Set(), tails: new Set(['newroot', 'oldroot']), trees: new Set() };
      const command = () => effects.after(effects.before('bench', { command: 'true', run: 'bench' }), { witness });
      // The stat walk: the same service with no tree (each command walks); the watched: the tree attached.
      const walked = () => {
        cps.tree = null;
        return wall(command);
      };
      const watched = () => {
        cps.tree = tree;
        return wall(command);
      };
      const first = walked();
      // The first watched command arms the watch (the helper starts its scan); the second is measured from a mark.
      watched();
      tree.watch.whenReady(600_000);
      // The helper's first scan, on its own: a second watch of the same tree, from its start to its first answer.
      const probe = new TreeWatch(root);
      const scanStart = process.hrtime.bigint();
      probe.begin();
      probe.whenReady(600_000);
      const scan = Number(process.hrtime.bigint() - scanStart) / 1e6;
      probe.stop();
      // Past the racy margin (a file changed within 2 s of the scan that read it is read again), as in real use.
      await new Promise((r) => setTimeout(r, 2200));
      for (let i = 0; i < 3; i++) {
        walked();
        watched();
      }
      const s = { walked: [], watched: [] };
      for (let i = 0; i < ROUNDS; i++) {
        for (const which of i % 2 === 0 ? ['walked', 'watched'] : ['watched', 'walked']) s[which].push(which === 'walked' ? walked() : watched());
      }
      const reused = tree.counts.indexReused;
      // A tracked file edited since the last command: the watched route walks (the tree changed), as the walk does.
      const edited = [];
      for (let i = 0; i < 5; i++) {
        fs.writeFileSync(path.join(root, 'src', 'p0', 'm0', 'f0.ts'), `export const v0 = ${i};\n`);
        edited.push(watched());
      }
      tree.stop();
      per[n] = { first, scan, walked: median(s.walked), watched: median(s.watched), edited: median(edited), reused, rounds: ROUNDS };
    }
    const load = os.loadavg()[0].toFixed(1);
    const k = (n) => `${n / 1000}k`;
    for (const n of SIZES) {
      const r = per[n];
      rows.push(
        {
          case: `time a guarded command adds (index before + diff after), tree unchanged, watched, ${k(n)} files`,
          value: ms(r.watched),
          baseline: `stat walk ${ms(r.walked)}`,
          ratio: ratio(r.watched, r.walked),
          goal: '',
          note: `median of ${r.rounds} interleaved; ${r.reused} of them reused the index by the watch; load ${load}`,
        },
        { case: `the same after a tracked file was edited, watched (the walk runs), ${k(n)} files`, value: ms(r.edited), baseline: `stat walk, unchanged ${ms(r.walked)}`, ratio: ratio(r.edited, r.walked), goal: '', note: 'median of 5' },
        { case: `first command in the project (the index built: every file read and stored), ${k(n)} files`, value: ms(r.first), baseline: '', ratio: '', goal: '', note: 'once per project; the watch does not change it' },
        {
          case: `the watch helper's first scan (python3 start + every folder watched), ${k(n)} files`,
          value: ms(r.scan),
          baseline: '',
          ratio: '',
          goal: '',
          note: 'once per server start, in the background (a command during it walks, it does not wait)',
        },
      );
    }
    if (SIZES.length > 1) {
      const lo = per[SIZES[0]];
      const hi = per[SIZES[SIZES.length - 1]];
      const growth = hi.watched / lo.watched;
      rows.push({
        case: `growth of a guarded command's added time, watched, ${k(SIZES[0])} → ${k(SIZES[SIZES.length - 1])} files`,
        value: `${growth.toFixed(2)}×`,
        baseline: `stat walk ${(hi.walked / lo.walked).toFixed(2)}×`,
        ratio: '',
        goal: '≤ 4×',
        met: growth <= 4 ? 'met' : 'not met',
        note: `${ms(lo.watched)} → ${ms(hi.watched)} (stat walk ${ms(lo.walked)} → ${ms(hi.walked)}); load ${load}`,
      });
    }
  } finally {
    for (const dir of made) fs.rmSync(dir, { recursive: true, force: true });
  }
  return rows;
}
