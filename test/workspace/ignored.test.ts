/**
 * Ignored files in a command's checkpoint (ignored.ts): a command that
 * deletes, truncates or overwrites an ignored file leaves a step that gives
 * it back byte-exact with its mode; a file over a cap, or a rebuildable
 * folder the command removed, is named as not kept in the result and the
 * step; the rebuildable list and its config key decide what is walked; and
 * the coverage is incremental: commands that touch nothing ignored store no
 * ignored byte again.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { defaultConfig } from '../../src/config/config.js';
import { CommandEffects } from '../../src/guard/command-effects.js';
import { BUILTIN_TOOLS } from '../../src/tools/registry.js';
import { ToolRunner } from '../../src/tools/runner.js';
import { UndoHistory } from '../../src/workspace/checkpoints/history.js';
import { decode, encode, type IgnoredRecord } from '../../src/workspace/checkpoints/ignored-table.js';
import type { IgnoredCoverage } from '../../src/workspace/checkpoints/ignored.js';
import { walkWorkspace } from '../../src/workspace/checkpoints/walk.js';
import { openWorkspace } from '../../src/workspace/open.js';
import { tempRoot, write } from './fixtures/checkpoint-helpers.js';

const GITIGNORE = '.env\ndata/\n*.log\nnode_modules/\nbuild/\n';

/** A project with tracked files and the ignored ones of the issue: `.env` (0600), `data/local.db` (2 MiB, a real SQLite file when sqlite3 is installed), `debug.log`. */
function project(): string {
  const root = tempRoot('ew-ign-');
  write(root, '.gitignore', GITIGNORE);
  write(root, 'src/a.ts', 'export const a = 1;\n');
  write(root, '.env', 'API_KEY=secret\n', 0o600);
  write(root, 'debug.log', 'line 1\nline 2\n');
  fs.mkdirSync(path.join(root, 'data'));
  localDb(path.join(root, 'data', 'local.db'));
  return root;
}

/** A 2 MiB database written by a process: sqlite3 where installed, else a process writing 2 MiB of random bytes. */
function localDb(file: string): void {
  const sql = 'CREATE TABLE t(b BLOB); WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x+1 FROM c WHERE x<500) INSERT INTO t SELECT randomblob(4000) FROM c;';
  const made = spawnSync('sqlite3', [file, sql]);
  if (made.status === 0) return;
  execFileSync(process.execPath, ['-e', `require('fs').writeFileSync(${JSON.stringify(file)}, require('crypto').randomBytes(2 << 20))`]);
}

function open(root: string, ignored: Partial<IgnoredCoverage> = {}) {
  return openWorkspace(root, { ignoredCoverage: ignored });
}

/** One command run as a guarded shell runs it: the index and the ignored files before, the effects and the step after. */
function command(root: string, line: string, ignored: Partial<IgnoredCoverage> = {}) {
  const cps = open(root, ignored).transactions.checkpoints;
  const effects = new CommandEffects(cps);
  const mark = effects.before('test', { command: line, run: 'r' });
  execFileSync('sh', ['-c', line], { cwd: root });
  return effects.after(mark);
}

function undo(root: string) {
  return new UndoHistory(open(root).transactions.checkpoints).undo();
}

/** Bytes and permission bits of each file. */
function state(root: string, rels: string[]): Record<string, { bytes: string; mode: number } | null> {
  const out: Record<string, { bytes: string; mode: number } | null> = {};
  for (const rel of rels) {
    const abs = path.join(root, rel);
    out[rel] = fs.existsSync(abs) ? { bytes: fs.readFileSync(abs).toString('base64'), mode: fs.statSync(abs).mode & 0o7777 } : null;
  }
  return out;
}

function blobsOf(root: string): string[] {
  const dir = path.join(root, '.editwarden', 'checkpoints', 'blobs');
  if (!fs.existsSync(dir)) return [];
  return fs
    .readdirSync(dir)
    .filter((d) => d.length === 2)
    .flatMap((d) => fs.readdirSync(path.join(dir, d)).map((f) => d + f))
    .sort();
}

