import path from 'node:path';
import fs from 'node:fs';
import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';

const BIN = path.resolve(__dirname, '../../bin/editwarden');

/** The ts run goes without a sandbox (EDITWARDEN_BWRAP names a missing program): the demo must say so. */
function demo(sample: 'cmake' | 'ts') {
  const env = { ...process.env, NO_COLOR: '1', ...(sample === 'ts' ? { EDITWARDEN_BWRAP: '/nonexistent/bwrap' } : {}) };
  const r = spawnSync(process.execPath, [BIN, 'demo', '--sample', sample, '--json'], { encoding: 'utf8', env });
  const jsonStart = r.stdout.lastIndexOf('\n{\n');
  const summary = JSON.parse(r.stdout.slice(jsonStart + 1));
  return { code: r.status, stdout: r.stdout, summary };
}

describe('editwarden demo (non-interactive, real toolchains)', () => {
  for (const sample of ['cmake', 'ts'] as const) {
    it(`tells the whole story on the ${sample} sample and every step behaves`, () => {
      const { code, stdout, summary } = demo(sample);
      expect(code).toBe(0);
      expect(summary.ok).toBe(true);
      expect(summary.steps.map((s: { title: string }) => s.title)).toEqual(['good edit', 'second edit refused', 'broken edit rolled back', 'active edit', 'dry run', 'agent run', 'editor run']);
      expect(stdout).toContain('SUCCESS: Code modified and build passed.');
      expect(stdout).toContain('FAILURE: Compile failed. Workspace rolled back.');
      expect(stdout).toContain('byte-identical');
      expect(stdout).toContain('E_SECOND_EDIT');
      expect(stdout).toMatch(/directive #2: rejected .*E_PARSE/);
      expect(stdout).toContain('Reports written:');
      if (sample === 'cmake') expect(stdout).toMatch(/Commands \(builds, tests\) run sandboxed: bubblewrap/);
      else expect(stdout).toContain('Commands run unsandboxed here');
      for (const report of summary.reports) expect(fs.existsSync(path.join(summary.dir, report))).toBe(true);
      fs.rmSync(summary.dir, { recursive: true, force: true });
    });
  }
});
