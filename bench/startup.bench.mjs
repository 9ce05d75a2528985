// CLI start-up, in CPU time (user + sys of the child, from bash's `time`),
// next to `node -e 0` measured in the same run, interleaved round by round so
// that load from other processes hits every variant alike. Median of N runs
// (EW_BENCH_STARTUP_N, default 21).
//   version / help / edit:  what bin/editwarden runs (the bundle, dist/cli-bundle/):
//                           `--version`, `--help`, and a real `edit` of a 2-line .txt
//                           (alternating two edits, so every run writes and checkpoints).
//                           Goal ≤ 1.5× `node -e 0`. `edit --dry-run` is the same without the
//                           durable write (issue 44: ≤ 1.5× `node -e 0`, CPU); `edit --dry-run,
//                           config` runs it in a project with a .editwarden.yml, whose loaded
//                           value the state folder keeps (src/host/config-cache.ts) after the
//                           first round. The load average is printed at the start and the end.
//   … tsc output:           the same through dist/cli/main.js (no bundle): the module graph
//                           resolved file by file, commander through the CommonJS lexer.
//   … one-file bundle:      every command in one file (no splitting).
//   … other:                EW_BENCH_STARTUP_OTHER=<another checkout>/bin/editwarden (built), e.g. the
//                           commit before a change.
//   … no compile cache:     the bundle with EDITWARDEN_COMPILE_CACHE=off (by default bin/editwarden keeps the
//                           compiled code of each command's bundle, src/cli/code-cache.ts, and Node ≥ 22.1 that of
//                           the shared bundle, src/cli/compile-cache.ts, in a runtime folder of this run).
//   … warm server:          the bundle's `edit` with this user's warm hook server running (src/cli/edit-client.ts:
//                           the thin client hands the edit to it): the CPU of the client plus the server's share
//                           for the call (the CPU time of all the server's threads from /proc/<pid>/task/*/schedstat,
//                           read from outside right before the call and once the server is idle after it, so the
//                           reading costs the server nothing; earlier rounds read it by a ping, itself ~0.5 ms of the
//                           server's CPU counted into each call; without /proc, still by a ping). Its rows' ratio is that sum
//                           against `node -e 0`; the `…, client only` rows show the client alone.
//   … the floor:            `edit --dry-run` by the least a client of this route can be (FLOOR below: Node, `net`,
//                           the hello with the environment, ready/go, the answer printed, nothing checked), to the
//                           same warm server in the same rounds: what no thin client can get below.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { childCpuMs as cpu, median } from './stats.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));
const repo = path.resolve(here, '..');
const N = Number(process.env.EW_BENCH_STARTUP_N ?? 21);
const GOAL = 1.5;

/**
 * A launcher like bin/editwarden (the same CommonJS file, the same V8 flag and answers to a lone --version/--help)
 * for another build of the CLI: its paths relative to bin/ made absolute, the bundle's replaced by `entry`, and
 * `edit` run by that CLI rather than by the thin client.
 */
export function launcher(dir, name, entry) {
  const source = fs.readFileSync(path.join(repo, 'bin', 'editwarden'), 'utf8');
  // `edit` as the CLI runs it, not the thin client (whose in-process route would load the bundle, not `entry`).
  const thinEdit = ", edit: ['edit.cjs', 'editMain']";
  if (!source.includes(thinEdit)) throw new Error(`bin/editwarden no longer has ${thinEdit}: update the launcher`);
  // Every command through `entry` (not through its own bundle, dist/cli-command/, which bin/editwarden runs).
  const ownBundle = /^const own = .+$/m;
  if (!ownBundle.test(source)) throw new Error('bin/editwarden no longer picks a command bundle with `const own = …`: update the launcher');
  const bin = source
    .replace(ownBundle, 'const own = null;')
    .replace(thinEdit, '')
    .replace("'../dist/cli-bundle/cli.mjs'", JSON.stringify(pathToFileURL(entry).href))
    .replaceAll("'../", `'${repo}/`)
    .replaceAll('`../', `\`${repo}/`);
  const file = path.join(dir, `${name}.cjs`);
  fs.writeFileSync(file, bin);
  return file;
}

