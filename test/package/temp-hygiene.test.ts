/**
 * The run's temp folder is private and must be empty at the end
 * (test/global-temp.ts): what a test, its workers and its child processes
 * see as the temp folder, and a nested vitest run that leaks a folder
 * failing with the leftovers named, while a clean one passes.
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { describeLeftovers, leftovers, RUN_PREFIX } from '../global-temp.js';
import { tempDir } from '../temp-dirs.js';

const REPO = path.resolve(__dirname, '../..');

describe('the run has a private temp folder', () => {
  it('os.tmpdir() in a test is the run folder, and a child process inherits it', () => {
    expect(path.basename(os.tmpdir())).toMatch(new RegExp(`^${RUN_PREFIX}`));
    const child = spawnSync('sh', ['-c', 'printf %s "$TMPDIR"'], { encoding: 'utf8' });
    expect(child.stdout).toBe(os.tmpdir());
  });

  it('vitest.config.ts names the temp check as a global setup', () => {
    expect(fs.readFileSync(path.join(REPO, 'vitest.config.ts'), 'utf8')).toMatch(/globalSetup: \[[^\]]*'test\/global-temp\.ts'/);
  });
});

describe('leftovers are listed by the prefix that made them', () => {
  it('lists files and folders, sorted, and groups mkdtemp names by prefix', () => {
    const dir = tempDir('ew-hygiene-');
    fs.mkdirSync(path.join(dir, 'ew-cp-Ab12Cd'));
    fs.mkdirSync(path.join(dir, 'ew-cp-Zz98Yy'));
    fs.writeFileSync(path.join(dir, 'stray.txt'), 'x');
    expect(leftovers(dir)).toEqual(['ew-cp-Ab12Cd/', 'ew-cp-Zz98Yy/', 'stray.txt']);
    const report = describeLeftovers(leftovers(dir));
    expect(report).toContain('tests left 3 entries');
    expect(report).toContain('ew-cp-*  ×2');
    expect(report).toContain('stray.txt  ×1');
  });
});

describe('a run that leaves something in the temp folder fails', () => {
  function nestedRun(testBody: string): { status: number | null; output: string; outerLeft: string[] } {
    // The nested run's own TMPDIR is a folder of this test, so what it leaves (nothing) is checked here too.
    const dir = tempDir('ew-hygiene-run-');
    fs.writeFileSync(path.join(dir, 'probe.test.mjs'), `import fs from 'node:fs';\nimport os from 'node:os';\nimport path from 'node:path';\nimport { it } from 'vitest';\nit('probe', () => {\n${testBody}\n});\n`);
    fs.writeFileSync(path.join(dir, 'vitest.config.mjs'), `export default { test: { include: ['probe.test.mjs'], globalSetup: [${JSON.stringify(path.join(REPO, 'test', 'global-temp.ts'))}] } };\n`);
    const run = spawnSync(process.execPath, [path.join(REPO, 'node_modules', 'vitest', 'vitest.mjs'), 'run', '--root', dir, '--config', path.join(dir, 'vitest.config.mjs')], {
      cwd: dir,
      env: { ...process.env, TMPDIR: dir, NO_COLOR: '1' },
      encoding: 'utf8',
      timeout: 60_000,
    });
    // What the nested run leaves besides its own files and vite's cache (node_modules/.vite) would have escaped its check.
    const outerLeft = leftovers(dir).filter((n) => !['probe.test.mjs', 'vitest.config.mjs', 'node_modules/'].includes(n));
    return { status: run.status, output: run.stdout + run.stderr, outerLeft };
  }

  it('exits 1 and names the leftover; the run folder itself is removed', () => {
    const r = nestedRun("  fs.mkdtempSync(path.join(os.tmpdir(), 'ew-leaky-'));");
    expect(r.output).toMatch(/tests left 1 entry in the temp folder/);
    expect(r.output).toMatch(/ew-leaky-\*/);
    expect(r.status).toBe(1);
    expect(r.outerLeft).toEqual([]);
  });

  it('exits 0 when the test removes what it made', () => {
    const r = nestedRun("  const d = fs.mkdtempSync(path.join(os.tmpdir(), 'ew-tidy-'));\n  fs.rmSync(d, { recursive: true });");
    expect(r.output).not.toMatch(/tests left/);
    expect(r.status).toBe(0);
    expect(r.outerLeft).toEqual([]);
  });
});
