// `npm test` on a fresh clone of HEAD, as CI and a new contributor run it:
// `git clone` into the temp folder, `npm ci` (timed apart: it measures the
// registry and the disk, not the project), then `npm test` (lint, the one
// compile, the whole suite). Goal: the suite in ≤ 180 s wall on 2 cores.
// Not part of the default `node bench/run.mjs` (it takes minutes and loads
// every core): run it by name, `node bench/run.mjs suite`.
// EW_SUITE_REF picks another commit (default HEAD); the clone is removed after.
// The row gives the run's CPU too (every process npm test waited for).
// EW_SUITE_ACCOUNT=1 also says where it went: every editwarden CLI process's own CPU, by command
// and by the test file that started it (the clone's bin/editwarden and its
// per-file setup log each process at exit; the clone only: the tests are the
// same, each process pays one appended line). The whole table is kept in the
// temp folder (ew-bench-suite-<sha>-cli.tsv: CPU ms, argv, test file).
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
const REPO = path.resolve(here, '..');
const GOAL_SECONDS = 180;

/** Only when named: the default bench run skips this file. */
export const onlyWhenNamed = true;

/** CPU seconds of the children this process has waited for (Linux: /proc/self/stat cutime + cstime, 100 ticks a second). */
function childrenCpu() {
  try {
    const fields = fs
      .readFileSync('/proc/self/stat', 'utf8')
      .replace(/^.*\) /, '')
      .split(' ');
    return (Number(fields[13]) + Number(fields[14])) / 100;
  } catch {
    return Number.NaN;
  }
}

/**
 * Makes the clone log each editwarden CLI process's CPU at exit into `table`, with the test file that was running
 * (an environment variable the per-file setup sets before each test, which child processes inherit).
 */
function instrument(clone, table) {
  const hook = path.join(path.dirname(clone), 'cli-cpu-hook.cjs');
  fs.writeFileSync(
    hook,
    `const fs = require('node:fs');\nprocess.on('exit', () => {\n  try {\n    const u = process.cpuUsage();\n    const argv = process.argv.slice(2).join(' ').slice(0, 120).replace(/[\\t\\n]/g, ' ');\n    fs.appendFileSync(${JSON.stringify(table)}, \`\${((u.user + u.system) / 1000).toFixed(1)}\\t\${argv}\\t\${process.env.EW_ACCT_TEST || ''}\\n\`);\n  } catch {}\n});\n`,
  );
  const bin = path.join(clone, 'bin', 'editwarden');
  const lines = fs.readFileSync(bin, 'utf8').split('\n');
  lines.splice(1, 0, `try { require(${JSON.stringify(hook)}); } catch {}`);
  fs.writeFileSync(bin, lines.join('\n'));
  const setup = path.join(clone, 'test', 'temp-dirs-setup.ts');
  fs.appendFileSync(setup, `\nimport { beforeEach as accountEach, expect as accountExpect } from 'vitest';\n\naccountEach(() => {\n  process.env.EW_ACCT_TEST = accountExpect.getState().testPath ?? 'unknown';\n});\n`);
  // npm test lints first: the setup file as Biome would have it.
  const format = spawnSync(path.join(clone, 'node_modules', '.bin', 'biome'), ['check', '--write', setup], { cwd: clone, encoding: 'utf8' });
  if (format.status !== 0) throw new Error(`could not format the instrumented setup file:\n${format.stdout}${format.stderr}`);
}

/** Rows: the CLI's processes by command and by test file, largest first. */
function accountRows(table) {
  const lines = fs.existsSync(table) ? fs.readFileSync(table, 'utf8').split('\n').filter(Boolean) : [];
  const byCommand = new Map();
  const byFile = new Map();
  let total = 0;
  for (const line of lines) {
    const [ms, argv, file] = line.split('\t');
    const cpu = Number(ms) / 1000;
    total += cpu;
    const words = argv.split(' ');
    const command = words[0] === 'help' || words[0]?.startsWith('-') ? `${words[0]} ${words[1] ?? ''}`.trim() : words[0];
    const tally = (map, key) => map.set(key, { n: (map.get(key)?.n ?? 0) + 1, cpu: (map.get(key)?.cpu ?? 0) + cpu });
    tally(byCommand, command || '(none)');
    tally(byFile, file ? path.relative(path.dirname(path.dirname(file)), file) : '(outside a test: beforeAll, a client, a server)');
  }
  const top = (map, n) =>
    [...map]
      .sort((a, b) => b[1].cpu - a[1].cpu)
      .slice(0, n)
      .map(([key, v]) => `${key} ${v.cpu.toFixed(1)} s/${v.n}`)
      .join(', ');
  return [
    { case: 'editwarden CLI processes', value: `${total.toFixed(0)} s`, note: `${lines.length} processes` },
    { case: 'CLI CPU by command (s/processes)', value: '', note: top(byCommand, 20) },
    { case: 'CLI CPU by test file (s/processes)', value: '', note: top(byFile, 20) },
  ];
}

