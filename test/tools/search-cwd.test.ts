/**
 * A literal search on the main thread reads each folder's files by their
 * bare names in that folder, lent as the process's working folder
 * (src/tools/search-cwd.ts). What must hold: the search finds exactly what a
 * plain read finds, the working folder is given back exactly (by descriptor,
 * whatever was renamed meanwhile), only one search holds it at a time, and a
 * folder swapped for a symlink to the outside by a racing process never lets
 * an outside byte into a result.
 */
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it, onTestFinished, vi } from 'vitest';
import { borrowCwd } from '../../src/tools/search-cwd.js';
import { searchFiles } from '../../src/tools/search.js';
import { searchQuery } from './search-query.js';
import { type DirHandle, Resolver } from '../../src/workspace/resolver.js';
import { buildSwapper, swapperBuildable } from '../swapper.js';

let base: string;
beforeAll(() => {
  base = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'ew-search-cwd-')));
});
afterAll(() => fs.rmSync(base, { recursive: true, force: true }));

const query = searchQuery;

/** The working folder as the kernel knows it (device and inode), not as a cached path. */
function cwdIdentity(): string {
  const st = fs.statSync('.');
  return `${st.dev}:${st.ino}`;
}

/** Runs `body` in `dir` as the working folder and returns to where the test was, whatever happens. */
function inFolder<T>(dir: string, body: () => T): T {
  const was = process.cwd();
  process.chdir(dir);
  try {
    return body();
  } finally {
    process.chdir(was);
  }
}

function makeTree(root: string, files: Record<string, string>): void {
  for (const [rel, text] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(root, rel)), { recursive: true });
    fs.writeFileSync(path.join(root, rel), text);
  }
}

/** What `grep -rn` finds, the obvious way: every file read whole by path, folders depth first in name order. */
function reference(root: string, needle: string): Array<{ path: string; line: number; text: string }> {
  const out: Array<{ path: string; line: number; text: string }> = [];
  const walk = (rel: string): void => {
    const names = fs.readdirSync(path.join(root, rel)).sort();
    for (const name of names) {
      const child = rel === '' ? name : `${rel}/${name}`;
      if (fs.statSync(path.join(root, child)).isDirectory()) {
        walk(child);
        continue;
      }
      const lines = fs.readFileSync(path.join(root, child), 'utf8').split('\n');
      if (lines[lines.length - 1] === '') lines.pop();
      lines.forEach((text, i) => {
        if (text.includes(needle)) out.push({ path: child, line: i + 1, text });
      });
    }
  };
  walk('');
  return out;
}

