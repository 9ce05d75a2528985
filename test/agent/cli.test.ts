import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { spawn, spawnSync } from 'node:child_process';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startScriptedServer } from '../../src/agent/providers/scripted-server.js';
import { interruptWhen } from './helpers/bin.js';
import { lines } from './helpers/project.js';
import { trustRepoConfig } from '../trust-config.js';

const REPO = path.resolve(__dirname, '../..');
const BIN = path.join(REPO, 'bin/editwarden');
const FIXTURE = path.join(REPO, 'test/fixtures/agent/rename-greeting.json');
let entry: string[];

beforeAll(() => {
  // The CLI runs from dist/; `npm test` builds first, this keeps a lone `vitest run` honest too.
  if (!fs.existsSync(path.join(REPO, 'dist/cli/commands/run.js'))) {
    spawnSync('npx', ['tsc', '-p', 'tsconfig.build.json'], { cwd: REPO, stdio: 'inherit' });
  }
  const probe = spawnSync(process.execPath, [BIN, 'run', '--help'], { encoding: 'utf8' });
  // Always the real binary: a silent stand-in would hide a broken CLI.
  if (probe.status !== 0 || !probe.stdout.includes('--task')) throw new Error(`bin/editwarden run --help failed:\n${probe.stdout}${probe.stderr}`);
  entry = [BIN];
});

const roots: string[] = [];
afterEach(() => {
  for (const r of roots.splice(0)) fs.rmSync(r, { recursive: true, force: true });
});

function project(): string {
  const root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'ew-run-cli-')));
  fs.mkdirSync(path.join(root, 'src'));
  fs.writeFileSync(path.join(root, 'src/greeting.js'), "export function greeting(name) {\n  return 'Hello, ' + name;\n}\n");
  roots.push(root);
  return root;
}

function cli(args: string[], env: NodeJS.ProcessEnv = {}) {
  const r = spawnSync(process.execPath, [...entry, 'run', ...args], { encoding: 'utf8', env: { ...process.env, NO_COLOR: '1', FORCE_COLOR: '', OPENAI_API_KEY: '', ANTHROPIC_API_KEY: '', ...env } });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

/** Runs the CLI without blocking the event loop (the scripted server lives in this process). */
function cliAsync(args: string[], env: NodeJS.ProcessEnv = {}): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [...entry, 'run', ...args], { env: { ...process.env, NO_COLOR: '1', FORCE_COLOR: '', ...env } });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

