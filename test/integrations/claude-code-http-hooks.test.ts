/**
 * Why `editwarden init claude` writes command hooks and not Claude Code's
 * `"type": "http"` hooks, shown on the real client (issue 44, "hooks without
 * a process"): an HTTP hook answered by the warm server would save the two
 * Node starts of every native edit, but only if a hook that cannot answer
 * blocks the tool. Claude Code (the pinned version) calls an HTTP hook and
 * obeys its deny — and lets the tool run when the hook's server is down,
 * answers 500, answers something that is not JSON, or does not answer in
 * time. A guard that a stopped server switches off is no guard, so the
 * command hook (which fails closed: docs/integrations.md, "Speed") stays.
 *
 * If a later Claude Code blocks on these failures, this test fails, and the
 * HTTP route can be reconsidered (docs/integrations.md, "HTTP hooks").
 * Gemini CLI (hook types `command` and `runtime`) and Codex (`command`,
 * `prompt`, `agent`, `mcp_tool`) have no HTTP hook to try.
 */
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CLAUDE, cleanup, project, runClaude, toolResults } from './helpers.js';

beforeAll(() => {
  expect(fs.existsSync(CLAUDE), `${CLAUDE} is missing; run npm ci`).toBe(true);
});
afterAll(cleanup);

/** An HTTP hook server on 127.0.0.1 whose answer depends on the file the tool writes; it records what it was asked. */
async function hookServer(): Promise<{ url: string; asked: string[]; close: () => Promise<void> }> {
  const asked: string[] = [];
  const held: http.ServerResponse[] = [];
  const server = http.createServer((req, res) => {
    let body = '';
    req.on('data', (d: Buffer) => (body += d.toString()));
    req.on('end', () => {
      const input = JSON.parse(body) as { hook_event_name: string; tool_input?: { file_path?: string } };
      const name = path.basename(input.tool_input?.file_path ?? '');
      asked.push(`${input.hook_event_name} ${name}`);
      if (name === 'error.txt') res.writeHead(500).end('{"error":"down for maintenance"}');
      else if (name === 'garbage.txt') res.writeHead(200, { 'content-type': 'application/json' }).end('{"hookSpecificOutput": {"permissionDecision": "deny"');
      else if (name === 'slow.txt')
        held.push(res); // answered never: the hook's 2 s timeout runs out
      else
        res
          .writeHead(200, { 'content-type': 'application/json' })
          .end(JSON.stringify({ hookSpecificOutput: { hookEventName: 'PreToolUse', permissionDecision: 'deny', permissionDecisionReason: 'E_HTTP_HOOK_TEST: refused by the HTTP hook' } }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/pre-tool-use`,
    asked,
    close: () => {
      for (const res of held) res.destroy();
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
}

/** A port on 127.0.0.1 nothing listens on (bound, then closed): a hook server that is down. */
async function closedPort(): Promise<number> {
  const s = http.createServer();
  await new Promise<void>((resolve) => s.listen(0, '127.0.0.1', resolve));
  const { port } = s.address() as AddressInfo;
  await new Promise((resolve) => s.close(resolve));
  return port;
}

describe('Claude Code’s HTTP hooks fail open: not a route for the guard', () => {
  it('obeys an HTTP hook’s deny, and runs the tool when the hook’s server is down, answers 500, answers garbage or times out', async () => {
    const server = await hookServer();
    const down = await closedPort();
    const root = project({ 'down.txt': 'old\n' });
    fs.mkdirSync(path.join(root, '.claude'));
    fs.writeFileSync(
      path.join(root, '.claude', 'settings.json'),
      JSON.stringify({
        hooks: {
          PreToolUse: [
            { matcher: 'Write', hooks: [{ type: 'http', url: server.url, timeout: 2 }] },
            { matcher: 'Edit', hooks: [{ type: 'http', url: `http://127.0.0.1:${down}/pre-tool-use`, timeout: 2 }] },
          ],
        },
      }),
    );
    try {
      const write = (name: string) => ({ name: 'Write', args: { file_path: path.join(root, name), content: `${name} written\n` } });
      const run = await runClaude(root, [
        write('deny.txt'),
        write('error.txt'),
        write('garbage.txt'),
        write('slow.txt'),
        { name: 'Read', args: { file_path: path.join(root, 'down.txt') } },
        { name: 'Edit', args: { file_path: path.join(root, 'down.txt'), old_string: 'old', new_string: 'new' } },
      ]);
      expect(run.code, run.stderr).toBe(0);
      const results = toolResults(run.requests);
      expect(results).toHaveLength(6);
      // The hook is called, and a deny it answers is obeyed: the HTTP route works when the server answers.
      expect(server.asked).toEqual(['PreToolUse deny.txt', 'PreToolUse error.txt', 'PreToolUse garbage.txt', 'PreToolUse slow.txt']);
      expect(results[0]).toContain('E_HTTP_HOOK_TEST');
      expect(fs.existsSync(path.join(root, 'deny.txt'))).toBe(false);
      // Every way of not answering lets the write through.
      for (const name of ['error.txt', 'garbage.txt', 'slow.txt']) expect(fs.readFileSync(path.join(root, name), 'utf8'), name).toBe(`${name} written\n`);
      expect(fs.readFileSync(path.join(root, 'down.txt'), 'utf8')).toBe('new\n');
    } finally {
      await server.close();
    }
  }, 180_000);
});
