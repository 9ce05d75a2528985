import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { runAgentDemo } from '../../../src/cli/demo/agent-demo.js';

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
      expect(fs.readFileSync(path.resolve(__dirname, '../../../samples/ts-hello/src/greeting.ts'), 'utf8')).toContain('  return 1;');
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('the demo never reports success after a failed step', () => {
  it('without a TypeScript compiler (editwarden installed as a package) the compile step is skipped and said so — no exit 127, no "completed" claim', async () => {
    const dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'ew-agent-demo-')));
    const stdout = new PassThrough();
    let text = '';
    stdout.on('data', (c: Buffer) => (text += c.toString('utf8')));
    try {
      const result = await runAgentDemo({ stdout, stderr: stdout, stdin: new PassThrough(), env: {} }, { dir, color: false, compilerSearch: [dir] });
      expect(result.ok).toBe(false);
      expect(result.skipped).toContain('no TypeScript compiler');
      expect(text).toContain('no TypeScript compiler found');
      expect(text).not.toMatch(/exit 127|not found: tsc|tsc: not found/);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it('the compile command is found the way detection finds tsc (the project, then editwarden beside it), or not at all', async () => {
    const { findCompileCommand } = await import('../../../src/cli/demo/agent-demo.js');
    const empty = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'ew-no-tsc-')));
    try {
      expect(findCompileCommand(empty, [empty])).toBeNull();
      expect(findCompileCommand(empty)).toMatch(/typescript\/bin\/tsc" -p tsconfig\.json --noEmit$/);
    } finally {
      fs.rmSync(empty, { recursive: true, force: true });
    }
  });
});
