/**
 * Test helpers for the integrations: temp projects, the real editwarden
 * binary, and a real client driven by the scripted model server on
 * 127.0.0.1. Everything created is removed by `cleanup()`.
 */
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { startScriptedServer, type RecordedRequest } from '../../src/agent/providers/scripted-server.js';
import type { ScriptedTurn } from '../../src/agent/providers/script.js';
import { readEvents } from '../../src/runs/events-read.js';
import { hookRecords } from '../../src/runs/hook-view.js';
import { gitInit } from '../git-init.js';

const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
export const BIN = path.join(REPO, 'bin', 'editwarden');
export const CLAUDE = path.join(REPO, 'node_modules', '@anthropic-ai', 'claude-code', 'bin', 'claude.exe');
export const GEMINI = path.join(REPO, 'node_modules', '@google', 'gemini-cli', 'bundle', 'gemini.js');

const made: string[] = [];

export function tempDir(prefix = 'ew-int-'): string {
  const dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), prefix)));
  made.push(dir);
  return dir;
}

export function cleanup(): void {
  for (const dir of made.splice(0)) fs.rmSync(dir, { recursive: true, force: true });
}

/**
 * PATH for a client: a folder holding `editwarden` (a link to this build)
 * first, as after `npm install -g editwarden` — the settings init writes
 * find editwarden on PATH. `installed: false` leaves it out (a teammate's
 * machine without editwarden).
 */
export function clientPath(installed: boolean): string {
  return installed ? removableGuard().path : (process.env.PATH ?? '');
}

/** A client's PATH with editwarden on it (as clientPath(true)) that a test can take off between two of the session's calls. */
export interface RemovableGuard {
  path: string;
  /** From now on this machine has no editwarden: the hooks' next look for it (every call looks again) finds none. */
  uninstall(): void;
  /** editwarden is back where it was. */
  reinstall(): void;
}

export function removableGuard(): RemovableGuard {
  const dir = tempDir('ew-path-');
  const link = path.join(dir, 'editwarden');
  fs.symlinkSync(BIN, link);
  return {
    path: `${dir}${path.delimiter}${process.env.PATH ?? ''}`,
    uninstall: () => fs.rmSync(link),
    reinstall: () => fs.symlinkSync(BIN, link),
  };
}

/**
 * The hook server's runtime folder and idle time of this test run, for a client's environment: as on a person's
 * machine (where the session sets XDG_RUNTIME_DIR), a client's hooks reach the user's one warm hook server instead of
 * each client run starting its own in a temp folder of its own; a server a client's hook starts ends soon after the run.
 */
export function hookServerEnv(): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const name of ['XDG_RUNTIME_DIR', 'EDITWARDEN_HOOK_SERVER_IDLE_MS']) if (process.env[name]) env[name] = process.env[name];
  return env;
}

export interface ClientOptions {
  /** Whether editwarden is installed where the client runs (default true). */
  installed?: boolean;
  /** The client's PATH, when the test holds it (a `RemovableGuard`'s, taken off between two calls); else clientPath(installed). */
  path?: string;
  /** More of the client's environment (e.g. the person's XDG_DATA_HOME, where a project-local install's record lives). */
  env?: NodeJS.ProcessEnv;
  /** The person's HOME for the client and its hooks (default: a new empty folder): their own config lives under it. */
  home?: string;
}

export const THIRTY_LINES = Array.from({ length: 30 }, (_, i) => `line ${i + 1}`).join('\n') + '\n';

export function project(files: Record<string, string>): string {
  const root = tempDir();
  // What `git init -q` writes, without starting git for every project (test/git-init.ts).
  gitInit(root);
  for (const [rel, text] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(root, rel)), { recursive: true });
    fs.writeFileSync(path.join(root, rel), text);
  }
  return root;
}

