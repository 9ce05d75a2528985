/**
 * The real opencode, GitHub Copilot CLI and Qwen Code (pinned
 * devDependencies) driven by the scripted model server on 127.0.0.1 playing
 * the OpenAI chat-completions API: each request that offers tools gets the
 * next scripted call (the step is how many tool calls the conversation
 * already holds), side requests (titles) get text. Each client runs in its
 * temp project with `PWD` and its folder named explicitly, and HOME, XDG_*,
 * COPILOT_HOME and TMPDIR in temp folders of its own, so it can never act on
 * this repository or the person's real settings.
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { startScriptedServer } from '../../src/agent/providers/scripted-server.js';
import { BIN, clientPath, hookServerEnv, tempDir, type ScriptedCall } from './helpers.js';

const BINS = path.join(path.dirname(BIN), '..', 'node_modules', '.bin');
export const OPENCODE = path.join(BINS, 'opencode');
export const COPILOT = path.join(BINS, 'copilot');
export const QWEN = path.join(BINS, 'qwen');

type ChatBody = { tools?: Array<{ function?: { name?: string } }>; messages?: Array<{ role: string; content?: unknown; tool_calls?: unknown[] }> };

export interface ChatRun {
  code: number | null;
  stdout: string;
  stderr: string;
  /** The text of every tool result the client sent back to the model, in order (from its last request). */
  results: string[];
  /** The tools the client offered in its last request. */
  tools: string[];
}

function textOf(content: unknown): string {
  if (typeof content === 'string') return content;
  if (Array.isArray(content)) return content.map((p) => (typeof p === 'object' && p !== null && 'text' in p ? String((p as { text: unknown }).text) : JSON.stringify(p))).join('');
  return JSON.stringify(content);
}

/** A person's folders for one client run: nothing of this machine's user is read or written. */
function personEnv(): NodeJS.ProcessEnv {
  const home = tempDir('ew-home-');
  return {
    HOME: home,
    XDG_CONFIG_HOME: path.join(home, '.config'),
    XDG_DATA_HOME: path.join(home, '.local', 'share'),
    XDG_CACHE_HOME: path.join(home, '.cache'),
    XDG_STATE_HOME: path.join(home, '.local', 'state'),
    // The client's own temp files go where cleanup() removes them.
    TMPDIR: tempDir('ew-clienttmp-'),
  };
}

interface RunOptions {
  timeoutMs?: number;
  /** Whether editwarden is installed where the client runs (default true): false is a teammate's machine without it. */
  installed?: boolean;
  /** The client's PATH, when the test holds it (a `RemovableGuard`'s, taken off between two calls); else clientPath(installed). */
  path?: string;
}

