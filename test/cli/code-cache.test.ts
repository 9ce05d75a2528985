/**
 * The V8 code cache of the one-shot commands' CommonJS bundles (src/cli/code-cache.ts). An entry is code the
 * process runs, and V8 checks only the source's length against it (shown below: an entry made for another source
 * of the same length runs that other source's code). So: entries are read only from this user's private runtime
 * folder, only when they are private files of ours, and only when their first line is the identity of the bundle
 * on disk now and of this runtime; a command's output, exit and records are the same with a cold, warm, corrupted
 * or no cache. The loader runs in real processes (its entry is written at exit), from the build (dist/).
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import { wrap } from 'node:module';
import path from 'node:path';
import vm from 'node:vm';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { type CodeIdentity, codeCacheDir, entryHeader, entryName, readEntry, writeEntry } from '../../src/cli/code-cache.js';
import { skipUnlessRoot } from '../needs-root.js';
import { createOtherUser } from '../other-user.js';
import { tempDir } from '../temp-dirs.js';

const REPO = path.resolve(__dirname, '../..');
const LOADER = path.join(REPO, 'dist', 'hook-client', 'code-cache.cjs');
const BIN = path.join(REPO, 'bin', 'editwarden');
const UID = typeof process.getuid === 'function' ? process.getuid() : -1;

/** A runtime folder of its own (as the login session makes XDG_RUNTIME_DIR) and the cache folder in it. */
function runtime(): { rt: string; cache: string } {
  const rt = tempDir('ew-code-rt-');
  fs.chmodSync(rt, 0o700);
  return { rt, cache: path.join(rt, `editwarden-${UID}`, 'code-cache') };
}

/** A CommonJS bundle whose main prints `word` (every word given is of one length: the sources differ, their lengths not). */
function bundle(dir: string, word: string): string {
  const file = path.join(dir, 'cli.cjs');
  fs.writeFileSync(file, `"use strict";\nexports.main = () => process.stdout.write(${JSON.stringify(`${word}\n`)});\n`);
  return file;
}

/** Runs `file` through the loader in a process of its own, as bin/editwarden does; its stdout. */
function load(file: string, env: Record<string, string>): string {
  const script = `require(${JSON.stringify(LOADER)}).loadBundle(${JSON.stringify(file)}, process.env, []).main();`;
  const r = spawnSync(process.execPath, ['-e', script], { encoding: 'utf8', env: { PATH: process.env.PATH ?? '/usr/bin:/bin', ...env }, timeout: 30_000 });
  expect(r.status, r.stderr).toBe(0);
  return r.stdout;
}

/** The identity loadBundle computes for `file` now (this process runs the same Node, with no flags). */
function identityOf(file: string): CodeIdentity {
  const real = fs.realpathSync(file);
  const s = fs.statSync(real, { bigint: true });
  return { file: real, dev: s.dev, ino: s.ino, size: s.size, mtimeNs: s.mtimeNs, ctimeNs: s.ctimeNs, node: process.version, arch: process.arch, flags: [], variant: '' };
}

/** V8's code for `source` wrapped as loadBundle wraps it, with main run (so it holds main's code too). */
function codeFor(source: string, filename: string): Buffer {
  const script = new vm.Script(wrap(source), { filename });
  const module = { exports: {} as { main: () => void } };
  (script.runInThisContext() as (e: unknown, r: unknown, m: unknown) => void)(module.exports, undefined, module);
  // Run once (so V8 compiled main), its output kept out of the test's.
  const write = process.stdout.write;
  process.stdout.write = () => true;
  try {
    module.exports.main();
  } finally {
    process.stdout.write = write;
  }
  return script.createCachedData();
}

/** An entry for `file` whose code is another source's of the same length that prints `word`: what an attacker plants. */
function planted(file: string, word: string): Buffer {
  const source = fs.readFileSync(file, 'utf8');
  const other = source.replace(/"[A-Z]+\\n"/, `"${word}\\n"`);
  expect(other.length).toBe(source.length);
  return Buffer.concat([Buffer.from(entryHeader(identityOf(file)), 'utf8'), codeFor(other, fs.realpathSync(file))]);
}

