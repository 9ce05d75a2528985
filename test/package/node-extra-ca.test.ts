/**
 * The test run drops NODE_EXTRA_CA_CERTS (Node 20 parses the file at every
 * process start) and gives npm the same trust through `cafile`
 * (dropEagerCaBundle in test/global-temp.ts).
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import tls from 'node:tls';
import { describe, expect, it } from 'vitest';
import { dropEagerCaBundle } from '../global-temp.js';
import { tempDir } from '../temp-dirs.js';

/** One certificate, as a bundle file holds it. */
const EXTRA = tls.rootCertificates[0] ?? '';

describe('the run without NODE_EXTRA_CA_CERTS', () => {
  it('a child process of a test has no NODE_EXTRA_CA_CERTS', () => {
    const child = spawnSync('sh', ['-c', 'printf %s "${NODE_EXTRA_CA_CERTS-unset}"'], { encoding: 'utf8' });
    expect(child.stdout).toBe('unset');
  });

  it("npm trusts Node's roots and the extra file's certificates: its cafile holds both", () => {
    const dir = tempDir('ew-ca-');
    const bundle = path.join(dir, 'bundle.crt');
    fs.writeFileSync(bundle, `${EXTRA}\n`);
    const env: NodeJS.ProcessEnv = { NODE_EXTRA_CA_CERTS: bundle };
    const file = dropEagerCaBundle(env, dir);
    expect(env).toEqual({ npm_config_cafile: file });
    const pem = fs.readFileSync(file ?? '', 'utf8');
    for (const root of tls.rootCertificates) expect(pem).toContain(root);
    expect(pem.endsWith(`${EXTRA}\n`)).toBe(true);
    // npm reads it as its own setting.
    const npm = spawnSync('npm', ['config', 'get', 'cafile'], { cwd: dir, env: { ...process.env, ...env }, encoding: 'utf8' });
    expect(npm.stdout.trim()).toBe(file);
  });

  it('a cafile or ca the person set for npm is left alone, and an unreadable file only drops the variable', () => {
    const dir = tempDir('ew-ca-');
    const bundle = path.join(dir, 'bundle.crt');
    fs.writeFileSync(bundle, `${EXTRA}\n`);
    for (const own of [{ npm_config_cafile: '/theirs.pem' }, { npm_config_ca: 'theirs' }]) {
      const env: NodeJS.ProcessEnv = { NODE_EXTRA_CA_CERTS: bundle, ...own };
      expect(dropEagerCaBundle(env, dir)).toBeNull();
      expect(env).toEqual(own);
    }
    const env: NodeJS.ProcessEnv = { NODE_EXTRA_CA_CERTS: path.join(dir, 'missing.crt') };
    expect(dropEagerCaBundle(env, dir)).toBeNull();
    expect(env).toEqual({});
    expect(fs.readdirSync(dir)).toEqual(['bundle.crt']);
  });
});
