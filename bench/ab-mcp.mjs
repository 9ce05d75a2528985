#!/usr/bin/env node
// A/B over MCP stdio: two builds' `editwarden mcp` servers, one SDK client each, edit_file calls on a 100-line file, interleaved.
// Usage: node bench/ab-mcp.mjs OLD_BIN NEW_BIN [N=100]   (paths to bin/editwarden of each build)
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
const NM = new URL('../node_modules/@modelcontextprotocol/sdk/dist/esm', import.meta.url).pathname;
const { Client } = await import(`${NM}/client/index.js`);
const { StdioClientTransport } = await import(`${NM}/client/stdio.js`);
const [oldBin, newBin, N = '100'] = process.argv.slice(2);
const text = Array.from({ length: 100 }, (_, i) => `line ${i} some text`).join('\n') + '\n';
const s = {};
for (const [k, bin] of [
  ['old', oldBin],
  ['new', newBin],
]) {
  const root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), `ew-mcpab-${k}-`)));
  fs.writeFileSync(path.join(root, 'f.txt'), text);
  const client = new Client({ name: 'ab', version: '0' });
  await client.connect(new StdioClientTransport({ command: process.execPath, args: [bin, 'mcp', '--root', root], stderr: 'ignore' }));
  s[k] = { client, root, flip: false, t: [] };
}
for (let i = 0; i < Number(N) + 5; i++) {
  for (const k of i % 2 ? ['old', 'new'] : ['new', 'old']) {
    const x = s[k];
    const [a, b] = x.flip ? ['line 50 other', 'line 50 some'] : ['line 50 some', 'line 50 other'];
    x.flip = !x.flip;
    const t0 = performance.now();
    const r = await x.client.callTool({ name: 'edit_file', arguments: { path: 'f.txt', old_text: a, new_text: b } });
    if (r.isError) throw new Error(JSON.stringify(r.content));
    if (i >= 5) x.t.push(performance.now() - t0);
  }
}
const med = (xs) => {
  const v = [...xs].sort((p, q) => p - q);
  return v[Math.floor(v.length / 2)];
};
console.log(`mcp edit_file 100-line .txt: old ${med(s.old.t).toFixed(3)} ms, new ${med(s.new.t).toFixed(3)} ms, new/old ${(med(s.new.t) / med(s.old.t)).toFixed(3)}x (median of ${N}, interleaved)`);
for (const x of Object.values(s)) {
  await x.client.close();
  fs.rmSync(x.root, { recursive: true, force: true });
}
