/**
 * The Active Edit Tool design, verbatim: its three examples on `libollmchat/Client.vala` (replace,
 * remove with no ---START---, append) apply to a Vala file through `editwarden apply`, the library
 * and an agent's reply; the system-message template of its phase 2 is in the prompt word for word;
 * the README's AST example works; when enabled, the agent sees a parameterless
 * `active_edit` tool (absent when disabled), the system message carries the instructions inside
 * <active_edit>…</active_edit>, and the run header says whether active edit is on. Plus the
 * edit_file safety design's messages and schema wording.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { bin, cleanup, ensureBuilt, jsonl, script, tempProject } from './helpers/bin.js';
import { applyReply } from '../../src/apply/apply-reply.js';
import { defaultConfig } from '../../src/config/config.js';
import { parseActiveEdit } from '../../src/formats/active-edit.js';
import { openProject } from '../../src/host/project.js';
import { buildSystemPrompt } from '../../src/agent/prompts/index.js';
import { buildEditorPrompt } from '../../src/agent/editor/prompt.js';
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

/** The design's "Replace a method" example, verbatim. */
const DESIGN_REPLACE = `---BEGIN---
Edit: libollmchat/Client.vala
ast-path: OLLMchat-Client-chat
action: replace
---START---
public async Response.Chat chat(string text, GLib.Cancellable? cancellable = null) throws Error
{
    // new implementation
}
---END---`;

/** The design's "Append after a method" example, verbatim. */
const DESIGN_APPEND = `---BEGIN---
Edit: libollmchat/Client.vala
ast-path: OLLMchat-Client-chat
action: append
---START---
// Helper method
private void helper() {
    // implementation
}
---END---`;

/** The design's "Example Usage Flow", step 2: the agent's reply, prose and directive, verbatim. */
const DESIGN_REPLY = `I'll update the chat method to add error handling.

---BEGIN---
Edit: libollmchat/Client.vala
ast-path: OLLMchat-Client-chat
action: replace
---START---
public async Response.Chat chat(string text, GLib.Cancellable? cancellable = null) throws Error
{
    try {
        // existing code with error handling
    } catch (Error e) {
        // handle error
    }
}
---END---`;

/** A Vala file shaped like the one the design edits: namespace OLLMchat, class Client, methods chat and oldMethod. */
const CLIENT_VALA = `namespace OLLMchat
{
	public class Client : Object
	{
		public string url { get; set; default = "http://localhost:11434"; }

		/**
		 * Sends one chat message.
		 */
		public async Response.Chat chat(string text, GLib.Cancellable? cancellable = null) throws Error
		{
			return yield this.send(text, cancellable);
		}

		public void oldMethod()
		{
			stdout.printf("old\\n");
		}
	}
}
`;

const CLIENT = 'libollmchat/Client.vala';

function applyWithBin(root: string, reply: string, extra: string[] = []): { code: number | null; json: { ok: boolean; results: Array<{ status: string; error?: { code: string; message: string } }> } } {
  fs.writeFileSync(`${root}.reply.txt`, reply);
  const r = bin(['apply', `${root}.reply.txt`, '--root', root, '--json', ...extra]);
  fs.rmSync(`${root}.reply.txt`);
  return { code: r.code, json: JSON.parse(r.stdout) };
}

