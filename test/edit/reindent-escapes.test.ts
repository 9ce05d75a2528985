/**
 * Re-indentation decided from evidence, the escaped-newlines strategy, and
 * refusals a model can act on (a missing line named as one; escaping named).
 */
import { describe, expect, it } from 'vitest';
import { planFile, type FilePlan } from '../../src/edit/engine.js';
import { fromRawText, renderRaw } from '../../src/edit/text.js';
import { DEFAULT_EDIT_OPTIONS } from '../../src/edit/types.js';

const PY = 'class A:\n    def f(self):\n        return 1\n\n    def g(self):\n        if self.x:\n            return 2\n        return 3\n';
const plan = (file: string, oldText: string, newText: string): FilePlan => planFile('a.py', fromRawText(file), [{ action: 'edit', path: 'a.py', oldText, newText }], { ...DEFAULT_EDIT_OPTIONS, strict: false });
const after = (p: FilePlan): string | undefined => (p.ok && p.after ? renderRaw(p.after) : undefined);

describe('re-indentation: the shift is decided from evidence', () => {
  it('old_text quoted at column 0, new_text already at the file indentation: not shifted twice', () => {
    const p = plan(PY, 'def g(self):\n    if self.x:\n        return 2\n    return 3\n', '    def g(self):\n        if self.x:\n            return 20\n        return 3\n');
    expect(after(p)).toBe(PY.replace('return 2\n', 'return 20\n'));
    expect(p.steps[0]?.applied?.strategy).toBe('indentation');
  });
  it('both quoted at column 0: new_text moves with the quote', () => {
    const p = plan(PY, 'def g(self):\n    if self.x:\n        return 2\n    return 3\n', 'def g(self):\n    if self.x:\n        return 20\n    return 3\n');
    expect(after(p)).toBe(PY.replace('return 2\n', 'return 20\n'));
  });
  it('new_text at the file indentation (lines it shares with the quote tell) is kept there', () => {
    const p = plan(PY, 'def f(self):\n    return 1\n', '    def f(self):\n        return 42\n');
    expect(after(p)).toBe(PY.replace('return 1\n', 'return 42\n'));
  });
  it('new_text at the quote indentation moves with it', () => {
    expect(after(plan(PY, 'def f(self):\n    return 1\n', 'def f(self):\n    return 42\n'))).toBe(PY.replace('return 1\n', 'return 42\n'));
  });
  it('evidence pointing both ways is refused with a hint, never guessed', () => {
    const p = plan(PY, 'if self.x:\n    return 2\nreturn 3\n', '        if self.x:\n    return 2\nreturn 4\n');
    expect(p.ok).toBe(false);
    expect(p.steps[0]?.error).toMatchObject({ code: 'E_AMBIGUOUS' });
    expect(p.steps[0]?.error?.message).toMatch(/unclear how far to indent new_text/);
    expect(p.steps[0]?.error?.hint).toMatch(/indentation/);
  });
  it('a new_text base that is neither the quote nor the file is refused', () => {
    const p = plan(PY, 'def f(self):\n    return 1\n', '  def h(self):\n      return 42\n');
    expect(p.steps[0]?.error?.code).toBe('E_AMBIGUOUS');
  });
});

describe('escaped-newlines strategy', () => {
  it('applies a quote whose newlines arrived as "\\n", and never writes a literal \\n', () => {
    const p = plan(PY, 'if self.x:\\n            return 2', 'if self.x:\\n            return 22');
    expect(after(p)).toBe(PY.replace('return 2\n', 'return 22\n'));
    expect(p.steps[0]?.applied?.strategy).toBe('escaped-newlines');
    expect(after(p)).not.toContain('\\n');
  });
  it('keeps an escaped backslash as one backslash (a "\\n" inside a string literal survives)', () => {
    const file = 'x = 1\nprint("a\\n")\n';
    const p = plan(file, 'x = 1\\nprint(\\"a\\\\n\\")', 'x = 2\\nprint(\\"a\\\\n\\")');
    expect(after(p)).toBe('x = 2\nprint("a\\n")\n');
  });
  it('refuses when the unescaped quote matches more than once', () => {
    const file = 'a = 1\nb = 2\n\na = 1\nb = 2\n';
    const p = plan(file, 'a = 1\\nb = 2', 'a = 1\\nb = 3');
    expect(p.ok).toBe(false);
  });
  it('takes new_text literally when it has real line breaks and old_text alone was escaped', () => {
    const p = plan(PY, 'if self.x:\\n            return 2', 'if self.x:\n            return 22');
    expect(p.ok).toBe(true);
    expect(p.steps[0]?.applied?.strategy).toBe('escaped-newlines');
    expect(p.after?.text).toContain('if self.x:\n            return 22\n');
  });

  it('refuses when new_text has real line breaks and also a "\\n" the matched lines do not have: half escaped, and the hint names the escaping', () => {
    const p = plan(PY, 'if self.x:\\n            return 2', 'if self.x:\n            return 2\\n            return 3');
    expect(p.ok).toBe(false);
    const error = p.steps[0]?.error;
    expect(error?.code).toBe('E_NOT_FOUND');
    expect(error?.message).toMatch(/escaped twice/);
    expect(error?.hint).toMatch(/real line breaks/);
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

describe('a one-line quote copied from the first non-blank character of an indented line', () => {
  const TS = 'class Greeter {\n    greet() {\n        return 1;\n    }\n}\n';
  it('new lines written from column 0 move onto the line’s indentation (tolerant match)', () => {
    const p = plan(TS, 'return  1;', 'if (loud) {\n    return 2;\n}\nreturn 1;');
    expect(after(p)).toBe('class Greeter {\n    greet() {\n        if (loud) {\n            return 2;\n        }\n        return 1;\n    }\n}\n');
  });
  it('new lines already at the file’s indentation stay where they are', () => {
    const p = plan(TS, 'return  1;', 'log();\n        return 1;');
    expect(after(p)).toBe('class Greeter {\n    greet() {\n        log();\n        return 1;\n    }\n}\n');
  });
  it('an exact match writes new_text verbatim (its inverse edit restores the file)', () => {
    const p = plan(TS, 'return 1;', 'log();\nreturn 1;');
    expect(after(p)).toBe('class Greeter {\n    greet() {\n        log();\nreturn 1;\n    }\n}\n');
  });
});