export async function run() {
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'ew-startup-'));
  const single = path.join(repo, 'dist', '.bench-one-file');
  try {
    const { bundleCli } = await import(pathToFileURL(path.join(repo, 'scripts', 'bundle-cli.mjs')).href);
    await bundleCli({ outdir: single, splitting: false });
    const work = path.join(tmp, 'work');
    fs.mkdirSync(work);
    fs.writeFileSync(path.join(work, 'a.txt'), 'hello\nworld\n');
    const configured = path.join(tmp, 'configured');
    fs.mkdirSync(configured);
    fs.writeFileSync(path.join(configured, 'a.txt'), 'hello\nworld\n');
    fs.writeFileSync(path.join(configured, '.editwarden.yml'), 'constraints:\n  max_files: 5\n  max_lines_changed: 100\n');
    // The person's folders of this run (the config cache's secret lives in the data folder): not the machine's.
    const env = { ...process.env, XDG_DATA_HOME: path.join(tmp, 'data'), XDG_CONFIG_HOME: path.join(tmp, 'config') };
    // NODE_EXTRA_CA_CERTS (this machine sets it: a 144-certificate bundle) costs Node 20 ~50 ms of CPU at every start,
    // `node -e 0` as much as editwarden: it flatters every ratio. A person's machine does not set it; the bench drops
    // it unless EW_BENCH_KEEP_CA=1 (each row's note says which), as bench/guarded-shell.mjs does.
    const ca = process.env.EW_BENCH_KEEP_CA === '1' && env.NODE_EXTRA_CA_CERTS ? 'NODE_EXTRA_CA_CERTS kept' : 'no NODE_EXTRA_CA_CERTS';
    if (process.env.EW_BENCH_KEEP_CA !== '1') delete env.NODE_EXTRA_CA_CERTS;
    const loadBefore = os.loadavg()[0];
    const bins = {
      bundle: path.join(repo, 'bin', 'editwarden'),
      'tsc output': launcher(tmp, 'tsc', path.join(repo, 'dist', 'cli', 'main.js')),
      'one-file bundle': launcher(tmp, 'one', path.join(single, 'cli.mjs')),
    };
    // Another checkout's binary (built), e.g. the commit before a change, measured in the same rounds.
    if (process.env.EW_BENCH_STARTUP_OTHER) bins.other = path.resolve(process.env.EW_BENCH_STARTUP_OTHER);
    // The bundle keeps its compiled code in the user's private folder (src/cli/code-cache.ts on every Node; Node's own
    // compile cache for the shared bundle on Node >= 22.1); the same binary without it, in the same rounds. The run's
    // own runtime folder, so the cache is this build's alone.
    env.XDG_RUNTIME_DIR = path.join(tmp, 'runtime');
    fs.mkdirSync(env.XDG_RUNTIME_DIR, { mode: 0o700 });
    delete env.NODE_COMPILE_CACHE;
    delete env.NODE_DISABLE_COMPILE_CACHE;
    const envOf = { 'bundle, no compile cache': { ...env, EDITWARDEN_COMPILE_CACHE: 'off' } };
    bins['bundle, no compile cache'] = bins.bundle;
    // The warm server (a runtime folder of this run): started as a hook starts it, pinged for its CPU around each call.
    const warm = await startWarmServer(tmp, env);
    bins['bundle, warm server'] = bins.bundle;
    envOf['bundle, warm server'] = warm.env;
    const floor = path.join(tmp, 'floor.cjs');
    fs.writeFileSync(floor, FLOOR);
    const floorEnv = { ...warm.env, EW_FLOOR_SOCKET: warm.socket, EW_FLOOR_BUILD: warm.build };
    let flip = false;
    const edit = () => {
      flip = !flip;
      return flip ? ['edit', 'a.txt', '--old', 'world', '--new', 'there'] : ['edit', 'a.txt', '--old', 'there', '--new', 'world'];
    };
    const dryRun = () => ['edit', 'a.txt', '--old', 'hello', '--new', 'howdy', '--dry-run'];
    const dryRunConfig = () => ['edit', 'a.txt', '--old', 'hello', '--new', 'howdy', '--dry-run', '--root', configured];
    const cases = { version: () => ['--version'], help: () => ['--help'], edit, dryRun, dryRunConfig };
    const samples = { node: [] };
    for (const c of Object.keys(cases)) for (const b of Object.keys(bins)) samples[`${c}|${b}`] = [];
    for (let i = 0; i < N + 1; i++) {
      const keep = i > 0; // the first round warms the disk cache
      const t = await cpu([process.execPath, '-e', '0'], work, env);
      if (keep) samples.node.push(t);
      {
        const before = await warm.cpuMs();
        const s = await cpu([process.execPath, floor, ...dryRun()], work, floorEnv);
        const share = (await warm.cpuMs()) - before;
        if (keep) {
          (samples.floor ??= []).push(s + share);
          (samples['floor, client only'] ??= []).push(s);
        }
      }
      for (const [c, args] of Object.entries(cases)) {
        for (const [b, bin] of Object.entries(bins)) {
          const served = b === 'bundle, warm server' && c !== 'version' && c !== 'help';
          const before = served ? await warm.cpuMs() : 0;
          const s = await cpu([process.execPath, bin, ...args()], work, envOf[b] ?? env);
          const share = served ? (await warm.cpuMs()) - before : 0;
          if (keep) {
            samples[`${c}|${b}`].push(s + share);
            if (served) (samples[`${c}|${b}, client only`] ??= []).push(s);
          }
        }
      }
    }
    const base = median(samples.node);
    const rows = [];
    const what = { version: '--version', help: '--help', edit: 'edit a 2-line .txt', dryRun: 'edit --dry-run (no write)', dryRunConfig: 'edit --dry-run, project with a config' };
    const load = `load ${loadBefore.toFixed(1)} → ${os.loadavg()[0].toFixed(1)}, Node ${process.version}, ${ca}`;
    const served = await warm.calls();
    warm.stop();
    for (const c of Object.keys(cases)) {
      for (const b of [...Object.keys(bins), 'bundle, warm server, client only']) {
        if (samples[`${c}|${b}`] === undefined) continue;
        const value = median(samples[`${c}|${b}`]);
        const r = value / base;
        const row = { case: `cli ${what[c]} (${b})`, value: `${value.toFixed(0)} ms CPU`, baseline: `${base.toFixed(0)} ms node -e 0`, ratio: `${r.toFixed(2)}x` };
        if (b === 'bundle') {
          const note = { dryRun: 'start-up and planning without the durable write (issue 44)', dryRunConfig: 'the config as the state folder keeps it (host/config-cache.ts)' }[c] ?? 'what bin/editwarden runs';
          Object.assign(row, { goal: `≤ ${GOAL.toFixed(2)}x`, met: r <= GOAL ? 'met' : 'not met', note: `${note}; ${load}` });
        } else if (b === 'bundle, warm server' && c !== 'version' && c !== 'help') {
          Object.assign(row, { goal: `≤ ${GOAL.toFixed(2)}x`, met: r <= GOAL ? 'met' : 'not met', note: `client + the server's CPU for the call (${served} edits served); ${load}` });
        } else
          row.note = {
            'tsc output': 'dist/cli/main.js, module by module',
            'one-file bundle': 'all commands in one file',
            other: process.env.EW_BENCH_STARTUP_OTHER,
            'bundle, no compile cache': 'EDITWARDEN_COMPILE_CACHE=off',
            'bundle, warm server': 'answered by bin/editwarden itself',
            'bundle, warm server, client only': 'the thin client alone',
          }[b];
        rows.push(row);
      }
    }
    for (const [name, note] of [
      ['floor', "the least a thin client can be (Node, net, one exchange) + the server's CPU for the call"],
      ['floor, client only', 'the least a thin client can be, alone'],
    ]) {
      const value = median(samples[name]);
      rows.push({ case: `cli edit --dry-run (${name})`, value: `${value.toFixed(1)} ms CPU`, baseline: `${base.toFixed(0)} ms node -e 0`, ratio: `${(value / base).toFixed(2)}x`, note: `${note}; ${load}` });
    }
    return rows;
  } finally {
    fs.rmSync(tmp, { recursive: true, force: true });
    fs.rmSync(single, { recursive: true, force: true });
  }
}

