/**
 * The demo's agent run: editwarden's own loop on a copy of samples/ts-hello,
 * driven by a scripted model through the real OpenAI SDK client and the
 * local scripted server (127.0.0.1, no key, no network). The script reads
 * the code, sends one malformed tool call and recovers from the error it
 * gets back, edits, appends a function with an active-edit directive,
 * compiles (with the TypeScript compiler the project's build resolves to,
 * found as detection would find it, or the step is skipped and said so when
 * none is installed) and completes the task — every step through the
 * ToolRunner with its constraints, recorded in the run folder. Never
 * touches anything outside the folder it is given.
 */
import fs from 'node:fs';
import path from 'node:path';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { paint, type Io } from '../output.js';
import { openProject } from '../../host/project.js';
import { DEFAULT_CONFIG } from '../../config/defaults.js';
import type { Config } from '../../config/config.js';
import { formatStatus } from '../run-status.js';
import { runAgentSession } from '../../agent/session.js';
import { createLiveRenderer } from '../live-transcript.js';
import { createProvider } from '../../agent/providers/spec.js';
import { startScriptedServer } from '../../agent/providers/scripted-server.js';
import type { Script } from '../../agent/providers/script.js';

export interface AgentDemoOptions {
  /** Folder to work in: the sample is copied to `<dir>/agent-ts-hello`. */
  dir: string;
  color: boolean;
  /** Folders whose node_modules may hold TypeScript (default: the project's, then editwarden's own). */
  compilerSearch?: readonly string[];
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
  /** Why a step did not happen (the compile step without a TypeScript compiler), said instead of claimed. */
  skipped?: string;
}

/**
 * The compile command for the sample, found the way its detected build (`npm run build` → `tsc`)
 * would find tsc: the project's own node_modules first, then the TypeScript editwarden runs beside.
 * null when no TypeScript compiler is installed (editwarden installed as a package has none).
 */
export function findCompileCommand(project: string, searchFrom: readonly string[] = [project, REPO]): string | null {
  for (const from of searchFrom.map((dir) => path.join(dir, 'package.json'))) {
    try {
      const tsc = createRequire(from).resolve('typescript/bin/tsc');
      return `"${process.execPath}" "${tsc}" -p tsconfig.json --noEmit`;
    } catch {
      // Not installed there.
    }
  }
  return null;
}

const here = path.dirname(fileURLToPath(import.meta.url));
const REPO = path.resolve(here, '../../..');

const AGENT_DEMO_TASK = 'Print the greeting three times instead of once, and add a farewell(name) function next to greeting(). Make sure the project still compiles.';

/** The scripted model's turns for the demo task; without a compile command the compile step is skipped, and said so. */
function agentDemoScript(compile: string | null): Script {
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
          compile ? 'Then I will mark the task done: task_completion compiles the project first.' : 'No TypeScript compiler is installed here, so I cannot compile the project.',
        ].join('\n'),
        tool_calls: [
          {
            name: 'task_completion',
            arguments: compile
              ? { summary: 'repeatCount() now returns 3 and farewell(name) was added in src/greeting.ts; the build (tsc --noEmit) passes.', status: 'done' }
              : { summary: 'repeatCount() now returns 3 and farewell(name) was added in src/greeting.ts; NOT compiled: no TypeScript compiler is installed.', status: 'partial' },
          },
        ],
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
  const compile = findCompileCommand(project, options.compilerSearch);

  io.stdout.write(`\n${paint(c, 'bold', '▶ Agent run')} — editwarden's agent loop with a scripted model over the OpenAI wire protocol (local server, no key)\n`);
  io.stdout.write(`  project: ${project}\n  task: ${AGENT_DEMO_TASK}\n\n`);

  if (!compile) io.stdout.write(`  ${paint(c, 'yellow', 'no TypeScript compiler found')}: the compile step is skipped (install typescript to include it)\n\n`);
  const server = await startScriptedServer(agentDemoScript(compile), { chunk: 12 });
  try {
    const provider = createProvider('openai-compatible:scripted-demo', { baseUrl: server.openaiBaseUrl, env: {}, maxRetries: 0 });
    const config: Config = structuredClone(DEFAULT_CONFIG);
    // task_completion verifies with the same compiler the script uses (the detected `npm run build` would need tsc on PATH).
    if (compile) config.verify.build = compile;
    else config.verify.on_completion = false;
    const opened = openProject(project, config);
    let totals: (() => string) | undefined;
    const result = await runAgentSession({
      project: opened,
      mode: 'headless',
      provider,
      task: AGENT_DEMO_TASK,
      activeEdit: true,
      listeners: {
        onStart: (info) => {
          totals = () => formatStatus(info.totals(), config.constraints);
        },
        onEvent: createLiveRenderer(io.stdout, { color: c, status: () => (totals ? totals() : '') }),
      },
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
    // Never success after a failed step: every call the runner ran must have succeeded (the malformed call never reached it).
    const failedStep = result.summary.calls.find((call) => call.status !== 'ok');
    return {
      ok: outcome.exitCode === 0 && !failedStep && outcome.completion?.status !== 'partial',
      ...(compile ? {} : { skipped: 'the compile step (no TypeScript compiler found)' }),
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
