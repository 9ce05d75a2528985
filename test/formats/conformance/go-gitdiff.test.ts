/**
 * Conformance with bluekeyes/go-gitdiff's apply cases (strict git-apply
 * semantics), run from the data vendored in test/fixtures/conformance/go-gitdiff/.
 *
 * Strict mode (`--strict`): every text case agrees exactly — the 14 apply
 * cases produce the `.out` bytes, the 8 error cases are refused and nothing
 * is written. Binary and mode-change cases are refused with E_BINARY and
 * nothing is written.
 *
 * Tolerant mode (the default): every case that applies in strict mode gives
 * the same bytes. Cases go-gitdiff refuses that the tolerant mode applies —
 * each one deliberate, because its location stays unambiguous:
 *
 * - errorNewFile (`@@ -0,0 +1,3 @@` against a 13-line file, no context):
 *   git reads a context-free hunk at line 0 as "the file must be empty";
 *   `diff -U0` writes exactly this hunk to insert lines before line 1, and a
 *   hunk with no old lines has only its line number as an address. The
 *   tolerant mode follows diff/patch(1) and inserts at the top. (A patch that
 *   really creates a file says `--- /dev/null` and becomes a create request,
 *   which is refused with E_EXISTS when the file exists.)
 *
 * Every other error case is refused in tolerant mode too: their context or
 * removed lines occur nowhere in the file (conflicts, short source), the
 * line number overflows, or the deletion leaves lines behind.
 */
import fs from 'node:fs';
import { openWorkspace } from '../../../src/workspace/open.js';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { applyHunks, checkDeletion } from '../../../src/edit/hunks.js';
import { EditwardenError } from '../../../src/errors.js';
import { parseUnifiedDiff, type VerifiedDeleteRequest } from '../../../src/formats/index.js';
import { applyReply } from '../../../src/apply/apply-reply.js';

// Vendored upstream data (licence and source note beside it).
const ROOT = path.resolve(__dirname, '../../fixtures/conformance/go-gitdiff');
const DATA = path.join(ROOT, 'gitdiff/testdata/apply');

interface Case {
  name: string;
  scope: 'fragment' | 'file' | 'binfragment';
  src: string;
  patch: string;
  expected: { out: string } | { error: string };
}

function loadCases(): Case[] {
  return fs
    .readFileSync(path.join(ROOT, 'CASES.tsv'), 'utf8')
    .split('\n')
    .filter((l) => l.trim() !== '' && !l.startsWith('#'))
    .map((l) => {
      const [name, scope, src, patch, expected] = l.split('\t') as [string, Case['scope'], string, string, string];
      return { name, scope, src, patch, expected: expected.startsWith('ERROR:') ? { error: expected.slice(6) } : { out: expected } };
    });
}

const cases = loadCases();
const textCases = cases.filter((c) => c.scope !== 'binfragment' && !['binaryModify', 'modeChange'].includes(c.name));
const binaryCases = cases.filter((c) => !textCases.includes(c));

/**
 * go-gitdiff's fragment cases call ApplyFragment without Close(), so their
 * `.out` ends where the fragment ends; the rest of the file would come from
 * Close(). A whole-file applier must therefore produce `.out` followed by the
 * source lines after the fragment's old lines — that is what is compared.
 */
function expectedBytes(c: Case, out: string): Buffer {
  const expected = read(out);
  if (c.scope !== 'fragment') return expected;
  const parsed = parseUnifiedDiff(read(c.patch).toString('utf8'));
  const request = parsed.requests[0];
  if (request?.action !== 'patch') throw new Error('fragment case without a patch request');
  const hunk = request.hunks[0];
  const start = Math.max(0, (hunk?.oldStart ?? 1) - 1);
  const oldCount = hunk?.lines.filter((l) => l.kind !== '+').length ?? 0;
  const pieces = read(c.src)
    .toString('utf8')
    .split(/(?<=\n)/)
    .filter((p) => p !== '');
  return Buffer.concat([expected, Buffer.from(pieces.slice(start + oldCount).join(''), 'utf8')]);
}

/** Cases go-gitdiff refuses that the tolerant mode applies, with the reason (see the file comment). */
const TOLERANT_APPLIES: Record<string, string> = {
  errorNewFile: 'a hunk with no old lines at line 0 inserts at the top, as diff -U0 / patch(1) mean it',
};

const read = (name: string): Buffer => fs.readFileSync(path.join(DATA, name));

/** Pure path: parse the patch, apply its one request to the source text. Returns the bytes or throws. */
function applyPure(c: Case, strict: boolean): Buffer {
  const parsed = parseUnifiedDiff(read(c.patch).toString('utf8'));
  if (parsed.errors.length > 0) throw parsed.errors[0]?.error;
  expect(parsed.requests).toHaveLength(1);
  const request = parsed.requests[0];
  const src = read(c.src).toString('utf8');
  switch (request?.action) {
    case 'patch': {
      // A fragment case applies one hunk; the patch files hold exactly one.
      if (c.scope === 'fragment') expect(request.hunks).toHaveLength(1);
      return Buffer.from(applyHunks(src, request, { strict }).text, 'utf8');
    }
    case 'delete':
      checkDeletion(src, request.path, (request as VerifiedDeleteRequest).hunks ?? [], { strict });
      return Buffer.alloc(0);
    default:
      throw new Error(`unexpected request ${request?.action}`);
  }
}

