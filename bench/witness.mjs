// What the write witness costs a guarded command (issue 37, src/sandbox/witness.ts):
// the same command in the same bwrap sandbox, plain and under `strace -f`
// (runCommand's `witness`), interleaved round by round so load hits both
// alike; medians of N rounds (argv[2], default 7). Commands: a no-op, git
// status, a node process reading 200 files, node loading typescript (~9 MB
// of JS: a tool start), a shell loop writing 200 files.
//   npm run build && node bench/witness.mjs [N]
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { commandSandbox } from '../dist/sandbox/for-workspace.js';
import { WitnessFile, witnessProgram } from '../dist/sandbox/witness.js';
import { runCommand } from '../dist/verify/runner.js';
import { median } from './stats.mjs';

const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const N = Number(process.argv[2] ?? 7);
if (witnessProgram() === null) {
  console.log('no usable strace here: the witness is off, nothing to measure');
  process.exit(0);
}
const root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'ew-witnessbench-')));
try {
  for (let i = 1; i <= 200; i++) fs.writeFileSync(path.join(root, `f${i}.txt`), `line ${i}\n`);
  spawnSync('git', ['init', '-q'], { cwd: root });
  spawnSync('git', ['-c', 'user.email=b@b', '-c', 'user.name=b', 'commit', '-qam', 'x', '--allow-empty'], { cwd: root });
  spawnSync('git', ['add', '-A'], { cwd: root });
  const sandbox = commandSandbox({ root, stateDir: path.join(root, '.editwarden') }, {});
  const commands = {
    true: 'true',
    'git status': 'git status --porcelain',
    'node reads 200 files': `node -e "const fs=require('fs');for(let i=1;i<=200;i++)fs.readFileSync('f'+i+'.txt')"`,
    'node loads typescript': `node -e "require('${path.join(repo, 'node_modules', 'typescript')}')"`,
    'sh writes 200 files': 'for i in $(seq 1 200); do echo x >> f$i.txt; done',
  };
  console.log('command | plain (ms) | witnessed (ms) | added');
  for (const [name, command] of Object.entries(commands)) {
    const times = { plain: [], witnessed: [] };
    for (let r = 0; r < N; r++) {
      for (const mode of ['plain', 'witnessed']) {
        const w = new WitnessFile();
        const t0 = performance.now();
        const res = await runCommand({ command, cwd: root, sandbox, timeoutMs: 120_000, ...(mode === 'witnessed' ? { witness: w.path } : {}) });
        times[mode].push(performance.now() - t0);
        w.dispose();
        if (res.exit_code !== 0) throw new Error(`${name}: exit ${res.exit_code}`);
        if (mode === 'witnessed' && res.witness !== 'strace') throw new Error(`${name}: ran without the witness`);
      }
    }
    const p = median(times.plain);
    const w = median(times.witnessed);
    console.log(`${name} | ${p.toFixed(0)} | ${w.toFixed(0)} | +${(w - p).toFixed(0)} ms (${((w / p - 1) * 100).toFixed(0)}%)`);
  }
} finally {
  fs.rmSync(root, { recursive: true, force: true });
}
