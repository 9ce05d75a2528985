/**
 * The edit engine's rules (issue 2, "The edit engine"), one describe per rule.
 * planFile is pure, so these tests feed it text and read the plan: no disk.
 * The before/request/after cases of each rule are data, test/fixtures/engine
 * (run by test/edit/engine-cases.test.ts); here are the rules a table cannot
 * say (near-match lines, diffs, encodings, the all-or-nothing abort).
 */
import { describe, expect, it } from 'vitest';
import { EditwardenError } from '../../src/errors.js';
import { planFile, type FilePlan, type PlanOptions } from '../../src/edit/engine.js';
import { editRequestFromArgs, parseEditRequestJson } from '../../src/edit/request-json.js';
import { decodeText, encodeText, fromRawText, renderRaw, type TextDoc } from '../../src/edit/text.js';
import { DEFAULT_EDIT_OPTIONS, type EditRequest, type ReplaceRequest } from '../../src/edit/types.js';

const PATH = 'src/app.ts';

function options(overrides: Partial<PlanOptions> = {}): PlanOptions {
  return { ...DEFAULT_EDIT_OPTIONS, ...overrides };
}

function plan(raw: string | null, requests: EditRequest[], overrides: Partial<PlanOptions> = {}): FilePlan {
  return planFile(PATH, raw === null ? null : fromRawText(raw), requests, options(overrides));
}

function edit(oldText: string, newText: string, extra: Partial<ReplaceRequest> = {}): ReplaceRequest {
  return { action: 'edit', path: PATH, oldText, newText, ...extra };
}

/** The file as it would be written (line endings restored), or the refusal. */
function after(p: FilePlan): string {
  if (!p.ok) throw new Error(`plan refused: ${p.steps.map((s) => s.error?.message).join(' | ')}`);
  if (p.after === null) throw new Error('file deleted');
  return renderRaw(p.after);
}

function refusal(p: FilePlan): EditwardenError {
  expect(p.ok).toBe(false);
  const failed = p.steps.find((s) => !s.ok && s.error?.code !== 'E_ABORTED');
  if (!failed?.error) throw new Error('no failed step');
  return failed.error;
}

describe('mode edit replaces a unique old_text', () => {
  it("maps JSON mode 'remove' to an edit with empty new_text", () => {
    const request = editRequestFromArgs({ path: PATH, mode: 'remove', old_text: 'b\n' });
    expect(request).toMatchObject({ action: 'edit', oldText: 'b\n', newText: '' });
    expect(after(plan('a\nb\nc\n', [request]))).toBe('a\nc\n');
  });
});

describe('mode overwrite replaces the whole file', () => {
  it('creates a missing file and notes it', () => {
    const p = plan(null, [{ action: 'overwrite', path: PATH, content: 'fresh\n' }]);
    expect(after(p)).toBe('fresh\n');
    expect(p.steps[0]?.applied?.notes.join(' ')).toMatch(/did not exist/);
  });
});

describe('mode delete removes the file', () => {
  it('leaves no text and a deletion diff', () => {
    const p = plan('a\nb\n', [{ action: 'delete', path: PATH }]);
    expect(p.ok).toBe(true);
    expect(p.after).toBeNull();
    expect(p.afterBytes).toBeUndefined();
    expect(p.diff).toContain('deleted file mode 100644');
    expect(p.diff).toContain('+++ /dev/null');
    expect(p.removed).toBe(2);
  });
});

describe('edit without old_text is refused (E_MISSING_OLD_TEXT)', () => {
  it('comes from JSON requests that leave old_text out', () => {
    const [request] = parseEditRequestJson(JSON.stringify({ file_path: PATH, content: 'x' }));
    expect(request).toMatchObject({ action: 'edit', path: PATH, oldText: '', newText: 'x' });
    expect(refusal(plan('a\n', [request as EditRequest])).code).toBe('E_MISSING_OLD_TEXT');
  });
});

