import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { spawnSync } from 'node:child_process';
import { afterEach, describe, expect, it } from 'vitest';

const REPO = path.resolve(__dirname, '../..');
const BIN = path.join(REPO, 'bin/editwarden');
const roots: string[] = [];
afterEach(() => {
  for (const r of roots.splice(0)) fs.rmSync(r, { recursive: true, force: true });
});

function project(config: string): string {
  const root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'ew-redos-')));
  roots.push(root);
  // (a+)+$ against 40 a's and a "!" backtracks about 2^40 times.
  fs.writeFileSync(path.join(root, 'evil.txt'), `${'a'.repeat(40)}!\n`);
  fs.writeFileSync(path.join(root, '.editwarden.yml'), config);
  return root;
}

function exec(root: string, flags: string[] = []): { code: number | null; out: string; ms: number } {
  const calls = `${JSON.stringify({ tool: 'search_files', args: { pattern: '(a+)+$', regex: true } })}\n`;
  const t0 = Date.now();
  // Killed at 30 s: the old code never returns.
  const r = spawnSync(process.execPath, [BIN, 'exec', '-', '--root', root, '--show-output', ...flags], { cwd: root, input: calls, encoding: 'utf8', timeout: 30_000, env: { ...process.env, NO_COLOR: '1' } });
  return { code: r.status, out: `${r.stdout}${r.stderr}`, ms: Date.now() - t0 };
}

describe('a regular expression search never outlives its budget', () => {
  it('stops at search.timeout with E_SEARCH_TIMEOUT; the run goes on', () => {
    const r = exec(project('search:\n  timeout: 0.5\n'));
    expect(r.out).toContain('E_SEARCH_TIMEOUT');
    expect(r.out).toMatch(/nested repetition/i);
    expect(r.code).toBe(1);
    expect(r.ms).toBeLessThan(15_000);
  }, 40_000);

  it('stops at the run deadline (constraints.timeout) when that comes first: a timeout violation, exit 2', () => {
    const r = exec(project(''), ['--timeout', '1']);
    expect(r.code, r.out).toBe(2);
    expect(r.out).toMatch(/timeout/i);
    expect(r.ms).toBeLessThan(15_000);
  }, 40_000);
});
