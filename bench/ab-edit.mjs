#!/usr/bin/env node
// A/B of two builds in one process, interleaved (same machine moment): applyRequests with the transaction layer, and a ToolRunner edit_file, on a 1,000-line file.
// Usage: node bench/ab-edit.mjs OLD_DIST NEW_DIST [N=150]   (e.g. a checkout of main built into /tmp/old/dist, and ./dist)
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
const [oldDist, newDist, N = '150'] = process.argv.slice(2);
const libs = { old: await import(path.resolve(oldDist, 'index.js')), new: await import(path.resolve(newDist, 'index.js')) };
const lines = Array.from({ length: 1000 }, (_, i) => `line ${i} some text`).join('\n') + '\n';
const setups = {};
for (const k of ['old', 'new']) {
  const root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), `ew-ab-${k}-`)));
  fs.writeFileSync(path.join(root, 'f.txt'), lines);
  const lib = libs[k];
  const { ws, transactions } = lib.openWorkspace(root);
  const config = lib.defaultConfig();
  config.constraints.max_files = 1e6;
  config.constraints.max_lines_changed = 1e9;
  const runner = lib.ToolRunner.start({ ws, config, transactions, artifacts: false });
  setups[k] = { lib, ws, runner, root, flip: false };
}
const t = { old: { apply: [], tool: [] }, new: { apply: [], tool: [] } };
for (let i = 0; i < Number(N); i++) {
  for (const k of i % 2 ? ['old', 'new'] : ['new', 'old']) {
    const s = setups[k];
    const [a, b] = s.flip ? ['line 500 other', 'line 500 some'] : ['line 500 some', 'line 500 other'];
    s.flip = !s.flip;
    let t0 = performance.now();
    await s.lib.applyRequests(s.ws, [{ path: 'f.txt', action: 'edit', oldText: a, newText: b }]);
    t[k].apply.push(performance.now() - t0);
    const [c, d] = s.flip ? ['line 501 some', 'line 501 other'] : ['line 501 other', 'line 501 some'];
    t0 = performance.now();
    const r = await s.runner.call({ tool: 'edit_file', args: { path: 'f.txt', old_text: c, new_text: d } });
    if (r.status !== 'ok') throw new Error(r.output);
    t[k].tool.push(performance.now() - t0);
  }
}
const med = (xs) => {
  const s = [...xs].sort((x, y) => x - y);
  return s[Math.floor(s.length / 2)];
};
for (const what of ['apply', 'tool']) console.log(`${what}: old ${med(t.old[what]).toFixed(3)} ms, new ${med(t.new[what]).toFixed(3)} ms, new/old ${(med(t.new[what]) / med(t.old[what])).toFixed(3)}x (median of ${N})`);
for (const s of Object.values(setups)) fs.rmSync(s.root, { recursive: true, force: true });
