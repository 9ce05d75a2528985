/** The sandbox's pure parts: the environment allowlist, the config keys, the bwrap and sandbox-exec spellings, detection. */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import fc from 'fast-check';
import { afterEach, describe, expect, test } from 'vitest';
import { parseConfig } from '../../src/config/config.js';
import { selfInstallPaths } from '../../src/sandbox/policy.js';
import { DEFAULT_CONFIG } from '../../src/config/defaults.js';
import { defaultConfig } from '../../src/config/config.js';
import { BASE_ENV_ALLOWLIST, bwrapArgs, commandEnv, commandSandbox, detectSandbox, DEFAULT_SANDBOX_CONFIG, isSecretEnvName, sandboxExecProfile, sandboxPolicy, type SandboxPolicy } from '../../src/sandbox/index.js';

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) fs.rmSync(d, { recursive: true, force: true });
});

function tempRoot(): string {
  const root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'ew-sbx-')));
  dirs.push(root);
  return root;
}

/** A root with .git, .editwarden and the config, and a fake HOME holding secrets and a toolchain. */
function fixture(): { root: string; home: string } {
  const root = tempRoot();
  fs.mkdirSync(path.join(root, 'proj/.git/hooks'), { recursive: true });
  fs.mkdirSync(path.join(root, 'proj/.editwarden'), { recursive: true });
  fs.writeFileSync(path.join(root, 'proj/.editwarden.yml'), 'constraints: {}\n');
  fs.mkdirSync(path.join(root, 'home/.ssh'), { recursive: true });
  fs.writeFileSync(path.join(root, 'home/.ssh/id_rsa'), 'KEY');
  fs.writeFileSync(path.join(root, 'home/.netrc'), 'machine x password y');
  fs.mkdirSync(path.join(root, 'home/.nvm'), { recursive: true });
  return { root: path.join(root, 'proj'), home: path.join(root, 'home') };
}

function policy(overrides: Partial<typeof DEFAULT_SANDBOX_CONFIG> = {}): { p: SandboxPolicy; root: string; home: string } {
  const { root, home } = fixture();
  const p = sandboxPolicy({ root, stateDir: path.join(root, '.editwarden'), config: { ...DEFAULT_SANDBOX_CONFIG, ...overrides }, home });
  return { p, root, home };
}

describe('the environment is an allowlist', () => {
  const source = {
    PATH: '/usr/bin',
    HOME: '/home/u',
    LANG: 'C.UTF-8',
    LC_ALL: 'C',
    CC: 'gcc',
    GITHUB_TOKEN: 'ghp_x',
    AWS_ACCESS_KEY_ID: 'AKIA',
    AWS_SECRET_ACCESS_KEY: 's',
    OPENAI_API_KEY: 'sk',
    MY_LLM_CRED: 'c',
    SSH_AUTH_SOCK: '/run/user/0/ssh',
    npm_config__auth: 'x',
    SOMETHING_ELSE: 'y',
  };

  test('only allowlisted names pass; unknown names and every secret are dropped', () => {
    expect(commandEnv(source)).toEqual({ PATH: '/usr/bin', HOME: '/home/u', LANG: 'C.UTF-8', LC_ALL: 'C', CC: 'gcc' });
  });

  test('config names are added, but a secret-looking name never passes and deny wins', () => {
    const env = commandEnv(source, { allow: ['SOMETHING_*', 'GITHUB_TOKEN'], deny: ['CC'] });
    expect(env).toMatchObject({ SOMETHING_ELSE: 'y' });
    expect(env).not.toHaveProperty('GITHUB_TOKEN');
    expect(env).not.toHaveProperty('CC');
  });

  test('names like *_TOKEN, *_KEY, *_SECRET, AWS_* are secret whatever their prefix (property)', () => {
    const word = fc.stringMatching(/^[A-Z][A-Z0-9]{0,8}$/);
    fc.assert(fc.property(word, fc.constantFrom('_TOKEN', '_KEY', '_SECRET', '_PASSWORD', '_API_KEY', '_ACCESS_KEY'), (w, suffix) => isSecretEnvName(`${w}${suffix}`)));
    fc.assert(fc.property(word, (w) => isSecretEnvName(`AWS_${w}`)));
    for (const name of BASE_ENV_ALLOWLIST) expect(isSecretEnvName(name.replace('*', 'X')), name).toBe(false);
  });

  test('the config refuses a secret-looking name in sandbox.env, and a relative path in readable', () => {
    expect(() => parseConfig('sandbox:\n  env: [GITHUB_TOKEN]\n')).toThrow(/sandbox\.env\.0.*secret/);
    expect(() => parseConfig('sandbox:\n  readable: [relative/path]\n')).toThrow(/sandbox\.readable\.0/);
    expect(parseConfig('sandbox:\n  env: [MY_TOOL_*]\n  network: true\n').sandbox).toMatchObject({ env: ['MY_TOOL_*'], network: 'on', enabled: true });
    expect(DEFAULT_CONFIG.sandbox).toEqual(defaultConfig().sandbox);
  });
});

