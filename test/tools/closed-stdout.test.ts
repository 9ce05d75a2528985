import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { spawn } from 'node:child_process';
import { afterEach, describe, expect, it } from 'vitest';

const REPO = path.resolve(__dirname, '../..');
const BIN = path.join(REPO, 'bin/editwarden');
const roots: string[] = [];
afterEach(() => {
  for (const r of roots.splice(0)) fs.rmSync(r, { recursive: true, force: true });
});

/** Runs the CLI with its stdout pipe closed by the reader before the first byte (what `| head -c0` does). */
function withClosedStdout(args: string[], cwd: string): Promise<{ code: number | null; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [BIN, ...args], { cwd, stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, NO_COLOR: '1' } });
    child.stdout.destroy();
    let stderr = '';
    child.stderr.on('data', (c: Buffer) => {
      stderr += c.toString('utf8');
    });
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error('the CLI did not end'));
    }, 20_000);
    child.once('exit', (code) => {
      clearTimeout(timer);
      resolve({ code, stderr });
    });
  });
}

describe('a reader that closes stdout', () => {
  it('ends `editwarden edit` quietly: the edit is applied, exit code 0, no stack trace', async () => {
    const root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'ew-epipe-')));
    roots.push(root);
    fs.writeFileSync(path.join(root, 'a.txt'), `${Array.from({ length: 2000 }, (_, i) => `line ${i}`).join('\n')}\n`);
    const r = await withClosedStdout(['edit', 'a.txt', '--old', 'line 7\n', '--new', 'seven\n', '--root', root], root);
    expect(r.stderr).not.toMatch(/EPIPE|Unhandled|\n\s+at /);
    expect(r.code).toBe(0);
    expect(fs.readFileSync(path.join(root, 'a.txt'), 'utf8')).toContain('seven\n');
  }, 30_000);

  it('ends `editwarden --help` and `checkpoint list` quietly', async () => {
    const root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'ew-epipe-')));
    roots.push(root);
    for (const args of [['--help'], ['checkpoint', 'list', '--root', root]]) {
      const r = await withClosedStdout(args, root);
      expect(r.stderr, args.join(' ')).not.toMatch(/EPIPE|Unhandled|\n\s+at /);
      expect(r.code, args.join(' ')).toBe(0);
    }
  }, 30_000);
});
