/**
 * The demo's agent run: editwarden's own loop on a copy of samples/ts-hello,
 * driven by a scripted model through the real OpenAI SDK client and the
 * local scripted server (127.0.0.1, no key, no network). The script reads
 * the code, sends one malformed tool call and recovers from the error it
 * gets back, edits, appends a function with an active-edit directive,
 * compiles with tsc and completes the task — every step through the
 * ToolRunner with its constraints, recorded in the run folder. Never
 * touches anything outside the folder it is given.
 */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { paint, type Io } from '../cli/output.js';
import { prepareLanguageHooks } from '../cli/workspace.js';
import { DEFAULT_CONFIG } from '../config/defaults.js';
import { formatStatus } from '../guard/status.js';
import { openWorkspace } from '../workspace/open.js';
import { runAgentSession } from '../agent/loop/session.js';
import { createLiveRenderer } from '../agent/loop/render.js';
import { createProvider } from '../agent/providers/spec.js';
import { startScriptedServer } from '../agent/providers/scripted-server.js';
import type { Script } from '../agent/providers/script.js';

export interface AgentDemoOptions {
  /** Folder to work in: the sample is copied to `<dir>/agent-ts-hello`. */
  dir: string;
  color: boolean;
}

export interface AgentDemoResult {
  ok: boolean;
  /** The project the agent worked on. */
  dir: string;
  status: string;
  exitCode: number;
  runDir: string | null;
  transcript: string | null;
  metrics: string | null;
}

const here = path.dirname(fileURLToPath(import.meta.url));
const REPO = path.resolve(here, '../..');

export const AGENT_DEMO_TASK = 'Print the greeting three times instead of once, and add a farewell(name) function next to greeting(). Make sure the project still compiles.';

/** The scripted model's turns for the demo task (the tsc path is this checkout's). */
export function agentDemoScript(tsc: string): Script {
  return {
    turns: [
      { text: 'I will start by reading the greeting module.', tool_calls: [{ name: 'read_file', arguments: { path: 'src/greeting.ts' } }] },
      {
        text: 'repeatCount() returns 1; I will make it 3.',
        // Cut off before its closing brace: the loop returns the JSON error and the model sends it again.
        tool_calls: [{ name: 'edit_file', arguments: '{"path": "src/greeting.ts", "old_text": "  return 1;", "new_text": "  return 3;"' }],
      },
      {
        text: 'My arguments were cut off; sending the same edit again, complete.',
        tool_calls: [{ name: 'edit_file', arguments: { path: 'src/greeting.ts', old_text: '  return 1;', new_text: '  return 3;' } }],
      },
      {
        text: [
          'Now the farewell, written as an active edit directive appended to the module:',
          '---BEGIN---',
          'Edit: src/greeting.ts',
          'action: append',
          '---START---',
          '',
          '/** Builds the farewell printed at the end. */',
          'export function farewell(name: string): string {',
          '  return `Goodbye, ${name}!`;',
          '}',
          '---END---',
          'Then I will compile the project.',
        ].join('\n'),
        tool_calls: [{ name: 'execute_command', arguments: { command: `"${tsc}" -p tsconfig.json --noEmit`, timeout: 120 } }],
      },
      {
        text: 'It compiles.',
        tool_calls: [{ name: 'task_completion', arguments: { summary: 'repeatCount() now returns 3 and farewell(name) was added in src/greeting.ts; tsc --noEmit passes.', status: 'done' } }],
      },
    ],
  };
}

export async function runAgentDemo(io: Io, options: AgentDemoOptions): Promise<AgentDemoResult> {
  const c = options.color;
  const project = path.join(options.dir, 'agent-ts-hello');
  fs.rmSync(project, { recursive: true, force: true });
  fs.mkdirSync(options.dir, { recursive: true });
  fs.cpSync(path.join(REPO, 'samples/ts-hello'), project, { recursive: true });
  const tsc = path.join(REPO, 'node_modules/.bin/tsc');

  io.stdout.write(`\n${paint(c, 'bold', '▶ Agent run')} — editwarden's agent loop with a scripted model over the OpenAI wire protocol (local server, no key)\n`);
  io.stdout.write(`  project: ${project}\n  task: ${AGENT_DEMO_TASK}\n\n`);

  const server = await startScriptedServer(agentDemoScript(tsc), { chunk: 12 });
  try {
    const provider = createProvider('openai-compatible:scripted-demo', { baseUrl: server.openaiBaseUrl, env: {}, maxRetries: 0 });
    const config = structuredClone(DEFAULT_CONFIG);
    const opened = openWorkspace(project, { maxFileBytes: config.edit.max_file_bytes });
    let totals: (() => string) | undefined;
    const result = await runAgentSession({
      ws: opened.ws,
      transactions: opened.transactions,
      applyHooks: { prepareHooks: (paths) => prepareLanguageHooks(paths, config.edit.syntax_guard) },
      config,
      mode: 'headless',
      provider,
      task: AGENT_DEMO_TASK,
      activeEdit: true,
      onStart: (info) => {
        totals = () => formatStatus(info.totals(), config.constraints);
      },
      onEvent: createLiveRenderer(io.stdout, { color: c, status: () => (totals ? totals() : '') }),
    });
    const { outcome } = result;
    io.stdout.write(
      [
        '',
        `  ${outcome.malformedCalls} malformed call returned to the model and recovered from; ${outcome.activeEdits.applied} active edit applied; ${server.requests.length} requests to the model server.`,
        `  run folder: ${result.runDir ?? '(none)'} (transcript.jsonl, calls.jsonl, metrics.json)`,
        '',
      ].join('\n'),
    );
    return {
      ok: outcome.exitCode === 0,
      dir: project,
      status: outcome.status,
      exitCode: outcome.exitCode,
      runDir: result.runDir,
      transcript: result.transcriptFile,
      metrics: result.metricsFile,
    };
  } finally {
    await server.close();
  }
}