describe('the policy per path class', () => {
  test(".git's machinery, .editwarden and the config are read-only, .git itself bound on itself; git_writable frees .git whole", () => {
    const { p, root } = policy();
    expect(p.readOnly.sort()).toEqual([path.join(root, '.editwarden'), path.join(root, '.editwarden.yml'), path.join(root, '.git/hooks')].sort());
    expect(p.gitDirs).toEqual([path.join(root, '.git')]);
    const writable = policy({ git_writable: true }).p;
    expect(writable.readOnly.some((r) => r.includes('.git'))).toBe(false);
    expect(writable.gitDirs).toEqual([]);
  });

  test('a .git that is a link to outside the root is not bound (binding through it would expose the target)', () => {
    const { root } = fixture();
    fs.rmSync(path.join(root, '.git'), { recursive: true });
    fs.symlinkSync(os.homedir(), path.join(root, '.git'));
    const p = sandboxPolicy({ root, stateDir: path.join(root, '.editwarden'), config: DEFAULT_SANDBOX_CONFIG });
    expect(p.readOnly.some((r) => r.endsWith('.git') || r === os.homedir())).toBe(false);
  });

  test('HOME is hidden; toolchains re-exposed; secrets listed', () => {
    const { p, home } = policy();
    expect(p.hidden).toContain(home);
    expect(p.readable).toContain(path.join(home, '.nvm'));
    expect(p.secrets).toEqual(expect.arrayContaining([path.join(home, '.ssh'), path.join(home, '.netrc')]));
  });

  test('commandSandbox reads the config’s sandbox section (defaults when absent)', () => {
    const root = tempRoot();
    const p = commandSandbox({ root, stateDir: path.join(root, '.editwarden') }, {});
    expect(p).toMatchObject({ enabled: true, networkAccess: { mode: 'off' }, root });
  });
});

describe('bubblewrap arguments', () => {
  const isDir = (p: string) => fs.existsSync(p) && fs.statSync(p).isDirectory();

  test('die with parent, new session, all namespaces, no network, no capabilities', () => {
    const { p, root } = policy();
    const a = bwrapArgs(p, root, ['/bin/sh', '-c', 'true'], isDir);
    expect(a.slice(0, 7)).toEqual(['--die-with-parent', '--new-session', '--unshare-pid', '--unshare-ipc', '--unshare-user-try', '--cap-drop', 'ALL']);
    expect(a).toContain('--unshare-net');
    expect(bwrapArgs(policy({ network: 'on' }).p, root, ['true'], isDir)).not.toContain('--unshare-net');
    expect(a.slice(-6)).toEqual(['--chdir', root, '--', '/bin/sh', '-c', 'true']);
  });

  test('order is the policy: / read-only, homes hidden, root writable, protected paths read-only after the root, secrets last', () => {
    const { root, home } = fixture();
    // The root holds HOME here: the secrets inside it must be masked after the root's bind.
    const p = sandboxPolicy({ root: path.dirname(root), stateDir: path.join(root, '.editwarden'), config: DEFAULT_SANDBOX_CONFIG, home });
    const a = bwrapArgs(p, root, ['true'], isDir);
    const at = (flag: string, target: string) => a.findIndex((v, i) => (v === flag && a[i + 1] === target) || (v === flag && a[i + 2] === target));
    const rootBind = at('--bind', p.root);
    expect(at('--ro-bind', '/')).toBeLessThan(rootBind);
    expect(at('--tmpfs', home)).toBeLessThan(rootBind);
    const state = at('--ro-bind', path.join(root, '.editwarden'));
    expect(state).toBeGreaterThan(rootBind);
    const ssh = at('--tmpfs', path.join(home, '.ssh'));
    const netrc = a.indexOf(path.join(home, '.netrc'));
    expect(ssh).toBeGreaterThan(state);
    expect(a[netrc - 2]).toBe('--ro-bind');
    expect(a[netrc - 1]).toBe('/dev/null');
    expect(netrc).toBeGreaterThan(rootBind);
  });
});

