import fs from 'node:fs';
import path from 'node:path';
import { spawn, type ChildProcess } from 'node:child_process';
import { afterEach, describe, expect, it } from 'vitest';
import { mcpProgram, REPO, tempRoot } from './helpers/server.js';

/** A raw `editwarden mcp` child: lines in, JSON-RPC lines out (no SDK between us and the bytes). */
interface Raw {
  child: ChildProcess;
  replies: () => Array<{ id?: unknown; error?: { code: number; message: string; data?: { code?: string } }; result?: { isError?: boolean; structuredContent?: { error?: { code: string } }; content?: Array<{ text: string }> } }>;
  send: (message: unknown) => void;
  sendRaw: (text: string) => void;
  waitFor: (id: unknown, ms: number) => Promise<number>;
  stderr: () => string;
  exited: Promise<number | null>;
}

const children: ChildProcess[] = [];
const roots: string[] = [];
afterEach(() => {
  for (const c of children.splice(0)) if (c.exitCode === null) c.kill('SIGKILL');
  for (const r of roots.splice(0)) fs.rmSync(r, { recursive: true, force: true });
});

function start(root: string): Raw {
  const child = spawn(process.execPath, [mcpProgram(), 'mcp', '--root', root], { stdio: ['pipe', 'pipe', 'pipe'], cwd: REPO, env: { ...process.env, NO_COLOR: '1' } });
  children.push(child);
  let out = '';
  let err = '';
  child.stdout?.on('data', (c: Buffer) => {
    out += c.toString('utf8');
  });
  child.stderr?.on('data', (c: Buffer) => {
    err += c.toString('utf8');
  });
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const replies = (): ReturnType<Raw['replies']> =>
    out
      .split('\n')
      .filter((l) => l.trim() !== '')
      .map((l) => JSON.parse(l) as ReturnType<Raw['replies']>[number]);
  const sendRaw = (text: string): void => {
    child.stdin?.write(text);
  };
  return {
    child,
    replies,
    send: (m) => sendRaw(`${JSON.stringify(m)}\n`),
    sendRaw,
    stderr: () => err,
    exited,
    waitFor: async (id, ms) => {
      const t0 = Date.now();
      while (Date.now() - t0 < ms) {
        if (replies().some((r) => r.id === id)) return Date.now() - t0;
        await new Promise((r) => setTimeout(r, 20));
      }
      throw new Error(`no reply with id ${JSON.stringify(id)} within ${ms} ms; stderr: ${err}`);
    },
  };
}

async function initialize(raw: Raw): Promise<void> {
  raw.send({ jsonrpc: '2.0', id: 'init', method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '0' } } });
  await raw.waitFor('init', 30_000);
  raw.send({ jsonrpc: '2.0', method: 'notifications/initialized' });
}

const toolCall = (id: unknown, name: string, args: Record<string, unknown>) => ({ jsonrpc: '2.0', id, method: 'tools/call', params: { name, arguments: args } });

describe('a catastrophic regular expression in search_files', () => {
  it('is stopped at search.timeout with E_SEARCH_TIMEOUT while a read_file sent after it is answered at once', async () => {
    // (a+)+$ against 40 a's and a "!" backtracks about 2^40 times: without a budget it never ends, so the search keeps a
    // core busy for the whole budget (CPU the suite pays). The budget is wide enough that the read sent 0.3 s after it
    // is answered inside it on a loaded machine too (seen at load 25 on 2 cores).
    const root = tempRoot({ 'evil.txt': `${'a'.repeat(40)}!\n`, 'a.txt': 'hello\n', '.editwarden.yml': 'search:\n  timeout: 2\n' });
    roots.push(root);
    const raw = start(root);
    await initialize(raw);
    const sent = Date.now();
    raw.send(toolCall('redos', 'search_files', { pattern: '(a+)+$', regex: true }));
    await new Promise((r) => setTimeout(r, 300));
    raw.send(toolCall('read', 'read_file', { path: 'a.txt' }));
    await raw.waitFor('read', 30_000);
    // The read was answered while the search was still running: its reply came first.
    expect(raw.replies().some((r) => r.id === 'redos')).toBe(false);
    const read = raw.replies().find((r) => r.id === 'read');
    expect(read?.result?.content?.[0]?.text).toContain('hello');

    // Stopped by its budget (never before it); without one it would not end in a lifetime, so the wait is only room.
    await raw.waitFor('redos', 30_000);
    const elapsed = Date.now() - sent;
    const redos = raw.replies().find((r) => r.id === 'redos');
    expect(redos?.result?.isError).toBe(true);
    expect(redos?.result?.structuredContent?.error?.code).toBe('E_SEARCH_TIMEOUT');
    expect(elapsed).toBeGreaterThanOrEqual(1_900);

    // The server goes on: an ordinary search works.
    raw.send(toolCall('next', 'search_files', { pattern: 'hel+o', regex: true }));
    await raw.waitFor('next', 5_000);
    expect(raw.replies().find((r) => r.id === 'next')?.result?.content?.[0]?.text).toContain('a.txt:1:hello');
    raw.child.stdin?.end();
    expect(await raw.exited).toBe(0);
  }, 60_000);

  it('refuses a glob over the complexity bounds with E_GLOB_TOO_COMPLEX before matching anything', async () => {
    const root = tempRoot({ [`${'a'.repeat(200)}.txt`]: 'x\n' });
    roots.push(root);
    const raw = start(root);
    await initialize(raw);
    raw.send(toolCall('g', 'search_files', { pattern: 'x', glob: '*a*a*a*a*a*a*b' }));
    // Refused by the bounds, not by a budget running out: the code says which.
    await raw.waitFor('g', 30_000);
    const reply = raw.replies().find((r) => r.id === 'g');
    expect(reply?.result?.structuredContent?.error?.code).toBe('E_GLOB_TOO_COMPLEX');
  }, 40_000);
});

