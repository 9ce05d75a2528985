/**
 * `sandbox.network: [hosts]` end to end in the real sandbox (bubblewrap):
 * the command has no network of its own, reaches the listed hosts through
 * the bridge and the filtering proxy with the proxy environment curl, npm,
 * pip and git read, is refused everything else — recorded in the event log —
 * and has no network at all when the proxy is not there.
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, test } from 'vitest';
import { defaultConfig } from '../../src/config/config.js';
import { commandSandbox } from '../../src/sandbox/index.js';
import { sandboxedSpawn } from '../../src/sandbox/spawn.js';
import { TEST_HOSTS_ENV } from '../../src/sandbox/network/test-hosts.js';
import { readEvents } from '../../src/runs/events-read.js';
import { runCommand } from '../../src/verify/runner.js';
import { startRegistry, type RegistryServer } from '../registry-server.js';

let registry: RegistryServer;
let port: number;
let served: string[];
const savedHosts = process.env[TEST_HOSTS_ENV];

beforeAll(async () => {
  registry = await startRegistry();
  ({ port, served } = registry);
  // editwarden's own environment (the runner starts the proxy), never the command's.
  process.env[TEST_HOSTS_ENV] = 'registry.test=127.0.0.1,other.test=127.0.0.1';
});
afterAll(async () => {
  if (savedHosts === undefined) delete process.env[TEST_HOSTS_ENV];
  else process.env[TEST_HOSTS_ENV] = savedHosts;
  await registry.close();
});

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) fs.rmSync(d, { recursive: true, force: true });
  served.length = 0;
});

function project(network: 'off' | 'on' | string[]) {
  const root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'ew-net-')));
  dirs.push(root);
  const stateDir = path.join(root, '.editwarden');
  fs.mkdirSync(stateDir);
  const config = defaultConfig();
  const sandbox = commandSandbox({ root, stateDir }, { sandbox: { ...config.sandbox, network } });
  return { root, stateDir, sandbox };
}

const CONNECT_PROBE = (host: string, p: number) => `node -e "require('net').connect(${p},'${host}').on('connect',()=>{console.log('CONN'+'ECTED');process.exit(0)}).on('error',e=>{console.log(e.code);process.exit(7)})"`;

describe('sandbox.network: [hosts] through the filtering proxy', () => {
  test('a listed host answers over plain HTTP and through a CONNECT tunnel (curl reads the proxy environment)', async () => {
    const { root, sandbox } = project(['registry.test']);
    const r = await runCommand({ command: `curl -sS http://registry.test:${port}/plain && curl -sS -p http://registry.test:${port}/tunnel && env | grep -c _PROXY=`, cwd: root, sandbox, timeoutMs: 30_000 });
    expect(r.tail).toContain('registry answer for /plain');
    expect(r.tail).toContain('registry answer for /tunnel');
    expect(r.exit_code).toBe(0);
    expect(r.network_refused).toBeUndefined();
    expect(served).toEqual(['GET /plain', 'GET /tunnel']);
  });

  test('another host is refused: the command fails, the result names it, and the event log records it as this route', async () => {
    const { root, stateDir, sandbox } = project(['registry.test']);
    const command = `curl -sS -f http://other.test:${port}/x; curl -sS -f -p http://other.test:${port}/y; curl -sS -f --noproxy '' http://127.0.0.1:${port}/z`;
    const r = await runCommand({ command, cwd: root, sandbox, timeoutMs: 30_000, networkRecord: { stateDir, route: { via: 'exec', run: 'r1' }, tool: 'execute_command' } });
    expect(r.exit_code).not.toBe(0);
    expect(served).toEqual([]);
    // One entry per refused destination and reason (the plain GET and the CONNECT to other.test are one), with its count.
    expect(r.network_refused?.refused).toEqual([
      { host: 'other.test', port, method: 'GET', reason: 'not-listed', count: 2 },
      { host: '127.0.0.1', port, method: 'GET', reason: 'ip-literal', count: 1 },
    ]);
    const events = readEvents(stateDir).events.filter((e) => e.kind === 'network');
    expect(events).toHaveLength(2);
    expect(events[0]).toMatchObject({ kind: 'network', route: { via: 'exec', run: 'r1' }, tool: 'execute_command', command, host: 'other.test', port, code: 'E_NETWORK_REFUSED', reason: 'not-listed', count: 2 });
  });

  test("the sandbox cannot reach the host's loopback directly: its 127.0.0.1 is its own", async () => {
    const { root, sandbox } = project(['registry.test']);
    const r = await runCommand({ command: CONNECT_PROBE('127.0.0.1', port), cwd: root, sandbox, timeoutMs: 30_000 });
    expect(r.tail).not.toContain('CONNECTED');
    expect(r.tail).toMatch(/ECONNREFUSED|ENETUNREACH/);
    expect(served).toEqual([]);
  });

  test('off: no proxy and no proxy environment; on: the host network', async () => {
    const off = project('off');
    const r1 = await runCommand({ command: `env | grep -ci _proxy=; curl -sS http://registry.test:${port}/`, cwd: off.root, sandbox: off.sandbox, timeoutMs: 30_000 });
    expect(r1.tail.split('\n')[0]).toBe('0');
    expect(r1.exit_code).not.toBe(0);
    const on = project('on');
    const r2 = await runCommand({ command: CONNECT_PROBE('127.0.0.1', port), cwd: on.root, sandbox: on.sandbox, timeoutMs: 30_000 });
    expect(r2.tail).toContain('CONNECTED');
  });

  test('fail closed: with the proxy gone (its socket without a listener), the command has no network at all', () => {
    const { root, sandbox } = project(['registry.test']);
    // A socket file nobody listens on: what a crashed proxy leaves.
    const dead = path.join(root, '..', `dead-${path.basename(root)}.sock`);
    dirs.push(dead);
    spawnSync(process.execPath, ['-e', `require('net').createServer().listen(${JSON.stringify(dead)},()=>process.kill(process.pid,'SIGKILL'))`]);
    expect(fs.statSync(dead).isSocket()).toBe(true);
    const spec = sandboxedSpawn(['/bin/sh', '-c', `curl -sS -m 10 http://registry.test:${port}/; echo "curl=$?"; ${CONNECT_PROBE('127.0.0.1', port)}`], root, sandbox, {}, undefined, dead);
    const r = spawnSync(spec.file, spec.args, { env: spec.env, encoding: 'utf8', timeout: 30_000 });
    expect(r.stdout).toMatch(/curl=(52|56|7)\b/);
    expect(r.stdout).not.toContain('CONNECTED');
    expect(served).toEqual([]);
  });
});
