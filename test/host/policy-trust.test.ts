/**
 * The trust state of the repository's config is a field of the project's
 * Policy: judged once by the loader when the project is opened (no repository
 * config / untrusted with the loosening keys named / changed / trusted / the
 * person's own file outside the root), carried by `project.policy.trust`,
 * printed by `doctor` from the Policy it builds, and the refusal
 * E_UNTRUSTED_CONFIG is the one that value holds — a project never opens
 * under it. Real files, a real trust store in a private XDG folder.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { inspectConfig, loadProjectConfig } from '../../src/config/load.js';
import { trustRefusal } from '../../src/config/trust-state.js';
import { trustFile } from '../../src/config/trust-store.js';
import { judgeProject, trustCheck } from '../../src/cli/commands/doctor.js';
import { openProject } from '../../src/host/project.js';
import { codeOf } from '../error-code.js';
import { tempDir } from '../temp-dirs.js';

function world(): { env: NodeJS.ProcessEnv; root: string; config: string } {
  const home = tempDir('ew-policy-trust-');
  const env = { ...process.env, HOME: home, XDG_CONFIG_HOME: path.join(home, 'config'), XDG_DATA_HOME: path.join(home, 'data') };
  const root = path.join(home, 'repo');
  fs.mkdirSync(root);
  return { env, root, config: path.join(root, '.editwarden.yml') };
}

function opened(root: string, env: NodeJS.ProcessEnv, file?: string) {
  const { config, trust } = loadProjectConfig(root, file, env);
  return openProject(root, config, { trust, ...(file ? { configFiles: [file] } : {}) });
}

describe('Policy.trust: the state judged when the project was opened', () => {
  it('no repository config; an untrusted file that only tightens; a trusted one with its loosening keys; the person’s own file', () => {
    const { env, root, config } = world();
    expect(opened(root, env).policy.trust).toEqual({ state: 'none' });

    fs.writeFileSync(config, 'constraints:\n  max_files: 2\n');
    expect(opened(root, env).policy.trust).toMatchObject({ state: 'untrusted', file: config, loosenings: [], refusal: null });

    fs.writeFileSync(config, 'sandbox:\n  network: true\n');
    trustFile(config, env);
    const trusted = opened(root, env).policy.trust;
    expect(trusted).toMatchObject({ state: 'trusted', file: config });
    expect(trusted.state === 'trusted' && trusted.loosenings.map((l) => l.key)).toEqual(['sandbox.network']);

    const own = path.join(path.dirname(root), 'mine.yml');
    fs.writeFileSync(own, 'sandbox:\n  network: true\n');
    expect(opened(root, env, own).policy.trust).toMatchObject({ state: 'own', file: own });
  });

  it('an untrusted (or changed) loosening: the refusal is the one the trust value holds, naming each key; openProject refuses it before anything is made', () => {
    const { env, root, config } = world();
    fs.writeFileSync(config, 'sandbox:\n  network: true\n  git_writable: true\n');
    const { trust } = inspectConfig(root, undefined, env);
    expect(trust).toMatchObject({ state: 'untrusted' });
    expect(trust.state === 'untrusted' && trust.loosenings.map((l) => l.key).sort()).toEqual(['sandbox.git_writable', 'sandbox.network']);
    const refusal = trustRefusal(trust);
    expect(refusal?.code).toBe('E_UNTRUSTED_CONFIG');
    expect(refusal?.message).toContain('sandbox.network');
    expect(refusal?.message).toContain('sandbox.git_writable');
    expect(codeOf(() => loadProjectConfig(root, undefined, env))).toBe('E_UNTRUSTED_CONFIG');
    // A caller that forgot to refuse: the project still does not open, and nothing was written.
    expect(codeOf(() => openProject(root, inspectConfig(root, undefined, env).config, { trust }))).toBe('E_UNTRUSTED_CONFIG');
    expect(fs.existsSync(path.join(root, '.editwarden'))).toBe(false);

    trustFile(config, env);
    fs.appendFileSync(config, '# changed\n');
    expect(inspectConfig(root, undefined, env).trust).toMatchObject({ state: 'changed', refusal: expect.objectContaining({ code: 'E_UNTRUSTED_CONFIG' }) });
  });
});

describe('doctor reads the trust state from the Policy it builds', () => {
  it('the Policy carries the loader’s value itself (judged once, not again), and the check names the refusal code', () => {
    const { env, root, config } = world();
    fs.writeFileSync(config, 'sandbox:\n  network: true\n');
    const saved = { ...process.env };
    Object.assign(process.env, { HOME: env.HOME, XDG_CONFIG_HOME: env.XDG_CONFIG_HOME, XDG_DATA_HOME: env.XDG_DATA_HOME });
    try {
      const judged = judgeProject({ root });
      if ('error' in judged) throw new Error(judged.error.message);
      expect(judged.policy.trust).toBe(judged.inspection.trust);
      const check = trustCheck(judged);
      expect(check).toMatchObject({ ok: false, detail: expect.stringContaining('(E_UNTRUSTED_CONFIG)') });
      expect(check.fix).toContain('editwarden trust');
      expect(fs.existsSync(path.join(root, '.editwarden'))).toBe(false);
    } finally {
      for (const key of ['HOME', 'XDG_CONFIG_HOME', 'XDG_DATA_HOME']) {
        if (saved[key] === undefined) delete process.env[key];
        else process.env[key] = saved[key];
      }
    }
  });
});