function timed(command, args, cwd, env) {
  const t0 = process.hrtime.bigint();
  const r = spawnSync(command, args, { cwd, env, encoding: 'utf8', maxBuffer: 1 << 28 });
  const seconds = Number(process.hrtime.bigint() - t0) / 1e9;
  return { ...r, seconds };
}

export async function run() {
  const ref = process.env.EW_SUITE_REF ?? 'HEAD';
  const sha = spawnSync('git', ['rev-parse', ref], { cwd: REPO, encoding: 'utf8' }).stdout.trim();
  const base = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'ew-bench-suite-')));
  // Where a clone usually lives is readable by other users (mkdtemp makes 0700): the second-OS-user test runs Node from it, as in .ci/run.
  fs.chmodSync(base, 0o755);
  const clone = path.join(base, 'editwarden');
  const env = { ...process.env, NO_COLOR: '1', npm_config_audit: 'false', npm_config_fund: 'false', npm_config_update_notifier: 'false' };
  try {
    const c = timed('git', ['clone', '--quiet', '--no-hardlinks', REPO, clone], base, env);
    if (c.status !== 0) throw new Error(`git clone failed: ${c.stderr}`);
    spawnSync('git', ['checkout', '--quiet', '--detach', sha], { cwd: clone });
    const ci = timed('npm', ['ci', '--prefer-offline'], clone, env);
    if (ci.status !== 0) throw new Error(`npm ci failed:\n${ci.stdout}\n${ci.stderr}`);
    const account = process.env.EW_SUITE_ACCOUNT === '1' ? path.join(os.tmpdir(), `ew-bench-suite-${sha.slice(0, 8)}-cli.tsv`) : null;
    if (account !== null) {
      fs.rmSync(account, { force: true });
      instrument(clone, account);
    }
    const cpuBefore = childrenCpu();
    const test = timed('npm', ['test'], clone, env);
    const runCpu = childrenCpu() - cpuBefore;
    const out = (test.stdout + test.stderr).replace(/\x1b\[[0-9;]*m/g, '');
    const tests = /Tests\s+(.+?)\s*\(\d+\)/.exec(out)?.[1] ?? 'no summary';
    const cores = os.availableParallelism?.() ?? os.cpus().length;
    // A failed run names what failed (vitest's "FAIL <file> > <test>" lines), and keeps its whole output to read.
    const failed = [
      ...new Set(
        out
          .split('\n')
          .filter((l) => /^\s*FAIL\s/.test(l))
          .map((l) => l.replace(/^\s*FAIL\s+/, '').trim()),
      ),
    ];
    if (test.status !== 0) fs.writeFileSync(path.join(os.tmpdir(), `ew-bench-suite-${sha.slice(0, 8)}.log`), out);
    return [
      ...(account === null ? [] : accountRows(account)),
      { case: 'npm ci (fresh clone, local npm cache)', value: `${ci.seconds.toFixed(0)} s`, note: 'not part of the goal: registry and disk' },
      {
        case: `npm test on a fresh clone (${sha.slice(0, 8)})`,
        value: `${test.seconds.toFixed(0)} s`,
        goal: `≤ ${GOAL_SECONDS} s`,
        met: test.status === 0 && test.seconds <= GOAL_SECONDS ? 'met' : 'not met',
        note: `${test.status === 0 ? 'passed' : `FAILED (exit ${test.status}): ${failed.join('; ') || 'see the log'} (log: ${path.join(os.tmpdir(), `ew-bench-suite-${sha.slice(0, 8)}.log`)})`}: ${tests}; ${runCpu.toFixed(0)} s of CPU (every process npm test waited for); ${cores} cores, load ${os.loadavg()[0].toFixed(1)} at the end`,
      },
    ];
  } finally {
    fs.rmSync(base, { recursive: true, force: true, maxRetries: 5, retryDelay: 500 });
  }
}