describe('editwarden run', () => {
  it('replays a recorded script: the task is done, the run folder holds transcript, calls and metrics (--json)', () => {
    const root = project();
    const r = cli(['--task', 'Say Welcome instead of Hello.', '--model', `replay:${FIXTURE}`, '--root', root, '--json']);
    expect(r.code).toBe(0);
    const out = JSON.parse(r.stdout);
    expect(out).toMatchObject({ ok: true, status: 'completed', exit_code: 0, model: `replay:${FIXTURE}`, turns: 3, malformed_calls: 0 });
    expect(out.usage).toEqual({ input: 4100, output: 78, estimated: false });
    expect(out.completion.summary).toBe('greeting() now says Welcome.');
    expect(fs.readFileSync(path.join(root, 'src/greeting.js'), 'utf8')).toContain("return 'Welcome, ' + name;");
    expect(out.run_dir).toBe(path.join(root, '.editwarden/runs', out.run_id));
    for (const f of ['transcript.jsonl', 'calls.jsonl', 'metrics.json']) expect(fs.existsSync(path.join(out.run_dir, f))).toBe(true);

    // The run's own transcript is a script: replaying it on a fresh copy does the same.
    const again = project();
    const replay = cli(['--task', 'Say Welcome instead of Hello.', '--model', `replay:${out.transcript}`, '--root', again, '--json']);
    expect(replay.code).toBe(0);
    expect(fs.readFileSync(path.join(again, 'src/greeting.js'), 'utf8')).toBe(fs.readFileSync(path.join(root, 'src/greeting.js'), 'utf8'));
  });

  it('prints a readable transcript off a terminal: model text, calls, diff, the outcome and the run folder', () => {
    const root = project();
    const r = cli(['--task', 'Say Welcome.', '--model', `replay:${FIXTURE}`, '--root', root]);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('agent: Reading the module first.');
    expect(r.stdout).toContain('→ edit_file edit src/greeting.js');
    expect(r.stdout).toContain("+  return 'Welcome, ' + name;");
    expect(r.stdout).toContain('completed — Task marked done by the agent.');
    expect(r.stdout).toMatch(/run folder: .*\.editwarden\/runs\/\d{8}T\d{6}Z-[0-9a-f]{6}/);
    // No status line redraws in a pipe.
    expect(r.stdout).not.toContain('\r');
  });

  it('a missing API key is refused before anything runs, naming the variable (exit 64)', () => {
    const root = project();
    for (const [model, variable] of [
      ['openai:gpt-4.1', 'OPENAI_API_KEY'],
      ['anthropic:claude-sonnet-4-5', 'ANTHROPIC_API_KEY'],
    ] as const) {
      const r = cli(['--task', 'x', '--model', model, '--root', root]);
      expect(r.code).toBe(64);
      expect(r.stderr).toContain(`${variable} is not set`);
      expect(r.stderr).toContain('E_MISSING_KEY');
    }
    expect(fs.existsSync(path.join(root, '.editwarden/runs'))).toBe(false);
  });

  it('usage errors exit 64: no --model, no task, a bad provider', () => {
    const root = project();
    expect(cli(['--task', 'x', '--root', root]).code).toBe(64);
    expect(cli(['--model', `replay:${FIXTURE}`, '--root', root]).code).toBe(64);
    const bad = cli(['--task', 'x', '--model', 'acme:model', '--root', root]);
    expect(bad.code).toBe(64);
    expect(bad.stderr).toContain('Unknown model provider "acme"');
  });

  it('over the wire with constraint flags: --deny makes the edit a violation, exit 2, report named', async () => {
    const root = project();
    const server = await startScriptedServer({
      turns: [{ tool_calls: [{ name: 'edit_file', arguments: { path: 'src/greeting.js', old_text: 'Hello', new_text: 'Hi' } }] }],
    });
    try {
      const r = await cliAsync(['--task', 'x', '--model', 'openai-compatible:scripted', '--base-url', server.openaiBaseUrl, '--root', root, '--deny', 'src/**']);
      expect(r.code).toBe(2);
      expect(r.stdout).toContain('Pattern violation');
      expect(r.stdout).toMatch(/violation report: .*violation\.md/);
      expect(fs.readFileSync(path.join(root, 'src/greeting.js'), 'utf8')).toContain('Hello');
    } finally {
      await server.close();
    }
  });

  it('the Anthropic protocol from the CLI (--base-url), with the key from ANTHROPIC_API_KEY', async () => {
    const root = project();
    const fixture = JSON.parse(fs.readFileSync(FIXTURE, 'utf8'));
    const server = await startScriptedServer(fixture);
    try {
      const r = await cliAsync(['--task', 'x', '--model', 'anthropic:scripted', '--base-url', server.anthropicBaseUrl, '--root', root, '--json'], { ANTHROPIC_API_KEY: 'sk-test' });
      expect(r.code).toBe(0);
      expect(JSON.parse(r.stdout).status).toBe('completed');
      expect(server.requests.every((q) => q.protocol === 'anthropic' && q.stream)).toBe(true);
    } finally {
      await server.close();
    }
  });

  it('Ctrl-C during a long execute_command stops the run at once: the command group killed, exit 130, partial work kept, run folder named', async () => {
    const root = project();
    const pids = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'ew-run-pids-')));
    roots.push(pids);
    const pgidFile = path.join(pids, 'pgid');
    // The command writes its start marker outside the root: the sandbox must allow that folder.
    fs.writeFileSync(path.join(root, '.editwarden.yml'), `sandbox:\n  writable: ['${pids}']\n`);
    trustRepoConfig(root);
    const server = await startScriptedServer({
      turns: [
        { tool_calls: [{ name: 'edit_file', arguments: { path: 'src/greeting.js', old_text: 'Hello', new_text: 'Hi' } }] },
        { tool_calls: [{ name: 'execute_command', arguments: { command: `echo $$ > ${pgidFile}; sleep 30.5172` } }] },
        { tool_calls: [{ name: 'execute_command', arguments: { command: 'echo never > never.txt' } }] },
      ],
    });
    try {
      const child = spawn(process.execPath, [...entry, 'run', '--task', 'x', '--model', 'openai-compatible:scripted', '--base-url', server.openaiBaseUrl, '--root', root], {
        env: { ...process.env, NO_COLOR: '1' },
      });
      let stdout = '';
      let stderr = '';
      child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
      child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
      // One SIGINT once the command is running (it has written its group id).
      const poll = setInterval(() => {
        if (fs.existsSync(pgidFile) && fs.statSync(pgidFile).size > 0) {
          clearInterval(poll);
          setTimeout(() => child.kill('SIGINT'), 300);
        }
      }, 20);
      // Without the cancellation the run would wait out `sleep 30` and this test would time out.
      const code = await new Promise<number | null>((resolve) => child.on('close', (c) => resolve(c)));
      clearInterval(poll);
      expect(code).toBe(130);
      expect(stderr).toContain('Stopping: the current step is cancelled');
      expect(stdout).toContain('interrupted');
      expect(stdout).toContain('The work so far is kept.');
      // A pid written inside the sandbox is of its pid namespace: look for the sleep by its command line.
      const { pidRunning } = await import('../../src/verify/process-group.js');
      const left = fs
        .readdirSync('/proc')
        .filter((p) => /^\d+$/.test(p))
        .filter((p) => {
          try {
            return fs.readFileSync(`/proc/${p}/cmdline`, 'utf8') === 'sleep\u000030.5172\u0000' && pidRunning(Number(p));
          } catch {
            return false;
          }
        });
      expect(left).toEqual([]);
      const folder = /run folder: (\S+)/.exec(stdout)?.[1] as string;
      expect(fs.existsSync(folder)).toBe(true);
      expect(fs.readFileSync(path.join(root, 'src/greeting.js'), 'utf8')).toContain("'Hi, '");
      expect(fs.existsSync(path.join(root, 'never.txt'))).toBe(false);
      const transcript = lines(path.join(folder, 'transcript.jsonl'));
      expect(transcript.find((l) => l.type === 'tool_result' && l.tool === 'execute_command')).toMatchObject({ status: 'refused', error: { code: 'E_RUN_ENDED' } });
      expect(transcript.at(-1)).toMatchObject({ type: 'end', status: 'interrupted', exit_code: 130 });
      // The model was not asked again after the interrupt.
      expect(server.requests).toHaveLength(2);
      const metrics = JSON.parse(fs.readFileSync(path.join(folder, 'metrics.json'), 'utf8'));
      expect(metrics.outcome).toBe('kept');
    } finally {
      await server.close();
    }
  }, 20_000);

  it('Ctrl-C stops cleanly: exit 130, the partial work kept, the run folder named, the transcript ends with interrupted', async () => {
    const root = project();
    const server = await startScriptedServer({
      turns: [{ tool_calls: [{ name: 'edit_file', arguments: { path: 'src/greeting.js', old_text: 'Hello', new_text: 'Hi' } }] }, { text: 'Thinking about the next step for a long while…', delay_ms: 30_000 }],
    });
    try {
      const { code, stdout, stderr } = await interruptWhen([...entry, 'run', '--task', 'x', '--model', 'openai-compatible:scripted', '--base-url', server.openaiBaseUrl, '--root', root], 'Thinking about');
      expect(code).toBe(130);
      expect(stderr).toContain('Stopping: the current step is cancelled');
      expect(stdout).toContain('interrupted');
      expect(stdout).toContain('The work so far is kept.');
      const folder = /run folder: (\S+)/.exec(stdout)?.[1] as string;
      expect(fs.existsSync(folder)).toBe(true);
      expect(fs.readFileSync(path.join(root, 'src/greeting.js'), 'utf8')).toContain("'Hi, '");
      expect(lines(path.join(folder, 'transcript.jsonl')).at(-1)).toMatchObject({ type: 'end', status: 'interrupted', exit_code: 130 });
      expect(fs.existsSync(path.join(folder, 'metrics.json'))).toBe(true);
    } finally {
      await server.close();
    }
  });
});
