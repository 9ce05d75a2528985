// Small statistics helpers shared by the benchmarks.
import fs from 'node:fs';
import path from 'node:path';
export function percentile(samples, p) {
  const sorted = [...samples].sort((a, b) => a - b);
  const idx = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[idx];
}
export const median = (s) => percentile(s, 50);
export function timeIt(fn, iterations) {
  const samples = [];
  for (let i = 0; i < iterations; i++) {
    const t0 = process.hrtime.bigint();
    fn(i);
    samples.push(Number(process.hrtime.bigint() - t0) / 1e6);
  }
  return samples;
}
export async function timeItAsync(fn, iterations) {
  const samples = [];
  for (let i = 0; i < iterations; i++) {
    const t0 = process.hrtime.bigint();
    await fn(i);
    samples.push(Number(process.hrtime.bigint() - t0) / 1e6);
  }
  return samples;
}
export const ms = (x) => `${x.toFixed(3)} ms`;
export const ratio = (a, b) => `${(a / b).toFixed(2)}x`;

/** CPU milliseconds (user + sys, all threads) of one run of `argv` as a child process, which must exit 0 (`env`: its environment, default this one's). */
export async function childCpuMs(argv, cwd, env = process.env) {
  const { spawnSync } = await import('node:child_process');
  const r = spawnSync('bash', ['-c', 'TIMEFORMAT="%3U %3S"; { time "$@" >/dev/null 2>/dev/null; } 2>&1; exit ${PIPESTATUS[0]}', 'bash', ...argv], { cwd, encoding: 'utf8', env });
  const m = r.stdout
    .trim()
    .split('\n')
    .pop()
    .match(/^([\d.]+) ([\d.]+)$/);
  if (r.status !== 0 || !m) throw new Error(`${argv.join(' ')} failed (${r.status}): ${r.stdout}${r.stderr}`);
  return (Number(m[1]) + Number(m[2])) * 1000;
}

/** The durable floor of replacing one file: temp + fsync + rename + folder fsync (ms). */
export function durableFloor(dir, text) {
  const t0 = process.hrtime.bigint();
  const temp = path.join(dir, `.floor-${Math.random().toString(16).slice(2)}`);
  const fd = fs.openSync(temp, 'wx', 0o644);
  fs.writeSync(fd, text);
  fs.fsyncSync(fd);
  fs.closeSync(fd);
  fs.renameSync(temp, path.join(dir, 'floor.txt'));
  const d = fs.openSync(dir, 'r');
  fs.fsyncSync(d);
  fs.closeSync(d);
  return Number(process.hrtime.bigint() - t0) / 1e6;
}
