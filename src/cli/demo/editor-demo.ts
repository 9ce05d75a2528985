/**
 * The demo's Editor run: the orchestrator on a tiny Node project (its test
 * wants "Hi", the code says "Hello"), driven by a scripted model through the
 * real OpenAI SDK client and the local scripted server (127.0.0.1, no key,
 * no network). The script asks Scout A, records a hypothesis, makes a wrong
 * fix on purpose, verifies (FAIL, kept: fix forward), fixes it, verifies
 * (PASS) and completes — the summary names the green run. Then a dry run of
 * a second task leaves the disk untouched and saves a proposal, which
 * apply-proposal writes and verifies. Nothing is simulated; it never touches
 * anything outside the folder it is given.
 */
import fs from 'node:fs';
import path from 'node:path';
import { paint, type Io } from '../output.js';
import { DEFAULT_CONFIG } from '../../config/defaults.js';
import { withOverrides } from '../../config/config.js';
import { openProject } from '../../host/project.js';
import { createProvider } from '../../agent/providers/spec.js';
import { startScriptedServer } from '../../agent/providers/scripted-server.js';
import type { Script } from '../../agent/providers/script.js';
import { runEditor, type EditorResult, type EditorRunEvent, type RunEditorOptions } from '../../agent/editor/editor.js';
import { describeEditorEvent } from '../editor-command.js';
import { hashTree } from '../../agent/hash-tree.js';
import { CONFIG_FILE } from '../../config/protected-set.js';

export interface EditorDemoOptions {
  /** Folder to work in: the project is created at `<dir>/editor-greet`. */
  dir: string;
  color: boolean;
}

export interface EditorDemoResult {
  ok: boolean;
  dir: string;
  status: string;
  exitCode: number;
  runDir: string;
  summary: string | null;
  proposal: string | null;
  applied: string;
}

const EDITOR_DEMO_TASK = 'Make the greeting say "Hi" instead of "Hello".';
const EDITOR_DRY_TASK = 'Add a farewell(name) function returning "Bye, <name>!", with a test.';

const PROJECT: Record<string, string> = {
  'package.json': '{\n  "name": "editor-greet",\n  "type": "module",\n  "scripts": {\n    "test": "node --test"\n  }\n}\n',
  [CONFIG_FILE]: 'verify:\n  test: "node --test"\n  timeout: 60\nconstraints:\n  max_tokens: 1000000\n',
  'src/greeting.js': "export function greeting(name) {\n  return 'Hello, ' + name + '!';\n}\n",
  'test/greeting.test.js': "import test from 'node:test';\nimport assert from 'node:assert/strict';\nimport { greeting } from '../src/greeting.js';\n\ntest('greets with Hi', () => {\n  assert.equal(greeting('Ada'), 'Hi, Ada!');\n});\n",
};

const write = (word: string): { name: string; arguments: Record<string, unknown> } => ({
  name: 'edit_file',
  arguments: { path: 'src/greeting.js', old_text: "return 'Hello, '", new_text: `return '${word}, '` },
});

function editorDemoScript(): Script {
  return {
    turns: [
      { text: 'Asking Scout A where the greeting lives.', tool_calls: [{ name: 'scout_codebase', arguments: { query: 'greeting Hello' } }] },
      {
        text: 'The word is built in src/greeting.js.',
        tool_calls: [{ name: 'record_hypothesis', arguments: { hypothesis: 'The test compares the greeting text; changing the word in src/greeting.js is enough.', approach: 'Edit the literal in src/greeting.js only.' } }, write('Hey')],
      },
      { text: 'Verifying.', tool_calls: [{ name: 'verify', arguments: {} }] },
      {
        text: 'FAIL: the test wants "Hi", not "Hey". Fixing forward.',
        tool_calls: [
          { name: 'record_hypothesis', arguments: { hypothesis: 'I wrote "Hey"; the test asserts "Hi, Ada!".' } },
          { name: 'edit_file', arguments: { path: 'src/greeting.js', old_text: "return 'Hey, '", new_text: "return 'Hi, '" } },
        ],
      },
      { tool_calls: [{ name: 'verify', arguments: {} }] },
      { tool_calls: [{ name: 'task_completion', arguments: { summary: 'The greeting now says "Hi": one literal changed in src/greeting.js; the existing test covers it.' } }] },
    ],
  };
}

