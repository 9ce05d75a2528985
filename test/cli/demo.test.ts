import path from 'node:path';
import fs from 'node:fs';
import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';

const BIN = path.resolve(__dirname, '../../bin/editwarden');

const EDIT_STEPS = ['good edit', 'second edit refused', 'broken edit rolled back', 'active edit', 'dry run'];

/**
 * The ts run goes without a sandbox (EDITWARDEN_BWRAP names a missing program): the demo must say so, and its agent
 * run and Editor session must still complete there. Those two steps are the same whatever the sample (each works on
 * a project of its own), so the cmake run tells only the edit story (`--edits-only`); with a sandbox they are also
 * run by test/cli/demo/agent-demo.test.ts and editor-demo.test.ts.
 */
function demo(sample: 'cmake' | 'ts') {
  const env = { ...process.env, NO_COLOR: '1', ...(sample === 'ts' ? { EDITWARDEN_BWRAP: '/nonexistent/bwrap' } : {}) };
  const r = spawnSync(process.execPath, [BIN, 'demo', '--sample', sample, '--json', ...(sample === 'cmake' ? ['--edits-only'] : [])], { encoding: 'utf8', env });
  const jsonStart = r.stdout.lastIndexOf('\n{\n');
  const summary = JSON.parse(r.stdout.slice(jsonStart + 1));
  return { code: r.status, stdout: r.stdout, summary };
}

describe('editwarden demo (non-interactive, real toolchains)', () => {
  for (const sample of ['cmake', 'ts'] as const) {
    it(`tells the ${sample === 'ts' ? 'whole story' : 'edit story (--edits-only)'} on the ${sample} sample and every step behaves`, () => {
      const { code, stdout, summary } = demo(sample);
      expect(code).toBe(0);
      expect(summary.ok).toBe(true);
      expect(summary.steps.map((s: { title: string }) => s.title)).toEqual(sample === 'ts' ? [...EDIT_STEPS, 'agent run', 'editor run'] : EDIT_STEPS);
      expect(stdout).toContain('SUCCESS: Code modified and build passed.');
      expect(stdout).toContain('FAILURE: Compile failed. Workspace rolled back.');
      expect(stdout).toContain('byte-identical');
      expect(stdout).toContain('E_SECOND_EDIT');
      expect(stdout).toMatch(/directive #2: rejected .*E_PARSE/);
      expect(stdout).toContain('Reports written:');
      if (sample === 'cmake') {
        expect(stdout).toMatch(/Commands \(builds, tests\) run sandboxed: bubblewrap/);
        expect(stdout).not.toContain('Agent run');
        expect(stdout).toContain('All 5 steps behaved as they should.');
      } else {
        expect(stdout).toContain('Commands run unsandboxed here');
        expect(stdout).toContain('All 7 steps behaved as they should.');
      }
      for (const report of summary.reports) expect(fs.existsSync(path.join(summary.dir, report))).toBe(true);
      fs.rmSync(summary.dir, { recursive: true, force: true });
    });
  }
});