const tmpRoots: string[] = [];
afterAll(() => {
  for (const dir of tmpRoots) fs.rmSync(dir, { recursive: true, force: true });
});

/** Whole pipeline in a temp dir: the source file placed where the patch names it, applied as `editwarden apply` does. */
async function applyOnDisk(c: Case, strict: boolean): Promise<{ ok: boolean; code?: string; file: string; bytes: Buffer | null; before: Buffer }> {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'ew-gitdiff-'));
  tmpRoots.push(root);
  const patch = read(c.patch).toString('utf8');
  const parsed = parseUnifiedDiff(patch);
  const target = parsed.requests[0]?.path ?? parsed.errors[0]?.path ?? 'gitdiff/testdata/apply/text_fragment_error.src';
  const file = path.join(root, target);
  fs.mkdirSync(path.dirname(file), { recursive: true });
  const before = read(c.src);
  fs.writeFileSync(file, before);
  const outcome = await applyReply(openWorkspace(root).ws, patch, { format: 'udiff', edit: { strict, dramaticMinLines: Number.POSITIVE_INFINITY } });
  const bytes = fs.existsSync(file) ? fs.readFileSync(file) : null;
  const code = outcome.results.find((r) => r.error)?.error?.code;
  return { ok: outcome.ok, ...(code !== undefined ? { code } : {}), file, bytes, before };
}

describe('go-gitdiff conformance data', () => {
  it('has the 22 text cases (14 apply, 8 refused) and 14 binary/mode cases the README promises', () => {
    expect(textCases).toHaveLength(22);
    expect(textCases.filter((c) => 'out' in c.expected)).toHaveLength(14);
    expect(binaryCases).toHaveLength(14);
  });
});

describe('strict mode agrees with go-gitdiff on every text case', () => {
  for (const c of textCases) {
    if ('out' in c.expected) {
      const out = c.expected.out;
      it(`${c.name}: produces ${out} byte for byte`, async () => {
        expect(applyPure(c, true).toString('utf8')).toBe(expectedBytes(c, out).toString('utf8'));
        expect(applyPure(c, true).equals(expectedBytes(c, out))).toBe(true);
        const disk = await applyOnDisk(c, true);
        expect(disk.ok).toBe(true);
        if (c.name === 'textDelete') expect(disk.bytes).toBeNull();
        else expect(disk.bytes?.equals(expectedBytes(c, out))).toBe(true);
      });
    } else {
      it(`${c.name}: refused (go-gitdiff: ${c.expected.error}) and nothing written`, async () => {
        expect(() => applyPure(c, true)).toThrow(EditwardenError);
        const disk = await applyOnDisk(c, true);
        expect(disk.ok).toBe(false);
        expect(['E_NOT_FOUND', 'E_PARSE']).toContain(disk.code);
        expect(disk.bytes?.equals(disk.before)).toBe(true);
      });
    }
  }
});

describe('tolerant mode: same bytes where git applies, refusals except the listed deliberate differences', () => {
  for (const c of textCases) {
    if ('out' in c.expected) {
      const out = c.expected.out;
      it(`${c.name}: produces ${out}`, () => {
        expect(applyPure(c, false).equals(expectedBytes(c, out))).toBe(true);
      });
    } else if (TOLERANT_APPLIES[c.name]) {
      it(`${c.name}: applies in tolerant mode (${TOLERANT_APPLIES[c.name]})`, async () => {
        const src = read(c.src).toString('utf8');
        expect(applyPure(c, false).toString('utf8')).toBe('line 1\nline 2\nline 3\n' + src);
        const disk = await applyOnDisk(c, false);
        expect(disk.ok).toBe(true);
      });
    } else {
      it(`${c.name}: refused and nothing written`, async () => {
        expect(() => applyPure(c, false)).toThrow(EditwardenError);
        const disk = await applyOnDisk(c, false);
        expect(disk.ok).toBe(false);
        expect(disk.bytes?.equals(disk.before)).toBe(true);
      });
    }
  }
});

describe('binary and mode-change patches are refused with E_BINARY and nothing is written', () => {
  for (const c of binaryCases) {
    it(`${c.name}: E_BINARY`, async () => {
      const parsed = parseUnifiedDiff(read(c.patch).toString('latin1'));
      expect(parsed.requests).toHaveLength(0);
      expect(parsed.errors.map((e) => e.error.code)).toEqual(['E_BINARY']);
      const root = fs.mkdtempSync(path.join(os.tmpdir(), 'ew-gitdiff-bin-'));
      tmpRoots.push(root);
      const srcPath = path.join(root, 'gitdiff/testdata/apply', c.src);
      fs.mkdirSync(path.dirname(srcPath), { recursive: true });
      fs.copyFileSync(path.join(DATA, c.src), srcPath);
      const before = fs.readdirSync(path.dirname(srcPath)).sort();
      const outcome = await applyReply(openWorkspace(root).ws, read(c.patch).toString('latin1'), { format: 'udiff' });
      expect(outcome.ok).toBe(false);
      expect(outcome.results[0]?.error?.code).toBe('E_BINARY');
      expect(fs.readdirSync(path.dirname(srcPath)).sort()).toEqual(before);
      expect(fs.readFileSync(srcPath).equals(read(c.src))).toBe(true);
    });
  }
});
