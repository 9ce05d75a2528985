/**
 * `editwarden wrap -- <agent…>`: an agent with no hooks, run whole in the
 * sandbox by the real binary. The agent is a small program
 * (test/fixtures/wrap/agent.mjs) that writes files and opens sockets with
 * plain system calls, so what holds here holds for any agent: what it
 * changes lands and is undone byte-exact, a write outside the root and a
 * connection to another local port fail, a protected path it creates or
 * changes is put back, and without bubblewrap it never starts.
 */
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import https from 'node:https';
import net from 'node:net';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { startScriptedServer } from '../../src/agent/providers/scripted-server.js';
import { readEvents } from '../../src/runs/events-read.js';
import { BIN, cleanup, editwarden, project, tempDir } from './helpers.js';

afterEach(cleanup);

const AGENT = path.resolve(import.meta.dirname, '../fixtures/wrap/agent.mjs');
/** A self-signed certificate for 127.0.0.1 (valid to 2126), test data only: the TLS model endpoint's. */
const TLS = path.resolve(import.meta.dirname, '../fixtures/wrap/tls');

interface Action {
  name: string;
  arguments: Record<string, unknown>;
}
interface Outcome {
  code: number | null;
  stdout: string;
  stderr: string;
  results: Array<{ action: string; ok: boolean; result?: string; error?: string }>;
}

/** A git project holding `files` and the agent program (committed: it is not the agent's change). */
function agentProject(files: Record<string, string | Buffer>): string {
  const root = project({});
  for (const [rel, data] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(root, rel)), { recursive: true });
    fs.writeFileSync(path.join(root, rel), data);
  }
  fs.copyFileSync(AGENT, path.join(root, 'agent.mjs'));
  git(root, 'add', '-A');
  git(root, '-c', 'user.email=t@t', '-c', 'user.name=t', 'commit', '-qm', 'start');
  return root;
}

function git(root: string, ...args: string[]): string {
  return spawnSync('git', args, { cwd: root, encoding: 'utf8' }).stdout;
}

/** `editwarden wrap [flags] -- node agent.mjs <actions>` in `root`, without blocking this process (a server here must answer). */
function wrap(root: string, flags: string[], actions: Action[], env: NodeJS.ProcessEnv = process.env): Promise<Outcome> {
  return wrapAgent(root, flags, [JSON.stringify(actions)], env);
}

/** `editwarden wrap [flags] -- node agent.mjs <args>` (`--model URL`: the agent asks the model what to do). */
function wrapAgent(root: string, flags: string[], agentArgs: string[], env: NodeJS.ProcessEnv = process.env): Promise<Outcome> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [BIN, 'wrap', ...flags, '--', process.execPath, 'agent.mjs', ...agentArgs], { cwd: root, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
    const timer = setTimeout(() => child.kill('SIGKILL'), 60_000);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      const results = stdout
        .split('\n')
        .filter((l) => l.startsWith('{'))
        .map((l) => JSON.parse(l) as Outcome['results'][number]);
      resolve({ code, stdout, stderr, results });
    });
  });
}

/** Every file of the project but git's and editwarden's own, with its bytes. */
function snapshot(root: string): Map<string, string> {
  const out = new Map<string, string>();
  const walk = (dir: string): void => {
    for (const e of fs.readdirSync(path.join(root, dir), { withFileTypes: true })) {
      const rel = dir === '' ? e.name : `${dir}/${e.name}`;
      if (rel === '.git' || rel === '.editwarden') continue;
      if (e.isDirectory()) walk(rel);
      else out.set(rel, fs.readFileSync(path.join(root, rel)).toString('base64'));
    }
  };
  walk('');
  return out;
}