describe('old_text not found is refused (E_NOT_FOUND) with what was searched and a near match', () => {
  const file = ['import x from "x";', '', 'const limit = 10;', 'const name = "app";', ''].join('\n');

  it('shortens a search longer than 2,000 characters in the message, with the count', () => {
    const long = `${'abcdefghij'.repeat(250)}`;
    const error = refusal(plan(file, [edit(long, 'y')]));
    expect(error.message).not.toContain(long);
    expect(error.message).toContain(`Searched for: ${long.slice(0, 2000)}…[500 more chars]. Hint:`);
    expect(error.message.length).toBeLessThan(2600);
  });

  it("names a near match's line and what differs on it", () => {
    const error = refusal(plan(file, [edit('const limit = 20;', 'const limit = 30;')]));
    expect(error.message).toMatch(/line 3/);
    expect(error.message).toMatch(/column 15/);
    expect(error.message).toContain('"10;"');
    expect(error.line).toBe(3);
  });

  it('names the first differing line of a multi-line near match', () => {
    const error = refusal(plan(file, [edit('const limit = 10;\nconst name = "ap";\n', 'x\n')]));
    expect(error.message).toMatch(/starts at line 3; line 4 differs/);
    expect(error.line).toBe(4);
  });

  it('picks the closest line by edits, not the one sharing most letter pairs', () => {
    const lines = Array.from({ length: 6000 }, (_, i) => `    const value${i} = compute(${i}, "x");`);
    const error = refusal(plan(`${lines.join('\n')}\n`, [edit('const value500 = compute(501, "x");', 'y')]));
    expect(error.line).toBe(501);
    expect(error.message).toMatch(/line 501 differs: at column 32 the file has "0, \\"x\\"\);"/);
  });

  it('names the line whose content differs, not one that differs only in indentation', () => {
    const error = refusal(plan('def f():\n    a = 1\n    b = 2\n', [edit('def f():\n  a = 1\n  b = 3\n', 'y')]));
    expect(error.line).toBe(3);
    expect(error.message).toMatch(/line 3 differs: at column 9 the file has "2" where old_text has "3" \(and the indentation differs\)/);
  });

  it('gives no near match when nothing is close', () => {
    const error = refusal(plan(file, [edit('zzzz qqqq', 'y')]));
    expect(error.message).not.toMatch(/closest/);
    expect(error.line).toBeUndefined();
  });
});

describe('an edit that changes nothing is a harmless no-op, reported as such', () => {
  it('accepts new_text equal to old_text, changes nothing and says so', () => {
    const p = plan('a\nb\n', [edit('a', 'a')]);
    expect(p.ok).toBe(true);
    expect(p.changed).toBe(false);
    expect(p.steps[0]?.applied).toMatchObject({ count: 0, notes: [expect.stringMatching(/^no-op: .*identical/)] });
  });

  it('counts old_text and new_text that differ only in line endings as the same', () => {
    expect(plan('a\r\nb\r\n', [edit('a\r\nb', 'a\nb')]).steps[0]?.applied?.notes[0]).toMatch(/^no-op/);
  });
});

describe('size guard: results above the maximum are refused (E_TOO_LARGE)', () => {
  it('counts encoded bytes (multi-byte characters, BOM)', () => {
    const doc: TextDoc = { ...fromRawText(''), bom: true };
    // 3 BOM bytes + 2 bytes per "é": 48 of them make 99 bytes, 49 make 101 (though only 49 characters).
    const fits = planFile(PATH, doc, [{ action: 'append', path: PATH, content: 'é'.repeat(48) }], options({ maxFileBytes: 100 }));
    expect(fits.afterBytes?.length).toBe(99);
    const over = planFile(PATH, doc, [{ action: 'append', path: PATH, content: 'é'.repeat(49) }], options({ maxFileBytes: 100 }));
    expect(refusal(over).code).toBe('E_TOO_LARGE');
  });

  it('defaults to 10 MiB', () => {
    expect(DEFAULT_EDIT_OPTIONS.maxFileBytes).toBe(10 * 1024 * 1024);
  });
});

