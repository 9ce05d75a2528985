// In-process A/B of the write protocol at one machine moment: a one-file
// ws.commit with the checkpoint group fsynced in order ("serial"), the same
// with the group on helper threads (EDITWARDEN_PARALLEL_FSYNC=1,
// "parallel"), and the durable floor (temp, fsync, rename, folder fsync of
// the same bytes), interleaved; medians.
// Usage: npm run build && node bench/ab-fsync.mjs [N=40]
import fs from 'node:fs';
import path from 'node:path';
import os from 'node:os';
import { durableFloor } from './stats.mjs';
const dist = new URL('../dist', import.meta.url).pathname;
const { openWorkspace } = await import(dist + '/workspace/open.js');
const root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'inproc-')));
const lines = [];
for (let i = 0; i < 100; i++) lines.push(`    const value_${i} = compute(${i}, "some text to make the line realistic");`);
const text = lines.join('\n') + '\n';
fs.writeFileSync(path.join(root, 'a.txt'), text);
const { ws } = openWorkspace(root);
const floorDir = fs.mkdtempSync(path.join(os.tmpdir(), 'floor-'));
const r = { floor: [], par: [], ser: [] };
for (let i = 0; i < Number(process.argv[2] ?? 40) + 3; i++) {
  for (const k of i % 2 ? ['floor', 'par', 'ser'] : ['ser', 'par', 'floor']) {
    await new Promise((res) => setTimeout(res, 5));
    if (k === 'ser') process.env.EDITWARDEN_SERIAL_FSYNC = '1';
    else delete process.env.EDITWARDEN_SERIAL_FSYNC;
    const t0 = performance.now();
    if (k === 'floor') durableFloor(floorDir, text);
    else ws.transact((tx) => ws.commit(tx, [{ kind: 'write', path: 'a.txt', bytes: Buffer.from(text.replace('value_50', 'value_50' + i + k)) }]));
    if (i >= 3) r[k].push(performance.now() - t0);
  }
}
const med = (a) => {
  a.sort((x, y) => x - y);
  return a[a.length >> 1].toFixed(2);
};
console.log(`load ${os.loadavg()[0].toFixed(1)} floor ${med(r.floor)} parallel ${med(r.par)} serial ${med(r.ser)}`);
fs.rmSync(root, { recursive: true, force: true });
fs.rmSync(floorDir, { recursive: true, force: true });