async function runChatClient(root: string, calls: readonly ScriptedCall[], start: (baseUrl: string, env: NodeJS.ProcessEnv) => { command: string; args: string[]; env: NodeJS.ProcessEnv }, options: RunOptions): Promise<ChatRun> {
  let last: ChatBody | null = null;
  const ranBefore = new Set<number>();
  const server = await startScriptedServer((req) => {
    const body = req.body as ChatBody;
    if ((body.tools ?? []).length === 0) return { text: 'scripted' };
    last = body;
    const step = (body.messages ?? []).reduce((n, m) => n + (m.role === 'assistant' ? (m.tool_calls ?? []).length : 0), 0);
    const call = calls[step];
    if (!call) return { text: 'done' };
    // A step asked again (a retried request) does not run its side effect twice.
    if (call.before && !ranBefore.has(step)) {
      ranBefore.add(step);
      call.before();
    }
    return { tool_calls: [{ name: call.name, arguments: call.args }] };
  });
  try {
    const base = { PATH: options.path ?? clientPath(options.installed ?? true), PWD: root, ...personEnv(), ...hookServerEnv() };
    const { command, args, env } = start(server.openaiBaseUrl, base);
    const child = spawn(command, args, { cwd: root, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    const timer = setTimeout(() => child.kill('SIGKILL'), options.timeoutMs ?? 330_000);
    const code = await new Promise<number | null>((resolve) => child.on('close', (c) => resolve(c)));
    clearTimeout(timer);
    const messages = (last as ChatBody | null)?.messages ?? [];
    const tools = ((last as ChatBody | null)?.tools ?? []).map((t) => t.function?.name ?? '');
    return { code, stdout, stderr, results: messages.filter((m) => m.role === 'tool').map((m) => textOf(m.content)), tools };
  } finally {
    await server.close();
  }
}

/**
 * `opencode run` in `root` with a provider of its own pointing at the scripted server (`@ai-sdk/openai-compatible`,
 * bundled in opencode). `model` is the model id (a `gpt-5…` id makes opencode offer apply_patch instead of write and
 * edit). opencode installs `@opencode-ai/plugin` into `.opencode/` at start: offline here (npm_config_offline, an
 * empty cache of its own), it fails at once in the background and changes nothing editwarden relies on.
 */
export function runOpencode(root: string, calls: readonly ScriptedCall[], options: RunOptions & { model?: string } = {}): Promise<ChatRun> {
  const model = options.model ?? 'scripted-model';
  return runChatClient(
    root,
    calls,
    (baseUrl, env) => ({
      command: OPENCODE,
      args: ['run', '--format', 'json', '--dir', root, '--model', `scripted/${model}`, 'Make the change.'],
      env: {
        ...env,
        OPENCODE_DISABLE_MODELS_FETCH: '1',
        OPENCODE_DISABLE_AUTOUPDATE: '1',
        OPENCODE_DISABLE_LSP_DOWNLOAD: '1',
        OPENCODE_DISABLE_SHARE: '1',
        // The person's own config is the test's: a provider for the scripted server, every tool allowed.
        OPENCODE_CONFIG_CONTENT: JSON.stringify({
          provider: { scripted: { npm: '@ai-sdk/openai-compatible', name: 'scripted', options: { baseURL: baseUrl, apiKey: 'not-a-key' }, models: { [model]: { name: model } } } },
          permission: { edit: 'allow', bash: 'allow', external_directory: 'allow' },
          // opencode's own snapshots (a git object store of the folder written before and after every step: ~60 git
          // processes in a two-call session) serve its revert, which no test drives; editwarden's undo is what they assert.
          snapshot: false,
        }),
        npm_config_offline: 'true',
        npm_config_cache: tempDir('ew-npmcache-'),
      },
    }),
    options,
  );
}

/** `copilot -p` in `root` against the scripted server (COPILOT_OFFLINE with a provider of its own); the folder trusted in its own COPILOT_HOME. */
export function runCopilot(root: string, calls: readonly ScriptedCall[], options: RunOptions & { trusted?: boolean } = {}): Promise<ChatRun> {
  return runChatClient(
    root,
    calls,
    (baseUrl, env) => {
      const copilotHome = path.join(env.HOME as string, '.copilot');
      fs.mkdirSync(copilotHome, { recursive: true });
      // Copilot runs a repository's hooks only in a folder the person trusted (what its first-start prompt records).
      if (options.trusted ?? true) fs.writeFileSync(path.join(copilotHome, 'config.json'), `${JSON.stringify({ trusted_folders: [root] })}\n`);
      return {
        command: COPILOT,
        args: ['-p', 'Make the change.', '--allow-all-tools', '--output-format', 'json'],
        env: { ...env, COPILOT_HOME: copilotHome, COPILOT_OFFLINE: 'true', COPILOT_PROVIDER_BASE_URL: baseUrl, COPILOT_PROVIDER_API_KEY: 'not-a-key', COPILOT_MODEL: 'scripted-model' },
      };
    },
    options,
  );
}

/** `qwen` (headless, every tool approved) in `root` against the scripted server as an OpenAI endpoint. */
export function runQwen(root: string, calls: readonly ScriptedCall[], options: RunOptions = {}): Promise<ChatRun> {
  return runChatClient(
    root,
    calls,
    (baseUrl, env) => ({
      command: QWEN,
      args: ['--auth-type', 'openai', '--openai-base-url', baseUrl, '--openai-api-key', 'not-a-key', '-m', 'scripted-model', '--approval-mode', 'yolo', '-o', 'json', 'Make the change.'],
      // QWEN_CODE_NO_RELAUNCH: Qwen runs itself once more as a child Node process for a larger heap (what Gemini CLI's
      // GEMINI_CLI_NO_RELAUNCH, set in runGemini, switches off): a third Node start per session that a short CI run does not need.
      env: { ...env, QWEN_CODE_SUPPRESS_YOLO_WARNING: '1', QWEN_CODE_NO_RELAUNCH: 'true' },
    }),
    options,
  );
}