describe('edits land and undo restores them byte-exact', () => {
  it('the whole run is one undo step with --step-after 0s', async () => {
    const root = agentProject({ 'a.txt': 'one\r\ntwo\r\n', 'bin.dat': Buffer.from([0, 1, 2, 255, 254]), 'src/keep.ts': 'export const k = 1;\n' });
    const before = snapshot(root);
    const ran = await wrap(
      root,
      ['--step-after', '0s'],
      [
        { name: 'write', arguments: { path: 'a.txt', content: 'ONE\r\ntwo\r\nthree\r\n' } },
        { name: 'remove', arguments: { path: 'bin.dat' } },
        { name: 'write', arguments: { path: 'new/deep/c.bin', content: '//79AAE=', encoding: 'base64' } },
        { name: 'append', arguments: { path: 'src/keep.ts', content: 'export const j = 2;\n' } },
      ],
    );
    expect(ran.code, ran.stderr).toBe(0);
    expect(ran.results.every((r) => r.ok)).toBe(true);
    expect(fs.readFileSync(path.join(root, 'a.txt'), 'utf8')).toBe('ONE\r\ntwo\r\nthree\r\n');
    expect(fs.existsSync(path.join(root, 'bin.dat'))).toBe(false);
    expect(fs.readFileSync(path.join(root, 'new/deep/c.bin'))).toEqual(Buffer.from([0xff, 0xfe, 0xfd, 0, 1]));

    // Recorded while it ran: one edit event with the diff and the undo step, then the run's command event.
    const events = readEvents(path.join(root, '.editwarden')).events.filter((e) => e.route.via === 'wrap');
    const edits = events.filter((e) => e.kind === 'edit');
    expect(edits).toHaveLength(1);
    expect(new Set(edits[0]?.paths)).toEqual(new Set(['a.txt', 'bin.dat', 'new/deep/c.bin', 'src/keep.ts']));
    expect(edits[0]?.checkpoint).toBeTruthy();
    expect(events.at(-1)).toMatchObject({ kind: 'command', tool: 'wrap', exit_code: 0 });
    expect(ran.stderr).toContain('editwarden undo');

    const undo = editwarden(['undo'], { cwd: root });
    expect(undo.code, undo.stderr).toBe(0);
    expect(snapshot(root)).toEqual(before);
  });

  it('a quiet period ends a step: two bursts of writes are two undo steps', async () => {
    const root = agentProject({ 'a.txt': 'a\n' });
    const ran = await wrap(
      root,
      ['--step-after', '0.4s'],
      [
        { name: 'write', arguments: { path: 'first.txt', content: '1\n' } },
        { name: 'sleep', arguments: { ms: 2000 } },
        { name: 'write', arguments: { path: 'second.txt', content: '2\n' } },
      ],
    );
    expect(ran.code, ran.stderr).toBe(0);
    const edits = readEvents(path.join(root, '.editwarden')).events.filter((e) => e.route.via === 'wrap' && e.kind === 'edit');
    expect(edits.map((e) => e.paths)).toEqual([['first.txt'], ['second.txt']]);
    expect(editwarden(['undo'], { cwd: root }).code).toBe(0);
    expect(fs.existsSync(path.join(root, 'second.txt'))).toBe(false);
    expect(fs.existsSync(path.join(root, 'first.txt'))).toBe(true);
    expect(editwarden(['undo'], { cwd: root }).code).toBe(0);
    expect(fs.existsSync(path.join(root, 'first.txt'))).toBe(false);
  });

  it("the agent's git commit is part of its step: undo gives back HEAD and the files", async () => {
    const root = agentProject({ 'a.txt': 'a\n' });
    const head = git(root, 'rev-parse', 'HEAD').trim();
    const ran = await wrap(
      root,
      ['--step-after', '0s'],
      [
        { name: 'write', arguments: { path: 'a.txt', content: 'changed\n' } },
        { name: 'exec', arguments: { argv: ['git', '-c', 'user.email=a@a', '-c', 'user.name=a', 'commit', '-qam', 'by the agent'] } },
      ],
    );
    expect(ran.code, ran.stderr).toBe(0);
    expect(ran.results.map((r) => r.ok)).toEqual([true, true]);
    expect(git(root, 'rev-parse', 'HEAD').trim()).not.toBe(head);
    expect(editwarden(['undo'], { cwd: root }).code).toBe(0);
    expect(git(root, 'rev-parse', 'HEAD').trim()).toBe(head);
    expect(fs.readFileSync(path.join(root, 'a.txt'), 'utf8')).toBe('a\n');
  });
});