describe('the code cache runs only the code of the bundle on disk', () => {
  it('an entry made for another source of the same length runs that source (why the identity and the folder are checked)', () => {
    const dir = tempDir('ew-code-b-');
    const file = bundle(dir, 'REAL');
    const { rt, cache } = runtime();
    fs.mkdirSync(cache, { recursive: true, mode: 0o700 });
    fs.writeFileSync(path.join(cache, entryName(identityOf(file))), planted(file, 'EVIL'), { mode: 0o600 });
    // Planted in our own private folder with the right first line, it is believed: only its place and identity guard it.
    expect(load(file, { XDG_RUNTIME_DIR: rt })).toBe('EVIL\n');
  });

  it('is written at exit, read by the next run, and a rebuilt bundle of the same length and time never runs the old entry', () => {
    const dir = tempDir('ew-code-b-');
    const file = bundle(dir, 'AAAA');
    const { rt, cache } = runtime();
    expect(load(file, { XDG_RUNTIME_DIR: rt })).toBe('AAAA\n');
    const entry = path.join(cache, entryName(identityOf(file)));
    expect(fs.statSync(entry).mode & 0o777).toBe(0o600);
    expect(readEntry(cache, identityOf(file))?.length).toBeGreaterThan(0);
    expect(load(file, { XDG_RUNTIME_DIR: rt })).toBe('AAAA\n');
    const before = fs.statSync(file);
    bundle(dir, 'BBBB');
    fs.utimesSync(file, before.atime, before.mtime);
    expect(load(file, { XDG_RUNTIME_DIR: rt })).toBe('BBBB\n');
    // The rebuilt bundle's entry replaced the old one, under the same name.
    expect(fs.readdirSync(cache)).toEqual([path.basename(entry)]);
    expect(readEntry(cache, identityOf(file))?.length).toBeGreaterThan(0);
    expect(load(file, { XDG_RUNTIME_DIR: rt })).toBe('BBBB\n');
  });

  it('an entry that is a link, open to others, or not a file is never read', () => {
    for (const plant of ['link', 'open', 'folder'] as const) {
      const dir = tempDir('ew-code-b-');
      const file = bundle(dir, 'REAL');
      const { rt, cache } = runtime();
      fs.mkdirSync(cache, { recursive: true, mode: 0o700 });
      const entry = path.join(cache, entryName(identityOf(file)));
      const bytes = planted(file, 'EVIL');
      if (plant === 'link') {
        const elsewhere = path.join(dir, 'planted.code');
        fs.writeFileSync(elsewhere, bytes, { mode: 0o600 });
        fs.symlinkSync(elsewhere, entry);
      } else if (plant === 'open') {
        fs.writeFileSync(entry, bytes);
        fs.chmodSync(entry, 0o644);
      } else {
        fs.mkdirSync(entry);
      }
      expect({ plant, out: load(file, { XDG_RUNTIME_DIR: rt }) }).toEqual({ plant, out: 'REAL\n' });
    }
  });

  it('an entry in a folder that is a link or open to others is never read, and nothing is written there', () => {
    for (const plant of ['link', 'open', 'open above'] as const) {
      const dir = tempDir('ew-code-b-');
      const file = bundle(dir, 'REAL');
      const { rt, cache } = runtime();
      const elsewhere = tempDir('ew-code-planted-');
      fs.mkdirSync(path.dirname(cache), { mode: 0o700 });
      if (plant === 'link') fs.symlinkSync(elsewhere, cache);
      else fs.mkdirSync(cache, { mode: 0o700 });
      const folder = plant === 'link' ? elsewhere : cache;
      fs.writeFileSync(path.join(folder, entryName(identityOf(file))), planted(file, 'EVIL'), { mode: 0o600 });
      if (plant === 'open') fs.chmodSync(cache, 0o777);
      if (plant === 'open above') fs.chmodSync(path.dirname(cache), 0o755);
      const listed = fs.readdirSync(folder);
      expect({ plant, out: load(file, { XDG_RUNTIME_DIR: rt }) }).toEqual({ plant, out: 'REAL\n' });
      expect({ plant, listed: fs.readdirSync(folder) }).toEqual({ plant, listed });
    }
  });

  it('without a runtime folder, or turned off, nothing is read or written (the temp folder is never one)', () => {
    const dir = tempDir('ew-code-b-');
    const file = bundle(dir, 'REAL');
    const { rt, cache } = runtime();
    fs.mkdirSync(cache, { recursive: true, mode: 0o700 });
    fs.writeFileSync(path.join(cache, entryName(identityOf(file))), planted(file, 'EVIL'), { mode: 0o600 });
    expect(load(file, { XDG_RUNTIME_DIR: rt, EDITWARDEN_COMPILE_CACHE: 'off' })).toBe('REAL\n');
    expect(load(file, { TMPDIR: rt })).toBe('REAL\n');
    expect(fs.readdirSync(cache)).toHaveLength(1);
    expect(codeCacheDir({ TMPDIR: rt })).toBeNull();
  });

  it('an entry planted by another user, in a runtime folder that user made, is never read (a real second user)', async (context) => {
    skipUnlessRoot(context, 'creates a second OS user');
    const other = createOtherUser('ewcc');
    try {
      const file = bundle(other.shared, 'REAL');
      fs.chmodSync(file, 0o644);
      const bytes = planted(file, 'EVIL');
      // The runtime folder the person's environment names is the other user's (a shared machine's mistake).
      const rt = path.join(other.shared, 'rt');
      fs.mkdirSync(rt, { mode: 0o755 });
      const otherUid = Number(spawnSync('id', ['-u', other.name], { encoding: 'utf8' }).stdout.trim());
      fs.chownSync(rt, otherUid, otherUid);
      const cache = path.join(rt, `editwarden-${UID}`, 'code-cache');
      const entry = path.join(cache, entryName(identityOf(file)));
      const r = await other.runModule(
        `import fs from 'node:fs';
         fs.mkdirSync(${JSON.stringify(cache)}, { recursive: true, mode: 0o700 });
         fs.writeFileSync(${JSON.stringify(entry)}, Buffer.from(process.env.PLANT, 'base64'), { mode: 0o600 });`,
        { PLANT: bytes.toString('base64') },
      );
      expect(r.status, r.stderr).toBe(0);
      expect(fs.statSync(entry).uid).toBe(otherUid);
      expect(load(file, { XDG_RUNTIME_DIR: rt })).toBe('REAL\n');
      expect(fs.readFileSync(entry)).toEqual(bytes);
      // Its entry moved into our own private folder, still the other user's file: not read either.
      const mine = runtime();
      fs.mkdirSync(mine.cache, { recursive: true, mode: 0o700 });
      const moved = path.join(mine.cache, path.basename(entry));
      fs.copyFileSync(entry, moved);
      fs.chownSync(moved, otherUid, otherUid);
      fs.chmodSync(moved, 0o600);
      expect(load(file, { XDG_RUNTIME_DIR: mine.rt })).toBe('REAL\n');
    } finally {
      other.remove();
    }
  });
});

