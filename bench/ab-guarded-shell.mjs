#!/usr/bin/env node
// A/B of builds of the guarded shell through the warm server, interleaved with `node -e 0` round by round (same machine
// moment): each build gets its own git project of FILES files and its own warm hook server (a build's socket is its
// own), the line Claude Code's PreToolUse hook rewrites `Bash: true` to (asked of that build's real hook), run by
// /bin/sh in the project. Per build: the median wall time and its ratio to `node -e 0`; the mean CPU of the client's
// whole process tree (sh, the thin client, strace, bubblewrap, the command — the sandbox's side too: counted by a
// subreaper, bench/reaper.mjs; before it, the sandbox's init was reaped by init and its ~10 ms were missing) and
// of the server for the call (/proc/<pid>/stat of the server before and after); the stage medians of
// EDITWARDEN_SHELL_TIMES (bench/guarded-shell.mjs). NODE_EXTRA_CA_CERTS is dropped unless EW_BENCH_KEEP_CA=1 (see
// guarded-shell.mjs).
// Usage: node bench/ab-guarded-shell.mjs ROUNDS FILES BUILD...   (a BUILD is a folder with bin/, dist/, package.json
// and node_modules/: a copy of a built checkout, e.g. main's in /tmp/old and this one: node bench/ab-guarded-shell.mjs 15
// 5000 /tmp/old .)
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { reaper } from './reaper.mjs';
import { median } from './stats.mjs';

const [rounds = '15', files = '5000', ...builds] = process.argv.slice(2);
if (builds.length === 0) throw new Error('usage: node bench/ab-guarded-shell.mjs ROUNDS FILES BUILD...');
const TICK_MS = 1000 / 100; // USER_HZ: /proc's CPU times are in 1/100 s.

function procTimes(pid = 'self') {
  const f = fs.readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  return { own: (Number(f[11]) + Number(f[12])) * TICK_MS, children: (Number(f[13]) + Number(f[14])) * TICK_MS };
}

function repo(n) {
  const root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'ew-abgs-')));
  for (let i = 0; i < n; i++) {
    const dir = path.join(root, `pkg${Math.floor(i / 1000)}`, `mod${Math.floor(i / 100) % 10}`);
    if (i % 100 === 0) fs.mkdirSync(dir, { recursive: true });
    fs.writeFileSync(path.join(dir, `file${i}.ts`), `// file ${i}\n`);
  }
  spawnSync('git', ['init', '-q'], { cwd: root });
  return root;
}

const STAGES = [
  ['start', 'spawn', 'client:started'],
  ['wait', 'client:started', 'server:turn'],
  ['open', 'server:turn', 'server:opened'],
  ['before', 'server:opened', 'server:before'],
  ['spawn+run', 'server:before', 'client:ran'],
  ['after', 'client:ran', 'server:after'],
  ['record', 'server:after', 'server:recorded'],
  ['answer+exit', 'server:recorded', 'exit'],
];

