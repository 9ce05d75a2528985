/**
 * `sandbox.network: [hosts]` through the CLI as a person uses it: the key in
 * the person's own config (or `--network`), a repository's file that may only
 * narrow it, execute_command reaching a listed registry on 127.0.0.1 under a
 * `.test` name, and every refused connection in `editwarden log` and the
 * report.
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, test } from 'vitest';
import { startRegistry, type RegistryServer } from '../registry-server.js';

const REPO = path.resolve(__dirname, '../..');
const BIN = path.join(REPO, 'bin/editwarden');

let registry: RegistryServer;
let port: number;
let served: string[];
beforeAll(async () => {
  registry = await startRegistry();
  ({ port, served } = registry);
});
afterAll(() => registry.close());

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) fs.rmSync(d, { recursive: true, force: true });
  served.length = 0;
});

/** A project and a person (their own HOME and config), the person's config holding `mine`. */
function setup(mine: string | null, repoConfig = 'constraints:\n  max_files: 10\n') {
  const base = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'ew-net-cli-')));
  dirs.push(base);
  const root = path.join(base, 'proj');
  const home = path.join(base, 'home');
  fs.mkdirSync(path.join(root, '.git'), { recursive: true });
  fs.mkdirSync(path.join(home, '.config/editwarden'), { recursive: true });
  fs.writeFileSync(path.join(root, '.editwarden.yml'), repoConfig);
  if (mine !== null) fs.writeFileSync(path.join(home, '.config/editwarden/config.yml'), mine);
  const env = { ...process.env, HOME: home, XDG_CONFIG_HOME: path.join(home, '.config'), XDG_DATA_HOME: path.join(home, '.local/share'), NO_COLOR: '1', EDITWARDEN_TEST_HOSTS: 'registry.test=127.0.0.1,other.test=127.0.0.1' };
  // Not spawnSync: the registry above is served by this process, which must stay free to answer.
  const cli = (args: string[], input?: string): Promise<{ code: number | null; stdout: string; stderr: string }> =>
    new Promise((resolve) => {
      const child = spawn(process.execPath, [BIN, ...args], { env });
      let stdout = '';
      let stderr = '';
      child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
      child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
      child.on('close', (code) => resolve({ code, stdout, stderr }));
      child.stdin.end(input ?? '');
    });
  const exec = async (commands: string[], flags: string[] = []) => {
    const calls = commands.map((command) => JSON.stringify({ tool: 'execute_command', args: { command } })).join('\n');
    const r = await cli(['exec', '-', '--root', root, '--json', ...flags], calls);
    return { ...r, out: r.stdout ? JSON.parse(r.stdout) : null };
  };
  return { root, cli, exec };
}

describe('execute_command under the person’s network list', () => {
  test('a listed registry answers; another host is refused, and `editwarden log` and the report show the refusal', async () => {
    const { root, cli, exec } = setup('sandbox:\n  network: [registry.test]\n');
    const r = await exec([`curl -sS -f http://registry.test:${port}/pkg`, `curl -sS -f http://other.test:${port}/pkg`]);
    expect(r.out.calls[0].ok).toBe(true);
    expect(r.out.calls[0].output).toContain('registry answer for /pkg');
    expect(r.out.calls[1].ok).toBe(false);
    expect(served).toEqual(['GET /pkg']);
    const log = await cli(['log', '--root', root]);
    expect(log.stdout).toContain('E_NETWORK_REFUSED');
    expect(log.stdout).toContain(`other.test:${port}`);
    expect(log.stdout).toMatch(/refused or stopped/);
    const json = (await cli(['log', '--root', root, '--json'])).stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(json.filter((e) => e.kind === 'network')).toMatchObject([{ kind: 'network', tool: 'execute_command', host: 'other.test', port, reason: 'not-listed', count: 1, code: 'E_NETWORK_REFUSED' }]);
    const report = await cli(['report', '--root', root, '--all']);
    expect(report.stdout).toContain('E_NETWORK_REFUSED');
    expect(report.stdout).toContain(`other.test:${port}`);
  });

  test('a verification (editwarden verify) reaches the listed registry; a refused host is in the log as the verify step', async () => {
    const { root, cli } = setup('sandbox:\n  network: [registry.test]\n');
    const ok = await cli(['verify', '--root', root, '--cmd', `curl -sS -f http://registry.test:${port}/v`]);
    expect(ok.code, ok.stderr).toBe(0);
    const bad = await cli(['verify', '--root', root, '--cmd', `curl -sS -f -p http://other.test:${port}/v`]);
    expect(bad.code).toBe(3);
    expect(served).toEqual(['GET /v']);
    const json = (await cli(['log', '--root', root, '--json'])).stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(json.filter((e) => e.kind === 'network')).toMatchObject([{ kind: 'network', route: { via: 'cli' }, tool: 'verify', method: 'CONNECT', host: 'other.test', port, reason: 'not-listed' }]);
  });

  test('--network sets it for one command line; off is the default', async () => {
    const { exec } = setup(null);
    expect((await exec([`curl -sS -f http://registry.test:${port}/a`])).out.calls[0].ok).toBe(false);
    expect((await exec([`curl -sS -f http://registry.test:${port}/b`], ['--network', 'registry.test'])).out.calls[0].ok).toBe(true);
    expect(served).toEqual(['GET /b']);
    const bad = await exec(['true'], ['--network', '*.com']);
    expect(bad.code).toBe(64);
    expect(`${bad.stdout}${bad.stderr}`).toContain('not a host pattern');
  });

  test("a repository's file may narrow the person's list, never widen it", async () => {
    const narrow = setup('sandbox:\n  network: [registry.test, other.test]\n', `sandbox:\n  network: ['registry.test:${port}']\n`);
    const r = await narrow.exec([`curl -sS -f http://registry.test:${port}/n`, `curl -sS -f http://other.test:${port}/n`]);
    expect(r.out.calls.map((c: { ok: boolean }) => c.ok)).toEqual([true, false]);
    const wide = setup('sandbox:\n  network: [registry.test]\n', 'sandbox:\n  network: [registry.test, other.test]\n');
    const w = await wide.exec(['true']);
    expect(`${w.stdout}${w.stderr}`).toContain('E_UNTRUSTED_CONFIG');
    expect(`${w.stdout}${w.stderr}`).toMatch(/sandbox\.network: .*other\.test.*\(yours: .*registry\.test/);
    expect(served).toEqual(['GET /n']);
  });
});