describe('the macOS sandbox-exec profile (generated and checked here)', () => {
  function balanced(text: string): boolean {
    let depth = 0;
    let inString = false;
    for (let i = 0; i < text.length; i++) {
      const c = text[i];
      if (inString) {
        if (c === '\\') i++;
        else if (c === '"') inString = false;
      } else if (c === '"') inString = true;
      else if (c === '(') depth++;
      else if (c === ')' && --depth < 0) return false;
    }
    return depth === 0 && !inString;
  }

  test('deny by default; reads allowed, homes denied, toolchains re-allowed, root writable, .git read-only, secrets denied last', () => {
    const { p, root, home } = policy();
    const profile = sandboxExecProfile(p);
    const lines = profile.trim().split('\n');
    expect(balanced(profile)).toBe(true);
    expect(lines[0]).toBe('(version 1)');
    expect(lines[1]).toBe('(deny default)');
    const find = (pred: (l: string) => boolean) => lines.findIndex(pred);
    const readAll = find((l) => l === '(allow file-read*)');
    const homeDeny = find((l) => l.startsWith('(deny file-read*') && l.includes(`(subpath "${home}")`));
    const tool = find((l) => l.startsWith('(allow file-read*') && l.includes(path.join(home, '.nvm')));
    const rootWrite = find((l) => l.startsWith('(allow file-read* file-write*') && l.includes(`(subpath "${root}")`));
    const gitDeny = find((l) => l.startsWith('(deny file-write*') && l.includes(`(subpath "${path.join(root, '.git/hooks')}")`) && l.includes(`(literal "${path.join(root, '.git')}")`) && l.includes('.editwarden.yml'));
    const secrets = find((l) => l.startsWith('(deny file-read* file-write*') && l.includes(path.join(home, '.ssh')));
    expect(readAll).toBeGreaterThan(1);
    expect([readAll, homeDeny, tool, rootWrite, gitDeny, secrets]).toEqual([...[readAll, homeDeny, tool, rootWrite, gitDeny, secrets]].sort((x, y) => x - y));
    expect(Math.min(homeDeny, tool, rootWrite, gitDeny, secrets)).toBeGreaterThan(-1);
    expect(secrets).toBe(lines.length - 1);
    expect(profile).toContain('(deny network*)');
    expect(sandboxExecProfile(policy({ network: 'on' }).p)).toContain('(allow network*)');
  });

  test('paths are SBPL string literals: a quote or backslash in a path cannot end the string', () => {
    const root = tempRoot();
    const odd = path.join(root, 'we"ird\\ (dir)');
    fs.mkdirSync(odd);
    const p = sandboxPolicy({ root: odd, stateDir: path.join(odd, '.editwarden'), config: DEFAULT_SANDBOX_CONFIG });
    const profile = sandboxExecProfile(p);
    expect(balanced(profile)).toBe(true);
    expect(profile).toContain('(subpath "' + odd.replace(/\\/g, '\\\\').replace(/"/g, '\\"') + '")');
  });
});

describe('detection', () => {
  test('bubblewrap here; a missing or failing bwrap (EDITWARDEN_BWRAP) is "none" with a fix', () => {
    expect(detectSandbox()).toMatchObject({ kind: 'bwrap', program: expect.stringMatching(/bwrap$/) });
    const missing = detectSandbox({ env: { EDITWARDEN_BWRAP: '/nonexistent/bwrap' } });
    expect(missing).toMatchObject({ kind: 'none', fix: expect.stringContaining('bubblewrap') });
    const failing = detectSandbox({ env: { EDITWARDEN_BWRAP: '/bin/false' } });
    expect(failing).toMatchObject({ kind: 'none', detail: expect.stringContaining('/bin/false cannot start a sandbox'), fix: expect.stringContaining('user namespaces') });
    expect(detectSandbox({ platform: 'darwin' }).kind).toBe(fs.existsSync('/usr/bin/sandbox-exec') ? 'sandbox-exec' : 'none');
    expect(detectSandbox({ platform: 'win32' })).toMatchObject({ kind: 'none' });
  });
});

const afterCleanup: string[] = [];
afterEach(() => {
  for (const p of afterCleanup.splice(0)) fs.rmSync(p, { recursive: true, force: true });
});

describe('what editwarden runs from', () => {
  test('its own package and the Node running it are re-exposed read-only; never a folder holding HOME or /tmp whole', () => {
    const repo = path.resolve(__dirname, '../..');
    const home = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'ew-home-')));
    afterCleanup.push(home);
    expect(selfInstallPaths(home)).toContain(repo);
    expect(selfInstallPaths(home, '/usr/bin/node')).toContain('/usr');
    // A node in ~/bin or straight in /tmp/bin would widen the view to all of HOME or /tmp: left out.
    expect(selfInstallPaths(home, path.join(home, 'bin', 'node'))).not.toContain(home);
    expect(selfInstallPaths(home, '/tmp/bin/node')).not.toContain('/tmp');
  });
});
