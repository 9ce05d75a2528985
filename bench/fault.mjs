#!/usr/bin/env node
// Fault injection at scale: ≥ 500 SIGKILL trials against a child running
// transactions over five files (see test/workspace/fixtures/fault-trials.mjs).
// After every kill, recovery (openWorkspace from dist/) must leave the five
// files as one whole generation. Then concurrency trials: in each, four
// writer processes (two through applyRequests — the CLI's path — and two
// through a ToolRunner — the MCP/agent path) edit different lines of one
// file while a fifth process restores a checkpoint of it; every edit a
// writer reported applied must be in the final file or in the safety
// checkpoint of a restore (lost updates: 0), the file must be whole (every
// line exactly once, no torn or mixed line: 0), and nothing may be left
// behind (temp files, journal records, the lock: 0). Prints the tallies;
// exits 1 on any failure.
// Then one-file trials: a child writes one file again and again (the
// journal-free path of every MCP edit_file) and is SIGKILLed at a random
// moment; after recovery the file must be one whole generation (the last
// reported or the next), no temp file or lock may be left, and `undo` must
// put back exactly the generation before it (then `redo` the one after).
// Usage: npm run build && node bench/fault.mjs [trials=500] [maxDelayMs=80] [concurrentTrials=20] [oneFileTrials=100]
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { spawn } from 'node:child_process';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { runFaultTrials } from '../test/workspace/fixtures/fault-trials.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));
const { openWorkspace } = await import(pathToFileURL(path.join(here, '../dist/workspace/open.js')).href);
const trials = Number(process.argv[2] ?? 500);
const maxDelayMs = Number(process.argv[3] ?? 80);
const concurrentTrials = Number(process.argv[4] ?? 20);
const oneFileTrials = Number(process.argv[5] ?? 100);
const { UndoHistory } = await import(pathToFileURL(path.join(here, '../dist/workspace/checkpoints/history.js')).href);
const { content } = await import(pathToFileURL(path.join(here, '../test/workspace/fixtures/fault-trials.mjs')).href);

const t0 = Date.now();
const stats = await runFaultTrials({
  trials,
  maxDelayMs,
  openWorkspace: (root) => openWorkspace(root),
  onTrial: (t, s) => {
    if ((t + 1) % 50 === 0) process.stderr.write(`fault: ${t + 1}/${trials} trials, ${s.recoveredMidTransaction} mid-transaction, ${s.failures.length} failures\n`);
  },
});
const seconds = ((Date.now() - t0) / 1000).toFixed(1);
const summary = {
  trials: stats.trials,
  killedMidTransaction: stats.recoveredMidTransaction,
  killedWithNoJournalRecord: stats.trials - stats.recoveredMidTransaction, // during start-up, checkpointing, or between transactions
  generationsCommittedAcrossKills: stats.committedDuringTrial,
  filesRolledBack: stats.rolledBackFiles,
  tornOrMixed: stats.failures.length,
  seconds: Number(seconds),
};
console.log(JSON.stringify(summary, null, 2));
if (stats.failures.length > 0) {
  console.log(JSON.stringify(stats.failures.slice(0, 5), null, 2));
  process.exitCode = 1;
} else {
  console.log(`fault: ${stats.trials} SIGKILL trials, ${stats.recoveredMidTransaction} rolled back mid-transaction, 0 torn or mixed (${seconds} s)`);
}

// ---- Concurrent writers and restores ----
const CHILD = path.join(here, 'concurrent-child.mjs');
const WRITERS = [
  ['edit', 0],
  ['edit', 1],
  ['tool', 2],
  ['tool', 3],
];
const EDITS = 15;
const RESTORES = 4;

