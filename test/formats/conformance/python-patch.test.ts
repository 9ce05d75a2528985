/**
 * Conformance with techtonik/python-patch's test data, run from
 * test/fixtures/conformance/python-patch/ (see its README and SOURCE.txt).
 *
 * Layout A: each NN*.from is copied into a temp root under the name its patch
 * names, the patch goes through `editwarden apply`'s pipeline, and the file
 * must equal NN*.to byte for byte (line endings included).
 *
 * Layout B: tests/data/*.diff, extended/ and exotic/ must parse; failing/
 * must be refused; autofix/ paths that leave the root are refused with
 * E_OUTSIDE_ROOT and nothing is written outside it.
 *
 * Strict mode compares lines after line endings are normalised (the engine
 * keeps each file's own endings when it writes), so the CRLF patches 02 and 05
 * apply in strict mode too; 07 is refused in strict mode, as `git apply`
 * refuses it, because the .from lacks the final newline its last context line
 * claims. The tolerant mode forgives that and ends the file as the patch's
 * new side says (with a newline), which is what 07.to holds.
 *
 * One deliberate difference: failing/non-empty-patch-for-empty-file.diff is a
 * well-formed diff — it fails because upload.py is empty, not because the
 * text is malformed — so it is refused when applied (E_NOT_FOUND, nothing
 * written) rather than with E_PARSE. Its partner failing/upload.py (an empty
 * file, no diff at all) is refused with E_PARSE.
 */
import fs from 'node:fs';
import { openWorkspace } from '../../../src/workspace/open.js';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { parseUnifiedDiff } from '../../../src/formats/index.js';
import { applyReply } from '../../../src/apply/apply-reply.js';

// Vendored upstream data (licence and source note beside it).
const TESTS = path.resolve(__dirname, '../../fixtures/conformance/python-patch/tests');
const DATA = path.join(TESTS, 'data');

const tmpDirs: string[] = [];
afterAll(() => {
  for (const dir of tmpDirs) fs.rmSync(dir, { recursive: true, force: true });
});
function tempRoot(prefix: string): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
  tmpDirs.push(dir);
  return dir;
}

const applyCases = fs
  .readdirSync(TESTS)
  .filter((f) => f.endsWith('.patch'))
  .map((f) => f.slice(0, -'.patch'.length))
  .sort();

describe('python-patch layout A: each apply case produces the expected file', () => {
  it('has the five file-based apply cases of the README', () => {
    expect(applyCases).toEqual(['02uni_newline', '03trail_fname', '04can_patch', '05hg_change', '07google_code_wiki']);
  });
  for (const name of applyCases) {
    for (const strict of name === '07google_code_wiki' ? [false] : [false, true]) {
      it(`${name}${strict ? ' (strict)' : ''}: ${name}.from patched equals ${name}.to`, async () => {
        const patch = fs.readFileSync(path.join(TESTS, `${name}.patch`), 'utf8');
        const parsed = parseUnifiedDiff(patch);
        expect(parsed.errors).toEqual([]);
        expect(parsed.requests).toHaveLength(1);
        const target = parsed.requests[0]?.path as string;
        const root = tempRoot('ew-pp-a-');
        fs.copyFileSync(path.join(TESTS, `${name}.from`), path.join(root, target));
        // The shared fixtures are read-only (0444) and copyFileSync keeps that mode; a read-only file is refused (E_READ_ONLY) by design.
        fs.chmodSync(path.join(root, target), 0o644);
        const outcome = await applyReply(openWorkspace(root).ws, patch, { edit: { strict, dramaticMinLines: Number.POSITIVE_INFINITY } });
        expect(outcome.results.map((r) => r.error?.message ?? 'ok')).toEqual(['ok']);
        expect(outcome.format).toBe('udiff');
        expect(fs.readFileSync(path.join(root, target)).equals(fs.readFileSync(path.join(TESTS, `${name}.to`)))).toBe(true);
        // Only the patched file is there: nothing was created beside it.
        expect(fs.readdirSync(root).filter((f) => f !== '.editwarden')).toEqual([target]);
      });
    }
  }
});

