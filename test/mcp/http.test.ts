import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { spawn, type ChildProcess } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { spawnSync } from 'node:child_process';
import { call, mcpProgram, REPO, tempRoot } from './helpers/server.js';
import { tempDir } from '../temp-dirs.js';

/** The token the server printed at start (tests send it like a client would). */
let token = '';

function rawPost(port: number, headers: Record<string, string>, body: string): Promise<number> {
  return rawExchange(port, headers, body).then((r) => r.status);
}

function rawExchange(port: number, headers: Record<string, string>, body: string): Promise<{ status: number; body: string; authenticate: string | undefined }> {
  return new Promise((resolve, reject) => {
    const all = { 'content-type': 'application/json', accept: 'application/json, text/event-stream', authorization: `Bearer ${token}`, ...headers };
    const req = http.request({ host: '127.0.0.1', port, path: '/mcp', method: 'POST', headers: all }, (res) => {
      let text = '';
      res.on('data', (c: Buffer) => (text += c.toString('utf8')));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: text, authenticate: res.headers['www-authenticate'] }));
    });
    req.on('error', reject);
    req.end(body);
  });
}

const INIT = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'x', version: '0' } } });

describe('editwarden mcp --http: Streamable HTTP on 127.0.0.1', () => {
  let child: ChildProcess;
  let url: URL;
  let root: string;
  let tokenFile: string;

  beforeAll(async () => {
    root = tempRoot({ 'a.txt': 'one\ntwo\n' });
    // The token goes to the runtime folder: a private one for this file, never the real user's.
    const runtime = tempDir('ew-http-runtime-');
    child = spawn(process.execPath, [mcpProgram(), 'mcp', '--root', root, '--http', '0'], { cwd: REPO, stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, XDG_RUNTIME_DIR: runtime } });
    url = await new Promise<URL>((resolve, reject) => {
      let err = '';
      child.stderr?.on('data', (chunk: Buffer) => {
        err += chunk.toString('utf8');
        const m = /listening on (http:\/\/127\.0\.0\.1:\d+\/mcp)/.exec(err);
        const t = /token ([0-9a-f]{64}) \(in (\S+);/.exec(err);
        if (m && t) {
          token = t[1] as string;
          tokenFile = t[2] as string;
          resolve(new URL(m[1] as string));
        }
      });
      child.once('exit', (code) => reject(new Error(`server exited (${code}): ${err}`)));
    });
  });
  afterAll(() => {
    child?.kill('SIGTERM');
  });

  it('serves the tools to the SDK client and edits through the runner', async () => {
    const client = new Client({ name: 'editwarden-http-test', version: '0' });
    await client.connect(new StreamableHTTPClientTransport(url, { requestInit: { headers: { Authorization: `Bearer ${token}` } } }));
    try {
      const { tools } = await client.listTools();
      expect(tools.map((t) => t.name)).toContain('edit_file');
      const r = await call(client, 'edit_file', { path: 'a.txt', old_text: 'two', new_text: 'TWO' });
      expect(r.isError).toBe(false);
      expect(fs.readFileSync(path.join(root, 'a.txt'), 'utf8')).toBe('one\nTWO\n');
      const escape = await call(client, 'read_file', { path: '../a.txt' });
      expect(escape.error?.code).toBe('E_OUTSIDE_ROOT');
    } finally {
      await client.close();
    }
  });

  it('refuses a foreign Host header (DNS rebinding) and a foreign Origin (a web page)', async () => {
    const port = Number(url.port);
    expect(await rawPost(port, { host: `evil.example:${port}` }, INIT)).toBe(403);
    expect(await rawPost(port, { origin: 'https://evil.example' }, INIT)).toBe(403);
    expect(await rawPost(port, {}, INIT)).toBe(200);
  });

  it('answers a body that is not JSON, and a request without a session, with an error and keeps serving', async () => {
    const port = Number(url.port);
    expect(await rawPost(port, {}, '{not json')).toBe(400);
    expect(await rawPost(port, {}, JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/list' }))).toBe(400);
    expect(await rawPost(port, { 'mcp-session-id': 'nope' }, JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/list' }))).toBe(404);
    expect(await rawPost(port, {}, INIT)).toBe(200);
  });

  it('refuses every request without the bearer token, or with a wrong one: 401 with a JSON-RPC error, before anything else is read', async () => {
    const port = Number(url.port);
    for (const authorization of ['', 'Bearer', `Bearer ${token.slice(0, -1)}`, `Bearer ${token}0`, `Basic ${token}`, `Bearer ${'0'.repeat(64)}`]) {
      const r = await rawExchange(port, { authorization }, INIT);
      expect(r.status, authorization).toBe(401);
      expect(r.authenticate).toMatch(/^Bearer /);
      expect(JSON.parse(r.body)).toMatchObject({ jsonrpc: '2.0', error: { code: -32001, message: expect.stringContaining('Authorization: Bearer') }, id: null });
    }
    // Even a request that would fail the Host check is answered 401 first: nothing is said without the token.
    expect(await rawPost(port, { authorization: '', host: `evil.example:${port}` }, INIT)).toBe(401);
    expect(await rawPost(port, { authorization: `bearer ${token}` }, INIT)).toBe(200);
    // The real SDK client without the header cannot even initialize.
    const client = new Client({ name: 'no-token', version: '0' });
    await expect(client.connect(new StreamableHTTPClientTransport(url))).rejects.toThrow(/401|Unauthorized/);
  });

  it('keeps the token in a 0600 file inside a 0700 folder of its own', () => {
    expect(fs.readFileSync(tokenFile, 'utf8')).toBe(`${token}\n`);
    expect(fs.statSync(tokenFile).mode & 0o777).toBe(0o600);
    expect(fs.statSync(path.dirname(tokenFile)).mode & 0o777).toBe(0o700);
    expect(path.basename(tokenFile)).toBe(`mcp-${url.port}.token`);
  });

  it('listens on the loopback address only', () => {
    expect(url.hostname).toBe('127.0.0.1');
  });
});

describe('editwarden mcp --http --token-file', () => {
  /** Starts a server; resolves with its printed token once it listens, or with its exit code and stderr. */
  function start(args: string[]): Promise<{ token?: string; child: ChildProcess; code?: number | null; stderr: string }> {
    const child = spawn(process.execPath, [mcpProgram(), 'mcp', '--root', tempRoot(), '--http', '0', ...args], { cwd: REPO, stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, XDG_RUNTIME_DIR: tempDir('ew-http-runtime-') } });
    return new Promise((resolve) => {
      let stderr = '';
      child.stderr?.on('data', (chunk: Buffer) => {
        stderr += chunk.toString('utf8');
        const t = /token ([0-9a-f]+) \(in /.exec(stderr);
        if (t) resolve({ token: t[1] as string, child, stderr });
      });
      child.once('exit', (code) => resolve({ child, code, stderr }));
    });
  }

  it('uses the token the person keeps in the file, and leaves the file when it stops', async () => {
    const file = path.join(tempDir('ew-token-'), 'mcp.token');
    const mine = 'ab'.repeat(32);
    fs.writeFileSync(file, `${mine}\n`, { mode: 0o600 });
    const r = await start(['--token-file', file]);
    expect(r.token).toBe(mine);
    const exited = new Promise((resolve) => r.child.once('exit', resolve));
    r.child.kill('SIGTERM');
    await exited;
    expect(fs.readFileSync(file, 'utf8')).toBe(`${mine}\n`);
  });

  it('writes a fresh token to a named file that does not exist yet (0600)', async () => {
    const file = path.join(tempDir('ew-token-'), 'new.token');
    const r = await start(['--token-file', file]);
    expect(r.token).toMatch(/^[0-9a-f]{64}$/);
    expect(fs.readFileSync(file, 'utf8')).toBe(`${r.token}\n`);
    expect(fs.statSync(file).mode & 0o777).toBe(0o600);
    r.child.kill('SIGTERM');
  });

  it('refuses a token file others may read, or a short token (exit 64, nothing served)', async () => {
    const dir = tempDir('ew-token-');
    const open = path.join(dir, 'open.token');
    fs.writeFileSync(open, `${'cd'.repeat(32)}\n`, { mode: 0o644 });
    fs.chmodSync(open, 0o644);
    const loose = await start(['--token-file', open]);
    expect(loose.code).toBe(64);
    expect(loose.stderr).toContain('is not private');
    const short = path.join(dir, 'short.token');
    fs.writeFileSync(short, 'secret\n', { mode: 0o600 });
    const weak = await start(['--token-file', short]);
    expect(weak.code).toBe(64);
    expect(weak.stderr).toContain('shorter than 32 characters');
    // A token folder others may write: a token file there could be swapped.
    const shared = path.join(dir, 'shared');
    fs.mkdirSync(shared);
    fs.chmodSync(shared, 0o777);
    const swapped = await start(['--token-file', path.join(shared, 'mcp.token')]);
    expect(swapped.code).toBe(64);
    expect(swapped.stderr).toContain('not writable by group or others');
    const stdio = spawnSync(process.execPath, [mcpProgram(), 'mcp', '--token-file', short], { encoding: 'utf8', input: '' });
    expect(stdio.status).toBe(64);
    expect(stdio.stderr).toContain('--token-file applies to --http only');
  });
});