function editorDryScript(): Script {
  return {
    turns: [
      {
        text: 'Adding farewell next to greeting, with a test in the same layout.',
        tool_calls: [
          { name: 'edit_file', arguments: { path: 'src/greeting.js', mode: 'append', new_text: "\nexport function farewell(name) {\n  return 'Bye, ' + name + '!';\n}\n" } },
          {
            name: 'write_file',
            arguments: {
              path: 'test/farewell.test.js',
              content: "import test from 'node:test';\nimport assert from 'node:assert/strict';\nimport { farewell } from '../src/greeting.js';\n\ntest('says bye', () => {\n  assert.equal(farewell('Ada'), 'Bye, Ada!');\n});\n",
            },
          },
        ],
      },
      { tool_calls: [{ name: 'read_file', arguments: { path: 'src/greeting.js' } }] },
      { tool_calls: [{ name: 'task_completion', arguments: { summary: 'Added farewell(name) beside greeting(name), and a test for it.' } }] },
    ],
  };
}

export async function runEditorDemo(io: Io, options: EditorDemoOptions): Promise<EditorDemoResult> {
  const c = options.color;
  const say = (text = ''): void => {
    io.stdout.write(`${text}\n`);
  };
  const root = path.join(options.dir, 'editor-greet');
  fs.mkdirSync(root, { recursive: true });
  for (const [rel, text] of Object.entries(PROJECT)) {
    fs.mkdirSync(path.dirname(path.join(root, rel)), { recursive: true });
    fs.writeFileSync(path.join(root, rel), text);
  }
  const config = withOverrides(DEFAULT_CONFIG, { verify: { test: 'node --test', timeout: 60 }, constraints: { max_tokens: 1_000_000 } });
  const show = (event: EditorRunEvent): void => {
    if (event.type === 'agent') {
      if (event.event.type === 'call-start') say(`  ${paint(c, 'dim', '→')} ${event.event.description}`);
      return;
    }
    // A verification's line is followed by the counters' lines: each one indented like the first.
    say(`  ${describeEditorEvent(event, c).replace(/\n/g, '\n  ')}`);
  };
  const session = async (script: Script, task: string, extra: Pick<RunEditorOptions, 'dryRun' | 'proposal'>): Promise<EditorResult> => {
    const server = await startScriptedServer(script);
    try {
      const provider = createProvider('openai-compatible:scripted', { baseUrl: server.openaiBaseUrl, env: {}, maxRetries: 0 });
      const opened = openProject(root, config);
      return await runEditor({ project: opened, provider, task, listeners: { onEvent: show }, ...extra });
    } finally {
      await server.close();
    }
  };

  say(paint(c, 'bold', 'The Editor: scouts, verify, fix forward, summary'));
  say(`Project: ${root} (node --test wants "Hi", the code says "Hello").`);
  say(`Task: ${EDITOR_DEMO_TASK}`);
  const first = await session(editorDemoScript(), EDITOR_DEMO_TASK, {});
  say(`${paint(c, first.exitCode === 0 ? 'green' : 'red', first.status)} — ${first.reason}`);
  if (first.summaryFile) {
    say(paint(c, 'dim', `--- ${path.relative(root, first.summaryFile)} ---`));
    say(fs.readFileSync(first.summaryFile, 'utf8').trimEnd());
  }

  say();
  say(paint(c, 'bold', 'Dry run: an overlay, no verification, one unified diff as a proposal'));
  say(`Task: ${EDITOR_DRY_TASK}`);
  const before = hashTree(root);
  const dry = await session(editorDryScript(), EDITOR_DRY_TASK, { dryRun: true });
  const untouched = JSON.stringify(hashTree(root)) === JSON.stringify(before);
  say(`${paint(c, dry.exitCode === 0 ? 'green' : 'red', dry.status)} — disk ${untouched ? 'untouched' : 'CHANGED'}; proposal: ${dry.proposalFile ?? '(none)'}`);
  if (dry.diff) say(dry.diff.trimEnd());

  say();
  say(paint(c, 'bold', 'apply-proposal: write it, then the full verification with the debug loop'));
  const opened = openProject(root, config);
  const applied = dry.proposalFile
    ? await runEditor({
        project: opened,
        task: EDITOR_DRY_TASK,
        proposal: { text: fs.readFileSync(dry.proposalFile, 'utf8'), file: dry.proposalFile },
        listeners: { onEvent: show },
      })
    : null;
  if (applied) say(`${paint(c, applied.exitCode === 0 ? 'green' : 'red', applied.status)} — ${applied.reason}`);
  const ok = first.status === 'success' && dry.status === 'proposal' && untouched && applied?.status === 'success';
  return {
    ok,
    dir: root,
    status: first.status,
    exitCode: first.exitCode,
    runDir: first.runDir,
    // agent/summary.md holds the latest session's summary (apply-proposal's, by now); the run folder keeps each.
    summary: first.summaryFile ? path.join(first.runDir, 'summary.md') : null,
    proposal: dry.proposalFile ?? null,
    applied: applied?.status ?? 'not run',
  };
}
