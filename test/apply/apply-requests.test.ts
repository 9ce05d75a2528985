import { openWorkspace } from '../../src/workspace/open.js';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createHash } from 'node:crypto';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { applyRequests } from '../../src/apply/pipeline.js';
import type { EditRequest } from '../../src/edit/types.js';

let root: string;
beforeEach(() => {
  root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'ew-apply-')));
  fs.writeFileSync(path.join(root, 'a.txt'), 'alpha\nbeta\ngamma\n');
  fs.writeFileSync(path.join(root, 'b.txt'), 'one\ntwo\n');
});
afterEach(() => fs.rmSync(root, { recursive: true, force: true }));

const read = (p: string): string => fs.readFileSync(path.join(root, p), 'utf8');
const sha = (p: string): string =>
  createHash('sha256')
    .update(fs.readFileSync(path.join(root, p)))
    .digest('hex');

describe('a reply is applied all or nothing', () => {
  it('writes nothing when one request of several fails, and says why for each', async () => {
    const ws = openWorkspace(root).ws;
    const requests: EditRequest[] = [
      { path: 'a.txt', action: 'edit', oldText: 'beta', newText: 'BETA' },
      { path: 'b.txt', action: 'edit', oldText: 'missing', newText: 'x' },
    ];
    const out = await applyRequests(ws, requests);
    expect(out.ok).toBe(false);
    expect(read('a.txt')).toBe('alpha\nbeta\ngamma\n');
    expect(out.results[0]?.status).toBe('rejected');
    expect(out.results[0]?.error?.code).toBe('E_ABORTED');
    expect(out.results[0]?.diff).toContain('+BETA');
    expect(out.results[1]?.error?.code).toBe('E_NOT_FOUND');
  });

  it('partial mode applies what succeeds and reports the rest', async () => {
    const ws = openWorkspace(root).ws;
    const out = await applyRequests(
      ws,
      [
        { path: 'a.txt', action: 'edit', oldText: 'beta', newText: 'BETA' },
        { path: 'b.txt', action: 'edit', oldText: 'missing', newText: 'x' },
      ],
      { partial: true },
    );
    expect(read('a.txt')).toBe('alpha\nBETA\ngamma\n');
    expect(out.results.map((r) => r.status)).toEqual(['applied', 'rejected']);
  });

  it('several edits to one file apply in order', async () => {
    const ws = openWorkspace(root).ws;
    const out = await applyRequests(ws, [
      { path: 'a.txt', action: 'edit', oldText: 'beta', newText: 'BETA' },
      { path: 'a.txt', action: 'edit', oldText: 'BETA\ngamma', newText: 'BETA\nGAMMA' },
    ]);
    expect(out.ok).toBe(true);
    expect(read('a.txt')).toBe('alpha\nBETA\nGAMMA\n');
    expect(out.results[1]?.diff).toContain('-gamma');
  });

  it('a dry run writes nothing and returns the combined diff', async () => {
    const ws = openWorkspace(root).ws;
    const before = sha('a.txt');
    const out = await applyRequests(ws, [{ path: 'a.txt', action: 'edit', oldText: 'beta', newText: 'BETA' }], { dryRun: true });
    expect(out.results[0]?.status).toBe('dry-run');
    expect(out.diff).toContain('@@ -1,3 +1,3 @@');
    expect(sha('a.txt')).toBe(before);
  });
});

describe('stale-read check', () => {
  it('accepts the hash the agent read (full or an 8+ char prefix)', async () => {
    const ws = openWorkspace(root).ws;
    const hash = sha('a.txt');
    const out = await applyRequests(ws, [{ path: 'a.txt', action: 'edit', oldText: 'beta', newText: 'B', expectedHash: hash.slice(0, 12) }]);
    expect(out.ok).toBe(true);
  });

  it('refuses with E_STALE when the file changed since it was read', async () => {
    const ws = openWorkspace(root).ws;
    const hash = sha('a.txt');
    fs.appendFileSync(path.join(root, 'a.txt'), 'delta\n');
    const out = await applyRequests(ws, [{ path: 'a.txt', action: 'edit', oldText: 'beta', newText: 'B', expectedHash: hash }]);
    expect(out.results[0]?.error?.code).toBe('E_STALE');
    expect(read('a.txt')).toBe('alpha\nbeta\ngamma\ndelta\n');
  });
});