const ISSUE_FILES = ['.env', 'data/local.db', 'debug.log'];

describe('a command that deletes or rewrites ignored files', () => {
  it('git clean -fdx: one undo brings .env, data/local.db and debug.log back byte-exact, mode included', () => {
    const root = project();
    execFileSync('git', ['init', '-q'], { cwd: root });
    const before = state(root, ISSUE_FILES);
    // `-e .editwarden`: the sandbox binds the state folder read-only; here no sandbox runs.
    const found = command(root, 'git clean -fdxq -e .editwarden');
    expect(state(root, ISSUE_FILES)).toEqual({ '.env': null, 'data/local.db': null, 'debug.log': null });
    expect(found.ignored.kept).toEqual(ISSUE_FILES);
    expect(found.ignored.notKept).toEqual([]);
    expect(found.step).not.toBeNull();
    const undone = undo(root);
    expect(undone.written).toEqual(expect.arrayContaining(ISSUE_FILES));
    expect(state(root, ISSUE_FILES)).toEqual(before);
  });

  it('rm .env, a truncated local.db and an overwritten log: each undone exactly; a file it created is left', () => {
    const root = project();
    const before = state(root, ISSUE_FILES);
    const found = command(root, 'rm .env && : > data/local.db && echo new > debug.log && echo made > new.log');
    expect(found.ignored.kept).toEqual(ISSUE_FILES);
    // Ignored files are not charged to the limits: `changes` is what the tracked tree saw.
    expect(found.changes).toEqual([]);
    undo(root);
    expect(state(root, ISSUE_FILES)).toEqual(before);
    expect(fs.readFileSync(path.join(root, 'new.log'), 'utf8')).toBe('made\n');
  });

  it('a rename away is undone; a command that only reads them makes no step', () => {
    const root = project();
    const before = state(root, ISSUE_FILES);
    expect(command(root, 'cat .env debug.log data/local.db > /dev/null').step).toBeNull();
    const found = command(root, 'mv .env .env.bak');
    expect(found.ignored.kept).toEqual(['.env']);
    undo(root);
    expect(state(root, ISSUE_FILES)).toEqual(before);
  });

  it('a mode change alone is undone', () => {
    const root = project();
    const found = command(root, 'chmod 644 .env');
    expect(found.ignored.kept).toEqual(['.env']);
    undo(root);
    expect(fs.statSync(path.join(root, '.env')).mode & 0o777).toBe(0o600);
  });
});

describe('with the write witness (the paths the command’s processes named)', () => {
  it('looks only at the files the witness names: one it names is in the step, one changed beside the command is not its', () => {
    const root = project();
    const before = state(root, ISSUE_FILES);
    const cps = open(root).transactions.checkpoints;
    const effects = new CommandEffects(cps);
    const mark = effects.before('test', { command: 'rm .env', run: 'r' });
    execFileSync('sh', ['-c', 'rm .env && : > data/local.db'], { cwd: root });
    // As strace would have logged `rm .env` alone: the truncation of local.db was another process's (a person's).
    const found = effects.after(mark, { witness: { paths: new Set(['.env']), tails: new Set(), trees: new Set() } });
    expect(found.ignored.kept).toEqual(['.env']);
    undo(root);
    expect(state(root, ['.env'])).toEqual({ '.env': before['.env'] });
    expect(fs.statSync(path.join(root, 'data', 'local.db')).size).toBe(0);
  });

  it('a folder the witness saw renamed carries the files below it', () => {
    const root = project();
    const cps = open(root).transactions.checkpoints;
    const effects = new CommandEffects(cps);
    const mark = effects.before('test', { command: 'mv data gone', run: 'r' });
    execFileSync('sh', ['-c', 'mv data gone'], { cwd: root });
    const found = effects.after(mark, { witness: { paths: new Set(['data', 'gone']), tails: new Set(), trees: new Set(['data']) } });
    expect(found.ignored.kept).toEqual(['data/local.db']);
  });
});