describe('the sandbox holds the whole agent', () => {
  it('a write outside the root fails and never reaches the host', async () => {
    const root = agentProject({ 'a.txt': 'a\n' });
    const outside = tempDir('ew-wrap-outside-');
    const ran = await wrap(
      root,
      ['--step-after', '0s'],
      [
        { name: 'write', arguments: { path: path.join(outside, 'x.txt'), content: 'escaped' } },
        { name: 'write', arguments: { path: path.join(path.dirname(root), 'sibling.txt'), content: 'escaped' } },
        { name: 'write', arguments: { path: '/usr/ew-wrap-probe.txt', content: 'escaped' } },
        { name: 'write', arguments: { path: '../up.txt', content: 'escaped' } },
      ],
    );
    expect(ran.code, ran.stderr).toBe(0);
    // The host's view: nothing was written anywhere outside the root.
    expect(fs.readdirSync(outside)).toEqual([]);
    expect(fs.existsSync(path.join(path.dirname(root), 'sibling.txt'))).toBe(false);
    expect(fs.existsSync('/usr/ew-wrap-probe.txt')).toBe(false);
    expect(fs.existsSync(path.join(path.dirname(root), 'up.txt'))).toBe(false);
    // The agent's view: the OS refused (the sandbox's /tmp is its own, so a path under it may "succeed" in there).
    expect(ran.results.find((r) => r.action === 'write' && r.error === 'EROFS')).toBeTruthy();
  });

  it('a connection to any other local port fails', async () => {
    const root = agentProject({ 'a.txt': 'a\n' });
    let accepted = 0;
    const server = net.createServer((s) => {
      accepted++;
      s.destroy();
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const port = (server.address() as net.AddressInfo).port;
    try {
      const ran = await wrap(
        root,
        ['--step-after', '0s'],
        [
          { name: 'connect', arguments: { host: '127.0.0.1', port } },
          { name: 'connect', arguments: { host: '::1', port } },
        ],
      );
      expect(ran.code, ran.stderr).toBe(0);
      expect(ran.results.map((r) => r.ok)).toEqual([false, false]);
      expect(accepted).toBe(0);
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
  });

  it('protected paths: .git/config cannot be written; .editwarden.yml and client settings it creates are put back and logged', async () => {
    const root = agentProject({ 'a.txt': 'a\n' });
    const gitConfig = fs.readFileSync(path.join(root, '.git/config'));
    const ran = await wrap(
      root,
      [],
      [
        { name: 'append', arguments: { path: '.git/config', content: '[core]\n\thooksPath = /tmp/evil\n' } },
        { name: 'write', arguments: { path: '.git/hooks/pre-commit', content: '#!/bin/sh\necho owned\n' } },
        { name: 'write', arguments: { path: '.editwarden.yml', content: 'sandbox:\n  network: true\n' } },
        { name: 'write', arguments: { path: '.claude/settings.json', content: '{"hooks":{}}' } },
        { name: 'write', arguments: { path: 'a.txt', content: 'b\n' } },
        // Still running when the put-back happens: a protected path is put back at once, not at the end of the step.
        { name: 'sleep', arguments: { ms: 1500 } },
        { name: 'exists', arguments: { path: '.editwarden.yml' } },
        { name: 'exists', arguments: { path: '.claude/settings.json' } },
        { name: 'exists', arguments: { path: 'a.txt' } },
      ],
    );
    expect(ran.code, ran.stderr).toBe(0);
    expect(ran.results.slice(0, 2).map((r) => r.error)).toEqual(['EROFS', 'EROFS']);
    expect(fs.readFileSync(path.join(root, '.git/config'))).toEqual(gitConfig);
    expect(fs.existsSync(path.join(root, '.git/hooks/pre-commit'))).toBe(false);
    expect(fs.existsSync(path.join(root, '.editwarden.yml'))).toBe(false);
    expect(fs.existsSync(path.join(root, '.claude/settings.json'))).toBe(false);
    expect(fs.readFileSync(path.join(root, 'a.txt'), 'utf8')).toBe('b\n');
    const events = readEvents(path.join(root, '.editwarden')).events.filter((e) => e.route.via === 'wrap');
    const refused = events.filter((e) => e.kind === 'refusal').flatMap((e) => e.paths);
    expect(refused).toEqual(expect.arrayContaining(['.editwarden.yml', '.claude/settings.json']));
    // Put back while the agent still ran (it saw them gone), with the default quiet period far from over.
    expect(ran.results.slice(-3).map((r) => r.result)).toEqual(['false', 'false', 'true']);
    expect(ran.stderr).toContain('E_DENIED_PATH');
  });

  it('the environment: a model key reaches the agent only when the person names it', async () => {
    const root = agentProject({ 'a.txt': 'a\n' });
    const env = { ...process.env, ANTHROPIC_API_KEY: 'sk-ant-named', OPENAI_API_KEY: 'sk-openai-not-named', GITHUB_TOKEN: 'ghp-not-named', LANG: 'C.UTF-8' };
    const names = ['ANTHROPIC_API_KEY', 'OPENAI_API_KEY', 'GITHUB_TOKEN', 'LANG'];
    const named = await wrap(root, ['--step-after', '0s', '--pass-env', 'ANTHROPIC_API_KEY'], [{ name: 'env', arguments: { names } }], env);
    expect(JSON.parse(named.results[0]?.result ?? '{}')).toEqual({ ANTHROPIC_API_KEY: 'sk-ant-named', OPENAI_API_KEY: null, GITHUB_TOKEN: null, LANG: 'C.UTF-8' });
    const unnamed = await wrap(root, ['--step-after', '0s'], [{ name: 'env', arguments: { names } }], env);
    expect(JSON.parse(unnamed.results[0]?.result ?? '{}')).toEqual({ ANTHROPIC_API_KEY: null, OPENAI_API_KEY: null, GITHUB_TOKEN: null, LANG: 'C.UTF-8' });
    // A name that is not set is a usage error: the agent would otherwise start without the key it needs.
    const missing = await wrap(root, ['--pass-env', 'NOT_SET_ANYWHERE_KEY'], [{ name: 'write', arguments: { path: 'ran.txt', content: 'x' } }], env);
    expect(missing.code).toBe(64);
    expect(missing.stderr).toContain('E_USAGE');
    expect(fs.existsSync(path.join(root, 'ran.txt'))).toBe(false);
  });
});

/** A local HTTP server that counts what reaches it (the host service the agent must not reach). */
async function countingServer(): Promise<{ port: number; hits: () => number; close: () => Promise<void> }> {
  let hits = 0;
  const server = http.createServer((_req, res) => {
    hits++;
    res.end('reached');
  });
  server.on('connection', () => hits++);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { port: (server.address() as net.AddressInfo).port, hits: () => hits, close: () => new Promise((resolve) => server.close(() => resolve())) };
}

type ChatBody = { messages?: Array<{ role: string; content?: string }> };

/** The tool results the agent sent back to the model, in order (from the model's last request). */
function toolResultsOf(bodies: readonly unknown[]): string[] {
  const last = bodies.at(-1) as ChatBody | undefined;
  return (last?.messages ?? []).filter((m) => m.role === 'tool').map((m) => m.content ?? '');
}

describe('the model endpoint is reachable, and nothing else', () => {
  it('a scripted model over plain HTTP on 127.0.0.1 (--model-url): its edits land and are undone; another local port and another host are refused and logged', async () => {
    const root = agentProject({ 'a.txt': 'before\n' });
    const before = snapshot(root);
    const other = await countingServer();
    const server = await startScriptedServer({
      turns: [
        { tool_calls: [{ name: 'write', arguments: { path: 'a.txt', content: 'written by the model\n' } }] },
        { tool_calls: [{ name: 'write', arguments: { path: 'src/new.ts', content: 'export const x = 1;\n' } }] },
        { tool_calls: [{ name: 'connect', arguments: { host: '127.0.0.1', port: other.port } }] },
        { tool_calls: [{ name: 'fetch', arguments: { url: `http://127.0.0.1:${other.port}/` } }] },
        { tool_calls: [{ name: 'fetch', arguments: { url: 'http://example.com/' } }] },
        { text: 'done' },
      ],
    });
    try {
      const ran = await wrapAgent(root, ['--step-after', '0s', '--model-url', server.openaiBaseUrl], ['--model', server.openaiBaseUrl]);
      expect(ran.code, ran.stderr).toBe(0);
      expect(server.requests).toHaveLength(6);
      const results = toolResultsOf(server.requests.map((r) => r.body));
      expect(results.slice(0, 2)).toEqual(['written', 'written']);
      // Its own loopback is not the host's: a direct connection finds nothing.
      expect(results[2]).toMatch(/^error: ECONNREFUSED/);
      // Through the proxy: refused with editwarden's code (the model reads the proxy's answer).
      expect(results[3]).toMatch(/^403 .*E_NETWORK_REFUSED/);
      expect(results[4]).toMatch(/^403 .*E_NETWORK_REFUSED/);
      expect(other.hits()).toBe(0);
      expect(fs.readFileSync(path.join(root, 'a.txt'), 'utf8')).toBe('written by the model\n');

      const events = readEvents(path.join(root, '.editwarden')).events.filter((e) => e.route.via === 'wrap');
      const refused = events.filter((e) => e.kind === 'network').map((e) => (e as { host?: string; port?: number | null }).host + ':' + (e as { port?: number | null }).port);
      expect(refused).toEqual(expect.arrayContaining([`127.0.0.1:${other.port}`, 'example.com:80']));
      expect(editwarden(['undo'], { cwd: root }).code).toBe(0);
      expect(snapshot(root)).toEqual(before);
    } finally {
      await server.close();
      await other.close();
    }
  });

  it('without --model-url the agent cannot reach its model at all', async () => {
    const root = agentProject({ 'a.txt': 'a\n' });
    const server = await startScriptedServer({ turns: [{ tool_calls: [{ name: 'write', arguments: { path: 'a.txt', content: 'x\n' } }] }, { text: 'done' }] });
    try {
      const ran = await wrapAgent(root, ['--step-after', '0s'], ['--model', server.openaiBaseUrl]);
      expect(ran.code).not.toBe(0);
      expect(server.requests).toHaveLength(0);
      expect(fs.readFileSync(path.join(root, 'a.txt'), 'utf8')).toBe('a\n');
    } finally {
      await server.close();
    }
  });

  it('a model over TLS (https, a CONNECT tunnel through the proxy): its edits land; a tunnel to another port is refused', async () => {
    const root = agentProject({ 'a.txt': 'before\n' });
    fs.copyFileSync(path.join(TLS, 'model-endpoint.crt'), path.join(root, 'model.crt'));
    git(root, 'add', 'model.crt');
    git(root, '-c', 'user.email=t@t', '-c', 'user.name=t', 'commit', '-qm', 'ca');
    const other = await countingServer();
    const turns = [{ tool_calls: [{ name: 'write', arguments: { path: 'a.txt', content: 'over tls\n' } }] }, { tool_calls: [{ name: 'fetch', arguments: { url: `https://127.0.0.1:${other.port}/`, ca: 'model.crt' } }] }, { text: 'done' }];
    const bodies: unknown[] = [];
    const model = https.createServer({ key: fs.readFileSync(path.join(TLS, 'model-endpoint.key')), cert: fs.readFileSync(path.join(TLS, 'model-endpoint.crt')) }, (req, res) => {
      let text = '';
      req.on('data', (c: Buffer) => (text += c.toString()));
      req.on('end', () => {
        bodies.push(JSON.parse(text));
        const turn = turns[bodies.length - 1] ?? { text: 'done' };
        const tool_calls = (turn.tool_calls ?? []).map((c, i) => ({ id: `call_${bodies.length}_${i}`, type: 'function', function: { name: c.name, arguments: JSON.stringify(c.arguments) } }));
        res.setHeader('content-type', 'application/json');
        res.end(JSON.stringify({ choices: [{ message: { role: 'assistant', content: turn.text ?? null, ...(tool_calls.length > 0 ? { tool_calls } : {}) } }] }));
      });
    });
    await new Promise<void>((resolve) => model.listen(0, '127.0.0.1', resolve));
    const base = `https://127.0.0.1:${(model.address() as net.AddressInfo).port}/v1`;
    try {
      const ran = await wrapAgent(root, ['--step-after', '0s', '--model-url', base], ['--model', base, '--ca', 'model.crt']);
      expect(ran.code, ran.stderr).toBe(0);
      expect(bodies).toHaveLength(3);
      const results = toolResultsOf(bodies);
      expect(results[0]).toBe('written');
      // The tunnel to another port of the host is refused before TLS starts.
      expect(results[1]).toMatch(/^error: HTTP 403/);
      expect(other.hits()).toBe(0);
      expect(fs.readFileSync(path.join(root, 'a.txt'), 'utf8')).toBe('over tls\n');
      expect(editwarden(['undo'], { cwd: root }).code).toBe(0);
      expect(fs.readFileSync(path.join(root, 'a.txt'), 'utf8')).toBe('before\n');
    } finally {
      await new Promise((resolve) => model.close(resolve));
      await other.close();
    }
  });

  it('a host pattern that is not one is a usage error, and the agent never starts', async () => {
    const root = agentProject({ 'a.txt': 'a\n' });
    const ran = await wrap(root, ['--allow-host', '*.com'], [{ name: 'write', arguments: { path: 'ran.txt', content: 'x' } }]);
    expect(ran.code).toBe(64);
    expect(ran.stderr).toContain('E_USAGE');
    expect(ran.stderr).toContain('--allow-host');
    expect(fs.existsSync(path.join(root, 'ran.txt'))).toBe(false);
  });
});

describe('fail closed', () => {
  it('without bubblewrap the agent is refused with E_UNSANDBOXED and a hint, and never runs', async () => {
    const root = agentProject({ 'a.txt': 'a\n' });
    const ran = await wrap(root, [], [{ name: 'write', arguments: { path: 'ran.txt', content: 'unguarded' } }], { ...process.env, EDITWARDEN_BWRAP: '/nonexistent/bwrap' });
    expect(ran.code).toBe(1);
    expect(ran.stderr).toContain('E_UNSANDBOXED');
    expect(ran.stderr).toMatch(/hint: .*bubblewrap/i);
    expect(ran.results).toEqual([]);
    expect(fs.existsSync(path.join(root, 'ran.txt'))).toBe(false);
  });

  it('with the sandbox turned off in the config the agent is refused too (wrap has no unsandboxed mode)', async () => {
    const root = agentProject({ 'a.txt': 'a\n' });
    const home = tempDir('ew-wrap-home-');
    fs.mkdirSync(path.join(home, '.config/editwarden'), { recursive: true });
    fs.writeFileSync(path.join(home, '.config/editwarden/config.yml'), 'sandbox:\n  enabled: false\n  allow_unsandboxed: true\n');
    const ran = await wrap(root, [], [{ name: 'write', arguments: { path: 'ran.txt', content: 'unguarded' } }], { ...process.env, HOME: home, XDG_CONFIG_HOME: path.join(home, '.config') });
    expect(ran.code).toBe(1);
    expect(ran.stderr).toContain('E_UNSANDBOXED');
    expect(fs.existsSync(path.join(root, 'ran.txt'))).toBe(false);
  });
});
