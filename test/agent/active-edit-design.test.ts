/**
 * The Active Edit Tool design, verbatim: its "Remove a method" example (no ---START---) parses and
 * applies; the README's AST example works; when enabled, the agent sees a parameterless
 * `active_edit` tool (absent when disabled), the system message carries the instructions inside
 * <active_edit>…</active_edit>, and the run header says whether active edit is on. Plus the
 * edit_file safety design's messages and schema wording.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { bin, cleanup, ensureBuilt, jsonl, script, tempProject } from './helpers/bin.js';
import { parseActiveEdit } from '../../src/formats/active-edit.js';
import { toolInputSchema, BUILTIN_TOOLS } from '../../src/tools/registry.js';
import { trustRepoConfig } from '../trust-config.js';

beforeAll(ensureBuilt);
afterEach(cleanup);

/** The design's "Remove a method" example, verbatim. */
const DESIGN_REMOVE = `---BEGIN---
Edit: libollmchat/Client.vala
ast-path: OLLMchat-Client-oldMethod
action: remove
---END---`;

/** The README's AST example, verbatim. */
const README_AST = `---BEGIN---
path: src/greeter.ts
ast-path: Greeter-greet
action: replace
  greet(who: string): string {
    return \`hello \${who}\`;
  }
---END---`;

describe('a remove needs no content block', () => {
  it("the design's Remove-a-method example parses to one AST remove", () => {
    const parsed = parseActiveEdit(DESIGN_REMOVE);
    expect(parsed.errors).toEqual([]);
    expect(parsed.requests).toEqual([expect.objectContaining({ action: 'ast', path: 'libollmchat/Client.vala', astPath: 'OLLMchat-Client-oldMethod', astAction: 'remove' })]);
  });

  it('the same shape removes a method through `editwarden apply` (TypeScript, as Vala has no grammar here)', () => {
    const root = tempProject({ 'src/client.ts': 'export class Client {\n  chat(): string {\n    return "hi";\n  }\n\n  oldMethod(): void {\n    console.log("old");\n  }\n}\n' });
    const reply = DESIGN_REMOVE.replace('libollmchat/Client.vala', 'src/client.ts').replace('OLLMchat-Client-oldMethod', 'Client-oldMethod');
    fs.writeFileSync(`${root}.reply.txt`, reply);
    const r = bin(['apply', `${root}.reply.txt`, '--root', root]);
    fs.rmSync(`${root}.reply.txt`);
    expect(r.stderr + r.stdout).not.toContain('E_PARSE');
    expect(r.code).toBe(0);
    const text = fs.readFileSync(path.join(root, 'src/client.ts'), 'utf8');
    expect(text).not.toContain('oldMethod');
    expect(text).toContain('chat(): string');
  });

  it("the README's AST example applies", () => {
    const root = tempProject({ 'src/greeter.ts': 'export class Greeter {\n  greet(who: string): string {\n    return "hi " + who;\n  }\n}\n' });
    fs.writeFileSync(`${root}.reply.txt`, README_AST);
    const r = bin(['apply', `${root}.reply.txt`, '--root', root]);
    fs.rmSync(`${root}.reply.txt`);
    expect(r.code).toBe(0);
    expect(fs.readFileSync(path.join(root, 'src/greeter.ts'), 'utf8')).toContain('return `hello ${who}`;');
  });

  it('a header typo after action: is still refused, not taken as code', () => {
    const parsed = parseActiveEdit('---BEGIN---\nEdit: a.ts\naction: replace\nast-pth: A-b\n---END---\n');
    expect(parsed.requests).toEqual([]);
    expect(parsed.errors).toHaveLength(1);
  });
});

