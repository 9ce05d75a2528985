#!/usr/bin/env node
// One concurrent writer of bench/fault.mjs's concurrency trials, a real
// process on the compiled library (dist/):
//   edit ROOT W M       — M edits through applyRequests (the CLI's path), slot W_j = 0 → 1
//   tool ROOT W M       — M edit_file calls through a ToolRunner (the MCP / agent path: plan, gate, commit)
//   restore ROOT ID R   — R restores of checkpoint ID (each takes a safety checkpoint first)
// Prints one line per success: "applied W J" or "safety ID". Never prints for a refusal.
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const dist = path.join(path.dirname(fileURLToPath(import.meta.url)), '../dist');
const lib = await import(pathToFileURL(path.join(dist, 'index.js')).href);
const [mode, root, a, b] = process.argv.slice(2);
const slot = (w, j) => `slot_${w}_${j} = 0`;
const done = (w, j) => `slot_${w}_${j} = 1`;
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

const { ws, transactions } = lib.openWorkspace(root, { lock: { timeoutMs: 60_000 } });
if (mode === 'edit') {
  for (let j = 0; j < Number(b); j++) {
    const out = await lib.applyRequests(ws, [{ path: 'shared.txt', action: 'edit', oldText: slot(a, j), newText: done(a, j) }]);
    if (out.results[0]?.status === 'applied') process.stdout.write(`applied ${a} ${j}\n`);
  }
} else if (mode === 'tool') {
  const config = lib.defaultConfig();
  config.constraints.max_files = 1e6;
  config.constraints.max_lines_changed = 1e9;
  const runner = lib.ToolRunner.start({ ws, config, transactions, artifacts: false });
  for (let j = 0; j < Number(b); j++) {
    const r = await runner.call({ tool: 'edit_file', args: { path: 'shared.txt', old_text: slot(a, j), new_text: done(a, j) } });
    if (r.status === 'ok') process.stdout.write(`applied ${a} ${j}\n`);
  }
} else if (mode === 'restore') {
  for (let k = 0; k < Number(b); k++) {
    await sleep(5 + Math.floor(Math.random() * 20));
    const r = transactions.checkpoints.restore(a);
    process.stdout.write(`safety ${r.safety}\n`);
  }
} else {
  throw new Error(`unknown mode ${mode}`);
}
