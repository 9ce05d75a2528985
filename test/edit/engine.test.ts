/**
 * The edit engine's rules (issue 2, "The edit engine"), one describe per rule.
 * planFile is pure, so these tests feed it text and read the plan: no disk.
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

const numbered = (n: number): string => Array.from({ length: n }, (_, i) => `line ${i + 1}`).join('\n') + '\n';

describe('mode edit replaces a unique old_text', () => {
  it('replaces the one occurrence and reports strategy exact, count 1 and the line', () => {
    const p = plan('a\nb\nc\n', [edit('b\n', 'B\n')]);
    expect(after(p)).toBe('a\nB\nc\n');
    expect(p.steps[0]?.applied).toMatchObject({ action: 'edit', strategy: 'exact', count: 1, line: 2 });
  });

  it('treats old_text with regex characters as plain text', () => {
    expect(after(plan('x = a.*b;\nx = aXXb;\n', [edit('a.*b', 'c')]))).toBe('x = c;\nx = aXXb;\n');
  });

  it("maps JSON mode 'remove' to an edit with empty new_text", () => {
    const request = editRequestFromArgs({ path: PATH, mode: 'remove', old_text: 'b\n' });
    expect(request).toMatchObject({ action: 'edit', oldText: 'b\n', newText: '' });
    expect(after(plan('a\nb\nc\n', [request]))).toBe('a\nc\n');
  });
});

describe('mode create makes a new file and refuses an existing one (E_EXISTS)', () => {
  it('creates the file with the content as given', () => {
    const p = plan(null, [{ action: 'create', path: PATH, content: 'export {};\n' }]);
    expect(after(p)).toBe('export {};\n');
    expect(p.before).toBeNull();
    expect(p.steps[0]?.applied?.strategy).toBe('whole-file');
  });

  it('refuses to create a file that exists, and says to use edit or overwrite', () => {
    const error = refusal(plan('old\n', [{ action: 'create', path: PATH, content: 'new\n' }]));
    expect(error.code).toBe('E_EXISTS');
    expect(error.hint).toMatch(/'edit'/);
    expect(error.hint).toMatch(/'overwrite'/);
  });

  it('refuses even an empty existing file', () => {
    expect(refusal(plan('', [{ action: 'create', path: PATH, content: 'x' }])).code).toBe('E_EXISTS');
  });
});

describe('mode overwrite replaces the whole file', () => {
  it('replaces an existing file', () => {
    expect(after(plan('one\ntwo\n', [{ action: 'overwrite', path: PATH, content: 'three\n' }]))).toBe('three\n');
  });

  it('creates a missing file and notes it', () => {
    const p = plan(null, [{ action: 'overwrite', path: PATH, content: 'fresh\n' }]);
    expect(after(p)).toBe('fresh\n');
    expect(p.steps[0]?.applied?.notes.join(' ')).toMatch(/did not exist/);
  });

  it("keeps a CRLF file's line endings for LF content", () => {
    expect(after(plan('a\r\nb\r\n', [{ action: 'overwrite', path: PATH, content: 'x\ny\n' }]))).toBe('x\r\ny\r\n');
  });
});

describe('modes append and prepend add at the end and the start', () => {
  it('appends to a file that ends with a newline', () => {
    expect(after(plan('a\n', [{ action: 'append', path: PATH, content: 'b\n' }]))).toBe('a\nb\n');
  });

  it('puts a newline between when the file lacks a trailing one', () => {
    expect(after(plan('a', [{ action: 'append', path: PATH, content: 'b\n' }]))).toBe('a\nb\n');
  });

  it("uses the file's own line ending for that newline and the content", () => {
    expect(after(plan('a\r\nb', [{ action: 'append', path: PATH, content: 'c\nd' }]))).toBe('a\r\nb\r\nc\r\nd');
  });

  it('adds no separator to an empty file', () => {
    expect(after(plan('', [{ action: 'append', path: PATH, content: 'b' }]))).toBe('b');
  });

  it('prepends, with a newline after content that lacks one', () => {
    expect(after(plan('b\n', [{ action: 'prepend', path: PATH, content: 'a' }]))).toBe('a\nb\n');
    expect(after(plan('b\n', [{ action: 'prepend', path: PATH, content: '// header\n' }]))).toBe('// header\nb\n');
  });
});

describe('mode insert adds whole lines after a line number', () => {
  it('inserts at the top (line 0), in the middle, and at the end', () => {
    expect(after(plan('a\nb\n', [{ action: 'insert', path: PATH, line: 0, content: 'top' }]))).toBe('top\na\nb\n');
    expect(after(plan('a\nb\n', [{ action: 'insert', path: PATH, line: 1, content: 'mid\n' }]))).toBe('a\nmid\nb\n');
    expect(after(plan('a\nb\n', [{ action: 'insert', path: PATH, line: 2, content: 'end' }]))).toBe('a\nb\nend\n');
  });

  it('keeps a missing final newline missing when inserting at the end', () => {
    expect(after(plan('a\nb', [{ action: 'insert', path: PATH, line: 2, content: 'c' }]))).toBe('a\nb\nc');
  });

  it('refuses a line number past the end and names the range', () => {
    const error = refusal(plan('a\nb\n', [{ action: 'insert', path: PATH, line: 5, content: 'x' }]));
    expect(error.code).toBe('E_NOT_FOUND');
    expect(error.hint).toMatch(/0 .* 2/);
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

describe('missing files are refused for edit, append, prepend, insert and delete (E_NO_FILE)', () => {
  const requests: EditRequest[] = [edit('a', 'b'), { action: 'append', path: PATH, content: 'x' }, { action: 'prepend', path: PATH, content: 'x' }, { action: 'insert', path: PATH, line: 0, content: 'x' }, { action: 'delete', path: PATH }];
  it.each(requests.map((r) => [r.action, r] as const))('%s', (_action, request) => {
    const error = refusal(plan(null, [request]));
    expect(error.code).toBe('E_NO_FILE');
    expect(error.message).toContain(PATH);
    expect(error.hint).toMatch(/create/);
  });
});

describe('edit without old_text is refused (E_MISSING_OLD_TEXT)', () => {
  it("says edit mode requires old_text and points to 'append' and 'overwrite'", () => {
    const error = refusal(plan('a\n', [edit('', 'b\n')]));
    expect(error.code).toBe('E_MISSING_OLD_TEXT');
    expect(error.message).toMatch(/requires old_text/i);
    expect(error.message).toContain("'append'");
    expect(error.message).toContain("'overwrite'");
  });

  it('comes from JSON requests that leave old_text out', () => {
    const [request] = parseEditRequestJson(JSON.stringify({ file_path: PATH, content: 'x' }));
    expect(request).toMatchObject({ action: 'edit', path: PATH, oldText: '', newText: 'x' });
    expect(refusal(plan('a\n', [request as EditRequest])).code).toBe('E_MISSING_OLD_TEXT');
  });
});

describe('old_text not found is refused (E_NOT_FOUND) with what was searched and a near match', () => {
  const file = ['import x from "x";', '', 'const limit = 10;', 'const name = "app";', ''].join('\n');

  it('quotes the search and says to read the file and choose a unique anchor', () => {
    const error = refusal(plan(file, [edit('totally absent', 'y')]));
    expect(error.code).toBe('E_NOT_FOUND');
    expect(error.message).toContain('"totally absent"');
    expect(error.hint).toMatch(/read the file/i);
    expect(error.hint).toMatch(/unique/i);
  });

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

describe('several matches are refused (E_AMBIGUOUS) with the count and the line numbers', () => {
  const file = 'x = 1\ny = 2\nx = 1\nz = 3\nx = 1\n';

  it('names the count, the lines, and how to disambiguate', () => {
    const error = refusal(plan(file, [edit('x = 1', 'x = 9')]));
    expect(error.code).toBe('E_AMBIGUOUS');
    expect(error.message).toMatch(/3 times/);
    expect(error.message).toMatch(/lines 1, 3, 5/);
    expect(error.hint).toMatch(/surrounding lines/);
    expect(error.hint).toMatch(/replace_all/);
  });

  it('refuses ambiguity found under tolerance too, and says which tolerance', () => {
    const error = refusal(plan('if a:\n    go()\nif b:\n  go()\n', [edit('\tgo()', '\tstop()')]));
    expect(error.code).toBe('E_AMBIGUOUS');
    expect(error.message).toMatch(/lines 2, 4/);
    expect(error.message).toMatch(/tolerance for indentation/);
  });
});

describe('replace_all replaces every match and reports how many', () => {
  it('replaces all three and reports count 3', () => {
    const p = plan('x = 1\ny = 2\nx = 1\nz = 3\nx = 1\n', [edit('x = 1', 'x = 9', { replaceAll: true })]);
    expect(after(p)).toBe('x = 9\ny = 2\nx = 9\nz = 3\nx = 9\n');
    expect(p.steps[0]?.applied?.count).toBe(3);
    expect(p.steps[0]?.applied?.notes).toContain('replaced 3 occurrences');
  });

  it('does not replace inside its own overlapping matches', () => {
    const p = plan('aaaa\n', [edit('aa', 'b', { replaceAll: true })]);
    expect(after(p)).toBe('bb\n');
    expect(p.steps[0]?.applied?.count).toBe(2);
  });

  it('works with a tolerant strategy (each block re-indented)', () => {
    const p = plan('if a:\n    go()\nif b:\n  go()\n', [edit('\tgo()', '\tstop()', { replaceAll: true })]);
    expect(after(p)).toBe('if a:\n    stop()\nif b:\n  stop()\n');
    expect(p.steps[0]?.applied).toMatchObject({ strategy: 'indentation', count: 2 });
  });
});

describe('new_text is inserted literally', () => {
  it.each(['$&', '$1', '$$', "$'", '$`', '$<name>', '\\1'])('keeps %s as written', (pattern) => {
    expect(after(plan('const a = 1;\n', [edit('1', `"${pattern}"`)]))).toBe(`const a = "${pattern}";\n`);
  });

  it('keeps them literal with replace_all and under a tolerant strategy', () => {
    expect(after(plan('a 1\na 1\n', [edit('1', '$&$1', { replaceAll: true })]))).toBe('a $&$1\na $&$1\n');
    expect(after(plan('    x = 1\n', [edit('x  =  1', 'x = "$&"')]))).toBe('    x = "$&"\n');
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

  it('never aborts the other edits of the same file', () => {
    const p = plan('a\nb\nc\n', [edit('a', 'a'), edit('c', 'C')]);
    expect(p.ok).toBe(true);
    expect(after(p)).toBe('a\nb\nC\n');
  });
});

describe('large-deletion guard: a file of ≥ 20 lines may not shrink below a third (E_DRAMATIC_REDUCTION)', () => {
  const thirty = numbered(30);
  const keep = (n: number): string => numbered(n);

  it('refuses an edit that shrinks a 30-line file to 5 lines', () => {
    const error = refusal(plan(thirty, [{ action: 'overwrite', path: PATH, content: keep(5) }]));
    expect(error.code).toBe('E_DRAMATIC_REDUCTION');
    expect(error.message).toMatch(/30 lines to 5/);
    expect(error.hint).toMatch(/force/);
  });

  it('refuses a replace that deletes most of the file', () => {
    const body = thirty.slice(thirty.indexOf('line 6\n'));
    expect(refusal(plan(thirty, [edit(body, '')])).code).toBe('E_DRAMATIC_REDUCTION');
  });

  it('allows it with force: true', () => {
    expect(after(plan(thirty, [{ action: 'overwrite', path: PATH, content: keep(5), force: true }]))).toBe(keep(5));
  });

  it('allows exactly a third (30 → 10) and refuses just below (30 → 9)', () => {
    expect(plan(thirty, [{ action: 'overwrite', path: PATH, content: keep(10) }]).ok).toBe(true);
    expect(refusal(plan(thirty, [{ action: 'overwrite', path: PATH, content: keep(9) }])).code).toBe('E_DRAMATIC_REDUCTION');
  });

  it('does not guard files under 20 lines', () => {
    expect(plan(numbered(19), [{ action: 'overwrite', path: PATH, content: keep(1) }]).ok).toBe(true);
    expect(refusal(plan(numbered(20), [{ action: 'overwrite', path: PATH, content: keep(1) }])).code).toBe('E_DRAMATIC_REDUCTION');
  });

  it('takes its thresholds from the options', () => {
    const strictGuard = { dramaticMinLines: 10, dramaticRatio: 0.5 };
    expect(refusal(plan(numbered(12), [{ action: 'overwrite', path: PATH, content: keep(5) }], strictGuard)).code).toBe('E_DRAMATIC_REDUCTION');
    expect(plan(numbered(12), [{ action: 'overwrite', path: PATH, content: keep(6) }], strictGuard).ok).toBe(true);
    expect(plan(thirty, [{ action: 'overwrite', path: PATH, content: keep(5) }], { dramaticMinLines: 100 }).ok).toBe(true);
  });
});

describe('size guard: results above the maximum are refused (E_TOO_LARGE)', () => {
  it('refuses a result one byte over, allows one exactly at the limit', () => {
    const error = refusal(plan('x\n', [{ action: 'append', path: PATH, content: 'y'.repeat(99) }], { maxFileBytes: 100 }));
    expect(error.code).toBe('E_TOO_LARGE');
    expect(error.message).toMatch(/101 bytes/);
    expect(plan('x\n', [{ action: 'append', path: PATH, content: 'y'.repeat(98) }], { maxFileBytes: 100 }).ok).toBe(true);
  });

  it('counts encoded bytes (multi-byte characters, BOM)', () => {
    const doc: TextDoc = { ...fromRawText(''), bom: true };
    // 3 BOM bytes + 2 bytes per "é": 48 of them make 99 bytes, 49 make 101 (though only 49 characters).
    const fits = planFile(PATH, doc, [{ action: 'append', path: PATH, content: 'é'.repeat(48) }], options({ maxFileBytes: 100 }));
    expect(fits.afterBytes?.length).toBe(99);
    const over = planFile(PATH, doc, [{ action: 'append', path: PATH, content: 'é'.repeat(49) }], options({ maxFileBytes: 100 }));
    expect(refusal(over).code).toBe('E_TOO_LARGE');
  });

  it('refuses a create above the limit and leaves no bytes to write', () => {
    const p = plan(null, [{ action: 'create', path: PATH, content: 'z'.repeat(11) }], { maxFileBytes: 10 });
    expect(refusal(p).code).toBe('E_TOO_LARGE');
    expect(p.afterBytes).toBeUndefined();
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
  it('applies each edit to the result of the one before', () => {
    const p = plan('a\nb\n', [edit('a', 'x'), edit('x\nb', 'x\ny'), { action: 'append', path: PATH, content: 'z\n' }]);
    expect(after(p)).toBe('x\ny\nz\n');
    expect(p.steps.map((s) => s.ok)).toEqual([true, true, true]);
  });

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

describe('strict mode turns tolerance off', () => {
  it('applies an exact match', () => {
    expect(after(plan('  a = 1\n', [edit('a = 1', 'a = 2')], { strict: true }))).toBe('  a = 2\n');
  });

  it('refuses a quote that only tolerance would find, and says it is strict', () => {
    const file = 'def f():\n    return 1\n';
    const quote = 'def f():\n  return 1\n';
    expect(plan(file, [edit(quote, 'def f():\n  return 2\n')]).ok).toBe(true);
    const error = refusal(plan(file, [edit(quote, 'def f():\n  return 2\n')], { strict: true }));
    expect(error.code).toBe('E_NOT_FOUND');
    expect(error.message).toMatch(/strict mode/);
  });
});

describe('tolerant matching names its strategy', () => {
  it('reports the strategy and a note when tolerance was needed', () => {
    const p = plan('def f():\n    return 1\n', [edit('def f():\n  return 1\n', 'def f():\n  return 2\n')]);
    expect(after(p)).toBe('def f():\n    return 2\n');
    expect(p.steps[0]?.applied?.strategy).toBe('indentation');
    expect(p.steps[0]?.applied?.notes.join(' ')).toMatch(/tolerance for indentation/);
  });
});

describe('fidelity: line endings, BOM and final newline are kept', () => {
  it('keeps LF', () => {
    expect(after(plan('a\nb\n', [edit('a\n', 'a\nx\n')]))).toBe('a\nx\nb\n');
  });

  it('keeps CRLF, and an LF old_text matches a CRLF file and is written back CRLF', () => {
    const p = plan('a\r\nb\r\nc\r\n', [edit('a\nb\n', 'a\nB\nB2\n')]);
    expect(after(p)).toBe('a\r\nB\r\nB2\r\nc\r\n');
    expect(p.steps[0]?.applied?.strategy).toBe('exact');
  });

  it('keeps mixed endings per line', () => {
    expect(after(plan('a\r\nb\nc\r\nd\n', [edit('c', 'C')]))).toBe('a\r\nb\nC\r\nd\n');
    expect(after(plan('a\r\nb\nc\r\nd\n', [edit('b\nc\n', 'b\nc\n+\n')]))).toBe('a\r\nb\nc\r\n+\r\nd\n');
  });

  it('keeps old-Mac CR endings', () => {
    expect(after(plan('a\rb\r', [edit('b', 'B')]))).toBe('a\rB\r');
  });

  it('keeps a UTF-8 BOM', () => {
    const doc = decodeText(Buffer.from('\uFEFFconst a = 1;\n', 'utf8'));
    expect(doc.bom).toBe(true);
    const p = planFile(PATH, doc, [edit('1', '2')], options());
    expect(Buffer.from(p.afterBytes as Uint8Array)).toEqual(Buffer.from('\uFEFFconst a = 2;\n', 'utf8'));
  });

  it('keeps a missing final newline missing, and a present one present', () => {
    expect(after(plan('a\nb', [edit('a', 'A')]))).toBe('A\nb');
    expect(after(plan('a\nb', [edit('b', 'B')]))).toBe('a\nB');
    expect(after(plan('a\nb\n', [edit('b', 'B')]))).toBe('a\nB\n');
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