describe('the active_edit tool and the <active_edit> system block', () => {
  const run = (enabled: boolean) => {
    const root = tempProject({ 'a.txt': 'a\n', ...(enabled ? { '.editwarden.yml': 'active_edit_enabled: true\n' } : {}) });
    // Turning active edit on opens a route to writes: the person trusts the file.
    if (enabled) trustRepoConfig(root);
    const r = bin(['run', '--task', 'x', '--model', script(root, [{ tool_calls: [{ name: 'task_completion', arguments: { summary: 'ok' } }] }]), '--root', root]);
    const dir = path.join(root, '.editwarden/runs', fs.readdirSync(path.join(root, '.editwarden/runs')).filter((d) => !d.startsWith('.'))[0] as string);
    const start = jsonl(path.join(dir, 'transcript.jsonl'))[0] as { tools: string[]; system: string };
    return { r, start };
  };

  it('enabled: a parameterless active_edit tool, the instructions inside <active_edit>…</active_edit>, "active edit: on" in the header', () => {
    const { r, start } = run(true);
    expect(r.code).toBe(0);
    expect(start.tools).toContain('active_edit');
    expect(start.system).toMatch(/<active_edit>\n[\s\S]*---BEGIN---[\s\S]*\n<\/active_edit>/);
    expect(r.stdout.split('\n')[0]).toContain('active edit: on');
    const schema = toolInputSchema(BUILTIN_TOOLS.find((t) => t.name === 'active_edit')!);
    expect(schema.properties).toEqual({});
  });

  it('disabled: no active_edit tool, no <active_edit> block, "active edit: off"', () => {
    const { r, start } = run(false);
    expect(start.tools).not.toContain('active_edit');
    expect(start.system).not.toContain('<active_edit>');
    expect(r.stdout.split('\n')[0]).toContain('active edit: off');
  });
});

describe("edit_file safety phase 1: the design's messages start ours", () => {
  it('edit without old_text (the design\'s "Before" request), through `editwarden apply`', () => {
    const root = tempProject({ Makefile: 'all:\n\techo hi\n' });
    // The design's "Before (Dangerous)" request, verbatim.
    const request = '{\n  "path": "Makefile",\n  "mode": "edit",\n  "content": "release-linux:\\n\\t@cargo build --release\\n"\n}';
    fs.writeFileSync(`${root}.req.json`, request);
    const r = bin(['apply', `${root}.req.json`, '--root', root, '--json']);
    fs.rmSync(`${root}.req.json`);
    expect(r.code).toBe(1);
    const error = JSON.parse(r.stdout).results[0].error;
    expect(error.code).toBe('E_MISSING_OLD_TEXT');
    expect(error.message.startsWith("edit mode requires old_text parameter. To append to file, use 'append' mode. To replace entire file, use 'overwrite' mode explicitly.")).toBe(true);
    expect(fs.readFileSync(path.join(root, 'Makefile'), 'utf8')).toBe('all:\n\techo hi\n');
  });

  it('old_text not found', () => {
    const root = tempProject({ Makefile: 'all:\n\techo hi\n' });
    // The design's "Option 2 — Edit with anchor" request, verbatim, on a Makefile without that anchor.
    const request = '{\n  "path": "Makefile",\n  "mode": "edit",\n  "old_text": ".PHONY: all build run",\n  "content": ".PHONY: all build run release-linux\\n\\nrelease-linux: ..."\n}';
    fs.writeFileSync(`${root}.req.json`, request);
    const r = bin(['apply', `${root}.req.json`, '--root', root, '--json']);
    fs.rmSync(`${root}.req.json`);
    const error = JSON.parse(r.stdout).results[0].error;
    expect(error.code).toBe('E_NOT_FOUND');
    expect(error.message.startsWith('The specified old_text was not found in the file. Searched for: .PHONY: all build run. Hint: Use read_file to view current contents and find a unique anchor point.')).toBe(true);
  });

  it("the schema's old_text description says it is required for edit mode", () => {
    const schema = toolInputSchema(BUILTIN_TOOLS.find((t) => t.name === 'edit_file')!) as { properties: Record<string, { description: string }> };
    expect(schema.properties.old_text?.description).toContain('(required for edit mode)');
  });
});
