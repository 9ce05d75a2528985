// Interleaved A/B of MCP edit_file against server-filesystem, in one client:
//   node bench/ab-mcp-fs.mjs LINES EXT N [fs] label=path/to/bin/editwarden[=ENV:VALUE,...] ...
// e.g. node bench/ab-mcp-fs.mjs 100 txt 30 fs old=/tmp/old/bin/editwarden new=bin/editwarden strict=bin/editwarden=@durability:strict
// Each iteration calls every server once (order alternating), flipping one
// line of a LINES-line file; prints medians and each server's ratio to
// server-filesystem ("fs") measured at the same moments, and each server's
// CPU per call (user + system from /proc/<pid>/stat over the timed calls,
// what it does after its answers included). EW_BENCH_PAUSE_MS: untimed
// pause after each call (default 0: back to back), as bench/mcp.bench.mjs.
import fs from 'node:fs';
import path from 'node:path';
import os from 'node:os';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { createRequire } from 'node:module';
const fsServer = path.join(path.dirname(createRequire(import.meta.url).resolve('@modelcontextprotocol/server-filesystem/package.json')), 'dist/index.js');
const [lines, ext, n] = process.argv.slice(2, 5);
const specs = process.argv.slice(5);
const L = Number(lines);
const out = [];
for (let i = 0; i < L; i++) out.push(`    const value_${i} = compute(${i}, "some text to make the line realistic");`);
const text = out.join('\n') + '\n';
const mid = Math.floor(L / 2);
const a = `    const value_${mid} = compute(${mid}, "some text to make the line realistic");`;
const b = a.replace('compute', 'recompute');
const servers = [];
const PAUSE_MS = Number(process.env.EW_BENCH_PAUSE_MS ?? 0);
/** CPU time (ms) a process has used so far: utime + stime, in clock ticks of 10 ms. */
function cpuOf(pid) {
  const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) * 10;
}
for (const spec of specs) {
  const [label, bin, envs] = spec.split('=');
  const root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'ab-')));
  // `@durability:strict` among the envs: the server's project takes checkpoints.durability: strict (docs/checkpoints.md).
  const durability = (envs || '')
    .split(',')
    .find((kv) => kv.startsWith('@durability:'))
    ?.split(':')[1];
  fs.writeFileSync(path.join(root, '.editwarden.yml'), `constraints:\n  max_lines_changed: 100000000\n  timeout: 86400\n${durability ? `checkpoints:\n  durability: ${durability}\n` : ''}`);
  fs.writeFileSync(path.join(root, `f.${ext}`), text);
  const env = { ...process.env };
  for (const kv of (envs || '').split(',').filter((kv) => kv && !kv.startsWith('@'))) {
    const [k, v] = kv.split(':');
    env[k] = v;
  }
  const args = label === 'fs' ? [fsServer, root] : [bin, 'mcp', '--root', root];
  const c = new Client({ name: 'x', version: '0' });
  const transport = new StdioClientTransport({ command: process.execPath, args, env, stderr: 'ignore' });
  await c.connect(transport);
  servers.push({ label, root, c, transport, ms: [], cpu0: 0, cpu1: 0 });
}
for (let i = 0; i < Number(n) + 4; i++) {
  if (i === 4) for (const s of servers) s.cpu0 = cpuOf(s.transport.pid);
  const [f, to] = i % 2 ? [b, a] : [a, b];
  const order = i % 2 ? [...servers].reverse() : servers;
  for (const s of order) {
    const t0 = performance.now();
    const r =
      s.label === 'fs'
        ? await s.c.callTool({ name: 'edit_file', arguments: { path: path.join(s.root, `f.${ext}`), edits: [{ oldText: f, newText: to }] } })
        : await s.c.callTool({ name: 'edit_file', arguments: { path: `f.${ext}`, old_text: f, new_text: to } });
    const t = performance.now() - t0;
    if (r.isError) throw new Error(s.label + JSON.stringify(r));
    if (i >= 4) s.ms.push(t);
    if (PAUSE_MS > 0) await new Promise((r) => setTimeout(r, PAUSE_MS));
  }
}
for (const s of servers) s.cpu1 = cpuOf(s.transport.pid);
const med = (a) => {
  const x = [...a].sort((p, q) => p - q);
  return x[x.length >> 1];
};
const base = servers.find((s) => s.label === 'fs');
console.log(
  `${L}-line .${ext}, n=${n}, pause ${PAUSE_MS} ms, load ${os.loadavg()[0].toFixed(1)}: ` +
    servers.map((s) => `${s.label} ${med(s.ms).toFixed(2)}ms${base ? ` (${(med(s.ms) / med(base.ms)).toFixed(2)}x)` : ''}, CPU ${((s.cpu1 - s.cpu0) / Number(n)).toFixed(2)} ms/call`).join(' | '),
);
for (const s of servers) {
  await s.c.close();
  fs.rmSync(s.root, { recursive: true, force: true });
}
