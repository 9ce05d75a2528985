import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { runAgentDemo } from '../../src/demo/agent-demo.js';

describe('the demo agent run', () => {
  it('runs the scripted task on a copy of ts-hello: malformed call recovered, active edit applied, tsc passes, task completed', async () => {
    const dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'ew-agent-demo-')));
    const stdout = new PassThrough();
    let text = '';
    stdout.on('data', (c: Buffer) => (text += c.toString('utf8')));
    try {
      const result = await runAgentDemo({ stdout, stderr: stdout, stdin: new PassThrough(), env: {} }, { dir, color: false });
      expect(result.ok).toBe(true);
      expect(result.status).toBe('completed');
      const greeting = fs.readFileSync(path.join(result.dir, 'src/greeting.ts'), 'utf8');
      expect(greeting).toContain('  return 3;');
      expect(greeting).toContain('export function farewell(name: string): string {');
      expect(text).toContain('E_MALFORMED_CALL');
      expect(text).toContain('◆ directive #1 src/greeting.ts (append)');
      expect(text).toContain('+  return 3;');
      expect(text).toContain('completed');
      expect(fs.existsSync(result.transcript as string)).toBe(true);
      // The original sample is untouched.
      expect(fs.readFileSync(path.resolve(__dirname, '../../samples/ts-hello/src/greeting.ts'), 'utf8')).toContain('  return 1;');
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
