/**
 * `editwarden apply`: the command registered on a fresh commander program
 * (as main.ts does) and run against real temp directories.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { PassThrough, Readable } from 'node:stream';
import { Command, CommanderError } from 'commander';
import { afterEach, describe, expect, it } from 'vitest';
import { applyReply } from '../../src/apply/apply-reply.js';
import { registerApply } from '../../src/cli/commands/apply.js';
import { defaultConfig } from '../../src/config/config.js';
import { openProject } from '../../src/host/project.js';
import type { Io } from '../../src/cli/output.js';

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) fs.rmSync(d, { recursive: true, force: true });
});

function project(files: Record<string, string>): string {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'ew-apply-'));
  dirs.push(root);
  for (const [name, content] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(root, name)), { recursive: true });
    fs.writeFileSync(path.join(root, name), content);
  }
  return root;
}

async function run(args: string[], stdin = ''): Promise<{ code: number; stdout: string; stderr: string }> {
  const stdout = new PassThrough();
  const stderr = new PassThrough();
  let out = '';
  let err = '';
  stdout.on('data', (d) => (out += d));
  stderr.on('data', (d) => (err += d));
  const io: Io = { stdout, stderr, stdin: Readable.from([stdin]), env: { NO_COLOR: '1' } };
  let code = 0;
  const program = new Command().exitOverride().configureOutput({ writeOut: (s) => (out += s), writeErr: (s) => (err += s) });
  registerApply(program, io, (c) => (code = c));
  try {
    await program.parseAsync(['node', 'editwarden', ...args]);
  } catch (error) {
    if (!(error instanceof CommanderError)) throw error;
    code = 64;
  }
  return { code, stdout: out, stderr: err };
}

const read = (root: string, f: string): string => fs.readFileSync(path.join(root, f), 'utf8');

const twoDirectives = (second: string): string => `Changing a and b.\n---BEGIN---\nEdit: a.txt\naction: append\n---START---\nA2\n---END---\n---BEGIN---\nEdit: b.txt\naction: ${second}\n---START---\nB2\n---END---\n`;

describe('editwarden apply', () => {
  it('applies a reply read from a file, detecting its format, and exits 0', async () => {
    const root = project({ 'a.txt': 'A1\n', 'b.txt': 'B1\n' });
    const reply = path.join(root, '..', `${path.basename(root)}.reply`);
    fs.writeFileSync(reply, twoDirectives('prepend'));
    dirs.push(reply);
    const r = await run(['apply', reply, '--root', root]);
    expect(r.code).toBe(0);
    expect(read(root, 'a.txt')).toBe('A1\nA2\n');
    expect(read(root, 'b.txt')).toBe('B2\nB1\n');
    expect(r.stdout).toMatch(/applied append a.txt \+1 -0 \[#1, line 2\]/);
  });

  it('--atomic is all or nothing: a malformed directive rejects the reply, nothing is written, and every result says why', async () => {
    const root = project({ 'a.txt': 'A1\n', 'b.txt': 'B1\n' });
    const r = await run(['apply', '-', '--atomic', '--root', root, '--json'], twoDirectives('explode'));
    expect(r.code).toBe(1);
    expect(read(root, 'a.txt')).toBe('A1\n');
    const json = JSON.parse(r.stdout) as { ok: boolean; format: string; results: Array<{ path: string; status: string; error?: { code: string; line?: number }; source?: { index: number; line?: number } }> };
    expect(json.ok).toBe(false);
    expect(json.format).toBe('active-edit');
    expect(json.results.map((x) => [x.path, x.status, x.error?.code])).toEqual([
      ['a.txt', 'rejected', 'E_ABORTED'],
      ['b.txt', 'rejected', 'E_PARSE'],
    ]);
    expect(json.results[1]?.source).toEqual({ format: 'active-edit', index: 1, line: 8 });
    expect(json.results[1]?.error?.line).toBe(8);
  });

  describe('active edit directives: "Continue processing other edits if one fails" (Active Edit Tool design, phase 6)', () => {
    /** A good, a bad (unknown action) and a good directive, on three files. */
    const goodBadGood = `---BEGIN---\nEdit: a.txt\naction: append\n---START---\nA2\n---END---\n---BEGIN---\nEdit: b.txt\naction: explode\n---START---\nB2\n---END---\n---BEGIN---\nEdit: c.txt\naction: prepend\n---START---\nC0\n---END---\n`;
    /** The same on one file: the bad one is an AST path that does not exist (planning fails, not parsing). */
    const oneFile = `---BEGIN---\nEdit: a.ts\nast-path: A-one\naction: append\n---START---\ntwo(): number {\n  return 2;\n}\n---END---\n---BEGIN---\nEdit: a.ts\nast-path: A-missing\naction: remove\n---END---\n---BEGIN---\nEdit: a.ts\naction: append\n---START---\nexport const tail = 1;\n---END---\n`;

    it('good, bad, good: two applied, one rejected, exit 1 (a request was rejected)', async () => {
      const root = project({ 'a.txt': 'A1\n', 'b.txt': 'B1\n', 'c.txt': 'C1\n' });
      const r = await run(['apply', '-', '--root', root, '--json'], goodBadGood);
      expect(r.code).toBe(1);
      const json = JSON.parse(r.stdout) as { ok: boolean; results: Array<{ path: string; status: string; error?: { code: string } }> };
      expect(json.ok).toBe(false);
      expect(json.results.map((x) => [x.path, x.status, x.error?.code])).toEqual([
        ['a.txt', 'applied', undefined],
        ['b.txt', 'rejected', 'E_PARSE'],
        ['c.txt', 'applied', undefined],
      ]);
      expect(read(root, 'a.txt')).toBe('A1\nA2\n');
      expect(read(root, 'b.txt')).toBe('B1\n');
      expect(read(root, 'c.txt')).toBe('C0\nC1\n');
    });

    it('good, bad, good in one file: the good ones are written, the bad one is reported on its own', async () => {
      const root = project({ 'a.ts': 'export class A {\n  one(): number {\n    return 1;\n  }\n}\n' });
      const r = await run(['apply', '-', '--root', root, '--json'], oneFile);
      expect(r.code).toBe(1);
      const json = JSON.parse(r.stdout) as { results: Array<{ status: string; error?: { code: string } }> };
      expect(json.results.map((x) => [x.status, x.error?.code])).toEqual([
        ['applied', undefined],
        ['rejected', 'E_AST_NOT_FOUND'],
        ['applied', undefined],
      ]);
      expect(read(root, 'a.ts')).toContain('  two(): number {');
      expect(read(root, 'a.ts')).toContain('export const tail = 1;');
    });

    it('--atomic keeps all or nothing: the same reply writes nothing', async () => {
      const root = project({ 'a.txt': 'A1\n', 'b.txt': 'B1\n', 'c.txt': 'C1\n' });
      const r = await run(['apply', '-', '--atomic', '--root', root, '--json'], goodBadGood);
      expect(r.code).toBe(1);
      const json = JSON.parse(r.stdout) as { results: Array<{ status: string }> };
      expect(json.results.map((x) => x.status)).toEqual(['rejected', 'rejected', 'rejected']);
      expect([read(root, 'a.txt'), read(root, 'b.txt'), read(root, 'c.txt')]).toEqual(['A1\n', 'B1\n', 'C1\n']);
    });

    it('every directive applied: exit 0', async () => {
      const root = project({ 'a.txt': 'A1\n', 'b.txt': 'B1\n' });
      const r = await run(['apply', '-', '--root', root], twoDirectives('prepend'));
      expect(r.code).toBe(0);
    });

    it('other formats stay all or nothing by default (a JSON array with a bad item writes nothing)', async () => {
      const root = project({ 'a.txt': 'A1\n', 'c.txt': 'C1\n' });
      const reply = '[{"path": "a.txt", "mode": "append", "content": "A2\\n"}, {"path": "b.txt", "bogus": 1}, {"path": "c.txt", "mode": "append", "content": "C2\\n"}]';
      const r = await run(['apply', '-', '--root', root, '--json'], reply);
      expect(r.code).toBe(1);
      expect(read(root, 'a.txt')).toBe('A1\n');
      expect(read(root, 'c.txt')).toBe('C1\n');
    });

    it('the library (applyReply) has the same default, and atomic: true', async () => {
      const root = project({ 'a.txt': 'A1\n', 'b.txt': 'B1\n', 'c.txt': 'C1\n' });
      const opened = openProject(root, defaultConfig());
      const atomic = await applyReply(opened.ws, goodBadGood, { ...opened.applyHooks, atomic: true });
      expect(atomic.results.map((x) => x.status)).toEqual(['rejected', 'rejected', 'rejected']);
      expect(read(root, 'a.txt')).toBe('A1\n');
      const each = await applyReply(opened.ws, goodBadGood, { ...opened.applyHooks });
      expect(each.ok).toBe(false);
      expect(each.results.map((x) => x.status)).toEqual(['applied', 'rejected', 'applied']);
      expect([read(root, 'a.txt'), read(root, 'b.txt'), read(root, 'c.txt')]).toEqual(['A1\nA2\n', 'B1\n', 'C0\nC1\n']);
    });

    it('--atomic and --partial together are a usage error', async () => {
      const root = project({ 'a.txt': 'A1\n' });
      const r = await run(['apply', '-', '--atomic', '--partial', '--root', root], twoDirectives('prepend'));
      expect(r.code).toBe(64);
      expect(read(root, 'a.txt')).toBe('A1\n');
    });
  });

  it('--partial applies what succeeds and reports the rest in reply order', async () => {
    const root = project({ 'a.txt': 'A1\n', 'b.txt': 'B1\n' });
    const r = await run(['apply', '--partial', '--root', root, '--json'], twoDirectives('explode'));
    expect(r.code).toBe(1);
    expect(read(root, 'a.txt')).toBe('A1\nA2\n');
    const json = JSON.parse(r.stdout) as { results: Array<{ status: string }> };
    expect(json.results.map((x) => x.status)).toEqual(['applied', 'rejected']);
  });

  it('keeps reply order when a parse error sits between requests', async () => {
    const root = project({ 'a.txt': 'A1\n', 'c.txt': 'C1\n' });
    const reply = '[{"path": "a.txt", "mode": "append", "content": "A2\\n"}, {"path": "b.txt", "bogus": 1}, {"path": "c.txt", "mode": "append", "content": "C2\\n"}]';
    const r = await run(['apply', '--partial', '--root', root, '--json'], reply);
    const json = JSON.parse(r.stdout) as { results: Array<{ path: string; status: string }> };
    expect(json.results.map((x) => [x.path, x.status])).toEqual([
      ['a.txt', 'applied'],
      ['', 'rejected'],
      ['c.txt', 'applied'],
    ]);
    expect(read(root, 'c.txt')).toBe('C1\nC2\n');
  });

  it('--dry-run prints one combined git-style diff and writes nothing', async () => {
    const root = project({ 'a.txt': 'A1\n', 'gone.txt': 'bye\n' });
    const reply = '*** Begin Patch\n*** Update File: a.txt\n@@\n-A1\n+A one\n*** Add File: new.txt\n+hello\n*** Delete File: gone.txt\n*** End Patch\n';
    const r = await run(['apply', '--dry-run', '--root', root], reply);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('dry-run patch a.txt');
    expect(r.stdout).toMatch(/--- a\/a.txt\n\+\+\+ b\/a.txt\n@@ -1 \+1 @@\n-A1\n\+A one/);
    expect(r.stdout).toContain('+++ b/new.txt');
    expect(r.stdout).toContain('--- a/gone.txt');
    expect(fs.existsSync(path.join(root, 'new.txt'))).toBe(false);
    expect(read(root, 'gone.txt')).toBe('bye\n');
    expect(read(root, 'a.txt')).toBe('A1\n');
  });

  it('creates, deletes and moves files through the sandbox; a path outside the root is refused', async () => {
    const root = project({ 'src/old.txt': 'x\ny\n', 'del.txt': 'd\n' });
    const diff =
      'diff --git a/src/old.txt b/src/new.txt\nrename from src/old.txt\nrename to src/new.txt\n--- a/src/old.txt\n+++ b/src/new.txt\n@@ -1,2 +1,2 @@\n x\n-y\n+z\ndiff --git a/del.txt b/del.txt\ndeleted file mode 100644\n--- a/del.txt\n+++ /dev/null\n@@ -1 +0,0 @@\n-d\n';
    const ok = await run(['apply', '--root', root, '--format', 'udiff'], diff);
    expect(ok.code).toBe(0);
    expect(read(root, 'src/new.txt')).toBe('x\nz\n');
    expect(fs.existsSync(path.join(root, 'src/old.txt'))).toBe(false);
    expect(fs.existsSync(path.join(root, 'del.txt'))).toBe(false);
    const escape = await run(['apply', '--root', root, '--json'], '--- /dev/null\n+++ b/../evil.txt\n@@ -0,0 +1 @@\n+x\n');
    expect(escape.code).toBe(1);
    expect(JSON.parse(escape.stdout).results[0].error.code).toBe('E_OUTSIDE_ROOT');
    expect(fs.existsSync(path.join(root, '..', 'evil.txt'))).toBe(false);
  });

  it('refuses to delete a file whose content differs from what the diff deletes', async () => {
    const root = project({ 'del.txt': 'd\nmore\n' });
    const r = await run(['apply', '--root', root, '--json'], 'diff --git a/del.txt b/del.txt\ndeleted file mode 100644\n--- a/del.txt\n+++ /dev/null\n@@ -1 +0,0 @@\n-d\n');
    expect(r.code).toBe(1);
    expect(JSON.parse(r.stdout).results[0].error.code).toBe('E_NOT_FOUND');
    expect(read(root, 'del.txt')).toBe('d\nmore\n');
  });

  it('--strict refuses whitespace drift that the default mode forgives', async () => {
    const root = project({ 'a.py': 'def f():\n    return 1   \n' });
    const diff = '--- a/a.py\n+++ b/a.py\n@@ -1,2 +1,2 @@\n def f():\n-    return 1\n+    return 2\n';
    expect((await run(['apply', '--strict', '--root', root], diff)).code).toBe(1);
    expect(read(root, 'a.py')).toBe('def f():\n    return 1   \n');
    const tolerant = await run(['apply', '--root', root], diff);
    expect(tolerant.code).toBe(0);
    expect(tolerant.stdout).toContain('(trailing-whitespace)');
    expect(read(root, 'a.py')).toBe('def f():\n    return 2\n');
  });

  it('an empty SEARCH appends to an existing file (and creates a missing one)', async () => {
    const root = project({ 'a.txt': 'A1\n' });
    const reply = 'a.txt\n<<<<<<< SEARCH\n=======\nA2\n>>>>>>> REPLACE\n\nn.txt\n<<<<<<< SEARCH\n=======\nN\n>>>>>>> REPLACE\n';
    expect((await run(['apply', '--root', root], reply)).code).toBe(0);
    expect(read(root, 'a.txt')).toBe('A1\nA2\n');
    expect(read(root, 'n.txt')).toBe('N\n');
  });

  it('unrecognisable text is one E_PARSE result; a bad --format is a usage error (64)', async () => {
    const root = project({});
    const r = await run(['apply', '--root', root, '--json'], 'no edits here');
    expect(r.code).toBe(1);
    expect(JSON.parse(r.stdout).results[0].error.code).toBe('E_PARSE');
    expect((await run(['apply', '--format', 'yaml', '--root', root], 'x')).code).toBe(64);
    expect((await run(['apply', path.join(root, 'missing.reply'), '--root', root])).code).toBe(64);
  });
});