describe('a bundle that serves several commands', () => {
  it('keeps one entry per command: the thin clients deciding in-process share the hook server’s bundle', () => {
    const root = tempDir('ew-code-p-');
    fs.writeFileSync(path.join(root, 'a.txt'), 'hello\n');
    const { rt, cache } = runtime();
    const env = { ...process.env, XDG_RUNTIME_DIR: rt, EDITWARDEN_HOOK_SERVER: 'off', NO_COLOR: '1' };
    for (const args of [
      ['edit', 'a.txt', '--old', 'hello', '--new', 'there', '--dry-run'],
      ['shell', '--client', 'claude', '--tool', 'Bash', '--root', root, '--', 'true'],
    ]) {
      const r = spawnSync(process.execPath, [BIN, ...args], { cwd: root, encoding: 'utf8', env, timeout: 60_000 });
      expect(r.status, r.stderr).toBe(0);
    }
    const made = fs.readdirSync(cache).map((name) => {
      const header = fs.readFileSync(path.join(cache, name), 'latin1').split('\n', 1)[0] as string;
      const fields = JSON.parse(header.slice(header.indexOf('['))) as string[];
      return `${path.relative(REPO, fields[0] as string)} ${fields.at(-1)}`;
    });
    expect(made.sort()).toEqual(['dist/cli-command/hook-server/cli.cjs edit', 'dist/cli-command/hook-server/cli.cjs shell']);
  }, 60_000);
});

