/**
 * The race-free resolver under attack: a real process swaps a folder inside
 * the root with a symlink to an outside folder (renameat2 RENAME_EXCHANGE,
 * as fast as it can) while real tool calls, writes that create folders,
 * checkpoint captures, diffs and restores run. Nothing outside may be read
 * (the outside file holds a unique secret that must never appear in any
 * result) or written (the outside folder must stay exactly as it was).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import { spawn } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from 'vitest';
import { defaultConfig } from '../../src/config/config.js';
import { openWorkspace } from '../../src/workspace/open.js';
import { ToolRunner } from '../../src/tools/runner.js';
import { buildSwapper, swapperBuildable } from '../swapper.js';

/**
 * How many tool calls and checkpoint operations run during the race. The swapper runs until they have (it is
 * stopped then), not for a time: on a loaded machine a few seconds held fewer than a hundred calls.
 */
const CALLS = 150;
let base: string;
let swapper: string;

beforeAll(() => {
  base = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'ew-race-')));
  swapper = buildSwapper(base);
});
afterAll(() => fs.rmSync(base, { recursive: true, force: true }));

function listTree(dir: string): string[] {
  const out: string[] = [];
  const walk = (rel: string): void => {
    for (const d of fs.readdirSync(path.join(dir, rel), { withFileTypes: true })) {
      const r = rel ? `${rel}/${d.name}` : d.name;
      out.push(r);
      if (d.isDirectory()) walk(r);
    }
  };
  walk('');
  return out.sort();
}

describe.skipIf(!swapperBuildable)('a folder swapped for a symlink to the outside, while tools run', () => {
  it('never reads outside content and never writes, creates or deletes anything outside', async () => {
    const secret = `SECRET-${randomBytes(12).toString('hex')}`;
    const root = path.join(base, 'repo');
    const outside = path.join(base, 'outside');
    fs.mkdirSync(path.join(root, 'd'), { recursive: true });
    fs.mkdirSync(path.join(outside, 'sub'), { recursive: true });
    fs.writeFileSync(path.join(root, 'd', 'f.txt'), 'inner text\n');
    fs.writeFileSync(path.join(root, 'd', 'g.txt'), 'inner g\n');
    fs.writeFileSync(path.join(root, 'top.txt'), 'top\n');
    // The same names outside, holding the secret: a redirected read returns it, a redirected write changes them.
    fs.writeFileSync(path.join(outside, 'f.txt'), `${secret}\n`);
    fs.writeFileSync(path.join(outside, 'g.txt'), `${secret}\n`);
    fs.writeFileSync(path.join(outside, 'sub', 'h.txt'), `${secret}\n`);
    fs.symlinkSync(outside, path.join(root, 'l'));
    const before = listTree(outside);
    const beforeBytes = before.map((p) => (fs.statSync(path.join(outside, p)).isFile() ? fs.readFileSync(path.join(outside, p), 'utf8') : 'dir'));

    const config = defaultConfig();
    config.constraints.max_files = 1_000_000;
    config.constraints.max_lines_changed = 1_000_000;
    const { ws, transactions } = openWorkspace(root);
    const runner = ToolRunner.start({ ws, config, transactions });
    const cps = transactions.checkpoints;
    const base0 = cps.create('base', 'before the race');

    const child = spawn(swapper, [path.join(root, 'd'), path.join(root, 'l')], { stdio: ['ignore', 'pipe', 'inherit'] });
    // It swaps until told to stop: a failing test must not leave it running.
    onTestFinished(() => {
      if (child.exitCode === null) child.kill('SIGKILL');
    });
    let out = '';
    let started: () => void = () => undefined;
    const swapping = new Promise<void>((resolve) => {
      started = resolve;
    });
    child.stdout.on('data', (d) => {
      out += d;
      if (out.startsWith('swapping\n')) started();
    });
    const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
    let running = true;
    void exited.then(() => (running = false));
    await Promise.race([swapping, exited]);

    const results: string[] = [];
    let calls = 0;
    let i = 0;
    while (running && calls < CALLS) {
      // The calls resolve as microtasks: yield to the event loop so that a swapper that died ends the loop.
      await new Promise((resolve) => setImmediate(resolve));
      i++;
      const batch = await Promise.all([
        runner.call({ tool: 'read_file', args: { path: 'd/f.txt' } }),
        runner.call({ tool: 'read_file', args: { path: 'd/sub/h.txt' } }),
        runner.call({ tool: 'search_files', args: { pattern: 'SECRET|inner', regex: true } }),
        runner.call({ tool: 'list_files', args: { path: 'd' } }),
        runner.call({ tool: 'write_file', args: { path: `d/new${i % 5}/x.txt`, content: `written ${i}\n` } }),
        runner.call({ tool: 'write_file', args: { path: 'd/g.txt', content: `inner g ${i}\n` } }),
      ]);
      calls += batch.length;
      for (const r of batch) results.push(JSON.stringify(r));
      for (const op of [
        () => cps.create(`race ${i}`, 'during the race'),
        () => cps.create(`race files ${i}`, 'during the race', 'files', { paths: ['d/f.txt', 'd/g.txt'] }),
        () => JSON.stringify(cps.diff(base0)),
        () => JSON.stringify(cps.restore(base0)),
      ]) {
        calls++;
        try {
          results.push(String(op()));
        } catch (error) {
          results.push(String(error));
        }
      }
    }
    // The swapper ran through every call (it was still running: it had not died).
    expect(running).toBe(true);
    child.kill('SIGTERM');
    expect(await exited).toBe(0);
    const swaps = out.split('\n')[1];
    const all = results.join('\n');
    // The diff's patches and every tool result: no outside byte.
    expect(all.includes(secret)).toBe(false);
    for (const id of cps.list().map((c) => c.id)) {
      const m = cps.get(id);
      // An inline entry's `blob` is only the hash of its bytes, never stored (a prune's garbage collection removes a same-hash blob).
      for (const e of m.entries) if (e.type === 'file') expect((e.inline !== undefined ? Buffer.from(e.inline, 'base64') : cps.blobs.get(e.blob)).toString().includes(secret)).toBe(false);
    }
    expect(listTree(outside)).toEqual(before);
    expect(before.map((p) => (fs.statSync(path.join(outside, p)).isFile() ? fs.readFileSync(path.join(outside, p), 'utf8') : 'dir'))).toEqual(beforeBytes);
    expect(Number(swaps)).toBeGreaterThan(1000);
    expect(calls).toBeGreaterThanOrEqual(CALLS);
  }, 180_000);
});