/**
 * This build's warm hook server in a runtime folder of its own under `tmp`, started as a hook starts it: its
 * environment, its CPU so far (ms, by a ping), the edits it served, and its end (by pid).
 */
async function startWarmServer(tmp, env) {
  const sockets = await import(pathToFileURL(path.join(repo, 'dist', 'cli', 'hook-socket.js')).href);
  const { askServer, startServer } = await import(pathToFileURL(path.join(repo, 'dist', 'cli', 'hook-client.js')).href);
  const runtime = path.join(tmp, 'warm-runtime');
  fs.mkdirSync(runtime, { mode: 0o700 });
  const warmEnv = { ...env, XDG_RUNTIME_DIR: runtime };
  const build = sockets.buildId();
  const socket = sockets.socketPath(warmEnv, build);
  if (sockets.ensurePrivateDir(sockets.socketDir(warmEnv)) !== null) throw new Error('no private runtime folder for the warm server');
  await startServer(socket, build);
  const ping = () => askServer(socket, { build, ping: true }, 10_000);
  let pid;
  for (let i = 0; i < 100 && pid === undefined; i++) {
    pid = (await ping())?.pid;
    if (pid === undefined) await new Promise((r) => setTimeout(r, 100));
  }
  if (pid === undefined) throw new Error('the warm server did not start');
  return {
    env: warmEnv,
    socket,
    build,
    // Read from outside (/proc/<pid>/task/*/schedstat: every thread's time on a CPU, in ns) so that reading it costs
    // the server nothing: a ping is itself a call (~0.5 ms of the server's CPU, measured), which the ping-based
    // reading counted into every edit's share. Elsewhere (no /proc), the server's own cpuUsage by a ping.
    cpuMs: async () => (await settledSchedMs(pid)) ?? ((await ping())?.cpu ?? Number.NaN) / 1000,
    calls: async () => (await ping())?.edits ?? 0,
    stop: () => process.kill(pid, 'SIGKILL'),
  };
}