const runtime = fs.mkdtempSync(path.join(os.tmpdir(), 'ew-abgs-rt-'));
fs.chmodSync(runtime, 0o700);
const env = { ...process.env, XDG_RUNTIME_DIR: runtime, EDITWARDEN_HOOK_SERVER_IDLE_MS: '600000' };
if (process.env.EW_BENCH_KEEP_CA !== '1') delete env.NODE_EXTRA_CA_CERTS;
const times = path.join(runtime, 'times');
const sides = [];
let runner = null;
try {
  for (const dir of builds) {
    const build = path.resolve(dir);
    const root = repo(Number(files));
    const input = JSON.stringify({ session_id: 'ab', tool_name: 'Bash', tool_input: { command: 'true', description: 'ab' }, cwd: root });
    const hook = spawnSync(process.execPath, [path.join(build, 'bin/editwarden'), 'hook', 'claude', 'pre-tool-use', '--root', root], { input, encoding: 'utf8', env });
    if (hook.status !== 0) throw new Error(`${build}: the hook failed: ${hook.stderr}`);
    const out = JSON.parse(hook.stdout).hookSpecificOutput;
    const sockets = await import(pathToFileURL(path.join(build, 'dist/cli/hook-socket.js')).href);
    const client = await import(pathToFileURL(path.join(build, 'dist/cli/hook-client.js')).href);
    const ping = () => {
      const id = sockets.buildId();
      return client.askServer(sockets.socketPath(env, id), { build: id, ping: true }, 3000);
    };
    sides.push({ build, root, line: (out.updatedInput ?? out.tool_input).command, ping, wall: [], cpu: [], serverCpu: [], marks: [] });
  }
  const readMarks = (t0, t1) => {
    const marks = { spawn: t0, exit: t1 };
    for (const l of fs.readFileSync(times, 'utf8').split('\n')) {
      const [k, v] = l.split(' ');
      if (k && v) marks[k] = Number(v);
    }
    return marks;
  };
  const guarded = (side) => {
    fs.writeFileSync(times, '');
    const t0 = performance.timeOrigin + performance.now();
    const r = spawnSync('/bin/sh', ['-c', side.line], { cwd: side.root, env: { ...env, EDITWARDEN_SHELL_TIMES: times }, encoding: 'utf8' });
    const t1 = performance.timeOrigin + performance.now();
    if (r.status !== 0) throw new Error(`${side.build}: guarded true failed (${r.status}): ${r.stderr}`);
    return readMarks(t0, t1);
  };
  runner = reaper();
  // Warm-up: the first command builds the command index and starts the server; the watch's helper scans once.
  for (const side of sides) for (let i = 0; i < 3; i++) guarded(side);
  for (const side of sides) {
    const p = await side.ping();
    side.pid = p.pid;
    side.shells = p.shells;
  }
  const bare = { wall: [], cpu: [] };
  for (let i = 0; i < Number(rounds); i++) {
    const order = [null, ...sides];
    if (i % 2) order.reverse();
    for (const side of order) {
      if (side === null) {
        const r = await runner.run(process.execPath, ['-e', '0'], env);
        bare.wall.push(r.wall);
        bare.cpu.push(r.cpu);
        continue;
      }
      const s0 = procTimes(side.pid);
      fs.writeFileSync(times, '');
      const t0 = performance.timeOrigin + performance.now();
      const r = await runner.run('/bin/sh', ['-c', side.line], { ...env, EDITWARDEN_SHELL_TIMES: times }, side.root);
      const t1 = performance.timeOrigin + performance.now();
      if (r.code !== 0) throw new Error(`${side.build}: guarded true failed (${r.code})`);
      side.marks.push(readMarks(t0, t1));
      side.wall.push(r.wall);
      side.cpu.push(r.cpu);
      side.serverCpu.push(procTimes(side.pid).own - s0.own);
    }
  }
  const mean = (a) => a.reduce((x, y) => x + y, 0) / a.length;
  const ca = env.NODE_EXTRA_CA_CERTS ? 'NODE_EXTRA_CA_CERTS kept' : 'no NODE_EXTRA_CA_CERTS';
  console.log(`${files} files, ${rounds} rounds, ${process.version}, ${ca}, load ${os.loadavg()[0].toFixed(1)}: node -e 0 ${median(bare.wall).toFixed(0)} ms wall, ${mean(bare.cpu).toFixed(1)} ms CPU`);
  for (const side of sides) {
    const served = (await side.ping()).shells - side.shells;
    if (served < Number(rounds)) throw new Error(`${side.build}: the warm server served ${served} of ${rounds} rounds`);
    const wall = median(side.wall);
    const cpu = mean(side.cpu) + mean(side.serverCpu);
    console.log(`${side.build}: ${wall.toFixed(0)} ms wall (${(wall / median(bare.wall)).toFixed(2)}x); CPU client tree ${mean(side.cpu).toFixed(1)} + server ${mean(side.serverCpu).toFixed(1)} ms (${(cpu / mean(bare.cpu)).toFixed(2)}x)`);
    console.log(`  stages (ms): ${STAGES.map(([name, from, to]) => `${name} ${median(side.marks.map((m) => m[to] - m[from]).filter(Number.isFinite)).toFixed(1)}`).join(', ')}`);
  }
} finally {
  runner?.end();
  for (const side of sides) {
    if (side.pid) process.kill(side.pid, 'SIGKILL');
    fs.rmSync(side.root, { recursive: true, force: true });
  }
  fs.rmSync(runtime, { recursive: true, force: true });
}
