import path from 'node:path';
import { spawn } from 'node:child_process';
import { afterEach, describe, expect, it } from 'vitest';
import { startScriptedServer } from '../../../src/agent/providers/scripted-server.js';
import { cleanup, complete, GREETING_FILE, GREETING_PROJECT, makeProject, read, setGreeting } from './helpers.js';

afterEach(cleanup);

const BIN = path.resolve(__dirname, '../../../bin/editwarden');

function runBin(args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [BIN, ...args], { env: { ...process.env, NO_COLOR: '1' } });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

describe('editwarden run --mode editor through the real binary', () => {
  it('edits, verifies green and writes the summary (exit 0)', async () => {
    const root = makeProject(GREETING_PROJECT);
    const server = await startScriptedServer({ turns: [setGreeting('Hi'), complete('Greeting says Hi.')] });
    try {
      const r = await runBin(['run', '--mode', 'editor', '--model', 'openai-compatible:scripted', '--base-url', server.openaiBaseUrl, '--task', 'Make the greeting say Hi.', '--root', root, '--json']);
      expect(r.stderr).not.toContain('E_INTERNAL');
      expect(r.code).toBe(0);
      const out = JSON.parse(r.stdout) as { status: string; green_run_id: string };
      expect(out.status).toBe('success');
      expect(read(root, GREETING_FILE)).toContain("'Hi, '");
      expect(read(root, 'agent/summary.md')).toContain(out.green_run_id);
    } finally {
      await server.close();
    }
  });

  it('--retry and --dry-run belong to the editor mode (usage error otherwise)', async () => {
    const root = makeProject(GREETING_PROJECT);
    const r = await runBin(['run', '--mode', 'headless', '--retry', '--model', 'replay:none.json', '--task', 'x', '--root', root]);
    expect(r.code).toBe(64);
  });
});
