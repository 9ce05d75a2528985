/**
 * `editwarden doctor` checks Node, git, the grammars, the config and the
 * state folder through the real binary; each failure carries a fix, and the
 * doctor itself writes nothing.
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { nodeCheck } from '../../src/cli/commands/doctor.js';

const BIN = path.resolve(__dirname, '../../bin/editwarden');
let root: string;
beforeEach(() => {
  root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'ew-doctor-')));
});
afterEach(() => fs.rmSync(root, { recursive: true, force: true }));

interface Check {
  name: string;
  ok: boolean;
  detail: string;
  fix?: string;
}

// Loading every grammar takes seconds on a busy machine: only the first test runs all checks.
function doctor(only?: string, env: NodeJS.ProcessEnv = process.env): { code: number | null; ok: boolean; checks: Record<string, Check> } {
  const r = spawnSync(process.execPath, [BIN, 'doctor', '--root', root, '--json', ...(only ? ['--only', only] : [])], { cwd: root, encoding: 'utf8', env });
  const out = JSON.parse(r.stdout) as { ok: boolean; checks: Check[] };
  return { code: r.status, ok: out.ok, checks: Object.fromEntries(out.checks.map((c) => [c.name, c])) };
}

describe('editwarden doctor', () => {
  it('a healthy project passes every check, and the doctor creates nothing', () => {
    const r = doctor();
    expect(Object.keys(r.checks)).toEqual(['node', 'git', 'grammars', 'config', 'trust', 'limits', 'state folder', 'sandbox', 'client hooks', 'copilot folder trust', 'client hook trust', 'guard install']);
    expect(r.checks.sandbox!.detail).toMatch(/^Commands run in bwrap: /);
    expect(r.code).toBe(0);
    expect(r.ok).toBe(true);
    expect(r.checks.grammars!.detail).toMatch(/^\d+ tree-sitter grammars load\.$/);
    expect(r.checks.git!.detail).toMatch(/^git version /);
    expect(fs.readdirSync(root)).toEqual([]);
  });

  it('says which limits apply by mode and where to change them; an untrusted raise is named as not applied, a person’s own value as winning', () => {
    const home = fs.mkdtempSync(path.join(os.tmpdir(), 'ew-doctor-home-'));
    try {
      const env = { ...process.env, HOME: home, XDG_CONFIG_HOME: '', XDG_DATA_HOME: '' };
      const none = doctor('limits', env).checks.limits!.detail;
      expect(none).toContain("client sessions (its edit tools, its shell, editwarden's MCP tools; a person watches and undo covers them): no file, line, token or time caps");
      expect(none).toContain('headless runs (editwarden exec, run, the GitHub Action, mcp --headless): max_files 10, max_lines_changed 500, max_tokens 50000, timeout 300 s');
      expect(none).toContain(`Change them in your own config ${path.join(home, '.config', 'editwarden', 'config.yml')}`);
      fs.writeFileSync(path.join(root, '.editwarden.yml'), 'constraints:\n  max_files: 40\n  max_lines_changed: 100\n');
      const raised = doctor('limits', env).checks.limits!.detail;
      expect(raised).toContain('mcp --headless): max_files 10, max_lines_changed 100,');
      expect(raised).toContain('covers them): max_lines_changed 100');
      expect(raised).toContain('Not applied: ');
      expect(raised).toContain('constraints.max_files: 40 (in force: 10)');
      fs.mkdirSync(path.join(home, '.config', 'editwarden'), { recursive: true });
      fs.writeFileSync(path.join(home, '.config', 'editwarden', 'config.yml'), 'constraints:\n  max_lines_changed: 900\n');
      const yours = doctor('limits', env).checks.limits!.detail;
      expect(yours).toContain('Your own config sets constraints.max_lines_changed: 900; ');
      expect(yours).toContain('covers them): max_lines_changed 900');
    } finally {
      fs.rmSync(home, { recursive: true, force: true });
    }
  });

  it('a mistyped config key fails the config check, naming the key and the nearest one', () => {
    fs.writeFileSync(path.join(root, '.editwarden.yml'), 'constraints:\n  max_file: 3\n');
    const r = doctor('config');
    expect(r.code).toBe(1);
    expect(r.checks.config).toMatchObject({ ok: false });
    expect(r.checks.config!.detail).toContain('"constraints.max_file" (did you mean "constraints.max_files"?)');
    expect(r.checks.config!.fix).toContain('rename "constraints.max_file" to "constraints.max_files"');
  });

  it('a state folder that is a symlink fails, with a fix', () => {
    fs.mkdirSync(path.join(root, 'elsewhere'));
    fs.symlinkSync('elsewhere', path.join(root, '.editwarden'));
    const r = doctor('state folder');
    expect(r.code).toBe(1);
    expect(r.checks['state folder']).toMatchObject({ ok: false, detail: expect.stringContaining('symbolic link') });
    expect(r.checks['state folder']!.fix).toContain('rm .editwarden');
  });

  it('a state folder without its .gitignore, or with an unfinished transaction, fails with a fix', () => {
    fs.mkdirSync(path.join(root, '.editwarden', 'journal'), { recursive: true });
    fs.writeFileSync(path.join(root, '.editwarden', 'journal', 'tx-1.json'), '{}');
    const r = doctor('state folder');
    expect(r.checks['state folder']!.ok).toBe(false);
    expect(r.checks['state folder']!.detail).toContain('.gitignore is missing');
    expect(r.checks['state folder']!.detail).toContain('1 unfinished transaction');
    expect(r.checks['state folder']!.fix).toContain("echo '*' > .editwarden/.gitignore");
    // The doctor only looked: the journal record is still there for recovery.
    expect(fs.existsSync(path.join(root, '.editwarden', 'journal', 'tx-1.json'))).toBe(true);
  });

  it('without git on PATH the git check fails with how to install it', () => {
    const bin = path.join(root, 'nodeonly');
    fs.mkdirSync(bin);
    fs.symlinkSync(process.execPath, path.join(bin, 'node'));
    const r = doctor('git', { PATH: bin, HOME: root });
    expect(r.checks.git).toMatchObject({ ok: false, detail: 'git was not found on PATH.' });
    expect(r.checks.git!.fix).toContain('Install git');
    fs.rmSync(bin, { recursive: true });
  });

  it('prints one line per check, with the fix under a failure', () => {
    fs.writeFileSync(path.join(root, '.editwarden.yml'), 'verfy: {}\n');
    const r = spawnSync(process.execPath, [BIN, 'doctor', '--root', root, '--only', 'config,git'], { encoding: 'utf8', env: { ...process.env, NO_COLOR: '1' } });
    expect(r.status).toBe(1);
    expect(r.stdout).toMatch(/^FAIL config: .*"verfy" \(did you mean "verify"\?\)/m);
    expect(r.stdout).toMatch(/^ {5}fix: In \.editwarden\.yml, rename "verfy" to "verify"/m);
    expect(r.stdout).toMatch(/^ok {3}git: /m);
    expect(r.stdout).toContain('1 problem(s) found.');
  });
});

describe('doctor: the sandbox check', () => {
  it('fails with the fix when no bubblewrap can be had', () => {
    const r = doctor('sandbox', { ...process.env, EDITWARDEN_BWRAP: path.join(root, 'no-such-bwrap') });
    expect(r.code).toBe(1);
    expect(r.checks.sandbox).toMatchObject({ ok: false, detail: expect.stringContaining('No OS sandbox') });
    expect(r.checks.sandbox!.fix).toContain('bubblewrap');
  });
});

describe('the trust check', () => {
  it("shows the person's config path, and whether the repository's config is trusted, untrusted or changed, with its loosening keys", () => {
    const none = doctor('trust');
    expect(none.checks.trust).toMatchObject({ ok: true, detail: expect.stringContaining(`Your own config: ${path.join(process.env.XDG_CONFIG_HOME as string, 'editwarden', 'config.yml')}`) });
    expect(none.checks.trust!.detail).toContain('No repository config.');

    fs.writeFileSync(path.join(root, '.editwarden.yml'), 'constraints:\n  max_files: 2\n');
    expect(doctor('trust').checks.trust).toMatchObject({ ok: true, detail: expect.stringContaining('.editwarden.yml is untrusted; it only tightens the guard.') });

    fs.writeFileSync(path.join(root, '.editwarden.yml'), 'sandbox:\n  network: true\n');
    const untrusted = doctor('trust');
    expect(untrusted.code).toBe(1);
    expect(untrusted.checks.trust).toMatchObject({ ok: false, detail: expect.stringContaining('is untrusted and loosens the guard (sandbox.network: on)'), fix: expect.stringContaining(`editwarden trust --root ${root}`) });

    expect(spawnSync(process.execPath, [BIN, 'trust', '--root', root], { encoding: 'utf8' }).status).toBe(0);
    expect(doctor('trust').checks.trust).toMatchObject({ ok: true, detail: expect.stringContaining('.editwarden.yml is trusted; loosening keys in effect: sandbox.network: on.') });

    fs.appendFileSync(path.join(root, '.editwarden.yml'), '# one more line\n');
    expect(doctor('trust').checks.trust).toMatchObject({ ok: false, detail: expect.stringContaining('is changed since you trusted it and loosens the guard') });
  });
});

describe('doctor: Copilot CLI folder trust', () => {
  it('names a folder Copilot does not trust once init copilot wrote its hooks (Copilot would run no hook there), with trusting it and the user-level hooks as fixes; passes once trusted', () => {
    const home = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'ew-doctor-home-')));
    try {
      const env = { ...process.env, HOME: home, COPILOT_HOME: '' };
      const check = (): Check => doctor('copilot folder trust', env).checks['copilot folder trust'] as Check;
      expect(check()).toMatchObject({ ok: true, detail: expect.stringContaining('No editwarden hooks for Copilot CLI here') });
      const init = spawnSync(process.execPath, [BIN, 'init', 'copilot', '--root', root], { encoding: 'utf8', env });
      expect(init.status, init.stderr).toBe(0);
      const untrusted = check();
      expect(untrusted.ok).toBe(false);
      expect(untrusted.detail).toContain('only in a folder you trusted');
      expect(untrusted.fix).toContain('trusted_folders');
      expect(untrusted.fix).toContain('~/.copilot/settings.json');
      // As Copilot writes it: comment lines first, then the JSON; a parent folder trusts the project in it.
      fs.mkdirSync(path.join(home, '.copilot'));
      fs.writeFileSync(path.join(home, '.copilot', 'config.json'), `// User settings belong in settings.json.\n// This file is managed automatically.\n${JSON.stringify({ trusted_folders: [path.dirname(root)] }, null, 2)}\n`);
      expect(check()).toMatchObject({ ok: true, detail: expect.stringContaining('Copilot CLI trusts this folder') });
    } finally {
      fs.rmSync(home, { recursive: true, force: true });
    }
  });
});

describe('doctor --only', () => {
  it('runs just the named checks, and refuses an unknown name with the list (exit 64)', () => {
    expect(Object.keys(doctor('git,config').checks)).toEqual(['git', 'config']);
    const r = spawnSync(process.execPath, [BIN, 'doctor', '--root', root, '--only', 'gti', '--json'], { encoding: 'utf8' });
    expect(r.status).toBe(64);
    expect(JSON.parse(r.stdout).error).toMatchObject({ code: 'E_USAGE', hint: 'The checks are: node, git, grammars, config, trust, limits, state folder, sandbox, client hooks, copilot folder trust, client hook trust, guard install.' });
  });
});

describe('the Node check', () => {
  it('refuses a Node older than engines, with how to upgrade', () => {
    expect(nodeCheck('v18.19.0', '>=20.12')).toMatchObject({ ok: false, fix: expect.stringContaining('Install Node 22 or 24') });
    expect(nodeCheck('v20.11.1', '>=20.12')).toMatchObject({ ok: false });
  });
  it('accepts Node 20.12+ but advises moving off an end-of-life version', () => {
    expect(nodeCheck('v20.20.2', '>=20.12')).toEqual({ ok: true, detail: expect.stringContaining('past its end of life'), fix: 'Move to Node 22 or 24.' });
  });
  it('accepts the supported versions without advice', () => {
    expect(nodeCheck('v22.11.0', '>=20.12')).toEqual({ ok: true, detail: 'Node v22.11.0 (supported: 22 or 24).' });
    expect(nodeCheck('v24.3.0', '>=20.12').fix).toBeUndefined();
  });
});
