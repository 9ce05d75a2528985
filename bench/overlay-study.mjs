// The overlay study (docs/sandbox.md, "The overlay route"): a prototype, not
// shipped code. Measures one sandboxed `true` three ways on synthetic trees
// of 5,000 and 50,000 files — bubblewrap alone (the bare command), the
// checkpoint route (editwarden's command index before + the one-walk diff
// after, around the same bubblewrap run: what execute_command and the hooked
// shell pay), and the overlay route (a user namespace mounting an overlay
// of the root, bubblewrap inside it, then collecting the upper layer and
// removing it) — and checks the semantics the overlay changes: deletes as
// whiteouts, opaque folders, renames of existing folders, hard links, modes,
// owners. Linux with bubblewrap and unprivileged user namespaces only.
// Run: npm run build && node bench/overlay-study.mjs [sizes] [rounds]
// EW_BENCH_BASE_DIST=/path/to/other/dist adds that build's checkpoint route
// (e.g. main's), interleaved round by round on an identical tree of its own.
import { execFileSync, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
const OURS = path.join(here, '../dist');
const BASE = process.env.EW_BENCH_BASE_DIST;
const distOf = (dir) => (p) => import(pathToFileURL(path.join(dir, p)).href);
const sizes = (process.argv[2] ?? '5000,50000').split(',').map(Number);
const ROUNDS = Number(process.argv[3] ?? 9);
const made = [];
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const time = (fn) => {
  const t0 = performance.now();
  fn();
  return performance.now() - t0;
};

function makeTree(n) {
  const root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), `ew-ov-${n}-`)));
  made.push(root);
  for (let i = 0; i < n; i++) {
    const dir = path.join(root, 'tree', `pkg${Math.floor(i / 1000)}`, `mod${Math.floor(i / 100) % 10}`);
    if (i % 100 === 0) fs.mkdirSync(dir, { recursive: true });
    fs.writeFileSync(path.join(dir, `file${i}.ts`), `export const v${i} = ${i};\n`);
  }
  return root;
}

/** The same bubblewrap line for every route: the host read-only, the project writable, its own /dev, /proc and /tmp. */
const bwrap = (project, command) => [
  '--ro-bind',
  '/',
  '/',
  '--dev',
  '/dev',
  '--proc',
  '/proc',
  '--tmpfs',
  '/tmp',
  '--bind',
  project,
  project,
  '--unshare-pid',
  '--unshare-net',
  '--die-with-parent',
  '--chdir',
  project,
  '/bin/sh',
  '-c',
  command,
];

function run(argv) {
  const r = spawnSync(argv[0], argv.slice(1), { stdio: ['ignore', 'pipe', 'pipe'] });
  if (r.status !== 0) throw new Error(`${argv.slice(0, 3).join(' ')} … exited ${r.status}: ${r.stderr}`);
  return r.stdout.toString();
}

/** The overlay route: mount an overlay of the project over itself in a new user+mount namespace, run bubblewrap inside, return the upper layer. */
function overlayRun(project, command, scratch) {
  const up = path.join(scratch, 'up');
  const work = path.join(scratch, 'work');
  fs.mkdirSync(up);
  fs.mkdirSync(work);
  const mount = `mount -t overlay overlay -o userxattr,lowerdir=${project},upperdir=${up},workdir=${work} ${project}`;
  const inner = ['bwrap', ...bwrap(project, command)].map((a) => `'${a.replaceAll("'", "'\\''")}'`).join(' ');
  run(['unshare', '-Urm', '--propagation', 'private', '/bin/sh', '-c', `${mount} && exec ${inner}`]);
  return up;
}

/** What the upper layer holds: O(changed) — written files, whiteouts (deletes) and opaque folders. */
function collect(up) {
  const out = [];
  const walk = (rel) => {
    for (const d of fs.readdirSync(path.join(up, rel), { withFileTypes: true })) {
      const r = rel ? `${rel}/${d.name}` : d.name;
      const st = fs.lstatSync(path.join(up, r));
      if (st.isCharacterDevice() && st.rdev === 0) out.push({ path: r, change: 'deleted' });
      else if (d.isDirectory()) {
        out.push({ path: r, change: 'dir' });
        walk(r);
      } else out.push({ path: r, change: 'written' });
    }
  };
  walk('');
  return out;
}

