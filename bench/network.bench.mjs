#!/usr/bin/env node
// What a host-list network costs a command: `true` in the sandbox with sandbox.network off (no proxy) and with a
// host list (the filtering proxy started for the command, the bridge started first inside the sandbox by Node),
// interleaved, medians. Usage: npm run build && node bench/network.bench.mjs [N=20]
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
const dist = path.resolve(import.meta.dirname, '../dist');
const { runCommand } = await import(path.join(dist, 'verify/runner.js'));
const { commandSandbox } = await import(path.join(dist, 'sandbox/index.js'));
const { defaultConfig } = await import(path.join(dist, 'config/config.js'));
const N = Number(process.argv[2] ?? 20);
const root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'ew-bench-net-')));
const cfg = defaultConfig();
const cases = { off: 'off', hosts: ['registry.npmjs.org'] };
const times = { off: [], hosts: [] };
const sandboxes = Object.fromEntries(Object.entries(cases).map(([k, network]) => [k, commandSandbox({ root, stateDir: path.join(root, '.editwarden') }, { sandbox: { ...cfg.sandbox, network } })]));
try {
  for (let i = 0; i < N + 2; i++) {
    for (const k of i % 2 ? ['off', 'hosts'] : ['hosts', 'off']) {
      const t0 = performance.now();
      const r = await runCommand({ command: 'true', cwd: root, sandbox: sandboxes[k], timeoutMs: 30_000 });
      if (r.exit_code !== 0) throw new Error(`${k}: ${r.tail}`);
      if (i >= 2) times[k].push(performance.now() - t0);
    }
  }
} finally {
  fs.rmSync(root, { recursive: true, force: true });
}
const median = (a) => [...a].sort((x, y) => x - y)[Math.floor(a.length / 2)];
for (const k of Object.keys(times)) console.log(`${k.padEnd(6)} median ${median(times[k]).toFixed(1)} ms over ${times[k].length}`);