function child(args) {
  return new Promise((resolve, reject) => {
    const p = spawn(process.execPath, [CHILD, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    p.stdout.on('data', (d) => (out += d));
    p.stderr.on('data', (d) => (err += d));
    p.on('error', reject);
    p.on('exit', (code) => (code === 0 ? resolve(out) : reject(new Error(`${args.join(' ')} exited ${code}: ${err}`))));
  });
}

const conc = { trials: 0, writerProcesses: 0, restoreProcesses: 0, editsApplied: 0, restores: 0, lostUpdates: 0, tornOrMixed: 0, leftovers: 0, failures: [] };
const t1 = Date.now();
for (let t = 0; t < concurrentTrials; t++) {
  const root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'ew-fault-conc-')));
  const lines = [];
  for (const [, w] of WRITERS) for (let j = 0; j < EDITS; j++) lines.push(`slot_${w}_${j} = 0`);
  fs.writeFileSync(path.join(root, 'shared.txt'), lines.join('\n') + '\n');
  const { transactions } = openWorkspace(root);
  const start = transactions.checkpoints.create('start', 'concurrency trial', 'files', { paths: ['shared.txt'] });
  const outs = await Promise.all([...WRITERS.map(([mode, w]) => child([mode, root, String(w), String(EDITS)])), child(['restore', root, start, String(RESTORES)])]);
  conc.trials++;
  conc.writerProcesses += WRITERS.length;
  conc.restoreProcesses++;
  const applied = outs.flatMap((o) => [...o.matchAll(/^applied (\d+) (\d+)$/gm)].map((m) => `slot_${m[1]}_${m[2]} = 1`));
  const safeties = outs.flatMap((o) => [...o.matchAll(/^safety (\S+)$/gm)].map((m) => m[1]));
  conc.editsApplied += applied.length;
  conc.restores += safeties.length;
  const final = fs.readFileSync(path.join(root, 'shared.txt'), 'utf8');
  // Whole: every slot exactly once, each line 0 or 1, nothing else.
  const got = final.split('\n').slice(0, -1);
  const wholeFile = final.endsWith('\n') && got.length === lines.length && got.every((l, i) => l === lines[i] || l === lines[i].replace(/= 0$/, '= 1'));
  if (!wholeFile) {
    conc.tornOrMixed++;
    conc.failures.push({ trial: t, kind: 'torn', final: final.slice(0, 200) });
  }
  const texts = [final];
  for (const id of safeties) {
    const entry = transactions.checkpoints.get(id).entries.find((e) => e.path === 'shared.txt');
    if (entry?.type === 'file') texts.push(entry.inline !== undefined ? Buffer.from(entry.inline, 'base64').toString('utf8') : transactions.checkpoints.blobs.get(entry.blob).toString('utf8'));
  }
  const lost = applied.filter((l) => !texts.some((x) => x.includes(l)));
  conc.lostUpdates += lost.length;
  if (lost.length > 0) conc.failures.push({ trial: t, kind: 'lost', lost });
  const left = [
    ...fs.readdirSync(root).filter((n) => n.startsWith('.ew-tmp-')),
    ...(fs.existsSync(path.join(root, '.editwarden/journal')) ? fs.readdirSync(path.join(root, '.editwarden/journal')).map((n) => `journal/${n}`) : []),
    ...(fs.existsSync(path.join(root, '.editwarden/lock')) ? ['lock'] : []),
  ];
  conc.leftovers += left.length;
  if (left.length > 0) conc.failures.push({ trial: t, kind: 'leftovers', left });
  fs.rmSync(root, { recursive: true, force: true });
  if ((t + 1) % 5 === 0) process.stderr.write(`fault: ${t + 1}/${concurrentTrials} concurrency trials, ${conc.lostUpdates} lost, ${conc.tornOrMixed} torn, ${conc.leftovers} leftovers\n`);
}
const concSeconds = ((Date.now() - t1) / 1000).toFixed(1);
const { failures, ...tally } = conc;
console.log(JSON.stringify({ concurrent: { ...tally, seconds: Number(concSeconds) } }, null, 2));
if (failures.length > 0) {
  console.log(JSON.stringify(failures.slice(0, 5), null, 2));
  process.exitCode = 1;
} else {
  console.log(`fault: ${conc.trials} concurrency trials (${WRITERS.length} writers + 1 restorer each): ${conc.editsApplied} edits applied, ${conc.restores} restores, 0 lost updates, 0 torn or mixed, 0 leftovers (${concSeconds} s)`);
}