describe('python-patch layout A in strict mode', () => {
  it('refuses 07google_code_wiki, as git apply does: its last context line claims a final newline that the .from lacks', async () => {
    const root = tempRoot('ew-pp-a-strict-');
    fs.copyFileSync(path.join(TESTS, '07google_code_wiki.from'), path.join(root, '07google_code_wiki.from'));
    const patch = fs.readFileSync(path.join(TESTS, '07google_code_wiki.patch'), 'utf8');
    const outcome = await applyReply(openWorkspace(root).ws, patch, { edit: { strict: true } });
    expect(outcome.results.map((r) => r.error?.code)).toEqual(['E_NOT_FOUND']);
    expect(fs.readFileSync(path.join(root, '07google_code_wiki.from')).equals(fs.readFileSync(path.join(TESTS, '07google_code_wiki.from')))).toBe(true);
  });
});

const listDiffs = (dir: string): string[] =>
  fs
    .readdirSync(dir)
    .filter((f) => fs.statSync(path.join(dir, f)).isFile())
    .sort();

describe('python-patch layout B: samples that must parse', () => {
  const samples = [...listDiffs(DATA).map((f) => f), ...listDiffs(path.join(DATA, 'extended')).map((f) => `extended/${f}`), ...listDiffs(path.join(DATA, 'exotic')).map((f) => `exotic/${f}`)];
  it('covers the 13 samples of data/, extended/ and exotic/', () => {
    expect(samples).toHaveLength(13);
  });
  const expectedFiles: Record<string, string[]> = {
    'git-changed-2-files.diff': ['jsonpickle/__init__.py', 'tests/jsonpickle_test.py'],
    'hg-changed-2-files.diff': ['TODO', 'test commit/review system test'],
    'svn-changed-2-files.diff': ['trac/versioncontrol/svn_fs.py', 'trac/versioncontrol/cache.py'],
    'hg-added-file.diff': ['tests/utils.py'],
    'git-dash-in-filename.diff': ['hello-world.txt'],
    'extended/git-added-new-empty-file.diff': ['new-file.txt'],
    'extended/svn-added-new-empty-file.diff': ['new-file.txt'],
  };
  for (const sample of samples) {
    it(`${sample} parses into requests with no errors`, () => {
      const parsed = parseUnifiedDiff(fs.readFileSync(path.join(DATA, sample), 'utf8'));
      expect(parsed.errors.map((e) => e.error.message)).toEqual([]);
      expect(parsed.requests.length).toBeGreaterThan(0);
      const files = expectedFiles[sample];
      if (files) expect(parsed.requests.map((r) => r.path)).toEqual(files);
    });
  }
  it('reads new files (hg /dev/null, git "new file mode", svn Index-only) as create requests', () => {
    const hg = parseUnifiedDiff(fs.readFileSync(path.join(DATA, 'hg-added-file.diff'), 'utf8')).requests[0];
    expect(hg?.action).toBe('create');
    if (hg?.action === 'create') expect(hg.content.split('\n')).toHaveLength(56);
    for (const f of ['extended/git-added-new-empty-file.diff', 'extended/svn-added-new-empty-file.diff']) {
      expect(parseUnifiedDiff(fs.readFileSync(path.join(DATA, f), 'utf8')).requests).toMatchObject([{ action: 'create', path: 'new-file.txt', content: '' }]);
    }
  });
});