describe('the key and the folder decision (fast-check)', () => {
  const identity = fc.record({
    file: fc.constantFrom('/a/cli.cjs', '/b/cli.cjs', '/a/b/cli.cjs'),
    dev: fc.bigInt({ min: 0n, max: 3n }),
    ino: fc.bigInt({ min: 0n, max: 3n }),
    size: fc.bigInt({ min: 0n, max: 3n }),
    mtimeNs: fc.bigInt({ min: 0n, max: 3n }),
    ctimeNs: fc.bigInt({ min: 0n, max: 3n }),
    node: fc.constantFrom('v20.20.2', 'v22.23.3'),
    arch: fc.constantFrom('x64', 'arm64'),
    flags: fc.constantFrom([], ['--liftoff-only'], ['--liftoff-only', '--no-opt']),
    variant: fc.constantFrom('', 'edit', 'shell'),
  });
  const same = (a: CodeIdentity, b: CodeIdentity) => (Object.keys(a) as (keyof CodeIdentity)[]).every((k) => String(a[k]) === String(b[k]));

  it('an entry written for one identity is read back for exactly that identity, and replaces the entry of the same bundle and runtime', () => {
    const { rt } = runtime();
    const dir = codeCacheDir({ XDG_RUNTIME_DIR: rt }) as string;
    expect(dir).not.toBeNull();
    fc.assert(
      fc.property(identity, identity, fc.uint8Array({ minLength: 1, maxLength: 64 }), (a, b, code) => {
        for (const name of fs.readdirSync(dir)) fs.rmSync(path.join(dir, name));
        writeEntry(dir, a, Buffer.from(code));
        expect(readEntry(dir, a)).toEqual(Buffer.from(code));
        expect(readEntry(dir, b) !== undefined).toBe(same(a, b));
        // One name per bundle path and runtime: a rebuilt bundle's entry (only its stat changed) lands on the old one.
        const sameBundle = a.file === b.file && a.node === b.node && a.arch === b.arch && a.flags.join() === b.flags.join() && a.variant === b.variant;
        expect(entryName(a) === entryName(b)).toBe(sameBundle);
        expect(entryHeader(a) === entryHeader(b)).toBe(same(a, b));
        expect(fs.readdirSync(dir)).toHaveLength(1);
      }),
      { numRuns: 200 },
    );
  });

  it('the folder is used only when it and the folder above it are this user’s, private, and not links', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 0o777 }), fc.constantFrom('cache', 'above'), fc.boolean(), (mode, which, off) => {
        const { rt, cache } = runtime();
        fs.mkdirSync(cache, { recursive: true, mode: 0o700 });
        fs.chmodSync(which === 'cache' ? cache : path.dirname(cache), mode | 0o700);
        const open = ((mode | 0o700) & 0o077) !== 0;
        const env = { XDG_RUNTIME_DIR: rt, ...(off ? { EDITWARDEN_COMPILE_CACHE: 'off' } : {}) };
        expect(codeCacheDir(env)).toBe(open || off ? null : cache);
        fs.rmSync(rt, { recursive: true, force: true });
      }),
      { numRuns: 60 },
    );
  });

  it('the folder is not used when another user owns it or the folder above it', (context) => {
    skipUnlessRoot(context, 'gives a folder to another uid');
    for (const which of ['cache', 'above'] as const) {
      const { rt, cache } = runtime();
      fs.mkdirSync(cache, { recursive: true, mode: 0o700 });
      fs.chownSync(which === 'cache' ? cache : path.dirname(cache), 12345, 12345);
      expect({ which, dir: codeCacheDir({ XDG_RUNTIME_DIR: rt }) }).toEqual({ which, dir: null });
    }
  });
});

