/**
 * Re-indentation decided from evidence, the escaped-newlines strategy, and
 * refusals a model can act on (a missing line named as one; escaping named).
 * The before/request/after cases of both strategies are data:
 * test/fixtures/engine/066-… to 078-… (test/edit/engine-cases.test.ts).
 */
import { describe, expect, it } from 'vitest';
import { planFile, type FilePlan } from '../../src/edit/engine.js';
import { fromRawText } from '../../src/edit/text.js';
import { DEFAULT_EDIT_OPTIONS } from '../../src/edit/types.js';

const plan = (file: string, oldText: string, newText: string): FilePlan => planFile('a.py', fromRawText(file), [{ action: 'edit', path: 'a.py', oldText, newText }], { ...DEFAULT_EDIT_OPTIONS, strict: false });

describe('escaped-newlines strategy', () => {
  it('refuses when the unescaped quote matches more than once', () => {
    const file = 'a = 1\nb = 2\n\na = 1\nb = 2\n';
    const p = plan(file, 'a = 1\\nb = 2', 'a = 1\\nb = 3');
    expect(p.ok).toBe(false);
  });
});

describe('refusals name a missing line as a missing line', () => {
  const file = Array.from({ length: 20 }, (_, i) => `line_${i + 1} = ${i + 1}`).join('\n') + '\n';
  it('a line left out of the quote', () => {
    const p = plan(file, 'line_10 = 10\nline_11 = 11\nline_13 = 13\nline_14 = 14\n', 'x\n');
    const error = p.steps[0]?.error;
    expect(error?.code).toBe('E_NOT_FOUND');
    expect(error?.message).toMatch(/line 12 of the file is not in old_text/);
    expect(error?.line).toBe(12);
    expect(error?.message).not.toMatch(/column/);
  });
  it('a line the file does not have', () => {
    const p = plan(file, 'line_10 = 10\nline_11 = 11\nextra = 0\nline_12 = 12\n', 'x\n');
    expect(p.steps[0]?.error?.message).toMatch(/line 3 of old_text \("extra = 0"\) is not in the file/);
  });
});