/**
 * schedMs once the server is idle: what it does after its answer (a deferred fsync, closing the connection) belongs
 * to the call. Read until two readings 5 ms apart agree (at most ~0.3 s).
 */
async function settledSchedMs(pid) {
  let last = schedMs(pid);
  for (let i = 0; i < 60 && last !== null; i++) {
    await new Promise((resolve) => setTimeout(resolve, 5));
    const now = schedMs(pid);
    if (now === last) return now;
    last = now;
  }
  return last;
}

/** The CPU time (ms) every thread of `pid` has spent so far, from /proc; null where there is no such reading. */
function schedMs(pid) {
  try {
    let ns = 0;
    for (const task of fs.readdirSync(`/proc/${pid}/task`)) {
      try {
        ns += Number(fs.readFileSync(`/proc/${pid}/task/${task}/schedstat`, 'utf8').split(' ')[0]);
      } catch {
        // A thread that ended between the listing and the read: its time is in no later reading either.
      }
    }
    return ns / 1e6;
  } catch {
    return null;
  }
}

/**
 * The floor of the thin edit client (src/cli/edit-client.ts): Node, `net`, the hello with argv, environment, working
 * folder and umask, the server's ready, the go, the answer's stdout printed and its exit code — no argument or
 * socket checks, no build identity computed, no fallback. A bench's yardstick only, never a route.
 */
const FLOOR = `'use strict';
const net = require('node:net');
const fs = require('node:fs');
const env = {};
for (const [k, v] of Object.entries(process.env)) if (v !== undefined) env[k] = v;
const hello = { build: process.env.EW_FLOOR_BUILD, edit: { argv: process.argv.slice(2), stdin: '', env, cwd: process.cwd(), umask: process.umask(), stdout: { isTTY: false }, stderr: { isTTY: false } } };
const conn = net.connect(process.env.EW_FLOOR_SOCKET);
conn.setEncoding('utf8');
let text = '';
let ready = false;
conn.on('data', (d) => {
  text += d;
  for (let at = text.indexOf('\\n'); at >= 0; at = text.indexOf('\\n')) {
    const reply = JSON.parse(text.slice(0, at));
    text = text.slice(at + 1);
    if (!ready) {
      ready = true;
      conn.write('go\\n');
      continue;
    }
    conn.destroy();
    if (reply.stdout) fs.writeSync(1, Buffer.from(reply.stdout, 'base64'));
    process.exit(reply.exitCode);
  }
});
// No answer (the protocol changed under the bench): fail the run, never time a half exchange.
conn.on('close', () => process.exit(3));
conn.write(JSON.stringify(hello) + '\\n');
`;
