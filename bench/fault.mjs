#!/usr/bin/env node
// Fault injection at scale: ≥ 500 SIGKILL trials against a child running
// transactions over five files (see test/workspace/fixtures/fault-trials.mjs).
// After every kill, recovery (openWorkspace from dist/) must leave the five
// files as one whole generation. Prints the tally; exits 1 on any failure.
// Usage: npm run build && node bench/fault.mjs [trials=500] [maxDelayMs=80]
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { runFaultTrials } from '../test/workspace/fixtures/fault-trials.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));
const { openWorkspace } = await import(pathToFileURL(path.join(here, '../dist/workspace/open.js')).href);
const trials = Number(process.argv[2] ?? 500);
const maxDelayMs = Number(process.argv[3] ?? 80);

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
