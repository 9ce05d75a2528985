/**
 * The kept config (host/config-cache.ts): a command whose inputs are the ones
 * a value was loaded from takes it, and it equals what the loader returns;
 * any change of an input (the repository's file, the person's file, a trust
 * record, the root) makes the loader run again; a cache planted in the
 * project or copied from another project is never believed.
 */
import crypto from 'node:crypto';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { CONFIG_CACHE_FILE, loadProjectConfigCached } from '../../src/host/config-cache.js';
import { loadProjectConfig } from '../../src/config/load.js';
import { trustFile } from '../../src/config/trust-store.js';
import { tempDir } from '../temp-dirs.js';

function setup(): { root: string; env: Record<string, string> } {
  const home = tempDir('ew-cfgcache-home-');
  const root = tempDir('ew-cfgcache-root-');
  return { root, env: { HOME: home, XDG_DATA_HOME: path.join(home, 'data'), XDG_CONFIG_HOME: path.join(home, 'config') } };
}

const cacheFile = (root: string) => path.join(root, '.editwarden', CONFIG_CACHE_FILE);

/** Loads twice through the cache (the second call reads the kept value) and checks both against the loader. */
async function loadKept(root: string, env: Record<string, string>) {
  const expected = loadProjectConfig(root, undefined, env);
  const first = await loadProjectConfigCached(root, undefined, env);
  const kept = await loadProjectConfigCached(root, undefined, env);
  expect(first).toStrictEqual(expected);
  expect(kept).toStrictEqual(expected);
  return kept;
}

describe('a kept value is the loader’s value, and only for the inputs it was loaded from', () => {
  it('keeps the value under the state folder and returns exactly what the loader returns', async () => {
    const { root, env } = setup();
    fs.writeFileSync(path.join(root, '.editwarden.yml'), 'constraints:\n  max_files: 3\nedit:\n  max_file_bytes: 4096\n');
    const kept = await loadKept(root, env);
    expect(kept.config.constraints.max_files).toBe(3);
    expect(fs.existsSync(cacheFile(root))).toBe(true);
  });

  it('a changed repository file, person’s file or trust record is loaded anew (fast-check: random sequences of changes)', async () => {
    const change = fc.oneof(
      fc.record({ kind: fc.constant('repo' as const), max: fc.integer({ min: 1, max: 40 }), sandbox: fc.boolean() }),
      fc.record({ kind: fc.constant('user' as const), max: fc.integer({ min: 1, max: 40 }) }),
      fc.record({ kind: fc.constant('trust' as const) }),
      fc.record({ kind: fc.constant('no-user' as const) }),
    );
    await fc.assert(
      fc.asyncProperty(fc.array(change, { minLength: 1, maxLength: 6 }), async (changes) => {
        const { root, env } = setup();
        const repoFile = path.join(root, '.editwarden.yml');
        const userFile = path.join(env.XDG_CONFIG_HOME as string, 'editwarden', 'config.yml');
        fs.mkdirSync(path.dirname(userFile), { recursive: true });
        fs.writeFileSync(repoFile, 'constraints:\n  max_files: 5\n');
        for (const c of changes) {
          if (c.kind === 'repo') fs.writeFileSync(repoFile, `constraints:\n  max_files: ${c.max}\nsandbox:\n  enabled: ${c.sandbox}\n`);
          else if (c.kind === 'user') fs.writeFileSync(userFile, `constraints:\n  max_files: ${c.max}\n`);
          else if (c.kind === 'no-user') fs.rmSync(userFile, { force: true });
          else trustFile(repoFile, env);
          let expected: unknown;
          try {
            expected = loadProjectConfig(root, undefined, env);
          } catch (error) {
            // A refusal (an untrusted loosening) is the loader's every time: never kept, never skipped.
            await expect(loadProjectConfigCached(root, undefined, env)).rejects.toThrow((error as Error).message);
            await expect(loadProjectConfigCached(root, undefined, env)).rejects.toThrow((error as Error).message);
            continue;
          }
          expect(await loadProjectConfigCached(root, undefined, env)).toStrictEqual(expected);
          expect(await loadProjectConfigCached(root, undefined, env)).toStrictEqual(expected);
        }
      }),
      { numRuns: 25 },
    );
  });
});

