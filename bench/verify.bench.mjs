// Runner overhead: runCommand (own process group, log files, tail, leftover
// check, result.json) against a bare spawn of the same command, in the same
// run, interleaved so machine noise hits both alike. Goal: ≤ 15 ms added.
// Sandbox overhead: the same runner with the workspace's sandbox policy
// (bubblewrap here) against the runner without one, and against the bare
// spawn. Goal: ≤ 15 ms added by the sandbox.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { spawn } from 'node:child_process';
import { runCommand } from '../dist/verify/runner.js';
import { commandSandbox, detectSandbox } from '../dist/sandbox/index.js';
import { defaultConfig } from '../dist/config/config.js';
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
    await runCommand({ command, cwd: dir, sandbox: 'none', timeoutMs: 60_000, artifactDir: path.join(dir, 'runs', String(i)) });
    ours.push(Number(process.hrtime.bigint() - t0) / 1e6);
  }
  return { base: median(base), ours: median(ours) };
}

/** bare spawn, runner without a sandbox, runner in the sandbox: interleaved, medians. */
async function measureSandbox(command, iterations, dir, sandbox) {
  const base = [];
  const plain = [];
  const boxed = [];
  for (let i = 0; i < iterations; i++) {
    let t0 = process.hrtime.bigint();
    await bare(command);
    base.push(Number(process.hrtime.bigint() - t0) / 1e6);
    t0 = process.hrtime.bigint();
    await runCommand({ command, cwd: dir, sandbox: 'none', timeoutMs: 60_000, artifactDir: path.join(dir, '.editwarden', 'p', String(i)) });
    plain.push(Number(process.hrtime.bigint() - t0) / 1e6);
    t0 = process.hrtime.bigint();
    // The policy is built per command, as verify and execute_command do.
    await runCommand({ command, cwd: dir, sandbox: sandbox(), timeoutMs: 60_000, artifactDir: path.join(dir, '.editwarden', 's', String(i)) });
    boxed.push(Number(process.hrtime.bigint() - t0) / 1e6);
  }
  return { base: median(base), plain: median(plain), boxed: median(boxed) };
}

export async function run() {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ew-bench-verify-'));
  try {
    await measure('true', 5, dir); // warm-up
    const rows = [];
    for (const [command, iterations] of [
      ['true', 60],
      ['sleep 1', 6],
    ]) {
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
    const info = detectSandbox();
    if (info.kind !== 'none') {
      fs.mkdirSync(path.join(dir, '.git'), { recursive: true });
      fs.mkdirSync(path.join(dir, '.editwarden'), { recursive: true });
      const sandbox = () => commandSandbox({ root: dir, stateDir: path.join(dir, '.editwarden') }, defaultConfig());
      await measureSandbox('true', 5, dir, sandbox); // warm-up
      for (const [command, iterations] of [
        ['true', 60],
        ['sleep 1', 6],
      ]) {
        const { base, plain, boxed } = await measureSandbox(command, iterations, dir, sandbox);
        rows.push({
          case: `sandbox overhead (${info.kind}): ${command}`,
          value: ms(boxed - plain),
          baseline: `bare ${ms(base)}, runner ${ms(plain)}, runner+sandbox ${ms(boxed)}`,
          ratio: `${(boxed / plain).toFixed(2)}x runner, ${(boxed / base).toFixed(2)}x bare`,
          goal: '≤ 15 ms added',
          note: `median of ${iterations}; policy built per command; ${boxed - plain <= 15 ? 'met' : 'NOT met'}`,
        });
      }
    } else {
      rows.push({ case: 'sandbox overhead', value: 'n/a', baseline: '', ratio: '', goal: '≤ 15 ms added', note: `no sandbox here: ${info.detail}` });
    }
    return rows;
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}