describe('a literal search reads in the lent working folder and gives it back', () => {
  it('enters each folder through its descriptor and returns to the folder it left', () => {
    const tree = path.join(base, 'lent');
    makeTree(tree, { 'a/one.txt': 'hit 1\n', 'a/b/two.txt': 'no\nhit 2\n', 'c/three.txt': 'hit 3\n', 'top.txt': 'hit 0\n' });
    const chdir = vi.spyOn(process, 'chdir');
    try {
      const before = cwdIdentity();
      const out = searchFiles(tree, query('hit'));
      expect(out.matches.map((m) => `${m.path}:${m.line}`)).toEqual(['a/b/two.txt:2', 'a/one.txt:1', 'c/three.txt:1', 'top.txt:1']);
      expect(cwdIdentity()).toBe(before);
      // One entry proving the way back, one per folder searched (a/b, a, c, the root), one back: all through descriptors.
      const targets = chdir.mock.calls.map((c) => String(c[0]));
      expect(targets).toHaveLength(6);
      for (const t of targets) expect(t).toMatch(/^\/proc\/self\/fd\/\d+$/);
      expect(targets[targets.length - 1]).toBe(targets[0]);
    } finally {
      chdir.mockRestore();
    }
  });

  it('returns by descriptor: to the folder it was in even when that folder is renamed during the loan and another takes its name', () => {
    const tree = path.join(base, 'renamed-tree');
    makeTree(tree, { 'x/f.txt': 'hit\n' });
    const home = path.join(base, 'home');
    fs.mkdirSync(path.join(home, 'a'), { recursive: true });
    inFolder(path.join(home, 'a'), () => {
      const mine = cwdIdentity();
      const loan = borrowCwd();
      const folder = new Resolver(tree).openDirExact('x');
      try {
        expect(loan?.enter(folder as DirHandle)).toBe(true);
        expect(fs.readFileSync('f.txt', 'utf8')).toBe('hit\n');
        fs.renameSync(path.join(home, 'a'), path.join(home, 'b'));
        fs.mkdirSync(path.join(home, 'a'));
      } finally {
        loan?.release();
        folder?.close();
      }
      expect(cwdIdentity()).toBe(mine);
      expect(process.cwd()).toBe(path.join(home, 'b'));
      // And a whole search from there leaves it there.
      expect(searchFiles(tree, query('hit')).matches).toHaveLength(1);
      expect(cwdIdentity()).toBe(mine);
    });
  });

  it('is given back when the search stops early, and a search whose start folder is gone leaves it alone', () => {
    const tree = path.join(base, 'early');
    makeTree(tree, { 'a/f.txt': 'hit\nhit\n', 'b/g.txt': 'hit\n' });
    const before = cwdIdentity();
    expect(searchFiles(tree, query('hit', { maxResults: 1 })).truncated).toBe(true);
    expect(cwdIdentity()).toBe(before);
    expect(searchFiles(tree, query('hit', { start: 'missing' })).matches).toEqual([]);
    expect(cwdIdentity()).toBe(before);
  });

  it('is lent to one search at a time; the second one reads through procfs', () => {
    const first = borrowCwd();
    expect(first).not.toBeNull();
    try {
      expect(borrowCwd()).toBeNull();
      const tree = path.join(base, 'nested');
      makeTree(tree, { 'd/f.txt': 'hit\n' });
      // A search meanwhile finds the same and does not take or give back what it does not hold.
      const chdir = vi.spyOn(process, 'chdir');
      try {
        expect(searchFiles(tree, query('hit')).matches).toEqual([{ path: 'd/f.txt', line: 1, text: 'hit' }]);
        expect(chdir).not.toHaveBeenCalled();
      } finally {
        chdir.mockRestore();
      }
    } finally {
      first?.release();
    }
    const again = borrowCwd();
    expect(again).not.toBeNull();
    again?.release();
  });

  it('the working folder stays where it is when it cannot be entered again (nothing lent)', () => {
    const home = path.join(base, 'no-entry');
    fs.mkdirSync(home);
    const tree = path.join(base, 'no-entry-tree');
    makeTree(tree, { 'f.txt': 'hit\n' });
    inFolder(home, () => {
      // Readable, not searchable: opening '.' works, entering it again would not, so no loan could be given back.
      fs.chmodSync(home, 0o444);
      try {
        if (process.getuid?.() === 0) return; // root enters anything: nothing to show here.
        expect(borrowCwd()).toBeNull();
        expect(searchFiles(tree, query('hit')).matches).toHaveLength(1);
      } finally {
        fs.chmodSync(home, 0o755);
      }
    });
  });

  it('finds exactly what a plain read finds, in walk order, over random trees (property)', () => {
    const folder = fc.constantFrom('', 'a', 'a/b', 'ab', 'a b', 'b/a', 'a/bc', 'a/b/c');
    const file = fc.record({ dir: folder, name: fc.stringMatching(/^[a-z]{1,3}\.txt$/), lines: fc.array(fc.constantFrom('x hit', 'none', 'hit hit', '', 'hi t'), { maxLength: 6 }) });
    let run = 0;
    fc.assert(
      fc.property(fc.array(file, { minLength: 1, maxLength: 25 }), (files) => {
        const tree = path.join(base, `prop-${run++}`);
        const spec: Record<string, string> = {};
        // A name is a file or a folder, not both (a later folder of that name wins).
        for (const f of files) spec[f.dir === '' ? f.name : `${f.dir}/${f.name}`] = `${f.lines.join('\n')}\n`;
        const dirs = new Set(files.flatMap((f) => f.dir.split('/').map((_, i, parts) => parts.slice(0, i + 1).join('/'))));
        for (const rel of Object.keys(spec)) if (dirs.has(rel)) delete spec[rel];
        makeTree(tree, spec);
        try {
          const before = cwdIdentity();
          expect(searchFiles(tree, query('hit')).matches).toEqual(reference(tree, 'hit'));
          expect(cwdIdentity()).toBe(before);
        } finally {
          fs.rmSync(tree, { recursive: true, force: true });
        }
      }),
      { numRuns: 25 },
    );
  });
});