describe('binary content is refused (E_BINARY)', () => {
  it.each([
    ['NUL bytes', [0x61, 0x00, 0x62]],
    ['invalid UTF-8', [0x61, 0xc3, 0x28]],
    ['UTF-16 with an odd byte count', [0xff, 0xfe, 0x61]],
    ['UTF-16 with a lone surrogate', [0xff, 0xfe, 0x00, 0xd8]],
    ['UTF-16 with NUL characters', [0xff, 0xfe, 0x00, 0x00]],
  ])('%s', (_what, bytes) => {
    let caught: unknown;
    try {
      decodeText(Uint8Array.from(bytes), 'blob.bin');
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(EditwardenError);
    expect((caught as EditwardenError).code).toBe('E_BINARY');
  });
});

describe('several edits to one file apply in order, all or nothing', () => {
  it('writes nothing when one fails: the plan keeps the old text and later edits are aborted', () => {
    const p = plan('a\nb\nc\n', [edit('a', 'x'), edit('missing', 'y'), edit('c', 'z')]);
    expect(p.ok).toBe(false);
    expect(p.after?.text).toBe('a\nb\nc\n');
    expect(p.steps.map((s) => s.error?.code)).toEqual([undefined, 'E_NOT_FOUND', 'E_ABORTED']);
    expect(p.steps[2]?.error?.message).toMatch(/all or nothing/);
  });
});

describe('every result carries a unified diff and added/removed counts', () => {
  it('gives a git-style diff for an edit', () => {
    const p = plan('one\ntwo\nthree\n', [edit('two', 'TWO\nTWO-B')]);
    expect(p.diff).toBe(['diff --git a/src/app.ts b/src/app.ts', '--- a/src/app.ts', '+++ b/src/app.ts', '@@ -1,3 +1,4 @@', ' one', '-two', '+TWO', '+TWO-B', ' three', ''].join('\n'));
    expect([p.added, p.removed]).toEqual([2, 1]);
    expect(p.steps[0]).toMatchObject({ diff: p.diff, added: 2, removed: 1 });
  });

  it('marks a new file and a missing final newline', () => {
    const p = plan(null, [{ action: 'create', path: PATH, content: 'a\nb' }]);
    expect(p.diff).toContain('new file mode 100644');
    expect(p.diff).toContain('--- /dev/null');
    expect(p.diff).toContain('@@ -0,0 +1,2 @@');
    expect(p.diff).toContain('\\ No newline at end of file');
    expect([p.added, p.removed]).toEqual([2, 0]);
  });

  it('gives each step its own diff and the plan the whole one', () => {
    const p = plan('a\nb\nc\n', [edit('a', 'A'), edit('c', 'C')]);
    expect(p.steps[0]?.diff).toContain('+A');
    expect(p.steps[0]?.diff).not.toContain('+C');
    expect(p.steps[1]?.diff).toContain('+C');
    expect(p.diff).toContain('+A');
    expect(p.diff).toContain('+C');
    expect([p.added, p.removed]).toEqual([2, 2]);
  });
});

describe('fidelity: line endings, BOM and final newline are kept', () => {
  it('keeps a UTF-8 BOM', () => {
    const doc = decodeText(Buffer.from('\uFEFFconst a = 1;\n', 'utf8'));
    expect(doc.bom).toBe(true);
    const p = planFile(PATH, doc, [edit('1', '2')], options());
    expect(Buffer.from(p.afterBytes as Uint8Array)).toEqual(Buffer.from('\uFEFFconst a = 2;\n', 'utf8'));
  });

  it('round-trips UTF-16LE and UTF-16BE with BOM through an edit', () => {
    for (const encoding of ['utf16le', 'utf16be'] as const) {
      const bom = encoding === 'utf16le' ? [0xff, 0xfe] : [0xfe, 0xff];
      const encode = (s: string): Buffer => {
        const body = Buffer.from(s, 'utf16le');
        if (encoding === 'utf16be') body.swap16();
        return Buffer.concat([Buffer.from(bom), body]);
      };
      const doc = decodeText(encode('naïve = "ü"\r\nnext\r\n'));
      expect(doc.encoding).toBe(encoding);
      const p = planFile(PATH, doc, [edit('"ü"', '"€"')], options());
      expect(Buffer.from(p.afterBytes as Uint8Array)).toEqual(encode('naïve = "€"\r\nnext\r\n'));
      expect(Buffer.from(encodeText(doc))).toEqual(encode('naïve = "ü"\r\nnext\r\n'));
    }
  });
});