describe('a cache nobody with the person’s secret wrote is not believed', () => {
  it('a planted cache (a clone that ships .editwarden/) with a valid key but no MAC by the person’s secret is ignored', async () => {
    const { root, env } = setup();
    fs.writeFileSync(path.join(root, '.editwarden.yml'), 'edit:\n  max_file_bytes: 64\n');
    await loadKept(root, env);
    const kept = JSON.parse(fs.readFileSync(cacheFile(root), 'utf8')) as { v: number; key: string; value: string; mac: string };
    // The attacker knows every public input (so the key), and writes the value they want with a MAC of their own secret.
    const value = JSON.parse(kept.value) as { config: { edit: { max_file_bytes: number } } };
    value.config.edit.max_file_bytes = 1024 * 1024 * 1024;
    const forged = JSON.stringify(value);
    const mac = crypto.createHmac('sha256', crypto.randomBytes(32)).update(`${kept.v}\n${kept.key}\n${forged}`).digest('hex');
    fs.writeFileSync(cacheFile(root), JSON.stringify({ ...kept, value: forged, mac }));
    expect((await loadProjectConfigCached(root, undefined, env)).config.edit.max_file_bytes).toBe(64);
    // The control: the same value with the MAC of the person's own secret is taken as it stands (the loader does not
    // run on a hit), so only the secret stood between the planted value and the guard.
    const secret = fs.readFileSync(path.join(env.XDG_DATA_HOME as string, 'editwarden', 'state-cache.key'));
    const real = crypto.createHmac('sha256', secret).update(`${kept.v}\n${kept.key}\n${forged}`).digest('hex');
    fs.writeFileSync(cacheFile(root), JSON.stringify({ ...kept, value: forged, mac: real }));
    expect((await loadProjectConfigCached(root, undefined, env)).config.edit.max_file_bytes).toBe(1024 * 1024 * 1024);
  });

  it('a cache copied from another project with the same config is not this project’s', async () => {
    const { root, env } = setup();
    const other = tempDir('ew-cfgcache-other-');
    const text = 'constraints:\n  max_files: 7\n';
    fs.writeFileSync(path.join(root, '.editwarden.yml'), text);
    fs.writeFileSync(path.join(other, '.editwarden.yml'), text);
    await loadKept(other, env);
    const theirs = fs.readFileSync(cacheFile(other), 'utf8');
    await loadKept(root, env);
    const ours = JSON.parse(fs.readFileSync(cacheFile(root), 'utf8')) as { key: string };
    expect(ours.key).not.toBe((JSON.parse(theirs) as { key: string }).key);
    fs.writeFileSync(cacheFile(root), theirs);
    const loaded = await loadProjectConfigCached(root, undefined, env);
    expect(loaded).toStrictEqual(loadProjectConfig(root, undefined, env));
    expect(loaded.trust).toMatchObject({ file: path.join(root, '.editwarden.yml') });
  });

  it('a cache file that is a link, not JSON, or of another format is a miss, not an error', async () => {
    const { root, env } = setup();
    fs.writeFileSync(path.join(root, '.editwarden.yml'), 'constraints:\n  max_files: 2\n');
    await loadKept(root, env);
    const expected = loadProjectConfig(root, undefined, env);
    const decoy = path.join(root, 'decoy.json');
    fs.writeFileSync(decoy, fs.readFileSync(cacheFile(root)));
    for (const plant of [() => fs.writeFileSync(cacheFile(root), 'not json'), () => fs.writeFileSync(cacheFile(root), '{"v":2}'), () => fs.symlinkSync(decoy, cacheFile(root))]) {
      fs.rmSync(cacheFile(root), { force: true });
      plant();
      expect(await loadProjectConfigCached(root, undefined, env)).toStrictEqual(expected);
    }
  });

  it('keeps nothing where the person’s data folder is not theirs alone (others may write it)', async () => {
    const { root, env } = setup();
    fs.writeFileSync(path.join(root, '.editwarden.yml'), 'constraints:\n  max_files: 2\n');
    fs.mkdirSync(path.join(env.XDG_DATA_HOME as string, 'editwarden'), { recursive: true, mode: 0o700 });
    fs.chmodSync(path.join(env.XDG_DATA_HOME as string, 'editwarden'), 0o777);
    expect(await loadProjectConfigCached(root, undefined, env)).toStrictEqual(loadProjectConfig(root, undefined, env));
    expect(fs.existsSync(cacheFile(root))).toBe(false);
  });
});

describe('through the real CLI: the kept value changes no output or exit code', () => {
  const BIN = path.resolve(__dirname, '../../bin/editwarden');
  const cli = (root: string, env: Record<string, string>, args: string[]) => {
    const r = spawnSync(process.execPath, [BIN, ...args, '--root', root, '--json'], { cwd: root, encoding: 'utf8', env: { ...process.env, ...env }, timeout: 60_000 });
    return { status: r.status, stdout: r.stdout.replaceAll(root, '<root>'), stderr: r.stderr };
  };

  it('an edit, a dry run and a refusal give the same answers whether the loader ran or the kept value was taken', async () => {
    const { root, env } = setup();
    fs.writeFileSync(path.join(root, 'a.txt'), 'hello\nworld\n');
    fs.writeFileSync(path.join(root, 'big.txt'), `${'x'.repeat(100)}\n`);
    fs.writeFileSync(path.join(root, '.editwarden.yml'), 'edit:\n  max_file_bytes: 64\n');
    const runs = ['first (loader)', 'second (loader, kept)', 'third (kept value)'].map(() => ({
      dry: cli(root, env, ['edit', 'a.txt', '--old', 'hello', '--new', 'howdy', '--dry-run']),
      refused: cli(root, env, ['edit', 'big.txt', '--old', 'x', '--new', 'y', '--replace-all']),
    }));
    expect(fs.existsSync(cacheFile(root))).toBe(true);
    expect(runs[0]?.refused.status).not.toBe(0);
    expect(runs[0]?.refused.stdout).toContain('max_file_bytes');
    for (const r of runs) expect(r).toEqual(runs[0]);
    // And the config still governs once changed: the kept value is not the answer any more.
    fs.writeFileSync(path.join(root, '.editwarden.yml'), 'edit:\n  max_file_bytes: 4096\n');
    expect(cli(root, env, ['edit', 'big.txt', '--old', 'x', '--new', 'y', '--replace-all', '--dry-run']).status).toBe(0);
  });
});