describe('a regular expression is screened on this thread and run on the leased threads (compiled build)', () => {
  it('gives what the one-thread search gives, counts included, whether most files hold the required text or few do', async () => {
    const dist = path.resolve(__dirname, '../../dist/tools/search-worker.js');
    if (!fs.existsSync(dist)) throw new Error('run `npm run build` first: the worker threads load compiled code');
    const mod = (await import(dist)) as typeof import('../../src/tools/search-worker.js');
    const pool = new mod.SearchPool(2);
    const tree = path.join(base, 'screened');
    const files: Record<string, string> = {};
    // 300 files each: in "few" 1 in 40 holds "hit ", in "most" 3 in 4 do (screening stops after its 256-file trial there).
    for (let i = 0; i < 300; i++) {
      files[`few/d${i % 7}/f${i}.txt`] = i % 40 === 0 ? `x\nhit ${i}\n` : 'nothing\n';
      files[`most/d${i % 7}/f${i}.txt`] = i % 4 !== 0 ? `hit ${i}\nhit\n` : 'nothing\n';
    }
    files['few/big.txt'] = `hit 1\n${'y'.repeat(3000)}\n`;
    files['few/binary.bin'] = 'hit 2\n\0\n';
    makeTree(tree, files);
    const chdir = vi.spyOn(process, 'chdir');
    try {
      for (const start of ['few', 'most']) {
        for (const [pattern, screened] of [
          ['hit \\d+', true],
          ['\\d{3}', false],
        ] as const) {
          const q = query(pattern, { regex: true, start, maxFileBytes: 2000 });
          chdir.mockClear();
          const par = await pool.search(tree, q);
          // Read here (the lent working folder) only when there is a text to screen for.
          expect(chdir.mock.calls.length > 0).toBe(screened);
          const one = searchFiles(tree, q);
          expect(par).toEqual(one);
        }
      }
      const few = searchFiles(tree, query('hit \\d+', { regex: true, start: 'few', maxFileBytes: 2000 }));
      expect(few.skippedLarge).toBe(1);
      expect(few.skippedBinary).toBe(1);
      expect(few.filesSearched).toBe(301);
    } finally {
      chdir.mockRestore();
      await pool.close();
    }
  }, 120_000);
});

describe.skipIf(!swapperBuildable)('a folder swapped for a symlink to the outside while literal searches run', () => {
  it('never shows an outside byte and always gives the working folder back', async () => {
    const swapper = buildSwapper(base);
    const secret = `SECRET-${randomBytes(12).toString('hex')}`;
    const root = path.join(base, 'race');
    const outside = path.join(base, 'race-outside');
    makeTree(root, { 'd/f.txt': 'inner TOKEN f\n', 'd/g.txt': 'inner TOKEN g\n', 'd/sub/h.txt': 'inner TOKEN h\n', 'top.txt': 'TOKEN top\n' });
    // The same names outside, holding the secret: a read redirected through the link returns it.
    makeTree(outside, { 'f.txt': `${secret} TOKEN\n`, 'g.txt': `${secret} TOKEN\n`, 'sub/h.txt': `${secret} TOKEN\n` });
    fs.symlinkSync(outside, path.join(root, 'l'));
    // The compiled pool: a regular expression with a required text is screened here and run on its threads.
    const dist = path.resolve(__dirname, '../../dist/tools/search-worker.js');
    const mod = (await import(dist)) as typeof import('../../src/tools/search-worker.js');
    const pool = new mod.SearchPool(2);
    const child = spawn(swapper, [path.join(root, 'd'), path.join(root, 'l')], { stdio: ['ignore', 'pipe', 'inherit'] });
    onTestFinished(() => {
      if (child.exitCode === null) child.kill('SIGKILL');
    });
    let out = '';
    const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
    await new Promise<void>((resolve) => {
      child.stdout.on('data', (d) => {
        out += d;
        if (out.startsWith('swapping\n')) resolve();
      });
      void exited.then(() => resolve());
    });
    const before = cwdIdentity();
    const shown: string[] = [];
    let found = 0;
    try {
      for (let i = 0; i < 240 && child.exitCode === null; i++) {
        const result = i % 3 === 0 ? searchFiles(root, query('TOKEN')) : await pool.search(root, i % 3 === 1 ? query('TOKEN') : query('T[O]KEN', { regex: true }));
        for (const m of result.matches) shown.push(`${m.path}:${m.text}`);
        found += result.matches.length;
        expect(cwdIdentity()).toBe(before);
        // Let the swapper's output and exit be seen.
        if (i % 20 === 0) await new Promise((resolve) => setImmediate(resolve));
      }
    } finally {
      await pool.close();
    }
    expect(child.exitCode).toBeNull();
    child.kill('SIGTERM');
    expect(await exited).toBe(0);
    expect(shown.join('\n').includes(secret)).toBe(false);
    // The searches did read the swapped folder's own files when they found it in place.
    expect(shown.some((s) => s.startsWith('d/') && s.includes('inner TOKEN'))).toBe(true);
    expect(found).toBeGreaterThan(240);
    expect(Number(out.split('\n')[1])).toBeGreaterThan(1000);
  }, 120_000);
});