describe('the caps', () => {
  it('a file over max_file_bytes is never stored; when a command rewrites it, it is named in the result, the step and undo --list', () => {
    const root = project();
    write(root, 'big.log', 'x'.repeat(5000));
    const caps = { maxFileBytes: 4096 };
    const found = command(root, ': > big.log && rm .env', caps);
    expect(found.ignored.notKept).toEqual([{ path: 'big.log', why: 'file-cap' }]);
    expect(found.ignored.kept).toEqual(['.env']);
    const list = new UndoHistory(open(root).transactions.checkpoints).list();
    expect(list[0]?.notKept).toEqual([{ path: 'big.log', why: 'file-cap' }]);
    // The store never held its bytes.
    expect(blobsOf(root)).not.toContain(createHash('sha256').update('x'.repeat(5000)).digest('hex'));
  });

  it('a rewrite of a file over the cap alone still leaves a step that names it', () => {
    const root = project();
    write(root, 'big.log', 'x'.repeat(5000));
    const found = command(root, 'echo y > big.log', { maxFileBytes: 4096 });
    expect(found.ignored.notKept).toEqual([{ path: 'big.log', why: 'file-cap' }]);
    expect(found.step).not.toBeNull();
  });

  it('past max_total_bytes the files that do not fit are named as not kept; the ones that fit are kept', () => {
    const root = tempRoot('ew-ign-');
    write(root, '.gitignore', '*.log\n');
    write(root, 'a.log', 'a'.repeat(3000));
    write(root, 'b.log', 'b'.repeat(3000));
    const found = command(root, 'rm a.log b.log', { maxTotalBytes: 4000 });
    expect(found.ignored.kept).toEqual(['a.log']);
    expect(found.ignored.notKept).toEqual([{ path: 'b.log', why: 'store-cap' }]);
  });

  it('a file unchanged since it was kept keeps its place when a new one would pass the total', () => {
    const root = tempRoot('ew-ign-');
    write(root, '.gitignore', '*.log\n');
    write(root, 'b.log', 'b'.repeat(3000));
    command(root, 'true', { maxTotalBytes: 4000 });
    write(root, 'a.log', 'a'.repeat(3000));
    const found = command(root, 'rm a.log b.log', { maxTotalBytes: 4000 });
    expect(found.ignored.kept).toEqual(['b.log']);
    expect(found.ignored.notKept).toEqual([{ path: 'a.log', why: 'store-cap' }]);
  });
});

describe('an MCP / exec execute_command (the ToolRunner)', () => {
  it('its result names the ignored file it rewrote that was over the cap; undo gives back the one kept', async () => {
    const root = project();
    write(root, 'big.log', 'x'.repeat(5000));
    const before = state(root, ['.env']);
    const config = defaultConfig();
    config.sandbox.enabled = false;
    config.sandbox.allow_unsandboxed = true;
    const { ws, transactions } = openWorkspace(root, { ignoredCoverage: { maxFileBytes: 4096 } });
    const run = ToolRunner.start({ ws, config, transactions, artifacts: false, tools: [...BUILTIN_TOOLS] });
    const r = await run.call({ tool: 'execute_command', args: { command: 'rm .env && : > big.log' } });
    expect(r.output).toContain('not kept, undo cannot bring back: big.log (over checkpoints.ignored.max_file_bytes)');
    undo(root);
    expect(state(root, ['.env'])).toEqual(before);
  });
});

