/**
 * The filtering proxy against what a command inside the sandbox can send it:
 * real sockets, a real HTTP server on 127.0.0.1 standing for a registry, and
 * the proxy's one test-only resolver override mapping `.test` names to it.
 */
import fs from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, test } from 'vitest';
import { parseHostPattern } from '../../src/config/host-patterns.js';
import { startNetworkProxy, type NetworkProxy } from '../../src/sandbox/network/proxy.js';
import { MAX_DESTINATIONS, type NetworkRefusal, RefusalTally } from '../../src/sandbox/network/refusals.js';

let server: http.Server;
let port: number;
const served: string[] = [];

beforeAll(async () => {
  server = http.createServer((req, res) => {
    served.push(`${req.method} ${req.url} host=${req.headers.host}`);
    res.end(`hello from ${req.url}`);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  port = (server.address() as net.AddressInfo).port;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

const proxies: NetworkProxy[] = [];
afterEach(async () => {
  for (const p of proxies.splice(0)) await p.close();
  served.length = 0;
});

async function proxy(allow: string[], testHosts: Record<string, string> = { 'registry.test': '127.0.0.1', 'a.wild.test': '127.0.0.1', 'other.test': '127.0.0.1' }) {
  const refused: NetworkRefusal[] = [];
  const p = await startNetworkProxy({ allow: allow.map(parseHostPattern), onRefused: (r) => refused.push(r), testHosts: new Map(Object.entries(testHosts)), tmpDir: os.tmpdir() });
  proxies.push(p);
  return { p, refused };
}

/** Sends raw bytes to the proxy's socket and reads everything it answers until it closes (or `until` matches). */
function exchange(socketPath: string, text: string, until?: RegExp): Promise<string> {
  return new Promise((resolve, reject) => {
    const s = net.connect({ path: socketPath });
    let got = '';
    s.on('data', (d) => {
      got += d.toString('latin1');
      if (until?.test(got)) {
        s.destroy();
        resolve(got);
      }
    });
    s.on('error', reject);
    s.on('close', () => resolve(got));
    s.write(text);
  });
}

describe('CONNECT: a tunnel only to a listed host', () => {
  test('a listed name opens a tunnel to the address it maps to; bytes pass both ways', async () => {
    const { p, refused } = await proxy(['registry.test']);
    const answer = await exchange(p.socketPath, `CONNECT registry.test:${port} HTTP/1.1\r\nHost: registry.test:${port}\r\n\r\nGET /pkg HTTP/1.1\r\nHost: registry.test\r\nConnection: close\r\n\r\n`, /hello from \/pkg/);
    expect(answer).toMatch(/^HTTP\/1\.1 200 Connection Established\r\n\r\n/);
    expect(answer).toContain('hello from /pkg');
    expect(refused).toEqual([]);
  });

  test('an unlisted host is refused with E_NETWORK_REFUSED, reported, and nothing reaches any server', async () => {
    const { p, refused } = await proxy(['registry.test']);
    const answer = await exchange(p.socketPath, `CONNECT other.test:${port} HTTP/1.1\r\nHost: other.test:${port}\r\n\r\n`);
    expect(answer).toMatch(/^HTTP\/1\.1 403 Forbidden/);
    expect(answer).toContain('E_NETWORK_REFUSED');
    expect(refused).toEqual([{ host: 'other.test', port, method: 'CONNECT', reason: 'not-listed' }]);
    expect(served).toEqual([]);
  });

  test('a port pattern admits that port only', async () => {
    const { p, refused } = await proxy([`registry.test:${port === 1 ? 2 : port - 1}`]);
    expect(await exchange(p.socketPath, `CONNECT registry.test:${port} HTTP/1.1\r\n\r\n`)).toMatch(/^HTTP\/1\.1 403/);
    expect(refused[0]?.reason).toBe('not-listed');
  });

  test('an IP literal is refused unless that address is listed; numeric spellings of an address are no names', async () => {
    const { p, refused } = await proxy(['registry.test']);
    expect(await exchange(p.socketPath, `CONNECT 127.0.0.1:${port} HTTP/1.1\r\n\r\n`)).toMatch(/^HTTP\/1\.1 403/);
    expect(await exchange(p.socketPath, `CONNECT [::1]:${port} HTTP/1.1\r\n\r\n`)).toMatch(/^HTTP\/1\.1 403/);
    for (const spelled of ['2130706433', '0x7f.1', '127.1', '0177.0.0.1']) expect(await exchange(p.socketPath, `CONNECT ${spelled}:${port} HTTP/1.1\r\n\r\n`)).toMatch(/^HTTP\/1\.1 400/);
    expect(refused.map((r) => r.reason)).toEqual(['ip-literal', 'ip-literal', 'bad-request', 'bad-request', 'bad-request', 'bad-request']);
    expect(served).toEqual([]);
    const listed = await proxy([`127.0.0.1:${port}`]);
    const answer = await exchange(listed.p.socketPath, `CONNECT 127.0.0.1:${port} HTTP/1.1\r\n\r\nGET /ip HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n`, /hello from \/ip/);
    expect(answer).toContain('hello from /ip');
  });

  test("a wildcard name that resolves to this machine's loopback is refused (DNS rebinding); an exact name may", async () => {
    const { p, refused } = await proxy(['*.wild.test']);
    expect(await exchange(p.socketPath, `CONNECT a.wild.test:${port} HTTP/1.1\r\n\r\n`)).toMatch(/^HTTP\/1\.1 403/);
    expect(refused).toEqual([{ host: 'a.wild.test', port, method: 'CONNECT', reason: 'address' }]);
    expect(served).toEqual([]);
  });
});

describe('plain HTTP: absolute-form requests', () => {
  test('a listed host is forwarded in origin form, its answer relayed', async () => {
    const { p } = await proxy(['registry.test']);
    const answer = await exchange(p.socketPath, `GET http://registry.test:${port}/pkg?x=1 HTTP/1.1\r\nHost: registry.test:${port}\r\nProxy-Authorization: Basic eA==\r\n\r\n`, /hello from/);
    expect(answer).toMatch(/^HTTP\/1\.1 200/);
    expect(answer).toContain('hello from /pkg?x=1');
    expect(served).toEqual([`GET /pkg?x=1 host=registry.test:${port}`]);
  });

  test('a Host header that names another host than the URI is refused, and nothing is forwarded', async () => {
    const { p, refused } = await proxy(['registry.test', 'other.test']);
    const answer = await exchange(p.socketPath, `GET http://registry.test:${port}/pkg HTTP/1.1\r\nHost: other.test:${port}\r\n\r\n`);
    expect(answer).toMatch(/^HTTP\/1\.1 400/);
    expect(answer).toContain('E_NETWORK_REFUSED');
    expect(refused).toEqual([{ host: 'registry.test', port, method: 'GET', reason: 'host-mismatch' }]);
    expect(served).toEqual([]);
  });

  test('an unlisted host, an origin-form request and an https:// URI are refused', async () => {
    const { p, refused } = await proxy(['registry.test']);
    expect(await exchange(p.socketPath, `GET http://other.test:${port}/ HTTP/1.1\r\nHost: other.test:${port}\r\n\r\n`)).toMatch(/^HTTP\/1\.1 403/);
    expect(await exchange(p.socketPath, `GET /pkg HTTP/1.1\r\nHost: registry.test:${port}\r\n\r\n`)).toMatch(/^HTTP\/1\.1 400/);
    expect(await exchange(p.socketPath, `GET https://registry.test:${port}/ HTTP/1.1\r\nHost: registry.test:${port}\r\n\r\n`)).toMatch(/^HTTP\/1\.1 400/);
    expect(await exchange(p.socketPath, `GET http://0x7f.1:${port}/ HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\n\r\n`)).toMatch(/^HTTP\/1\.1 403/);
    expect(refused.map((r) => r.reason)).toEqual(['not-listed', 'bad-request', 'bad-request', 'ip-literal']);
    expect(served).toEqual([]);
  });

  test('each request on a kept-alive connection is judged on its own', async () => {
    const { p, refused } = await proxy(['registry.test']);
    const two = `GET http://registry.test:${port}/one HTTP/1.1\r\nHost: registry.test:${port}\r\n\r\nGET http://other.test:${port}/two HTTP/1.1\r\nHost: other.test:${port}\r\n\r\n`;
    const answer = await exchange(p.socketPath, two, /E_NETWORK_REFUSED[\s\S]*$/);
    expect(answer).toContain('hello from /one');
    expect(refused.map((r) => r.host)).toEqual(['other.test']);
    expect(served).toEqual([`GET /one host=registry.test:${port}`]);
  });
});

describe('fail closed', () => {
  test('a closed proxy takes no connection, and its private folder is gone', async () => {
    const { p } = await proxy(['registry.test']);
    expect((fs.statSync(path.dirname(p.socketPath)).mode & 0o777).toString(8)).toBe('700');
    await p.close();
    expect(fs.existsSync(path.dirname(p.socketPath))).toBe(false);
    await expect(exchange(p.socketPath, 'CONNECT registry.test:1 HTTP/1.1\r\n\r\n')).rejects.toThrow(/ENOENT|ECONNREFUSED/);
  });
});

describe('the tally the event log is written from', () => {
  test('a flood of refusals becomes a bounded list: each destination once with its count, the rest counted', () => {
    const tally = new RefusalTally();
    for (let i = 0; i < 5000; i++) tally.add({ host: `h${i % 1000}.test`, port: 443, method: 'CONNECT', reason: 'not-listed' });
    tally.add({ host: 'x'.repeat(5000), port: null, method: 'GET', reason: 'bad-request' });
    const kept = tally.refused();
    expect(kept).toHaveLength(MAX_DESTINATIONS);
    expect(kept[0]).toEqual({ host: 'h0.test', port: 443, method: 'CONNECT', reason: 'not-listed', count: 5 });
    expect(tally.others()).toEqual({ destinations: 1000 - MAX_DESTINATIONS + 1, connections: 5000 - MAX_DESTINATIONS * 5 + 1 });
    expect(tally.total).toBe(5001);
  });
});
