/**
 * The AST hooks plugged into the real pipeline (applyRequests → engine →
 * workspace), on real files in a temp folder: what an agent sees.
 */
import fs from 'node:fs';
import { openWorkspace } from '../../src/workspace/open.js';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { applyRequests } from '../../src/apply/pipeline.js';
import { prepareAstHooks } from '../../src/ast/hooks.js';
import type { EditRequest } from '../../src/edit/types.js';
import type { Workspace } from '../../src/workspace/workspace.js';
import { fixture } from './helpers.js';
import { tempDir } from '../temp-dirs.js';

function setup(files: Record<string, string>): { ws: Workspace; root: string } {
  const root = tempDir('ew-ast-engine-');
  for (const [name, text] of Object.entries(files)) fs.writeFileSync(path.join(root, name), text);
  return { ws: openWorkspace(root).ws, root };
}

const prepare = (policy: 'refuse' | 'warn' | 'off') => (paths: string[]) => prepareAstHooks(paths, policy);

describe('the syntax guard in the edit pipeline', () => {
  it('refuses an edit that breaks a file with E_SYNTAX, and leaves the file untouched', async () => {
    const py = fixture('sample.py');
    const { ws, root } = setup({ 'a.py': py });
    const request: EditRequest = { action: 'edit', path: 'a.py', oldText: 'def helper():', newText: 'def helper(:' };
    const outcome = await applyRequests(ws, [request], { prepareHooks: prepare('refuse') });
    expect(outcome.ok).toBe(false);
    expect(outcome.results[0]?.error?.code).toBe('E_SYNTAX');
    expect(outcome.results[0]?.error?.line).toBe(26);
    expect(fs.readFileSync(path.join(root, 'a.py'), 'utf8')).toBe(py);
  });

  it('allows a fix to an already broken file', async () => {
    const broken = fixture('sample.py').replace('def helper():', 'def helper(:');
    const { ws, root } = setup({ 'a.py': broken });
    const outcome = await applyRequests(ws, [{ action: 'edit', path: 'a.py', oldText: 'def helper(:', newText: 'def helper():' }], { prepareHooks: prepare('refuse') });
    expect(outcome.ok).toBe(true);
    expect(fs.readFileSync(path.join(root, 'a.py'), 'utf8')).toBe(fixture('sample.py'));
  });

  it('warn applies the edit and reports the new error', async () => {
    const { ws, root } = setup({ 'a.py': fixture('sample.py') });
    const outcome = await applyRequests(ws, [{ action: 'edit', path: 'a.py', oldText: 'def helper():', newText: 'def helper(:' }], { prepareHooks: prepare('warn') });
    expect(outcome.ok).toBe(true);
    expect(outcome.results[0]?.notes?.join(' ')).toMatch(/syntax/);
    expect(fs.readFileSync(path.join(root, 'a.py'), 'utf8')).toContain('def helper(:');
  });

  it('an AST request replaces the node on disk, comments and all', async () => {
    const { ws, root } = setup({ 'Sample.java': fixture('Sample.java') });
    const request: EditRequest = { action: 'ast', path: 'Sample.java', astPath: 'Greeter-greet', astAction: 'replace', content: 'public String greet(String who) {\n    return "hello " + who;\n}' };
    const outcome = await applyRequests(ws, [request], { prepareHooks: prepare('refuse') });
    expect(outcome.ok).toBe(true);
    expect(outcome.results[0]?.strategy).toBe('ast');
    const after = fs.readFileSync(path.join(root, 'Sample.java'), 'utf8');
    expect(after).toContain('    public String greet(String who) {\n        return "hello " + who;\n    }');
    expect(after).not.toContain('Greets someone.');
  });

  it('an AST request that would break the file is refused by the guard', async () => {
    const java = fixture('Sample.java');
    const { ws, root } = setup({ 'Sample.java': java });
    const request: EditRequest = { action: 'ast', path: 'Sample.java', astPath: 'Greeter-greet', astAction: 'replace', content: 'public String greet(String who) {\n    return "hello" +;\n}' };
    const outcome = await applyRequests(ws, [request], { prepareHooks: prepare('refuse') });
    expect(outcome.results[0]?.error?.code).toBe('E_SYNTAX');
    expect(fs.readFileSync(path.join(root, 'Sample.java'), 'utf8')).toBe(java);
  });

  it('an ambiguous AST path is refused with the candidates', async () => {
    const { ws } = setup({ 'a.py': fixture('sample.py') });
    const outcome = await applyRequests(ws, [{ action: 'ast', path: 'a.py', astPath: 'Greeter-twice', astAction: 'remove', content: '' }], { prepareHooks: prepare('refuse') });
    expect(outcome.results[0]?.error?.code).toBe('E_AST_AMBIGUOUS');
    expect(outcome.results[0]?.error?.message).toContain('Greeter-twice#2 (method, lines 22-23)');
  });
});
