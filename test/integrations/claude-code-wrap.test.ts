/**
 * A real agent under `editwarden wrap`, without any hook: the real Claude
 * Code from node_modules, started by wrap in a temp project (never this
 * repository), reaches the scripted model on 127.0.0.1 only through the
 * filtering proxy (`--model-url`), and what its own Write and Bash tools
 * change is recorded and undone — while the OS tells its Bash that
 * `/etc/hosts` is read-only.
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { startScriptedServer } from '../../src/agent/providers/scripted-server.js';
import { readEvents } from '../../src/runs/events-read.js';
import { BIN, CLAUDE, cleanup, editwarden, project, toolResults } from './helpers.js';

afterEach(cleanup);

describe('Claude Code with no hooks, run whole under editwarden wrap', () => {
  it('reaches its model through the proxy; its Write and Bash changes are one undo step; a write outside the root fails', async () => {
    const root = project({ 'a.txt': 'hello\n' });
    let step = 0;
    const server = await startScriptedServer((req) => {
      const body = req.body as { tools?: unknown[] };
      // Side requests (titles, summaries) offer no tools.
      if (!body.tools || body.tools.length === 0) return { text: 'ok' };
      step++;
      if (step === 1) return { tool_calls: [{ name: 'Write', arguments: { file_path: path.join(root, 'b.txt'), content: 'by claude\n' } }] };
      if (step === 2) return { tool_calls: [{ name: 'Bash', arguments: { command: 'echo via bash > c.txt; echo owned >> /etc/hosts; echo bash-done' } }] };
      return { text: 'done' };
    });
    const env = {
      ...process.env,
      ANTHROPIC_BASE_URL: server.anthropicBaseUrl,
      ANTHROPIC_API_KEY: 'sk-ant-test-not-a-key',
      DISABLE_AUTOUPDATER: '1',
      CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
    };
    const passed = ['ANTHROPIC_API_KEY', 'ANTHROPIC_BASE_URL', 'DISABLE_AUTOUPDATER', 'CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC'].flatMap((n) => ['--pass-env', n]);
    try {
      const ran = await new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve, reject) => {
        const child = spawn(
          process.execPath,
          [BIN, 'wrap', '--step-after', '0s', '--model-url', server.anthropicBaseUrl, ...passed, '--', CLAUDE, '-p', 'Make the change.', '--permission-mode', 'acceptEdits', '--allowedTools', 'Bash', '--output-format', 'json'],
          { cwd: root, env, stdio: ['ignore', 'pipe', 'pipe'] },
        );
        let stdout = '';
        let stderr = '';
        child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
        child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
        const timer = setTimeout(() => child.kill('SIGKILL'), 90_000);
        child.on('error', reject);
        child.on('close', (code) => {
          clearTimeout(timer);
          resolve({ code, stdout, stderr });
        });
      });
      expect(ran.code, ran.stderr).toBe(0);
      expect(step).toBe(3);
      expect(fs.readFileSync(path.join(root, 'b.txt'), 'utf8')).toBe('by claude\n');
      expect(fs.readFileSync(path.join(root, 'c.txt'), 'utf8')).toBe('via bash\n');
      // The OS said no to the write outside the root; the model read that (and no E_ code).
      const bash = toolResults(server.requests).find((t) => t.includes('bash-done')) ?? '';
      // Read-only inside the sandbox; an ordinary user is refused before that (the file is root's): either way, the OS said no.
      expect(bash).toMatch(/Read-only file system|Permission denied/);
      expect(fs.readFileSync('/etc/hosts', 'utf8')).not.toContain('owned');

      const edits = readEvents(path.join(root, '.editwarden')).events.filter((e) => e.route.via === 'wrap' && e.kind === 'edit');
      expect(edits.flatMap((e) => e.paths).sort()).toEqual(['b.txt', 'c.txt']);
      expect(editwarden(['undo'], { cwd: root }).code).toBe(0);
      expect(fs.existsSync(path.join(root, 'b.txt'))).toBe(false);
      expect(fs.existsSync(path.join(root, 'c.txt'))).toBe(false);
      expect(fs.readFileSync(path.join(root, 'a.txt'), 'utf8')).toBe('hello\n');
    } finally {
      await server.close();
    }
  });
});
