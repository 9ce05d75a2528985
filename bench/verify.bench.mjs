// Runner overhead: runCommand (own process group, log files, tail, leftover
// check, result.json) against a bare spawn of the same command, in the same
// run, interleaved so machine noise hits both alike. Goal: ≤ 15 ms added.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { spawn } from 'node:child_process';
import { runCommand } from '../dist/verify/runner.js';
import { median, ms } from './stats.mjs';

function bare(command) {
  return new Promise((resolve) => {
    const child = spawn('/bin/sh', ['-c', command], { stdio: ['ignore', 'pipe', 'pipe'] });
    child.stdout.resume();
    child.stderr.resume();
    child.on('close', resolve);
  });
}

async function measure(command, iterations, dir) {
  const base = [];
  const ours = [];
  for (let i = 0; i < iterations; i++) {
    let t0 = process.hrtime.bigint();
    await bare(command);
    base.push(Number(process.hrtime.bigint() - t0) / 1e6);
    t0 = process.hrtime.bigint();
    await runCommand({ command, cwd: dir, timeoutMs: 60_000, artifactDir: path.join(dir, 'runs', String(i)) });
    ours.push(Number(process.hrtime.bigint() - t0) / 1e6);
  }
  return { base: median(base), ours: median(ours) };
}

export async function run() {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ew-bench-verify-'));
  try {
    await measure('true', 5, dir); // warm-up
    const rows = [];
    for (const [command, iterations] of [['true', 60], ['sleep 1', 6]]) {
      const { base, ours } = await measure(command, iterations, dir);
      rows.push({
        case: `runner overhead: ${command}`,
        value: ms(ours - base),
        baseline: `bare ${ms(base)}, runner ${ms(ours)}`,
        ratio: `${(ours / base).toFixed(2)}x`,
        goal: '≤ 15 ms added',
        note: `median of ${iterations}; artifacts on; ${ours - base <= 15 ? 'met' : 'NOT met'}`,
      });
    }
    return rows;
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}
