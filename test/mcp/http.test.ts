import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { spawn, type ChildProcess } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { call, mcpProgram, REPO, tempRoot } from './helpers/server.js';

function rawPost(port: number, headers: Record<string, string>, body: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = http.request({ host: '127.0.0.1', port, path: '/mcp', method: 'POST', headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers } }, (res) => {
      res.resume();
      resolve(res.statusCode ?? 0);
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

  beforeAll(async () => {
    root = tempRoot({ 'a.txt': 'one\ntwo\n' });
    child = spawn(process.execPath, [mcpProgram(), 'mcp', '--root', root, '--http', '0'], { cwd: REPO, stdio: ['ignore', 'pipe', 'pipe'] });
    url = await new Promise<URL>((resolve, reject) => {
      let err = '';
      child.stderr?.on('data', (chunk: Buffer) => {
        err += chunk.toString('utf8');
        const m = /listening on (http:\/\/127\.0\.0\.1:\d+\/mcp)/.exec(err);
        if (m) resolve(new URL(m[1] as string));
      });
      child.once('exit', (code) => reject(new Error(`server exited (${code}): ${err}`)));
    });
  });
  afterAll(() => {
    child?.kill('SIGTERM');
  });

  it('serves the tools to the SDK client and edits through the runner', async () => {
    const client = new Client({ name: 'editwarden-http-test', version: '0' });
    await client.connect(new StreamableHTTPClientTransport(url));
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

  it('listens on the loopback address only', () => {
    expect(url.hostname).toBe('127.0.0.1');
  });
});
