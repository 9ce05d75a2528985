/**
 * The network a person allows, with the real Claude Code (scripted model on
 * 127.0.0.1, a temp project): the person's own config says
 * `sandbox.network: [registry.test]`; a small npm registry — a real HTTP
 * server on 127.0.0.1 serving a packument and a package tarball — answers
 * under that name (the proxy's test-only resolver override maps it, and
 * `other.test`, to 127.0.0.1). `npm install` through Bash succeeds from it;
 * from the same server under the name the person did not list it fails, and
 * the refusal is an event in `editwarden log`.
 */
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import type net from 'node:net';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { editwardenHere } from './cli-in-process.js';
import { CLAUDE, cleanup, editwarden, project, runClaude, tempDir, toolResults } from './helpers.js';

let server: http.Server;
let port: number;
let tarball: Buffer;
const served: string[] = [];

/** A one-file npm package as npm publishes it: package/package.json and package/index.js in a gzipped tar. */
function packTarball(): Buffer {
  const dir = tempDir('ew-pkg-');
  fs.mkdirSync(path.join(dir, 'package'));
  fs.writeFileSync(path.join(dir, 'package/package.json'), JSON.stringify({ name: 'tiny-dep', version: '1.0.0', main: 'index.js' }));
  fs.writeFileSync(path.join(dir, 'package/index.js'), "module.exports = 'tiny';\n");
  const r = spawnSync('tar', ['czf', 'tiny-dep-1.0.0.tgz', 'package'], { cwd: dir });
  expect(r.status).toBe(0);
  return fs.readFileSync(path.join(dir, 'tiny-dep-1.0.0.tgz'));
}

beforeAll(async () => {
  expect(fs.existsSync(CLAUDE), `${CLAUDE} is missing; run npm ci`).toBe(true);
  tarball = packTarball();
  server = http.createServer((req, res) => {
    served.push(`${req.method} ${req.headers.host} ${req.url}`);
    const host = req.headers.host ?? '';
    if (req.url === '/tiny-dep') {
      const packument = {
        name: 'tiny-dep',
        'dist-tags': { latest: '1.0.0' },
        versions: {
          '1.0.0': {
            name: 'tiny-dep',
            version: '1.0.0',
            main: 'index.js',
            dist: {
              tarball: `http://${host}/tiny-dep/-/tiny-dep-1.0.0.tgz`,
              shasum: createHash('sha1').update(tarball).digest('hex'),
              integrity: `sha512-${createHash('sha512').update(tarball).digest('base64')}`,
            },
          },
        },
      };
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify(packument));
    } else if (req.url === '/tiny-dep/-/tiny-dep-1.0.0.tgz') {
      res.writeHead(200, { 'content-type': 'application/octet-stream' });
      res.end(tarball);
    } else {
      res.writeHead(404);
      res.end();
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  port = (server.address() as net.AddressInfo).port;
});
afterAll(async () => {
  await new Promise<void>((resolve) => server.close(() => resolve()));
  cleanup();
});

/** The person's HOME, their own config listing only registry.test. */
function personHome(): string {
  const home = tempDir('ew-home-');
  fs.mkdirSync(path.join(home, '.config/editwarden'), { recursive: true });
  fs.writeFileSync(path.join(home, '.config/editwarden/config.yml'), 'sandbox:\n  network: [registry.test]\n');
  return home;
}

const npmInstall = (registryHost: string): string => `npm install --registry=http://${registryHost}:${port}/ --fetch-retries=0 --no-audit --no-fund --no-update-notifier 2>&1; echo "npm exit $?"`;

describe("Claude Code's Bash reaches the registry the person listed, and nothing else", () => {
  it('npm install from registry.test succeeds; from other.test (the same server, not listed) it fails and the refusal is in `editwarden log`', async () => {
    const root = project({ 'package.json': `${JSON.stringify({ name: 'app', version: '1.0.0', private: true, dependencies: { 'tiny-dep': '1.0.0' } }, null, 2)}\n` });
    expect((await editwardenHere(['init', 'claude', '--root', root])).code).toBe(0);
    const run = await runClaude(
      root,
      [
        { name: 'Bash', args: { command: npmInstall('registry.test'), description: 'install from the listed registry' } },
        { name: 'Bash', args: { command: 'rm -rf node_modules package-lock.json && echo cleaned', description: 'clean' } },
        { name: 'Bash', args: { command: npmInstall('other.test'), description: 'install from another registry' } },
      ],
      ['--allowedTools', 'Bash'],
      150_000,
      { home: personHome(), env: { EDITWARDEN_TEST_HOSTS: 'registry.test=127.0.0.1,other.test=127.0.0.1' } },
    );
    expect(run.code, run.stderr).toBe(0);
    const results = toolResults(run.requests);
    expect(results, run.stdout).toHaveLength(3);

    // Listed: the packument and the tarball came through the proxy, and the package is installed.
    expect(results[0]).toContain('npm exit 0');
    expect(results[0]).toContain('added 1 package');
    expect(served).toEqual([`GET registry.test:${port} /tiny-dep`, `GET registry.test:${port} /tiny-dep/-/tiny-dep-1.0.0.tgz`]);

    // Not listed: npm fails, nothing reached the server, and the model is told why.
    expect(results[2]).not.toContain('npm exit 0');
    expect(results[2]).toContain('E_NETWORK_REFUSED');
    expect(served).toHaveLength(2);
    expect(fs.existsSync(path.join(root, 'node_modules/tiny-dep'))).toBe(false);

    const log = editwarden(['log', '--root', root, '--json']);
    expect(log.code, log.stderr).toBe(0);
    const events = log.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { kind: string; [k: string]: unknown });
    const refused = events.filter((e) => e.kind === 'network');
    expect(refused.length).toBeGreaterThan(0);
    expect(refused[0]).toMatchObject({ kind: 'network', route: { via: 'shell', client: 'claude' }, tool: 'Bash', host: 'other.test', port, reason: 'not-listed', code: 'E_NETWORK_REFUSED' });
    expect(String(refused[0]?.command)).toContain('npm install --registry=http://other.test');
    const text = editwarden(['log', '--root', root]);
    expect(text.stdout).toContain(`E_NETWORK_REFUSED GET other.test:${port}`);
  }, 200_000);
});
