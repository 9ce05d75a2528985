// The floor of the guarded shell's route (issue 44): what one Bash `true` costs with a server that costs nothing.
// The route is the thin client (a Node start that loads `net` and `child_process`), then the command the server
// prepared: strace (the write witness) over bubblewrap over `/bin/sh -c true`. Each round runs, interleaved so load
// hits all alike:
//   node -e 0                      the baseline of the goals;
//   client floor                   a Node start that loads net and child_process and spawns /bin/true (no server);
//   bwrap                          the project's real bubblewrap argument vector (commandSandbox + sandboxedSpawn) over true;
//   strace + bwrap                 the same under the witness's real flags (witnessedSpawn);
//   strace + true                  the witness's own start (no bubblewrap);
//   strace + bwrap, no stops       the witness tracing one call nothing makes (io_uring_setup): what its stops cost;
//   client floor + strace + bwrap  a Node start that loads both built-ins and spawns the witnessed command: the route
//                                  without the server, the socket or the record — the least a guarded command can cost.
// Medians of wall time (to the case's own exit) and the mean CPU of everything it started, ratios to node -e 0, the
// load. The CPU is counted by a python3 subreaper (PR_SET_CHILD_SUBREAPER): bubblewrap's pid namespace's init is killed
// after bubblewrap exits and reaped by whoever adopts it, so a plain parent's rusage (/proc/self/stat's children, as
// bench/ab-guarded-shell.mjs reads it) misses the sandbox's side — bwrap over `true` shows ~1.5 ms there, ~8–11 ms here.
// NODE_EXTRA_CA_CERTS is dropped unless EW_BENCH_KEEP_CA=1 (as bench/guarded-shell.mjs).
// Run: npm run build && node bench/guarded-shell-floor.mjs [rounds]
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { commandSandbox } from '../dist/sandbox/for-workspace.js';
import { sandboxedSpawn, witnessedSpawn } from '../dist/sandbox/spawn.js';
import { traceFlags, witnessProgram } from '../dist/sandbox/witness.js';
import { reaper } from './reaper.mjs';
import { median } from './stats.mjs';

const rounds = Number(process.argv[2] ?? 31);

const env = { ...process.env };
if (process.env.EW_BENCH_KEEP_CA !== '1') delete env.NODE_EXTRA_CA_CERTS;
const strace = witnessProgram();
if (strace === null) {
  console.log('no usable strace here: the route runs without the witness; nothing to measure');
  process.exit(0);
}
const root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'ew-gsfloor-')));
const logs = fs.mkdtempSync(path.join(os.tmpdir(), 'ew-gsfloor-log-'));
try {
  for (let i = 0; i < 100; i++) fs.writeFileSync(path.join(root, `f${i}.ts`), `// ${i}\n`);
  spawnSync('git', ['init', '-q'], { cwd: root });
  const sandbox = commandSandbox({ root, stateDir: path.join(root, '.editwarden') }, {});
  const plain = sandboxedSpawn(['/bin/sh', '-c', 'true'], root, sandbox);
  if (plain.sandbox !== 'bwrap') throw new Error(`no bubblewrap here (${plain.sandbox}): nothing to measure`);
  const witnessed = witnessedSpawn(plain, path.join(logs, 'log'), strace);
  const noStops = [...traceFlags(path.join(logs, 'nostops'))];
  noStops[noStops.indexOf('-e', noStops.indexOf('status=successful')) + 1] = 'trace=?io_uring_setup';
  const clientFloor = (file, args, spawnEnv) => `require('net');const c=require('child_process').spawn(${JSON.stringify(file)},${JSON.stringify(args)},{stdio:'ignore',env:${JSON.stringify(spawnEnv)}});c.on('exit',(x)=>process.exit(x))`;
  const cases = {
    'node -e 0': [process.execPath, ['-e', '0'], env],
    'client floor (net, child_process, spawn true)': [process.execPath, ['-e', clientFloor('/bin/true', [], {})], env],
    bwrap: [plain.file, plain.args, plain.env],
    'strace + bwrap': [witnessed.file, witnessed.args, witnessed.env],
    'strace + true': [strace, [...traceFlags(path.join(logs, 'true')), '--', '/bin/true'], plain.env],
    'strace + bwrap, no stops': [strace, [...noStops, '--', plain.file, ...plain.args], plain.env],
    'client floor + strace + bwrap': [process.execPath, ['-e', clientFloor(witnessed.file, witnessed.args, witnessed.env)], env],
  };
  const wall = Object.fromEntries(Object.keys(cases).map((k) => [k, []]));
  const cpu = Object.fromEntries(Object.keys(cases).map((k) => [k, 0]));
  const runner = reaper();
  try {
    for (let i = 0; i < rounds; i++) {
      const order = Object.entries(cases);
      if (i % 2) order.reverse();
      for (const [name, [file, args, e]] of order) {
        const r = await runner.run(file, args, e);
        if (r.code !== 0) throw new Error(`${name} failed (${r.code})`);
        wall[name].push(r.wall);
        cpu[name] += r.cpu;
      }
    }
  } finally {
    runner.end();
  }
  const base = median(wall['node -e 0']);
  const baseCpu = cpu['node -e 0'] / rounds;
  console.log(`guarded shell floor: ${rounds} rounds, ${process.version}, load ${os.loadavg()[0].toFixed(1)}, ${process.env.EW_BENCH_KEEP_CA === '1' ? 'NODE_EXTRA_CA_CERTS kept' : 'no NODE_EXTRA_CA_CERTS'}`);
  for (const name of Object.keys(cases)) {
    const w = median(wall[name]);
    const c = cpu[name] / rounds;
    console.log(`  ${name.padEnd(46)} wall ${w.toFixed(1).padStart(6)} ms (${(w / base).toFixed(2)}×)   CPU ${c.toFixed(1).padStart(5)} ms (${(c / baseCpu).toFixed(2)}×)`);
  }
} finally {
  fs.rmSync(root, { recursive: true, force: true });
  fs.rmSync(logs, { recursive: true, force: true });
}
