import { describe, expect, it } from 'vitest';
import { planFile } from '../../src/edit/engine.js';
import { decodeText } from '../../src/edit/text.js';
import { DEFAULT_EDIT_OPTIONS } from '../../src/edit/types.js';

const plan = (text: string, oldText: string, newText: string, strict = false) => planFile('f.py', decodeText(Buffer.from(text)), [{ path: 'f.py', action: 'edit', oldText, newText }], { ...DEFAULT_EDIT_OPTIONS, strict });

describe('tolerant edits that change nothing are no-ops', () => {
  it('reports a look-alike quote whose new_text restores the file as it is as a no-op (nothing changes, nothing aborts)', () => {
    const p = plan('say("hi")\n', 'say(\u201chi\u201d)', 'say("hi")');
    expect(p.ok).toBe(true);
    expect(p.changed).toBe(false);
    expect(p.steps[0]?.applied?.notes[0]).toMatch(/^no-op: .*restores/);
  });
});

describe('old_text ending with a newline the last line lacks', () => {
  it('matches at the end of the file and keeps the file without a final newline', () => {
    const p = plan('a\nlast line', 'last line\n', 'final line\n');
    expect(p.ok).toBe(true);
    expect(p.after?.text).toBe('a\nfinal line');
    expect(p.steps[0]?.applied?.strategy).toBe('final-newline');
  });

  it('is not used in strict mode, nor for a match that is not at the end', () => {
    expect(plan('a\nlast line', 'last line\n', 'x\n', true).steps[0]?.error?.code).toBe('E_NOT_FOUND');
    expect(plan('last line\nmore', 'last line\nmore\n', 'x\n').ok).toBe(true);
    // The quote is found exactly at the top: the final-newline tolerance never moves it to the end.
    expect(plan('ab\nab', 'ab\n', 'x\n').after?.text).toBe('x\nab');
  });
});