export interface Ran {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** The hooks' records of `root` (the view of its event log that `.editwarden/hooks/changes.jsonl` was), one JSON line each. */
export function hookRecordLines(root: string): string {
  return hookRecords(path.join(root, '.editwarden'))
    .map((r) => `${JSON.stringify(r)}\n`)
    .join('');
}

/** Runs the real built binary (tests never run a stale build: `npm run build` first). */
/**
 * The distinct session ids the hook's events in `root` carry (null: an event without one). A real client's one session
 * reads as one id: the hook found it where the client's record says the client sends it (integrations/session-id.ts).
 */
export function hookSessionIds(root: string): Array<string | null> {
  const hooked = readEvents(path.join(root, '.editwarden')).events.filter((e) => e.route.via === 'hook');
  return [...new Set(hooked.map((e) => e.route.session ?? null))];
}

export function editwarden(args: string[], options: { cwd?: string; input?: string; env?: NodeJS.ProcessEnv } = {}): Ran {
  const r = spawnSync(process.execPath, [BIN, ...args], { cwd: options.cwd, input: options.input ?? '', env: options.env ?? process.env, encoding: 'utf8', timeout: 30_000 });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

/** A project `editwarden init claude` protects, as a person would set it up before starting Claude Code. */
export function protectedProject(files: Record<string, string>): string {
  const root = project(files);
  const init = editwarden(['init', 'claude', '--root', root]);
  if (init.code !== 0) throw new Error(`editwarden init claude exited ${init.code}: ${init.stderr}`);
  return root;
}

export interface ScriptedCall {
  name: string;
  args: Record<string, unknown>;
  /**
   * Run once when the model makes this call, before the client sees it: something outside the session changing the
   * world between two of its calls (runClaude, runGemini and the chat clients').
   */
  before?: () => void;
}

type Body = { tools?: Array<{ name: string }>; messages?: Array<{ role: string; content: unknown }> };

/** Every tool_result text the client sent back to the model, in order. */
export function toolResults(requests: readonly RecordedRequest[]): string[] {
  const last = requests[requests.length - 1];
  const messages = (last?.body as Body | undefined)?.messages ?? [];
  const out: string[] = [];
  for (const m of messages) {
    if (!Array.isArray(m.content)) continue;
    for (const block of m.content as Array<{ type?: string; content?: unknown }>) {
      if (block.type !== 'tool_result') continue;
      out.push(typeof block.content === 'string' ? block.content : JSON.stringify(block.content));
    }
  }
  return out;
}

/**
 * Runs `claude -p` in `root` against the scripted server: the model makes
 * `calls` in order, one per turn. An MCP tool the client has not listed yet
 * (its servers connect in the background) is waited for by reading a file
 * again, at most 5 times. Killed after `timeoutMs`.
 */
export async function runClaude(root: string, calls: ScriptedCall[], extraArgs: string[] = [], timeoutMs = 90_000, options: ClientOptions = {}): Promise<Ran & { requests: RecordedRequest[] }> {
  let step = 0;
  let waits = 0;
  const filler = calls.find((c) => c.name === 'Read');
  const server = await startScriptedServer((req) => {
    const body = req.body as Body;
    const offered = (body.tools ?? []).map((t) => t.name);
    // Side requests (titles, summaries) offer no tools.
    if (offered.length === 0) return { text: 'ok' } satisfies ScriptedTurn;
    const call = calls[step];
    if (!call) return { text: 'done' };
    if (!offered.includes(call.name) && call.name.startsWith('mcp__') && filler && waits < 5) {
      waits++;
      return { tool_calls: [{ name: filler.name, arguments: filler.args }] };
    }
    step++;
    call.before?.();
    return { tool_calls: [{ name: call.name, arguments: call.args }] };
  });
  const home = options.home ?? tempDir('ew-home-');
  try {
    const ran = await runClient(CLAUDE, ['-p', 'Make the change.', '--output-format', 'json', '--permission-mode', 'acceptEdits', ...extraArgs], root, timeoutMs, {
      PATH: options.path ?? clientPath(options.installed ?? true),
      HOME: home,
      // The client's own temp files go where cleanup() removes them.
      TMPDIR: tempDir('ew-clienttmp-'),
      ANTHROPIC_BASE_URL: server.anthropicBaseUrl,
      ANTHROPIC_API_KEY: 'sk-ant-test-not-a-key',
      DISABLE_AUTOUPDATER: '1',
      DISABLE_TELEMETRY: '1',
      CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
      ...hookServerEnv(),
      ...options.env,
    });
    return { ...ran, requests: [...server.requests] };
  } finally {
    await server.close();
  }
}

type GeminiBody = { tools?: Array<{ functionDeclarations?: Array<{ name: string }> }>; contents?: Array<{ role: string; parts?: Array<Record<string, unknown>> }> };

/** Every functionResponse Gemini CLI sent back to the model (JSON text), in order. */
export function functionResponses(requests: readonly RecordedRequest[]): string[] {
  const withTools = requests.filter((r) => r.protocol === 'gemini' && ((r.body as GeminiBody).tools ?? []).length > 0);
  const last = withTools[withTools.length - 1];
  const out: string[] = [];
  for (const c of (last?.body as GeminiBody | undefined)?.contents ?? []) for (const p of c.parts ?? []) if (p.functionResponse) out.push(JSON.stringify(p.functionResponse));
  return out;
}

/** Runs `gemini -p` (non-interactive, edits auto-approved) in `root` against the scripted server playing the Gemini API. */
export async function runGemini(root: string, calls: ScriptedCall[], timeoutMs = 120_000, options: ClientOptions & { approval?: 'auto_edit' | 'yolo' } = {}): Promise<Ran & { requests: RecordedRequest[] }> {
  const ranBefore = new Set<number>();
  const server = await startScriptedServer((req) => {
    const body = req.body as GeminiBody;
    const offered = (body.tools ?? []).flatMap((t) => (t.functionDeclarations ?? []).map((f) => f.name));
    // Side requests (routing, summaries) offer no tools.
    if (offered.length === 0) return { text: JSON.stringify({ complexity_reasoning: 'a scripted test', complexity_score: 1 }) } satisfies ScriptedTurn;
    const step = (body.contents ?? []).filter((c) => c.role === 'model').length;
    const call = calls[step];
    if (!call) return { text: 'done' };
    // A step asked again (a retried request) does not run its side effect twice.
    if (call.before && !ranBefore.has(step)) {
      ranBefore.add(step);
      call.before();
    }
    return { tool_calls: [{ name: call.name, arguments: call.args }] };
  });
  const home = tempDir('ew-home-');
  fs.mkdirSync(path.join(home, '.gemini'));
  fs.writeFileSync(path.join(home, '.gemini', 'settings.json'), JSON.stringify({ security: { auth: { selectedType: 'gemini-api-key' } } }));
  try {
    const ran = await runClient(process.execPath, [GEMINI, '-p', 'Make the change.', '--output-format', 'json', '--approval-mode', options.approval ?? 'auto_edit'], root, timeoutMs, {
      PATH: options.path ?? clientPath(options.installed ?? true),
      HOME: home,
      // The client's own temp files go where cleanup() removes them.
      TMPDIR: tempDir('ew-clienttmp-'),
      GEMINI_API_KEY: 'not-a-key',
      GOOGLE_GEMINI_BASE_URL: server.geminiBaseUrl,
      GEMINI_CLI_NO_RELAUNCH: '1',
      GEMINI_CLI_TRUST_WORKSPACE: 'true',
      ...hookServerEnv(),
      ...options.env,
    });
    return { ...ran, requests: [...server.requests] };
  } finally {
    await server.close();
  }
}

/** Runs a client to its end (SIGKILL after `timeoutMs`) with exactly `env`, and collects its output. */
async function runClient(command: string, args: string[], cwd: string, timeoutMs: number, env: NodeJS.ProcessEnv): Promise<Ran> {
  const child = spawn(command, args, { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
  const code = await new Promise<number | null>((resolve) => child.on('close', (c) => resolve(c)));
  clearTimeout(timer);
  return { code, stdout, stderr };
}
