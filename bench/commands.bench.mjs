// The one-shot CLI's start-up per command (issues 41 and 44: the commands the suite and a person run most), in CPU
// time (user + sys of the child) next to `node -e 0`, interleaved round by round so that load from other processes
// hits every variant alike; median of N rounds (EW_BENCH_STARTUP_N, default 11) after one warm-up round.
//   own bundle:     what bin/editwarden runs: the command's own bundle, dist/cli-command/<name>/cli.cjs, with the V8
//                   code cache the earlier rounds left (src/cli/code-cache.ts; the warm-up round makes it).
//   own bundle, no code cache:  the same with EDITWARDEN_COMPILE_CACHE=off.
//   shared bundle:  the same binary with every command through the shared bundle, dist/cli-bundle/ (its chunks).
// `edit --dry-run (no server)` is the thin edit deciding in-process (from the hook server's bundle, src/cli/in-process.ts).
//   other:          EW_BENCH_STARTUP_OTHER=<another checkout>/bin/editwarden (built), e.g. the commit before a change.
// `mcp` is the stdio server from its start to its answer to `initialize` (its CPU read from /proc when the answer
// arrives). NODE_EXTRA_CA_CERTS is dropped unless EW_BENCH_KEEP_CA=1 (see startup.bench.mjs). Run it by name:
// `node bench/run.mjs commands`.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { launcher } from './startup.bench.mjs';
import { childCpuMs as cpu, median } from './stats.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));
const repo = path.resolve(here, '..');
const N = Number(process.env.EW_BENCH_STARTUP_N ?? 11);

export const onlyWhenNamed = true;

export async function run() {
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'ew-commands-'));
  try {
    const work = path.join(tmp, 'work');
    fs.mkdirSync(work);
    fs.writeFileSync(path.join(work, 'a.txt'), 'hello\n');
    fs.writeFileSync(path.join(tmp, 'none.jsonl'), '');
    fs.writeFileSync(path.join(tmp, 'read.jsonl'), `${JSON.stringify({ tool: 'read_file', args: { path: 'a.txt' } })}\n`);
    const env = { ...process.env, XDG_DATA_HOME: path.join(tmp, 'data'), XDG_CONFIG_HOME: path.join(tmp, 'config'), XDG_RUNTIME_DIR: path.join(tmp, 'runtime'), EDITWARDEN_HOOK_SERVER: 'off' };
    fs.mkdirSync(env.XDG_RUNTIME_DIR, { mode: 0o700 });
    const ca = process.env.EW_BENCH_KEEP_CA === '1' && env.NODE_EXTRA_CA_CERTS ? 'NODE_EXTRA_CA_CERTS kept' : 'no NODE_EXTRA_CA_CERTS';
    if (process.env.EW_BENCH_KEEP_CA !== '1') delete env.NODE_EXTRA_CA_CERTS;
    const own = path.join(repo, 'bin', 'editwarden');
    const bins = { 'own bundle': [own, env], 'own bundle, no code cache': [own, { ...env, EDITWARDEN_COMPILE_CACHE: 'off' }], 'shared bundle': [launcher(tmp, 'shared', path.join(repo, 'dist', 'cli-bundle', 'cli.mjs')), env] };
    if (process.env.EW_BENCH_STARTUP_OTHER) bins.other = [path.resolve(process.env.EW_BENCH_STARTUP_OTHER), env];
    // One change recorded, so undo --list, checkpoint list and report have something to show.
    await cpu([process.execPath, own, 'edit', 'a.txt', '--old', 'hello', '--new', 'there'], work, env);
    const cases = {
      'undo --list': ['undo', '--list'],
      'checkpoint list': ['checkpoint', 'list'],
      report: ['report'],
      'exec (no calls)': ['exec', path.join(tmp, 'none.jsonl')],
      'exec (one read_file)': ['exec', path.join(tmp, 'read.jsonl')],
      'doctor --only node': ['doctor', '--only', 'node'],
      'init claude --help': ['init', 'claude', '--help'],
      'edit --dry-run (no server)': ['edit', 'a.txt', '--old', 'there', '--new', 'x', '--dry-run'],
      'mcp (start to the initialize answer)': null,
    };
    const samples = { node: [] };
    const loadBefore = os.loadavg()[0];
    for (let i = 0; i < N + 1; i++) {
      const keep = i > 0;
      const t = await cpu([process.execPath, '-e', '0'], work, env);
      if (keep) samples.node.push(t);
      for (const [c, args] of Object.entries(cases)) {
        for (const [b, [bin, benv]] of Object.entries(bins)) {
          const s = args === null ? await mcpStartCpu(bin, work, benv) : await cpu([process.execPath, bin, ...args], work, benv);
          if (keep) (samples[`${c}|${b}`] ??= []).push(s);
        }
      }
    }
    const base = median(samples.node);
    const load = `load ${loadBefore.toFixed(1)} → ${os.loadavg()[0].toFixed(1)}, Node ${process.version}, ${ca}`;
    const rows = [];
    for (const c of Object.keys(cases)) {
      for (const b of Object.keys(bins)) {
        const value = median(samples[`${c}|${b}`]);
        rows.push({
          case: `${c} (${b})`,
          value: `${value.toFixed(0)} ms CPU`,
          baseline: `${base.toFixed(0)} ms node -e 0`,
          ratio: `${(value / base).toFixed(2)}x`,
          note: b === 'own bundle' ? `what bin/editwarden runs; ${load}` : b === 'other' ? process.env.EW_BENCH_STARTUP_OTHER : b === 'shared bundle' ? 'dist/cli-bundle/' : 'EDITWARDEN_COMPILE_CACHE=off',
        });
      }
    }
    return rows;
  } finally {
    fs.rmSync(tmp, { recursive: true, force: true });
  }
}

/** CPU ms of `editwarden mcp` (stdio) from its start until its answer to `initialize` (/proc, clock ticks). */
function mcpStartCpu(bin, cwd, env) {
  const tick = 1000 / 100; // USER_HZ
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [bin, 'mcp'], { cwd, env, stdio: ['pipe', 'pipe', 'ignore'] });
    let out = '';
    child.on('error', reject);
    child.stdout.on('data', (d) => {
      out += d;
      if (!out.includes('\n')) return;
      const fields = fs.readFileSync(`/proc/${child.pid}/stat`, 'utf8').split(') ')[1].split(' ');
      resolve((Number(fields[11]) + Number(fields[12])) * tick);
      child.stdin.end();
    });
    child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'bench', version: '1' } } })}\n`);
  });
}
