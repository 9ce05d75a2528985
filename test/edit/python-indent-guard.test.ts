/**
 * The syntax guard catches an unexpected indent in Python (tree-sitter parses
 * it without an error; CPython refuses the file), names the line the edit
 * broke, and does not blame an edit for an indent the file already had.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { prepareAstHooks } from '../../src/ast/hooks.js';
import type { AstService } from '../../src/ast/service.js';
import { planFile } from '../../src/edit/engine.js';
import { fromRawText } from '../../src/edit/text.js';
import { DEFAULT_EDIT_OPTIONS } from '../../src/edit/types.js';

let hooks: AstService;
beforeAll(async () => {
  hooks = await prepareAstHooks(['a.py'], 'refuse');
});

const FILE = 'import os\n\n\ndef f():\n    x = 1\n    return x\n\n\ndef g():\n    return 2\n';
const edit = (file: string, oldText: string, newText: string) => planFile('a.py', fromRawText(file), [{ action: 'edit', path: 'a.py', oldText, newText }], { ...DEFAULT_EDIT_OPTIONS, strict: false }, hooks);

describe('Python: an unexpected indent is a syntax error the edit introduced', () => {
  it('refuses a statement indented deeper than its block, naming its line', () => {
    const p = edit(FILE, '    x = 1\n', '    x = 1\n        y = 2\n');
    expect(p.ok).toBe(false);
    expect(p.steps[0]?.error).toMatchObject({ code: 'E_SYNTAX', line: 6 });
    expect(p.steps[0]?.error?.message).toMatch(/line 6/);
  });
  it('refuses a top-level statement indented by accident', () => {
    const p = edit(FILE, 'import os\n', 'import os\n  import sys\n');
    expect(p.steps[0]?.error).toMatchObject({ code: 'E_SYNTAX', line: 2 });
  });
  it('accepts a nested block and continuation lines', () => {
    expect(edit(FILE, '    x = 1\n', '    if x:\n        x = (1 +\n             2)\n    x = 1\n').ok).toBe(true);
  });
  it('does not blame an edit for an unexpected indent the file already had', () => {
    const broken = FILE.replace('    return x\n', '        return x\n');
    expect(edit(broken, 'import os\n', 'import sys\n').ok).toBe(true);
  });
});

describe('E_SYNTAX names the line the edit broke', () => {
  it('not line 1 when the parser reports an error region that starts at the top of the file', () => {
    const wholeFile = { newSyntaxErrors: () => [{ line: 1, column: 1, snippet: 'import os', kind: 'error' as const }], syntaxPolicy: 'refuse' as const };
    const p = planFile('a.py', fromRawText(FILE), [{ action: 'edit', path: 'a.py', oldText: '    return 2\n', newText: '    return (2\n' }], { ...DEFAULT_EDIT_OPTIONS }, wholeFile);
    expect(p.steps[0]?.error).toMatchObject({ code: 'E_SYNTAX', line: 10 });
    expect(p.steps[0]?.error?.message).toMatch(/at line 10, the first line it changed/);
  });
});
