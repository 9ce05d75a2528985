// Edit latency on files of 1k, 10k and 100k lines: in process (applyRequests:
// read, plan, diff, checkpoint and journal, atomic write with fsync — every
// library write is a transaction; without the syntax guard) and through the CLI, each next to
// the floor measured in the same run — reading the file plus an atomic write
// with fsync of the result. Goal: in-process edit ≤ 1.5× the floor.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { applyRequests, openWorkspace } from '../dist/index.js';
import { atomicWriteFile } from '../dist/workspace/atomic.js';
import { median, percentile, ms, ratio } from './stats.mjs';

const BIN = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../bin/editwarden');

function makeFile(lines) {
  const out = [];
  for (let i = 0; i < lines; i++) out.push(`    const value_${i} = compute(${i}, "some text to make the line realistic");`);
  return out.join('\n') + '\n';
}

export async function run() {
  const rows = [];
  for (const lines of [1_000, 10_000, 100_000]) {
    const root = fs.mkdtempSync(path.join(os.tmpdir(), 'ew-bench-edit-'));
    const file = path.join(root, 'big.ts');
    fs.writeFileSync(file, makeFile(lines));
    const { ws } = openWorkspace(root);
    const mid = Math.floor(lines / 2);
    const a = `const value_${mid} = compute(${mid},`;
    const b = `const value_${mid} = recompute(${mid},`;
    const iterations = lines >= 100_000 ? 40 : 100;
    const floor = [];
    const edit = [];
    // Warm-up (JIT, page cache) before anything is timed, for both sides alike.
    for (let i = 0; i < 20; i++) {
      atomicWriteFile(file, fs.readFileSync(file));
      const [from, to] = i % 2 === 0 ? [a, b] : [b, a];
      await applyRequests(ws, [{ path: 'big.ts', action: 'edit', oldText: from, newText: to }]);
    }
    for (let i = 0; i < iterations; i++) {
      // Interleave floor and edit so both see the same disk conditions.
      let t0 = process.hrtime.bigint();
      const bytes = fs.readFileSync(file);
      atomicWriteFile(file, bytes);
      floor.push(Number(process.hrtime.bigint() - t0) / 1e6);
      const [from, to] = i % 2 === 0 ? [a, b] : [b, a];
      t0 = process.hrtime.bigint();
      const out = await applyRequests(ws, [{ path: 'big.ts', action: 'edit', oldText: from, newText: to }]);
      edit.push(Number(process.hrtime.bigint() - t0) / 1e6);
      if (!out.ok) throw new Error(JSON.stringify(out.results[0].error));
    }
    rows.push({ case: `${lines} lines: in-process median`, value: ms(median(edit)), baseline: ms(median(floor)), ratio: ratio(median(edit), median(floor)), goal: '≤ 1.5x' });
    rows.push({ case: `${lines} lines: in-process p99`, value: ms(percentile(edit, 99)), baseline: ms(percentile(floor, 99)), ratio: ratio(percentile(edit, 99), percentile(floor, 99)), goal: '≤ 1.5x' });
    const cli = [];
    const cliRuns = 10;
    for (let i = 0; i < cliRuns; i++) {
      const [from, to] = i % 2 === 0 ? [a, b] : [b, a];
      const t0 = process.hrtime.bigint();
      const r = spawnSync(process.execPath, [BIN, 'edit', 'big.ts', '--old', from, '--new', to, '--root', root, '--json'], { encoding: 'utf8' });
      cli.push(Number(process.hrtime.bigint() - t0) / 1e6);
      if (r.status !== 0) throw new Error(r.stdout + r.stderr);
    }
    rows.push({ case: `${lines} lines: CLI median (.ts)`, value: ms(median(cli)), baseline: ms(median(floor)), ratio: ratio(median(cli), median(floor)), note: 'includes Node start-up and the syntax guard (tree-sitter parse)' });
    fs.copyFileSync(file, path.join(root, 'big.txt'));
    const cliTxt = [];
    for (let i = 0; i < cliRuns; i++) {
      const [from, to] = i % 2 === 0 ? [a, b] : [b, a];
      const t0 = process.hrtime.bigint();
      const r = spawnSync(process.execPath, [BIN, 'edit', 'big.txt', '--old', from, '--new', to, '--root', root, '--json'], { encoding: 'utf8' });
      cliTxt.push(Number(process.hrtime.bigint() - t0) / 1e6);
      if (r.status !== 0) throw new Error(r.stdout + r.stderr);
    }
    rows.push({ case: `${lines} lines: CLI median (.txt)`, value: ms(median(cliTxt)), baseline: ms(median(floor)), ratio: ratio(median(cliTxt), median(floor)), note: 'includes Node start-up; checkpoint + journal' });
    fs.rmSync(root, { recursive: true, force: true });
  }
  const node = [];
  for (let i = 0; i < 10; i++) {
    const t0 = process.hrtime.bigint();
    spawnSync(process.execPath, ['-e', '0']);
    node.push(Number(process.hrtime.bigint() - t0) / 1e6);
  }
  rows.push({ case: 'node -e 0 (start-up floor for CLI rows)', value: ms(median(node)) });
  return rows;
}
