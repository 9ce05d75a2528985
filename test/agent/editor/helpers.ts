/** Test helpers: small real projects in temp folders, and Editor sessions driven through the scripted model server. */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { defaultConfig, withOverrides, type Config, type DeepPartial } from '../../../src/config/config.js';
import { openWorkspace } from '../../../src/workspace/open.js';
import { createProvider } from '../../../src/agent/providers/spec.js';
import { startScriptedServer, type ScriptedServer } from '../../../src/agent/providers/scripted-server.js';
import type { ScriptSource, ScriptedTurn } from '../../../src/agent/providers/script.js';
import { runEditor, type EditorResult, type EditorRunEvent, type RunEditorOptions } from '../../../src/agent/editor/editor.js';

const made: string[] = [];

export function makeProject(files: Record<string, string>): string {
  const root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'ew-editor-')));
  made.push(root);
  for (const [rel, text] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(root, rel)), { recursive: true });
    fs.writeFileSync(path.join(root, rel), text);
  }
  return root;
}

/** Copies a fixture repository of test/fixtures/editor/ into a temp folder. */
export function copyFixture(name: string): string {
  const root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), `ew-fx-${name}-`)));
  made.push(root);
  fs.cpSync(path.join(import.meta.dirname, '..', '..', 'fixtures', 'editor', name), root, { recursive: true });
  return root;
}

export function cleanup(): void {
  for (const r of made.splice(0)) fs.rmSync(r, { recursive: true, force: true });
}

export function read(root: string, rel: string): string {
  return fs.readFileSync(path.join(root, rel), 'utf8');
}

/** A node project whose test wants the greeting to say "Hi"; it says "Hello" (the baseline fails). */
export const GREETING_PROJECT: Record<string, string> = {
  'package.json': '{\n  "name": "greet",\n  "type": "module",\n  "scripts": {\n    "test": "node --test"\n  }\n}\n',
  '.editwarden.yml': 'verify:\n  test: "node --test"\n  timeout: 60\n',
  'src/greeting.js': "export function greeting(name) {\n  return 'Hello, ' + name + '!';\n}\n",
  'test/greeting.test.js': "import test from 'node:test';\nimport assert from 'node:assert/strict';\nimport { greeting } from '../src/greeting.js';\n\ntest('greets with Hi', () => {\n  assert.equal(greeting('Ada'), 'Hi, Ada!');\n});\n",
};

export const GREETING_FILE = 'src/greeting.js';

/** A turn that rewrites the greeting to `word` (write_file overwrite: valid whatever the current text). */
export function setGreeting(word: string, extra: ScriptedTurn['tool_calls'] = []): ScriptedTurn {
  return {
    tool_calls: [...extra, { name: 'write_file', arguments: { path: GREETING_FILE, content: `export function greeting(name) {\n  return '${word}, ' + name + '!';\n}\n`, overwrite: true } }],
  };
}

export const VERIFY: ScriptedTurn = { tool_calls: [{ name: 'verify', arguments: {} }] };

export function complete(summary: string, status: 'done' | 'blocked' = 'done'): ScriptedTurn {
  return { tool_calls: [{ name: 'task_completion', arguments: { summary, status } }] };
}

export function hypothesis(text: string, approach?: string): NonNullable<ScriptedTurn['tool_calls']>[number] {
  return { name: 'record_hypothesis', arguments: { hypothesis: text, ...(approach ? { approach } : {}) } };
}

export interface EditorRun extends EditorResult {
  server: ScriptedServer;
  events: EditorRunEvent[];
}

export async function runEditorWithServer(root: string, script: ScriptSource, options: { config?: DeepPartial<Config>; editor?: Partial<RunEditorOptions>; task?: string } = {}): Promise<EditorRun> {
  const server = await startScriptedServer(script, { chunk: 11 });
  try {
    const provider = createProvider('openai-compatible:scripted', { baseUrl: server.openaiBaseUrl, env: {}, stream: true, maxRetries: 0 });
    const { loadConfig } = await import('../../../src/config/load.js');
    const config: Config = withOverrides(fs.existsSync(path.join(root, '.editwarden.yml')) ? loadConfig(root) : defaultConfig(), options.config ?? {});
    const opened = openWorkspace(root, { maxFileBytes: config.edit.max_file_bytes });
    const events: EditorRunEvent[] = [];
    const result = await runEditor({
      project: { ws: opened.ws, config, transactions: opened.transactions },
      provider,
      task: options.task ?? 'Make the greeting say "Hi" instead of "Hello".',
      listeners: { onEvent: (e) => events.push(e) },
      ...options.editor,
    });
    return { ...result, server, events };
  } finally {
    await server.close();
  }
}

/** The text of the first user message the model was sent (the task and the scouts' digest). */
export function firstUserMessage(server: ScriptedServer): string {
  const body = server.requests[0]?.body as { messages: Array<{ role: string; content: unknown }> };
  const user = body.messages.find((m) => m.role === 'user');
  return typeof user?.content === 'string' ? user.content : JSON.stringify(user?.content);
}

export function systemPrompt(server: ScriptedServer): string {
  const body = server.requests[0]?.body as { messages: Array<{ role: string; content: unknown }> };
  const sys = body.messages.find((m) => m.role === 'system');
  return typeof sys?.content === 'string' ? sys.content : JSON.stringify(sys?.content);
}

/** The last tool-result text sent with request `index`. */
export function lastToolResult(server: ScriptedServer, index: number): string {
  const body = server.requests[index]?.body as { messages: Array<{ role: string; content: unknown }> };
  for (let i = body.messages.length - 1; i >= 0; i--) {
    const m = body.messages[i];
    if (m?.role === 'tool' && typeof m.content === 'string') return m.content;
  }
  return '';
}

/** result.json of every step of a verification run, read from its evidence folder. */
export function verifyResults(root: string, runId: string): Array<{ kind: string; passed: boolean; run_id: string }> {
  const dir = path.join(root, '.editwarden', 'runs', runId, 'verify');
  return fs
    .readdirSync(dir)
    .sort()
    .map((n) => JSON.parse(fs.readFileSync(path.join(dir, n, 'result.json'), 'utf8')) as { kind: string; passed: boolean; run_id: string });
}