describe('rebuildable folders', () => {
  it('are never walked nor kept; one the command removes is named', () => {
    const root = project();
    write(root, 'node_modules/pkg/index.js', 'module.exports = 1;\n');
    write(root, 'build/out.js', 'built\n');
    const found = command(root, 'rm -rf node_modules && echo changed > build/out.js');
    expect(found.ignored.kept).toEqual([]);
    expect(found.ignored.notKept).toEqual([{ path: 'node_modules/', why: 'rebuildable' }]);
  });

  it('the config key adds folders (data/) and takes built-in ones off (!build/)', () => {
    const root = project();
    write(root, 'build/out.js', 'built\n');
    const config = { rebuildable: ['data/', '!build/'] };
    const found = command(root, 'rm -rf data && echo changed > build/out.js', config);
    expect(found.ignored.kept).toEqual(['build/out.js']);
    expect(found.ignored.notKept).toEqual([{ path: 'data/', why: 'rebuildable' }]);
    undo(root);
    expect(fs.readFileSync(path.join(root, 'build/out.js'), 'utf8')).toBe('built\n');
  });

  it('with the coverage off, nothing ignored is walked or kept (the behaviour before)', () => {
    const root = project();
    const found = command(root, 'rm .env', { enabled: false });
    expect(found.ignored).toEqual({ kept: [], notKept: [] });
    expect(found.step).toBeNull();
  });
});

describe('incremental', () => {
  it('100 commands that touch nothing ignored store 0 bytes of ignored content again (the store and the table are unchanged)', async () => {
    const root = project();
    write(root, 'notes/todo.md', 'person notes\n');
    fs.appendFileSync(path.join(root, '.gitignore'), 'notes/\n');
    // Past the racy margin: a file changed within 2 s of the scan that read it is hashed again (never re-stored).
    await new Promise((r) => setTimeout(r, 2200));
    command(root, 'true');
    const table = path.join(root, '.editwarden', 'checkpoints', 'ignored-table');
    const blobs = blobsOf(root);
    const tableBytes = fs.readFileSync(table);
    const cps = open(root).transactions.checkpoints;
    const effects = new CommandEffects(cps);
    for (let i = 0; i < 100; i++) {
      const mark = effects.before('test', { command: `echo ${i} > src/a.ts`, run: 'r' });
      fs.writeFileSync(path.join(root, 'src', 'a.ts'), `export const a = ${i};\n`);
      expect(effects.after(mark).ignored).toEqual({ kept: [], notKept: [] });
    }
    const added = blobsOf(root).filter((b) => !blobs.includes(b));
    // Only the tracked file's versions are new blobs (small ones are inline: none at all); no ignored byte was stored again.
    const ignoredHashes = new Set(decode(fs.readFileSync(table)).records.map((r) => r.blob));
    expect(added.filter((b) => ignoredHashes.has(b))).toEqual([]);
    expect(fs.readFileSync(table).equals(tableBytes)).toBe(true);
  });

  it('a file the person changed between commands is stored again (once), and the next command that deletes it gives back the new text', () => {
    const root = project();
    command(root, 'true');
    fs.writeFileSync(path.join(root, '.env'), 'API_KEY=rotated\n');
    command(root, 'true');
    command(root, 'rm .env');
    undo(root);
    expect(fs.readFileSync(path.join(root, '.env'), 'utf8')).toBe('API_KEY=rotated\n');
  });
});