/** One build's checkpoint route on a tree of its own: a sandboxed `true` with the index before and the diff after. */
async function checkpointSide(dir, n) {
  const d = distOf(dir);
  const { openWorkspace } = await d('workspace/open.js');
  const { CommandEffects } = await d('guard/command-effects.js');
  const root = makeTree(n);
  const { transactions } = openWorkspace(root);
  const effects = new CommandEffects(transactions.checkpoints);
  effects.after(effects.before('warm', { command: 'true', run: 'bench' })); // The first index reads every file once.
  let edits = 0;
  const once = () =>
    time(() => {
      const mark = effects.before('round', { command: 'true', run: 'bench' });
      run(['bwrap', ...bwrap(root, 'true')]);
      effects.after(mark);
    });
  return {
    root,
    unchanged: [],
    edited: [],
    round() {
      this.unchanged.push(once());
      // A file edited since the last command (a native edit, a person): the index must be written anew.
      fs.writeFileSync(path.join(root, 'tree/pkg0/mod0/file7.ts'), `export const edited = ${edits++};\n`);
      this.edited.push(once());
    },
  };
}

async function measure(n) {
  const ours = await checkpointSide(OURS, n);
  const base = BASE ? await checkpointSide(BASE, n) : null;
  const root = ours.root;
  const bare = [];
  const overlay = [];
  await new Promise((r) => setTimeout(r, 2500)); // Past the racy window of the warm-up's scan (index-diff.ts).
  for (let i = 0; i < ROUNDS; i++) {
    bare.push(time(() => run(['bwrap', ...bwrap(root, 'true')])));
    // Alternate which build goes first, so neither always pays a cold cache.
    if (base && i % 2 === 1) base.round();
    ours.round();
    if (base && i % 2 === 0) base.round();
    overlay.push(
      time(() => {
        const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'ew-ov-scratch-'));
        try {
          collect(overlayRun(root, 'true', scratch));
        } finally {
          fs.rmSync(scratch, { recursive: true, force: true });
        }
      }),
    );
  }
  const side = (s) => (s ? { unchanged: median(s.unchanged), edited: median(s.edited) } : null);
  return { n, bare: median(bare), ours: side(ours), base: side(base), overlay: median(overlay) };
}

/** The semantics an overlay changes, each tried for real. */
function semantics() {
  const root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'ew-ov-sem-')));
  made.push(root);
  const put = (rel, text) => {
    fs.mkdirSync(path.dirname(path.join(root, rel)), { recursive: true });
    fs.writeFileSync(path.join(root, rel), text);
  };
  put('a.txt', 'a\n');
  put('dir/b.txt', 'b\n');
  put('old/c.txt', 'c\n');
  fs.linkSync(path.join(root, 'a.txt'), path.join(root, 'hard.txt'));
  const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'ew-ov-scratch-'));
  made.push(scratch);
  const script = [
    'echo A >> a.txt; echo "hard link after write: $(cat hard.txt | tr "\\n" " ")"',
    'rm -rf dir && mkdir dir && echo new > dir/n.txt',
    'mv old renamed 2>&1; echo "rename of an existing folder: exit $?"',
    'chmod 700 a.txt',
  ].join('; ');
  const up = overlayRun(root, script, scratch);
  const upper = collect(up);
  const xattrs = (p) => {
    try {
      return execFileSync('getfattr', ['-d', '-m', '-', '--absolute-names', p], { stdio: ['ignore', 'pipe', 'ignore'] })
        .toString()
        .trim();
    } catch {
      return '(getfattr unavailable)';
    }
  };
  return { upper, opaque: xattrs(path.join(up, 'dir')), rootUntouched: fs.readFileSync(path.join(root, 'a.txt'), 'utf8') === 'a\n', upperModeOfA: (fs.statSync(path.join(up, 'a.txt')).mode & 0o777).toString(8) };
}

try {
  for (const n of sizes) {
    const r = await measure(n);
    const k = `${n / 1000}k`;
    const route = (label, s) => (s ? ` · ${label}: unchanged tree ${s.unchanged.toFixed(1)} ms (+${(s.unchanged - r.bare).toFixed(1)}), after a 1-file edit ${s.edited.toFixed(1)} ms (+${(s.edited - r.bare).toFixed(1)})` : '');
    console.log(
      `${k} files: bwrap alone ${r.bare.toFixed(1)} ms${route('checkpoint route', r.ours)}${route(`checkpoint route of ${BASE}`, r.base)} · overlay route ${r.overlay.toFixed(1)} ms (+${(r.overlay - r.bare).toFixed(1)}) — medians of ${ROUNDS}, interleaved, load ${os.loadavg()[0].toFixed(1)}`,
    );
  }
  console.log(JSON.stringify(semantics(), null, 1));
} finally {
  for (const dir of made) fs.rmSync(dir, { recursive: true, force: true });
}