// ---- One-file writes (no journal record) killed at random ----
const TX_CHILD = path.join(here, '../test/workspace/fixtures/tx-child.mjs');
function killedOneFileChild(root, generation, delayMs, durability) {
  return new Promise((resolve, reject) => {
    const p = spawn(process.execPath, [TX_CHILD, 'loop-one', root, String(generation), durability], { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    let timer;
    p.stdout.on('data', (d) => {
      out += d;
      if (timer === undefined && out.includes('ready\n')) timer = setTimeout(() => p.kill('SIGKILL'), delayMs);
    });
    p.stderr.on('data', (d) => (err += d));
    p.on('error', reject);
    p.on('exit', (code, signal) => {
      clearTimeout(timer);
      if (signal !== 'SIGKILL') return reject(new Error(`one-file child ended by itself (${code}): ${err}`));
      const committed = [...out.matchAll(/committed (\d+)/g)].map((m) => Number(m[1]));
      resolve(committed.length > 0 ? Math.max(...committed) : generation);
    });
  });
}
const one = { trials: 0, landedUnreported: 0, torn: 0, leftovers: 0, undoWrong: 0, failures: [] };
const t2 = Date.now();
const oneRoot = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'ew-fault-one-')));
// Whether this file system lets a deferred replace fsync its temp file after the answer (docs/checkpoints.md).
const { renameOrdersDataOf } = await import(pathToFileURL(path.join(here, '../dist/workspace/replace-order.js')).href);
const rootFd = fs.openSync(oneRoot, 'r');
const ordered = renameOrdersDataOf(rootFd);
fs.closeSync(rootFd);
fs.writeFileSync(path.join(oneRoot, 'f0.txt'), content(0, 0));
let gen = 0;
for (let t = 0; t < oneFileTrials; t++) {
  // Every other trial as a long-lived server writes (checkpoints.durability: deferred, settled after each answer).
  const last = await killedOneFileChild(oneRoot, gen, Math.floor(Math.random() * maxDelayMs), t % 2 ? 'deferred' : 'strict');
  const { transactions } = openWorkspace(oneRoot);
  one.trials++;
  const bytes = fs.readFileSync(path.join(oneRoot, 'f0.txt'));
  const g = [last, last + 1].find((x) => content(0, x).equals(bytes));
  const left = [...fs.readdirSync(oneRoot).filter((n) => n.startsWith('.ew-tmp-')), ...(fs.existsSync(path.join(oneRoot, '.editwarden/lock')) ? ['lock'] : [])];
  if (g === undefined) {
    one.torn++;
    one.failures.push({ trial: t, kind: 'torn', last });
    break;
  }
  if (g === last + 1) one.landedUnreported++;
  if (left.length > 0) {
    one.leftovers += left.length;
    one.failures.push({ trial: t, kind: 'leftovers', left });
  }
  if (g > 0) {
    const history = new UndoHistory(transactions.checkpoints);
    history.undo();
    const undone = fs.readFileSync(path.join(oneRoot, 'f0.txt'));
    history.redo();
    const redone = fs.readFileSync(path.join(oneRoot, 'f0.txt'));
    if (!undone.equals(content(0, g - 1)) || !redone.equals(content(0, g))) {
      one.undoWrong++;
      one.failures.push({ trial: t, kind: 'undo', g });
    }
  }
  gen = g;
  if ((t + 1) % 25 === 0) process.stderr.write(`fault: ${t + 1}/${oneFileTrials} one-file trials, ${one.failures.length} failures\n`);
}
fs.rmSync(oneRoot, { recursive: true, force: true });
const oneSeconds = ((Date.now() - t2) / 1000).toFixed(1);
const { failures: oneFailures, ...oneTally } = one;
console.log(JSON.stringify({ oneFile: { ...oneTally, seconds: Number(oneSeconds) } }, null, 2));
if (oneFailures.length > 0) {
  console.log(JSON.stringify(oneFailures.slice(0, 5), null, 2));
  process.exitCode = 1;
} else {
  console.log(
    `fault: ${one.trials} one-file SIGKILL trials (no journal record; every other one deferred, the temp file's fsync ${ordered ? 'after the answer on this file system' : 'still before the rename on this file system'}): 0 torn, 0 leftovers, undo and redo right every time (${one.landedUnreported} writes landed unreported) (${oneSeconds} s)`,
  );
}