describe('refusals write nothing', () => {
  it('binary files are refused with E_BINARY', async () => {
    fs.writeFileSync(path.join(root, 'bin.dat'), Buffer.from([1, 2, 0, 3]));
    const ws = openWorkspace(root).ws;
    const out = await applyRequests(ws, [{ path: 'bin.dat', action: 'append', content: 'x' }]);
    expect(out.results[0]?.error?.code).toBe('E_BINARY');
    expect(fs.readFileSync(path.join(root, 'bin.dat'))).toEqual(Buffer.from([1, 2, 0, 3]));
  });

  it('files above the size limit are refused with E_TOO_LARGE', async () => {
    const ws = openWorkspace(root, { maxFileBytes: 100 }).ws;
    fs.writeFileSync(path.join(root, 'big.txt'), 'x'.repeat(200));
    const out = await applyRequests(ws, [{ path: 'big.txt', action: 'append', content: 'y' }], { edit: { maxFileBytes: 100 } });
    expect(out.results[0]?.error?.code).toBe('E_TOO_LARGE');
    const grow = await applyRequests(ws, [{ path: 'a.txt', action: 'append', content: 'z'.repeat(200) }], { edit: { maxFileBytes: 100 } });
    expect(grow.results[0]?.error?.code).toBe('E_TOO_LARGE');
    expect(read('a.txt')).toBe('alpha\nbeta\ngamma\n');
  });

  it('paths outside the root are refused before anything is read', async () => {
    const ws = openWorkspace(root).ws;
    const out = await applyRequests(ws, [{ path: '../escape.txt', action: 'create', content: 'x' }]);
    expect(out.results[0]?.error?.code).toBe('E_OUTSIDE_ROOT');
    expect(fs.existsSync(path.join(root, '..', 'escape.txt'))).toBe(false);
  });

  it('create makes parent folders; delete and move go through the sandbox', async () => {
    const ws = openWorkspace(root).ws;
    const out = await applyRequests(ws, [
      { path: 'new/dir/c.txt', action: 'create', content: 'c\n' },
      { path: 'b.txt', action: 'patch', hunks: [], moveTo: 'moved/b.txt' },
    ]);
    expect(out.ok).toBe(true);
    expect(read('new/dir/c.txt')).toBe('c\n');
    expect(read('moved/b.txt')).toBe('one\ntwo\n');
    expect(fs.existsSync(path.join(root, 'b.txt'))).toBe(false);
  });

  it('keeps the mode of an edited file', async () => {
    fs.chmodSync(path.join(root, 'a.txt'), 0o755);
    const ws = openWorkspace(root).ws;
    await applyRequests(ws, [{ path: 'a.txt', action: 'edit', oldText: 'beta', newText: 'B' }]);
    expect(fs.statSync(path.join(root, 'a.txt')).mode & 0o777).toBe(0o755);
  });
});

describe('parse errors of a reply keep their place among the results', () => {
  it('merges item errors by index with the parsed requests', async () => {
    const ws = openWorkspace(root).ws;
    const out = await applyRequests(
      ws,
      [
        { path: 'a.txt', action: 'append', content: 'x\n', source: { format: 'active-edit', index: 0 } },
        { path: 'b.txt', action: 'append', content: 'y\n', source: { format: 'active-edit', index: 2 } },
      ],
      { partial: true, parseErrors: [{ index: 1, path: 'c.txt', error: { code: 'E_PARSE', message: 'bad', hint: 'fix' } }] },
    );
    expect(out.results.map((r) => [r.path, r.status])).toEqual([
      ['a.txt', 'applied'],
      ['c.txt', 'rejected'],
      ['b.txt', 'applied'],
    ]);
  });
});

describe('a move never overwrites an existing file', () => {
  it('refuses the move in partial mode too, even when another edit to the file failed', async () => {
    const ws = openWorkspace(root).ws;
    const out = await applyRequests(
      ws,
      [
        { path: 'a.txt', action: 'edit', oldText: 'missing', newText: 'x' },
        { path: 'a.txt', action: 'patch', hunks: [], moveTo: 'b.txt' },
      ],
      { partial: true },
    );
    expect(read('b.txt')).toBe('one\ntwo\n');
    expect(read('a.txt')).toBe('alpha\nbeta\ngamma\n');
    expect(out.results.map((r) => r.status)).toEqual(['rejected', 'rejected']);
    expect(out.results[1]?.error?.code).toBe('E_EXISTS');
  });
});
