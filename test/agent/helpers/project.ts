/** Test helpers: a small real project in a temp folder, and one agent run against the scripted server. */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { defaultConfig, withOverrides, type Config, type DeepPartial } from '../../../src/config/config.js';
import { openWorkspace } from '../../../src/workspace/open.js';
import { prepareLanguageHooks } from '../../../src/host/language-hooks.js';
import { projectOf } from '../../../src/host/project.js';
import { runAgentSession, type AgentSessionOptions, type AgentSessionResult } from '../../../src/agent/session.js';
import { createProvider } from '../../../src/agent/providers/spec.js';
import { startScriptedServer, type ScriptedServer } from '../../../src/agent/providers/scripted-server.js';
import type { ScriptSource } from '../../../src/agent/providers/script.js';
import type { AgentEvent } from '../../../src/agent/loop.js';

export function makeProject(files: Record<string, string>): string {
  const root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'ew-agent-')));
  for (const [rel, text] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(root, rel)), { recursive: true });
    fs.writeFileSync(path.join(root, rel), text);
  }
  return root;
}

export function read(root: string, rel: string): string {
  return fs.readFileSync(path.join(root, rel), 'utf8');
}

export interface AgentRunResult extends AgentSessionResult {
  server: ScriptedServer;
  events: AgentEvent[];
}

export async function runWithServer(
  root: string,
  script: ScriptSource,
  options: {
    protocol?: 'openai' | 'anthropic';
    stream?: boolean;
    config?: DeepPartial<Config>;
    session?: Partial<AgentSessionOptions>;
    /** The language hooks the project's plans use (default: the syntax guard of the config). */
    applyHooks?: AgentSessionOptions['project']['applyHooks'];
  } = {},
): Promise<AgentRunResult> {
  const server = await startScriptedServer(script, { chunk: 9 });
  try {
    const protocol = options.protocol ?? 'openai';
    const provider = createProvider(protocol === 'openai' ? 'openai-compatible:scripted' : 'anthropic:scripted', {
      baseUrl: protocol === 'openai' ? server.openaiBaseUrl : server.anthropicBaseUrl,
      env: { ANTHROPIC_API_KEY: 'test' },
      stream: options.stream ?? true,
      maxRetries: 0,
    });
    const config = withOverrides(defaultConfig(), options.config ?? {});
    const opened = openWorkspace(root, { maxFileBytes: config.edit.max_file_bytes });
    const events: AgentEvent[] = [];
    const result = await runAgentSession({
      project: projectOf({ ws: opened.ws, config, transactions: opened.transactions, applyHooks: options.applyHooks ?? { prepareHooks: (paths) => prepareLanguageHooks(paths, config.edit.syntax_guard) } }),
      mode: 'headless',
      provider,
      task: 'Do the task.',
      listeners: { onEvent: (e) => events.push(e) },
      ...options.session,
    });
    return { ...result, server, events };
  } finally {
    await server.close();
  }
}

export function lines(file: string | null): Array<Record<string, unknown>> {
  if (!file) return [];
  return fs
    .readFileSync(file, 'utf8')
    .split('\n')
    .filter((l) => l.trim() !== '')
    .map((l) => JSON.parse(l) as Record<string, unknown>);
}
