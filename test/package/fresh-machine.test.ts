/**
 * The README's test command on a fresh machine that lacks a system tool: a
 * clean copy of the tree (what git tracks or would track), with the
 * checkout's node_modules standing in for `npm ci`, runs `npm test` with
 * bubblewrap made unavailable (EDITWARDEN_BWRAP names a missing program) and
 * installing switched off. It must stop at once with the one line that names
 * what is missing and how to install it — not run the suite into a wall of
 * sandbox failures.
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const REPO = path.resolve(__dirname, '../..');
let base: string;
let clone: string;

beforeAll(() => {
  base = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'ew-fresh-')));
  clone = path.join(base, 'editwarden');
  const files = spawnSync('git', ['ls-files', '-z', '--cached', '--others', '--exclude-standard'], { cwd: REPO, encoding: 'utf8' })
    .stdout.split('\0')
    .filter((f) => f !== '' && fs.existsSync(path.join(REPO, f)));
  for (const file of files) {
    fs.mkdirSync(path.dirname(path.join(clone, file)), { recursive: true });
    fs.cpSync(path.join(REPO, file), path.join(clone, file));
  }
  fs.symlinkSync(path.join(REPO, 'node_modules'), path.join(clone, 'node_modules'));
});

afterAll(() => {
  if (base) fs.rmSync(base, { recursive: true, force: true });
});

function npm(script: string, env: NodeJS.ProcessEnv) {
  return spawnSync('npm', script === 'test' ? ['test'] : ['run', script], {
    cwd: clone,
    encoding: 'utf8',
    timeout: 120_000,
    env: { ...process.env, NO_COLOR: '1', npm_config_update_notifier: 'false', ...env },
  });
}

describe('npm test on a fresh clone without bubblewrap', () => {
  it('stops before any test with one line naming bubblewrap and the command that installs it', () => {
    const r = npm('test', { EDITWARDEN_BWRAP: path.join(base, 'no-bwrap'), EDITWARDEN_PREFLIGHT_INSTALL: '0' });
    expect(r.status).not.toBe(0);
    const ours = r.stderr.split('\n').filter((line) => line.startsWith('editwarden test:'));
    expect(ours).toEqual([expect.stringMatching(/^editwarden test: missing bubblewrap — install with: (sudo )?apt-get install -y bubblewrap$/)]);
    // Nothing of the suite ran: no lint, no compile, no vitest.
    expect(r.stdout).not.toMatch(/Test Files|Checked \d+ files|vitest/);
    expect(fs.existsSync(path.join(clone, 'dist'))).toBe(false);
  });

  it('npm run demo goes on without a sandbox and says so in one line', () => {
    // Only the preflight of the demo: `npm run predemo` is exactly what `npm run demo` runs first.
    const r = npm('predemo', { EDITWARDEN_BWRAP: path.join(base, 'no-bwrap'), EDITWARDEN_PREFLIGHT_INSTALL: '0' });
    expect(r.status).toBe(0);
    const ours = r.stderr.split('\n').filter((line) => line.startsWith('editwarden demo:'));
    expect(ours).toEqual([expect.stringMatching(/^editwarden demo: runs without bubblewrap .* apt-get install -y bubblewrap$/)]);
  });

  it('with every tool present the preflight is silent and passes', () => {
    const r = npm('pretest', {});
    expect(r.status).toBe(0);
    expect(r.stderr.split('\n').filter((line) => line.startsWith('editwarden'))).toEqual([]);
  });
});