describe('frames the server cannot use', () => {
  it('answers a frame over the size limit with an error under its id and keeps serving', async () => {
    const root = tempRoot({ 'a.txt': 'hello\n' });
    roots.push(root);
    const raw = start(root);
    await initialize(raw);
    // 65 MiB of one write_file: over MAX_MESSAGE_BYTES (64 MiB).
    const head = '{"jsonrpc":"2.0","id":"huge","method":"tools/call","params":{"name":"write_file","arguments":{"path":"big.txt","content":"';
    raw.sendRaw(head);
    const block = 'x'.repeat(1024 * 1024);
    for (let i = 0; i < 65; i++) {
      if (!raw.child.stdin?.write(block)) await new Promise((r) => raw.child.stdin?.once('drain', r));
    }
    raw.sendRaw('"}}}\n');
    await raw.waitFor('huge', 20_000);
    const huge = raw.replies().find((r) => r.id === 'huge');
    expect(huge?.error?.code).toBe(-32600);
    expect(huge?.error?.data?.code).toBe('E_TOO_LARGE');
    expect(fs.existsSync(path.join(root, 'big.txt'))).toBe(false);
    raw.send(toolCall('after', 'read_file', { path: 'a.txt' }));
    await raw.waitFor('after', 5_000);
    expect(raw.replies().find((r) => r.id === 'after')?.result?.content?.[0]?.text).toContain('hello');
    expect(raw.child.exitCode).toBeNull();
    raw.child.stdin?.end();
    expect(await raw.exited).toBe(0);
  }, 60_000);

  it('answers a line that is not JSON with a JSON-RPC parse error (-32700) and JSON that is not JSON-RPC with -32600', async () => {
    const root = tempRoot({ 'a.txt': 'hello\n' });
    roots.push(root);
    const raw = start(root);
    await initialize(raw);
    raw.sendRaw('this is not json\n');
    raw.sendRaw('{"jsonrpc":"2.0","id":7,"method":\n');
    raw.sendRaw('{"jsonrpc":"1.0","id":8}\n');
    raw.send(toolCall('ok', 'read_file', { path: 'a.txt' }));
    await raw.waitFor('ok', 5_000);
    await raw.waitFor(8, 5_000);
    const parseErrors = raw.replies().filter((r) => r.error?.code === -32700);
    expect(parseErrors.map((r) => r.id)).toEqual([null, 7]);
    expect(raw.replies().find((r) => r.id === 8)?.error?.code).toBe(-32600);
    raw.child.stdin?.end();
    expect(await raw.exited).toBe(0);
  }, 20_000);

  it('ends quietly (exit 0, no stack trace) when its reader closes stdout', async () => {
    const root = tempRoot({ 'a.txt': 'hello\n' });
    roots.push(root);
    const raw = start(root);
    await initialize(raw);
    raw.child.stdout?.destroy();
    // Answers that can no longer be written.
    for (let i = 0; i < 3; i++) raw.send(toolCall(`r${i}`, 'read_file', { path: 'a.txt' }));
    const code = await Promise.race([raw.exited, new Promise<'hung'>((r) => setTimeout(() => r('hung'), 10_000))]);
    expect(code).toBe(0);
    expect(raw.stderr()).not.toMatch(/EPIPE|\n\s+at /);
  }, 20_000);
});
