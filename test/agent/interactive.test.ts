/**
 * Interactive mode in a real pseudo-terminal: the CLI runs inside tmux, the
 * test reads the screen (capture-pane) and types the answers (send-keys).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { spawnSync } from 'node:child_process';
import { afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startScriptedServer } from '../../src/agent/providers/scripted-server.js';
import { lines } from './helpers/project.js';

const REPO = path.resolve(__dirname, '../..');
const BIN = path.join(REPO, 'bin/editwarden');
let entry: string;
const session = 'run';
/**
 * A tmux server of its own for each test. One socket reused across tests raced: `kill-server` returns before the
 * old server is gone, so the next test's `new-session` could land in the dying server and vanish with it (CI saw an
 * empty screen for 30 s, 2026-11-27).
 */
let socket = '';
let tests = 0;
beforeEach(() => {
  socket = `ew-agent-test-${process.pid}-${tests++}`;
});

beforeAll(() => {
  if (!fs.existsSync(path.join(REPO, 'dist/cli/commands/run.js'))) {
    spawnSync('npx', ['tsc', '-p', 'tsconfig.build.json'], { cwd: REPO, stdio: 'inherit' });
  }
  const probe = spawnSync(process.execPath, [BIN, 'run', '--help'], { encoding: 'utf8' });
  // Always the real binary: a silent stand-in would hide a broken CLI.
  if (probe.status !== 0 || !probe.stdout.includes('--task')) throw new Error(`bin/editwarden run --help failed:\n${probe.stdout}${probe.stderr}`);
  entry = BIN;
});

const roots: string[] = [];
afterEach(() => {
  spawnSync('tmux', ['-L', socket, 'kill-server'], { stdio: 'ignore' });
  for (const r of roots.splice(0)) fs.rmSync(r, { recursive: true, force: true });
});

function tmux(...args: string[]): string {
  const r = spawnSync('tmux', ['-L', socket, ...args], { encoding: 'utf8' });
  // A failed tmux call (no such session: the command it ran is gone) says so at once, not as a 30 s empty screen.
  if (r.status !== 0) throw new Error(`tmux ${args.join(' ')} failed (${r.status}): ${r.stderr}`);
  return r.stdout;
}

function screen(): string {
  return tmux('capture-pane', '-p', '-J', '-S', '-2000', '-t', session);
}