describe("the design's three examples on libollmchat/Client.vala, verbatim", () => {
  const client = (root: string): string => fs.readFileSync(path.join(root, CLIENT), 'utf8');

  it('"Replace a method" (editwarden apply): chat and its doc comment are replaced, oldMethod is untouched', () => {
    const root = tempProject({ [CLIENT]: CLIENT_VALA });
    const { code, json } = applyWithBin(root, DESIGN_REPLACE);
    expect(json.results.map((x) => [x.status, x.error?.code])).toEqual([['applied', undefined]]);
    expect(code).toBe(0);
    const text = client(root);
    expect(text).toContain('\t\tpublic async Response.Chat chat(string text, GLib.Cancellable? cancellable = null) throws Error\n\t\t{\n\t\t    // new implementation\n\t\t}\n');
    expect(text).not.toContain('Sends one chat message.');
    expect(text).not.toContain('this.send');
    expect(text).toContain('public void oldMethod()');
  });

  it('"Remove a method" (editwarden apply): oldMethod is gone, chat stays', () => {
    const root = tempProject({ [CLIENT]: CLIENT_VALA });
    const { code, json } = applyWithBin(root, DESIGN_REMOVE);
    expect(json.results.map((x) => x.status)).toEqual(['applied']);
    expect(code).toBe(0);
    expect(client(root)).not.toContain('oldMethod');
    expect(client(root)).toContain('return yield this.send(text, cancellable);');
  });

  it('"Append after a method" (editwarden apply): the helper follows chat, at its indentation', () => {
    const root = tempProject({ [CLIENT]: CLIENT_VALA });
    const { code, json } = applyWithBin(root, DESIGN_APPEND);
    expect(json.results.map((x) => x.status)).toEqual(['applied']);
    expect(code).toBe(0);
    const text = client(root);
    expect(text).toContain('\t\t}\n\n\t\t// Helper method\n\t\tprivate void helper() {\n\t\t    // implementation\n\t\t}\n\n\t\tpublic void oldMethod()');
  });

  it('all three in one reply, through the library (applyReply on an opened project)', async () => {
    const root = tempProject({ [CLIENT]: CLIENT_VALA });
    const opened = openProject(root, defaultConfig());
    const outcome = await applyReply(opened.ws, `${DESIGN_REPLACE}\n${DESIGN_APPEND}\n${DESIGN_REMOVE}\n`, { ...opened.applyHooks });
    expect(outcome.format).toBe('active-edit');
    expect(outcome.results.map((x) => [x.status, x.error?.code])).toEqual([
      ['applied', undefined],
      ['applied', undefined],
      ['applied', undefined],
    ]);
    const text = client(root);
    expect(text).toContain('// new implementation');
    expect(text).toContain('private void helper() {');
    expect(text).not.toContain('oldMethod');
  });

  it("an agent's reply (the design's usage flow, step 2) edits the Vala file when active edit is on", () => {
    const root = tempProject({ [CLIENT]: CLIENT_VALA, '.editwarden.yml': 'active_edit_enabled: true\n' });
    trustRepoConfig(root); // a tool more than the defaults: the person trusts the file that turns it on
    const r = bin(['run', '--task', 'Add error handling to chat.', '--model', script(root, [{ text: DESIGN_REPLY }, { tool_calls: [{ name: 'task_completion', arguments: { summary: 'chat handles errors' } }] }]), '--root', root]);
    expect(r.stderr).not.toContain('no grammar');
    expect(r.code, r.stdout + r.stderr).toBe(0);
    const text = client(root);
    expect(text).toContain('\t\t    try {\n\t\t        // existing code with error handling\n\t\t    } catch (Error e) {');
    expect(text).toContain('public void oldMethod()');
  });

  it('an ast-path that names no Vala declaration is E_AST_NOT_FOUND naming the nearest path', () => {
    const root = tempProject({ [CLIENT]: CLIENT_VALA });
    const { code, json } = applyWithBin(root, DESIGN_REMOVE.replace('OLLMchat-Client-oldMethod', 'OLLMchat-Client-oldMethd'));
    expect(code).toBe(1);
    expect(json.results[0]?.error?.code).toBe('E_AST_NOT_FOUND');
    expect(json.results[0]?.error?.message).toContain('OLLMchat-Client-oldMethod');
  });
});

/**
 * The design's phase 2 code, pasted as it is written; the test evaluates its string literals
 * (Vala's "…" escapes are JSON's) to the text the design appends to the system message.
 */
const DESIGN_SYSTEM_MESSAGE_CODE = String.raw`  if (active_edit_tool_enabled) {
      system_content += "\n\n<active_edit>\n" +
          "You can edit files directly in your responses using this format:\n" +
          "---BEGIN---\n" +
          "Edit: {file_path}\n" +
          "ast-path: {optional_ast_path}\n" +
          "action: {replace|remove|append|prepend}\n" +
          "---START---\n" +
          "{code}\n" +
          "---END---\n" +
          "\n</active_edit>";
  }`;

function designSystemBlock(): string {
  return [...DESIGN_SYSTEM_MESSAGE_CODE.matchAll(/"((?:[^"\\]|\\.)*)"/g)].map((m) => JSON.parse(`"${m[1]}"`) as string).join('');
}

describe('the system-message template of phase 2, word for word', () => {
  const block = designSystemBlock();

  it('the pasted code evaluates to the block (a check on the test itself)', () => {
    expect(block.startsWith('\n\n<active_edit>\nYou can edit files directly in your responses using this format:\n---BEGIN---\nEdit: {file_path}\n')).toBe(true);
    expect(block.endsWith('{code}\n---END---\n\n</active_edit>')).toBe(true);
  });

  it('the agent prompt (headless and interactive) appends exactly that block when active edit is on, and not when off', () => {
    for (const mode of ['headless', 'interactive'] as const) {
      expect(buildSystemPrompt({ mode, activeEdit: true, tools: ['read_file'] })).toContain(block);
      expect(buildSystemPrompt({ mode, activeEdit: false, tools: ['read_file'] })).not.toContain('<active_edit>');
    }
  });

  it("the Editor's prompt carries the same block", () => {
    const environment = { has_test_suite: true } as Parameters<typeof buildEditorPrompt>[0]['environment'];
    expect(buildEditorPrompt({ dryRun: false, activeEdit: true, tools: ['read_file'], environment, layoutHint: null })).toContain(block);
  });

  it('a real run sends it to the model (transcript of `editwarden run --active-edit`)', () => {
    const root = tempProject({ 'a.txt': 'a\n' });
    const r = bin(['run', '--active-edit', '--task', 'x', '--model', script(root, [{ tool_calls: [{ name: 'task_completion', arguments: { summary: 'ok' } }] }]), '--root', root]);
    expect(r.code).toBe(0);
    const dir = path.join(root, '.editwarden/runs', fs.readdirSync(path.join(root, '.editwarden/runs')).filter((d) => !d.startsWith('.'))[0] as string);
    const start = jsonl(path.join(dir, 'transcript.jsonl'))[0] as { system: string };
    expect(start.system).toContain(block);
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