describe('python-patch layout B: failing/ samples are refused', () => {
  for (const sample of ['context-format.diff', 'missing-hunk-line.diff', 'not-a-patch.log', 'upload.py']) {
    it(`failing/${sample} is refused with E_PARSE`, async () => {
      const text = fs.readFileSync(path.join(DATA, 'failing', sample), 'utf8');
      const parsed = parseUnifiedDiff(text);
      expect(parsed.errors.length).toBeGreaterThan(0);
      expect(parsed.errors.every((e) => e.error.code === 'E_PARSE')).toBe(true);
      expect(parsed.errors[0]?.error.line).toBeGreaterThan(0);
      const root = tempRoot('ew-pp-fail-');
      const outcome = await applyReply(openWorkspace(root).ws, text, { format: 'udiff' });
      expect(outcome.ok).toBe(false);
      expect(outcome.results.some((r) => r.error?.code === 'E_PARSE')).toBe(true);
      expect(fs.readdirSync(root).filter((f) => f !== '.editwarden')).toEqual([]);
    });
  }
  it('failing/missing-hunk-line.diff names the line where the first hunk ends early, and the second file still parses', () => {
    const parsed = parseUnifiedDiff(fs.readFileSync(path.join(DATA, 'failing/missing-hunk-line.diff'), 'utf8'));
    expect(parsed.errors).toHaveLength(1);
    expect(parsed.errors[0]?.error.message).toMatch(/ends early/);
    // Line 14 ("Index: templates/…") is where the hunk's seventh old line should have been.
    expect(parsed.errors[0]?.error.line).toBe(14);
    expect(parsed.requests.map((r) => r.path)).toEqual(['templates/use_uploadpy.html']);
  });
  it('failing/non-empty-patch-for-empty-file.diff (deliberate difference: refused when applied, E_NOT_FOUND) writes nothing', async () => {
    const text = fs.readFileSync(path.join(DATA, 'failing/non-empty-patch-for-empty-file.diff'), 'utf8');
    expect(parseUnifiedDiff(text).errors).toEqual([]);
    const root = tempRoot('ew-pp-empty-');
    fs.copyFileSync(path.join(DATA, 'failing/upload.py'), path.join(root, 'upload.py'));
    for (const strict of [false, true]) {
      const outcome = await applyReply(openWorkspace(root).ws, text, { edit: { strict } });
      expect(outcome.ok).toBe(false);
      expect(outcome.results[0]?.error?.code).toBe('E_NOT_FOUND');
      expect(fs.readFileSync(path.join(root, 'upload.py')).length).toBe(0);
    }
  });
});

describe('python-patch layout B: autofix/ paths leaving the root are refused', () => {
  for (const sample of ['absolute-path.diff', 'parent-path.diff']) {
    it(`autofix/${sample}: every file is refused with E_OUTSIDE_ROOT and nothing is written anywhere`, async () => {
      const text = fs.readFileSync(path.join(DATA, 'autofix', sample), 'utf8');
      const outer = tempRoot('ew-pp-outer-');
      const root = path.join(outer, 'root');
      fs.mkdirSync(root);
      // A file the parent-path patch would hit if it escaped.
      fs.writeFileSync(path.join(outer, 'patch.py'), 'untouched\n');
      for (const partial of [false, true]) {
        const outcome = await applyReply(openWorkspace(root).ws, text, { partial });
        expect(outcome.ok).toBe(false);
        expect(outcome.results.length).toBeGreaterThan(0);
        expect(outcome.results.every((r) => r.error?.code === 'E_OUTSIDE_ROOT')).toBe(true);
      }
      expect(fs.readdirSync(root).filter((f) => f !== '.editwarden')).toEqual([]);
      expect(fs.readdirSync(outer).sort()).toEqual(['patch.py', 'root']);
      expect(fs.readFileSync(path.join(outer, 'patch.py'), 'utf8')).toBe('untouched\n');
    });
  }
  it('autofix/stripped-trailing-whitespace.diff parses: its empty lines are empty context lines', () => {
    const parsed = parseUnifiedDiff(fs.readFileSync(path.join(DATA, 'autofix/stripped-trailing-whitespace.diff'), 'utf8'));
    expect(parsed.errors).toEqual([]);
    expect(parsed.requests.map((r) => r.path)).toEqual(['Python/peephole.c']);
    const request = parsed.requests[0];
    if (request?.action !== 'patch') throw new Error('expected a patch');
    expect(request.hunks[0]?.lines[1]).toEqual({ kind: ' ', text: '' });
  });
});