describe('a command answers the same with any cache', () => {
  /** Times, durations and ids: what differs between two runs of the same commands anyway. */
  const steady = (text: string) =>
    text
      .replace(/\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z/g, '<time>')
      .replace(/\d{8}T\d{6}Z-[0-9a-f]+/g, '<run>')
      .replace(/\d{8}-\d{6}-\d{3}-[0-9a-f]+/g, '<checkpoint>')
      .replace(/tx-[a-z0-9]+-[0-9a-f]+/g, '<tx>')
      .replace(/\d{4}-\d\d-\d\d \d\d:\d\d:\d\dZ/g, '<time>')
      .replace(/"ino":\d+/g, '"ino":<n>')
      .replace(/\b[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b/g, '<id>')
      .replace(/"(\w*(ms|Ms|seconds|time|_at|pid))":\s*\d+(\.\d+)?/g, '"$1":<n>')
      .replace(/\b\d+(\.\d+)? ?(ms|s)\b/g, '<n> $2');

  /** Runs the same commands in a fresh project (always at the same path); everything they printed and left in it. */
  function session(base: string, env: Record<string, string>): string[] {
    const root = path.join(base, 'project');
    fs.rmSync(root, { recursive: true, force: true });
    fs.mkdirSync(root);
    fs.writeFileSync(path.join(root, 'a.txt'), 'hello\n');
    // A .ts file: its syntax guard loads a grammar (grammars.ts finds its files next to itself, through its own require).
    fs.writeFileSync(path.join(root, 'a.ts'), 'export const a = 1;\n');
    const calls = [
      { tool: 'write_file', args: { path: 'b.txt', content: 'new\n' } },
      { tool: 'edit_file', args: { path: 'a.ts', old_text: 'a = 1', new_text: 'a = 2' } },
    ];
    fs.writeFileSync(path.join(root, 'calls.jsonl'), calls.map((c) => `${JSON.stringify(c)}\n`).join(''));
    const seen: string[] = [];
    // edit and shell: a thin client deciding in-process (no server), from the hook server's bundle.
    const commands = [
      ['exec', 'calls.jsonl', '--json'],
      ['undo', '--list', '--json'],
      ['checkpoint', 'list'],
      ['undo'],
      ['edit', 'a.txt', '--old', 'hello', '--new', 'there'],
      ['edit', 'a.ts', '--old', 'a = 2', '--new', 'a = 3'],
      ['shell', '--client', 'claude', '--tool', 'Bash', '--root', root, '--', 'echo ran > c.txt'],
      ['report', '--json'],
      ['doctor', '--only', 'node', '--json'],
    ];
    for (const args of commands) {
      const r = spawnSync(process.execPath, [BIN, ...(args.includes('--') ? args : [...args, '--root', root])], {
        cwd: root,
        encoding: 'utf8',
        env: { ...process.env, NO_COLOR: '1', EDITWARDEN_HOOK_SERVER: 'off', ...env },
        timeout: 60_000,
      });
      seen.push(`${args.join(' ')} → ${r.status}\n${steady(r.stdout)}\n${steady(r.stderr)}`);
    }
    // A workspace index's chunks are named by the hash of rows that hold each file's times and inode.
    const names = (fs.readdirSync(root, { recursive: true }) as string[]).sort();
    const chunks = names.filter((name) => name.startsWith(path.join('.editwarden', 'checkpoints', 'chunks', ''))).map((name) => path.basename(name));
    const unchunked = (text: string) => chunks.reduce((t, chunk) => t.replaceAll(chunk, '<chunk>'), text);
    for (const name of names) {
      const full = path.join(root, name);
      const text = fs.statSync(full).isFile() ? steady(fs.readFileSync(full, 'utf8')) : '/';
      const isChunk = chunks.includes(path.basename(name));
      seen.push(`${unchunked(steady(name))}: ${isChunk ? text.replace(/(?<=[,[])\d+(\.\d+)?(?=[,\]])/g, '<n>') : unchunked(text)}`);
    }
    return seen;
  }

  it('none, cold, warm, and corrupted (garbage, cut short, another bundle’s, garbage after the right first line): the same output, exit and records', () => {
    const base = tempDir('ew-code-p-');
    const none = session(base, { EDITWARDEN_COMPILE_CACHE: 'off' });
    const { rt, cache } = runtime();
    const env = { XDG_RUNTIME_DIR: rt };
    expect(session(base, env)).toEqual(none); // cold
    const entries = fs.readdirSync(cache).sort();
    expect(entries.length).toBeGreaterThanOrEqual(5);
    const warm = new Map(entries.map((name) => [name, fs.readFileSync(path.join(cache, name))]));
    expect(session(base, env)).toEqual(none); // warm
    const spoil = (how: (bytes: Buffer, name: string, i: number) => Buffer) => {
      entries.forEach((name, i) => fs.writeFileSync(path.join(cache, name), how(warm.get(name) as Buffer, name, i), { mode: 0o600 }));
    };
    const corruptions: [string, (bytes: Buffer, name: string, i: number) => Buffer][] = [
      ['garbage', (bytes) => Buffer.alloc(bytes.length, 0x5a)],
      ['cut short', (bytes) => bytes.subarray(0, Math.floor(bytes.length / 2))],
      ["another bundle's", (_bytes, _name, i) => warm.get(entries[(i + 1) % entries.length] as string) as Buffer],
      ['garbage after the right first line', (bytes) => Buffer.concat([bytes.subarray(0, bytes.indexOf(10) + 1), Buffer.alloc(bytes.length - bytes.indexOf(10) - 1, 0x5a)])],
    ];
    for (const [how, corrupt] of corruptions) {
      spoil(corrupt);
      expect({ how, seen: session(base, env) }).toEqual({ how, seen: none });
      // Each spoiled entry was replaced by a good one: the next run reads it back.
      for (const name of entries) expect({ how, name, good: fs.readFileSync(path.join(cache, name)).equals(corrupt(warm.get(name) as Buffer, name, entries.indexOf(name))) }).toEqual({ how, name, good: false });
    }
  }, 240_000);
});
