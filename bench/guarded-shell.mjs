// The guarded shell end to end: `editwarden shell --client claude --tool Bash -- true` (what a hooked
// client's Bash call runs) on a 5,000-file git project, as a process of its own each time, next to
// `bwrap … true` and `node -e 0`; with EW_BENCH_BASE_BIN=/path/to/other/bin/editwarden that build
// too, on a twin project, interleaved. The tree is unchanged between calls (the kept index is reused).
// Run: npm run build && node bench/guarded-shell.mjs [rounds]
import { execFileSync, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
const builds = { mine: path.join(here, '../bin/editwarden'), ...(process.env.EW_BENCH_BASE_BIN ? { main: process.env.EW_BENCH_BASE_BIN } : {}) };
const N = Number(process.argv[2] ?? 7);
function repo() {
  const root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'ew-hs-')));
  for (let i = 0; i < 5000; i++) {
    const dir = path.join(root, `pkg${Math.floor(i / 1000)}`, `mod${Math.floor(i / 100) % 10}`);
    if (i % 100 === 0) fs.mkdirSync(dir, { recursive: true });
    fs.writeFileSync(path.join(dir, `file${i}.ts`), `// file ${i}\n`);
  }
  execFileSync('git', ['-C', root, 'init', '-q']);
  return root;
}
const roots = Object.fromEntries(Object.keys(builds).map((b) => [b, repo()]));
const call = (b) => {
  const t = performance.now();
  const r = spawnSync(process.execPath, [builds[b], 'shell', '--client', 'claude', '--tool', 'Bash', '--root', roots[b], '--', 'true'], { encoding: 'utf8' });
  if (r.status !== 0) throw new Error(b + ' ' + r.status + r.stderr);
  return performance.now() - t;
};
const bare = () => {
  const t = performance.now();
  spawnSync('bwrap', ['--ro-bind', '/', '/', '--dev', '/dev', '--proc', '/proc', 'true']);
  return performance.now() - t;
};
for (const b of Object.keys(builds)) {
  call(b);
  call(b);
}
await new Promise((r) => setTimeout(r, 2500));
const s = { mine: [], main: [], bare: [], node: [] };
for (let i = 0; i < N; i++) {
  const order = i % 2 ? Object.keys(builds).reverse() : Object.keys(builds);
  for (const b of order) s[b].push(call(b));
  s.bare.push(bare());
  const t = performance.now();
  spawnSync(process.execPath, ['-e', '0']);
  s.node.push(performance.now() - t);
}
const med = (a) => [...a].sort((x, y) => x - y)[a.length >> 1].toFixed(0);
console.log(
  `editwarden shell -- true, 5k files, medians of ${N}: this build ${med(s.mine)} ms,${s.main.length ? ` ${builds.main} ${med(s.main)} ms,` : ''} bwrap true ${med(s.bare)} ms, node -e 0 ${med(s.node)} ms, load ${os.loadavg()[0].toFixed(1)}`,
);
for (const r of Object.values(roots)) fs.rmSync(r, { recursive: true, force: true });
