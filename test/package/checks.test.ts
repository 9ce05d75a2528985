/**
 * scripts/checks.mjs, the first half of `npm test`: the lint and the one
 * compile at the same time. Run on made-up repositories with the real
 * TypeScript compiler and a lint script of their own, so each outcome is
 * forced: a failure of either fails the whole, names the failing step and
 * keeps its output; both passing passes.
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { tempDir } from '../temp-dirs.js';

const REPO = path.resolve(import.meta.dirname, '../..');

/** A repository with the real checks script and compiler; `lintExit` is what its lint script exits with, `source` its one TypeScript file. */
function madeUpRepo(lintExit: number, source: string): string {
  const root = tempDir('ew-checks-');
  fs.mkdirSync(path.join(root, 'scripts'));
  fs.copyFileSync(path.join(REPO, 'scripts', 'checks.mjs'), path.join(root, 'scripts', 'checks.mjs'));
  fs.mkdirSync(path.join(root, 'node_modules'));
  // The compiler the script runs: TypeScript 7's native one, as in this repository.
  fs.symlinkSync(path.join(REPO, 'node_modules', 'typescript-native'), path.join(root, 'node_modules', 'typescript-native'));
  const lint = `node -e "console.log('lint ran'); process.exit(${lintExit})"`;
  fs.writeFileSync(path.join(root, 'package.json'), JSON.stringify({ name: 'made-up', private: true, type: 'module', scripts: { lint } }));
  // The smallest library TypeScript knows: the compile is real, and cheap (the default one adds the DOM's declarations).
  fs.writeFileSync(path.join(root, 'tsconfig.test.json'), JSON.stringify({ compilerOptions: { strict: true, noEmit: true, types: [], lib: ['es5'] }, files: ['a.ts'] }));
  fs.writeFileSync(path.join(root, 'a.ts'), source);
  return root;
}

function checks(root: string) {
  const r = spawnSync(process.execPath, ['scripts/checks.mjs'], { cwd: root, encoding: 'utf8', timeout: 120_000 });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

describe('npm test runs the lint and the compile together (scripts/checks.mjs)', () => {
  it('both pass: exit 0, both outputs shown', () => {
    const r = checks(madeUpRepo(0, 'export const a: number = 1;\n'));
    expect(r.stdout).toContain('lint ran');
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
  }, 120_000);

  it('a failing lint fails the checks and is named, although the compile passed', () => {
    const r = checks(madeUpRepo(3, 'export const a: number = 1;\n'));
    expect(r.stdout).toContain('lint ran');
    expect(r.stderr).toContain('npm test: lint (npm run lint) failed');
    expect(r.stderr).not.toContain('compile');
    expect(r.status).toBe(1);
  }, 120_000);

  it('a failing compile fails the checks, is named and keeps its error, although the lint passed', () => {
    const r = checks(madeUpRepo(0, "export const a: number = 'one';\n"));
    expect(r.stdout).toContain('TS2322');
    expect(r.stderr).toContain('npm test: compile (tsc -b tsconfig.test.json) failed (exit 1)');
    expect(r.stderr).not.toContain('lint (npm run lint) failed');
    expect(r.status).toBe(1);
  }, 120_000);
});
