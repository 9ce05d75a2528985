/**
 * A host-list network through the guarded shell's warm server: the server
 * prepares the sandbox's argument vector and runs the filtering proxy while
 * the thin client runs the command in its own process; the listed registry
 * answers, another host is refused, and the refusal is in the event log as
 * the shell's.
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { shellRunnerLine } from '../../src/integrations/client.js';
import { BIN, cleanup, project, tempDir } from './helpers.js';
import { endServers, runtimeEnv, shellsServed, warmServer } from './warm-server.js';
import { startRegistry, type RegistryServer } from '../registry-server.js';

let registry: RegistryServer;
let port: number;
let served: string[];
beforeAll(async () => {
  registry = await startRegistry();
  ({ port, served } = registry);
});
afterAll(async () => {
  await registry.close();
  cleanup();
});
afterEach(endServers);

/** The rewritten Bash line, run as Claude Code runs it (not spawnSync: this process serves the registry). */
function runLine(root: string, command: string, env: NodeJS.ProcessEnv): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const line = shellRunnerLine([process.execPath, BIN], { root, client: 'claude', tool: 'Bash', session: 'session-1' }, command);
  return new Promise((resolve) => {
    const child = spawn('/bin/sh', ['-c', line], { cwd: root, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

describe('sandbox.network: [hosts] through the warm server', () => {
  it('the listed registry answers, another host is refused and logged, and the server served both', async () => {
    const home = tempDir('ew-home-');
    fs.mkdirSync(path.join(home, '.config/editwarden'), { recursive: true });
    fs.writeFileSync(path.join(home, '.config/editwarden/config.yml'), 'sandbox:\n  network: [registry.test]\n');
    const env = runtimeEnv({ HOME: home, XDG_CONFIG_HOME: path.join(home, '.config'), EDITWARDEN_TEST_HOSTS: 'registry.test=127.0.0.1,other.test=127.0.0.1' });
    const root = project({ 'a.txt': 'one\n' });
    await warmServer(env);
    const before = await shellsServed(env);
    const ok = await runLine(root, `curl -sS -f http://registry.test:${port}/warm`, env);
    expect(ok.code, ok.stderr).toBe(0);
    expect(ok.stdout).toBe('registry answer for /warm\n');
    const refused = await runLine(root, `curl -sS -f -p http://other.test:${port}/warm`, env);
    expect(refused.code).not.toBe(0);
    expect(refused.stderr).toContain(`the sandbox's network proxy refused other.test:${port}`);
    expect(await shellsServed(env)).toBe(before + 2);
    expect(served).toEqual(['GET /warm']);
    const events = fs
      .readFileSync(path.join(root, '.editwarden/events.jsonl'), 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(events.filter((e) => e.kind === 'network')).toMatchObject([{ route: { via: 'shell', client: 'claude', session: 'session-1' }, tool: 'Bash', method: 'CONNECT', host: 'other.test', port, reason: 'not-listed' }]);
  }, 60_000);
});