/** Waits until the screen shows `text` at least `count` times. */
async function waitFor(text: string, count = 1, timeoutMs = 30_000): Promise<string> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const s = screen();
    if (s.split(text).length - 1 >= count) return s;
    if (Date.now() > until) throw new Error(`timed out waiting for ${JSON.stringify(text)} ×${count}; screen:\n${s}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** One key, no Enter (the approval prompt reads single keys). */
function key(k: string): void {
  tmux('send-keys', '-t', session, '-l', k);
}

function type(text: string): void {
  tmux('send-keys', '-t', session, '-l', text);
  tmux('send-keys', '-t', session, 'Enter');
}

describe('--mode interactive in a real terminal (tmux)', () => {
  it('approve one edit, refuse another, answer a question, "always" for a tool; each choice reaches the run', async () => {
    const root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'ew-agent-tty-')));
    roots.push(root);
    fs.writeFileSync(path.join(root, 'notes.txt'), 'alpha\n');
    const server = await startScriptedServer({
      turns: [
        { text: 'First edit.', tool_calls: [{ name: 'edit_file', arguments: { path: 'notes.txt', old_text: 'alpha', new_text: 'beta' } }] },
        { text: 'Second edit.', tool_calls: [{ name: 'edit_file', arguments: { path: 'notes.txt', old_text: 'beta', new_text: 'gamma' } }] },
        { tool_calls: [{ name: 'ask_question', arguments: { question: 'Which name should the new file greet?' } }] },
        { tool_calls: [{ name: 'write_file', arguments: { path: 'out/one.txt', content: 'one\n' } }] },
        { tool_calls: [{ name: 'write_file', arguments: { path: 'out/two.txt', content: 'two\n' } }] },
        { tool_calls: [{ name: 'task_completion', arguments: { summary: 'done' } }] },
      ],
    });
    try {
      const command = [
        'env NO_COLOR=1',
        JSON.stringify(process.execPath),
        JSON.stringify(entry),
        'run --mode interactive --task "Edit notes." --model openai-compatible:scripted',
        `--base-url ${server.openaiBaseUrl} --root ${JSON.stringify(root)}`,
        `; echo "EXIT=$?"; sleep 60`,
      ].join(' ');
      tmux('new-session', '-d', '-s', session, '-x', '160', '-y', '50', command);

      // 1. The first edit: description and diff shown before anything is written; "y".
      let s = await waitFor('Apply? [Y]es / [n]o (with a reason) / [a]lways for edit_file in notes.txt / [q]uit:');
      expect(s).toContain('? edit_file edit notes.txt');
      expect(s).toContain('-alpha');
      expect(s).toContain('+beta');
      expect(fs.readFileSync(path.join(root, 'notes.txt'), 'utf8')).toBe('alpha\n');
      key('y');

      // 2. The second edit: "n" — declined, nothing written, the model told so (with the person's reason).
      s = await waitFor('Apply? [Y]es', 2);
      expect(s).toContain('+gamma');
      expect(fs.readFileSync(path.join(root, 'notes.txt'), 'utf8')).toBe('beta\n');
      key('n');
      await waitFor('Reason for the model');
      type('keep it beta');

      // 3. ask_question reaches the person.
      await waitFor('agent asks: Which name should the new file greet?');
      type('Bob');

      // 4. write_file: "a" (always, scoped to out/**) — then the next write_file in out/ is not asked.
      await waitFor('[a]lways for write_file in out/**');
      key('a');
      s = await waitFor('EXIT=');
      expect(s).toContain('EXIT=0');
      expect(s).toContain('(always: write_file in out/**) write_file create out/two.txt');
      expect(s.split('Apply? [Y]es').length - 1).toBe(3);

      expect(fs.readFileSync(path.join(root, 'notes.txt'), 'utf8')).toBe('beta\n');
      expect(fs.readFileSync(path.join(root, 'out/one.txt'), 'utf8')).toBe('one\n');
      expect(fs.readFileSync(path.join(root, 'out/two.txt'), 'utf8')).toBe('two\n');
      expect(JSON.stringify(server.requests[2]?.body)).toContain('E_DECLINED');
      expect(JSON.stringify(server.requests[2]?.body)).toContain('keep it beta');
      expect(JSON.stringify(server.requests[3]?.body)).toContain('Bob');
      // The tools offered in interactive mode include ask_question.
      const offered = (server.requests[0]?.body.tools as Array<{ function: { name: string } }>).map((t) => t.function.name);
      expect(offered).toContain('ask_question');

      const runs = fs.readdirSync(path.join(root, '.editwarden/runs'));
      const transcript = lines(path.join(root, '.editwarden/runs', runs[0] as string, 'transcript.jsonl'));
      expect(transcript.filter((e) => e.type === 'approval').map((e) => `${e.tool}:${e.decision}`)).toEqual(['edit_file:approved', 'edit_file:declined', 'write_file:approved', 'write_file:approved']);
      expect(transcript.find((e) => e.type === 'question')).toMatchObject({ answer: 'Bob' });
    } finally {
      await server.close();
    }
  });

  it('"q" quits: the call is declined, the run stops (exit 1) keeping earlier work', async () => {
    const root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'ew-agent-tty-')));
    roots.push(root);
    fs.writeFileSync(path.join(root, 'notes.txt'), 'alpha\n');
    const server = await startScriptedServer({
      turns: [{ tool_calls: [{ name: 'execute_command', arguments: { command: 'echo hi > made.txt' } }] }, { text: 'never requested' }],
    });
    try {
      const command = `env NO_COLOR=1 ${JSON.stringify(process.execPath)} ${JSON.stringify(entry)} run --mode interactive --task x --model openai-compatible:s --base-url ${server.openaiBaseUrl} --root ${JSON.stringify(root)}; echo "EXIT=$?"; sleep 60`;
      tmux('new-session', '-d', '-s', session, '-x', '160', '-y', '50', command);
      const s = await waitFor('[a]lways for commands starting with "echo hi"');
      expect(s).toContain('command: echo hi > made.txt');
      expect(s).toContain(`in: ${root}`);
      key('q');
      const end = await waitFor('EXIT=');
      expect(end).toContain('EXIT=1');
      expect(end).toContain('quit');
      expect(fs.existsSync(path.join(root, 'made.txt'))).toBe(false);
      expect(server.requests).toHaveLength(1);
    } finally {
      await server.close();
    }
  });

  it('time at the approval prompt is not the run\'s time: a slow "y" past --timeout applies the edit, reports no refusal, and the metrics say how long the run waited', async () => {
    // Wide enough that the agent's own part (an edit, a node command: seconds on a loaded machine) fits inside it,
    // so the run can break its timeout only by being charged the person's wait, which is what this is about.
    const TIMEOUT_S = 8;
    const root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'ew-agent-tty-')));
    roots.push(root);
    fs.writeFileSync(path.join(root, 'notes.txt'), 'alpha\n');
    const server = await startScriptedServer({
      turns: [
        { tool_calls: [{ name: 'edit_file', arguments: { path: 'notes.txt', old_text: 'alpha', new_text: 'beta' } }] },
        { tool_calls: [{ name: 'execute_command', arguments: { command: 'node -e "console.log(\'boom output\'); process.exit(3)"' } }] },
        { tool_calls: [{ name: 'task_completion', arguments: { summary: 'done' } }] },
      ],
    });
    try {
      const command = `env NO_COLOR=1 ${JSON.stringify(process.execPath)} ${JSON.stringify(entry)} run --mode interactive --timeout ${TIMEOUT_S} --task x --model openai-compatible:s --base-url ${server.openaiBaseUrl} --root ${JSON.stringify(root)}; echo "EXIT=$?"; sleep 60`;
      tmux('new-session', '-d', '-s', session, '-x', '160', '-y', '50', command);
      await waitFor('[a]lways for edit_file');
      // The person answers after the whole --timeout: charged to the run, that wait alone would break it.
      await new Promise((r) => setTimeout(r, (TIMEOUT_S + 1) * 1000));
      key('y');
      await waitFor('[a]lways for commands starting with "node"');
      key('y');
      const end = await waitFor('EXIT=');
      expect(end).toContain('EXIT=0');
      expect(end).not.toContain('refused');
      // A failed command shows its output.
      expect(end).toContain('boom output');
      expect(fs.readFileSync(path.join(root, 'notes.txt'), 'utf8')).toBe('beta\n');
      const runs = fs.readdirSync(path.join(root, '.editwarden/runs')).filter((d) => !d.startsWith('.'));
      const metrics = JSON.parse(fs.readFileSync(path.join(root, '.editwarden/runs', runs[0] as string, 'metrics.json'), 'utf8'));
      expect(metrics.constraints.actual.waited_for_person_seconds).toBeGreaterThanOrEqual(TIMEOUT_S);
      expect(metrics.constraints.actual.elapsed_seconds).toBeLessThan(TIMEOUT_S);
      expect(metrics.constraints.violations).toEqual([]);
    } finally {
      await server.close();
    }
  });

  it('Ctrl-C after a question was answered still stops the run cleanly (the terminal left raw mode): exit 130, work kept', async () => {
    const root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'ew-agent-tty-')));
    roots.push(root);
    fs.writeFileSync(path.join(root, 'notes.txt'), 'alpha\n');
    const server = await startScriptedServer({
      turns: [{ tool_calls: [{ name: 'edit_file', arguments: { path: 'notes.txt', old_text: 'alpha', new_text: 'beta' } }] }, { text: 'Pondering for a long time…', delay_ms: 30_000 }],
    });
    try {
      const command = `env NO_COLOR=1 ${JSON.stringify(process.execPath)} ${JSON.stringify(entry)} run --mode interactive --task x --model openai-compatible:s --base-url ${server.openaiBaseUrl} --root ${JSON.stringify(root)}; echo "EXIT=$?"; sleep 60`;
      tmux('new-session', '-d', '-s', session, '-x', '160', '-y', '50', command);
      await waitFor('[a]lways for edit_file');
      key('y');
      await waitFor('Pondering');
      tmux('send-keys', '-t', session, 'C-c');
      const end = await waitFor('EXIT=');
      expect(end).toContain('EXIT=130');
      expect(end).toContain('Stopping: the current step is cancelled');
      expect(end).toMatch(/run folder: \S+/);
      expect(fs.readFileSync(path.join(root, 'notes.txt'), 'utf8')).toBe('beta\n');
    } finally {
      await server.close();
    }
  });
});
