// What each piece of a one-shot start costs in CPU (user + sys), next to `node -e 0`, interleaved round by round:
// an empty ES module, the built-ins an edit loads that a bare `node` does not (crypto, child_process,
// worker_threads, fs/promises + readline), and `editwarden edit --dry-run` itself (its compile cache off).
// Usage: node bench/startup-pieces.mjs [ROUNDS]   (run it with the Node to measure: node@22, node@24 …)
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { median } from './stats.mjs';

const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const N = Number(process.argv[2] ?? 11);
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'ew-pieces-'));
try {
  fs.writeFileSync(path.join(tmp, 'empty.mjs'), '');
  fs.writeFileSync(path.join(tmp, 'a.txt'), 'hello\nworld\n');
  const cases = {
    'node -e 0': ['-e', '0'],
    'an empty ES module': [path.join(tmp, 'empty.mjs')],
    crypto: ['-e', "require('crypto')"],
    child_process: ['-e', "require('child_process')"],
    worker_threads: ['-e', "require('worker_threads')"],
    'fs/promises + readline': ['-e', "require('fs/promises');require('readline')"],
    'all four': ['-e', "require('crypto');require('child_process');require('worker_threads');require('fs/promises');require('readline')"],
    'edit --dry-run': [path.join(repo, 'bin', 'editwarden'), 'edit', 'a.txt', '--old', 'world', '--new', 'there', '--dry-run'],
  };
  const cpu = (args) => {
    const r = spawnSync('bash', ['-c', 'TIMEFORMAT="%3U %3S"; { time "$@" >/dev/null 2>/dev/null; } 2>&1', 'bash', process.execPath, ...args], {
      cwd: tmp,
      encoding: 'utf8',
      env: { ...process.env, EDITWARDEN_COMPILE_CACHE: 'off' },
    });
    const [u, s] = r.stdout.trim().split('\n').pop().split(' ').map(Number);
    return (u + s) * 1000;
  };
  const got = Object.fromEntries(Object.keys(cases).map((k) => [k, []]));
  const load = os.loadavg()[0];
  for (let i = 0; i < N; i++) for (const [k, a] of Object.entries(cases)) got[k].push(cpu(a));
  const base = median(got['node -e 0']);
  console.log(`Node ${process.version}, load ${load.toFixed(1)} → ${os.loadavg()[0].toFixed(1)}, medians of ${N} rounds (CPU, user + sys)`);
  for (const k of Object.keys(cases)) console.log(`  ${k.padEnd(24)} ${median(got[k]).toFixed(0).padStart(5)} ms  +${(median(got[k]) - base).toFixed(0)} ms  (${(median(got[k]) / base).toFixed(2)}x)`);
} finally {
  fs.rmSync(tmp, { recursive: true, force: true });
}