describe('the ignored-files table', () => {
  const record: fc.Arbitrary<IgnoredRecord> = fc.record({
    path: fc.stringMatching(/^[a-z][a-z0-9._-]{0,8}(\/[a-z][a-z0-9._-]{0,7}){0,2}$/),
    kind: fc.constantFrom('file' as const, 'symlink' as const),
    size: fc.nat(),
    mtimeMs: fc.double({ min: 0, max: 2e12, noNaN: true }),
    ctimeMs: fc.double({ min: 0, max: 2e12, noNaN: true }),
    ino: fc.nat(),
    mode: fc.nat({ max: 0o7777 }),
    uid: fc.nat(),
    gid: fc.nat(),
    verifiedMs: fc.double({ min: 0, max: 2e12, noNaN: true }),
    blob: fc.option(fc.stringMatching(/^[0-9a-f]{64}$/), { nil: null }),
  });

  it('reads back exactly what was written; a damaged one is refused or read as records in path order (the merges rely on it)', () => {
    fc.assert(
      fc.property(fc.uniqueArray(record, { selector: (r) => r.path, maxLength: 20 }), fc.nat(), fc.nat({ max: 255 }), (records, at, byte) => {
        const sorted = records.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0)).filter((r) => r.blob !== '0'.repeat(64));
        const bytes = encode(sorted);
        expect(decode(bytes).records).toEqual(sorted);
        const damaged = Buffer.from(bytes);
        damaged[at % damaged.length] = byte;
        let read: IgnoredRecord[] = [];
        try {
          read = decode(damaged).records;
        } catch (error) {
          expect(error).toBeInstanceOf(Error);
        }
        for (let i = 1; i < read.length; i++) expect((read[i - 1] as IgnoredRecord).path < (read[i] as IgnoredRecord).path).toBe(true);
      }),
    );
  });

  it('a planted table (paths outside the root, a forged blob for .env) is never believed: the step holds the real bytes', () => {
    const root = project();
    command(root, 'true');
    const real = fs.readFileSync(path.join(root, '.env'));
    const file = path.join(root, '.editwarden', 'checkpoints', 'ignored-table');
    const [env] = decode(fs.readFileSync(file)).records.filter((r) => r.path === '.env');
    const forged = { ...(env as IgnoredRecord), blob: 'f'.repeat(64), mtimeMs: 1, ctimeMs: 1 };
    const outside = { ...(env as IgnoredRecord), path: '../outside.txt' };
    fs.writeFileSync(file, encode([outside, forged].sort((a, b) => (a.path < b.path ? -1 : 1))));
    const found = command(root, 'rm .env');
    expect(found.ignored.kept).toEqual(['.env']);
    undo(root);
    expect(fs.readFileSync(path.join(root, '.env'))).toEqual(real);
  });
});

describe('the walk of the ignored files', () => {
  const NAMES = ['a.txt', 'b.log', 'keep.log', 'node_modules/m.js', 'data/x.db', 'data/sub/y.db', 'src/c.ts', 'src/d.log', 'src/node_modules/n.js', 'lib/.env', 'build/o.js'];
  const RULES = ['*.log', '!keep.log', 'data/', 'node_modules/', '.env', 'build/', 'src/*.ts'];

  it('lists exactly the files the normal walk leaves out, less those under rebuildable folders', () => {
    fc.assert(
      fc.property(fc.subarray(NAMES, { minLength: 1 }), fc.subarray(RULES), fc.subarray(['node_modules/', 'build/', 'data/sub/']), (names, rules, rebuildable) => {
        const root = tempRoot('ew-ign-walk-');
        try {
          write(root, '.gitignore', `${rules.join('\n')}\n`);
          for (const n of names) write(root, n, n);
          const all = [...names, '.gitignore'];
          const listed = new Set(walkWorkspace(root).entries.map((e) => e.path));
          // 'name/': a folder of that name anywhere; 'a/b/': that folder from the root.
          const skip = (rel: string): boolean => rebuildable.some((r) => (r.slice(0, -1).includes('/') ? rel === r.slice(0, -1) : rel.split('/').pop() === r.slice(0, -1)));
          const under = (rel: string): boolean =>
            rel
              .split('/')
              .slice(0, -1)
              .some((_, i, parts) => skip(parts.slice(0, i + 1).join('/')));
          const expected = all.filter((n) => !listed.has(n) && !under(n)).sort();
          const walked = walkWorkspace(root, undefined, undefined, { ignoredOnly: { skip } });
          expect(walked.entries.map((e) => e.path)).toEqual(expected);
        } finally {
          fs.rmSync(root, { recursive: true, force: true });
        }
      }),
      { numRuns: 60 },
    );
  });
});
