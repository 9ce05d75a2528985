import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { pidRunning } from '../../src/verify/process-group.js';
import { call, connect, tempRoot, type Connected } from './helpers/server.js';
import { trustRepoConfig } from '../trust-config.js';

const cleanup: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const f of cleanup.splice(0).reverse()) await f();
});

async function waitFor(check: () => boolean, ms: number): Promise<boolean> {
  const until = Date.now() + ms;
  while (Date.now() < until) {
    if (check()) return true;
    await new Promise((r) => setTimeout(r, 25));
  }
  return check();
}

/** The build's own output and the server's stderr, for a failure message. */
function whatTheBuildSaid(root: string, server: Connected): string {
  const runs = path.join(root, '.editwarden/runs');
  const logs = fs.existsSync(runs) ? fs.readdirSync(runs, { recursive: true, encoding: 'utf8' }).filter((f) => f.endsWith('combined.log')) : [];
  const outputs = logs.map((f) => `${f}:\n${fs.readFileSync(path.join(runs, f), 'utf8')}`);
  return [...outputs, `server stderr:\n${server.stderr()}`].join('\n');
}

describe('editwarden mcp: a cancelled request', () => {
  it.each([
    ['headless', ['--headless']],
    ['interactive', []],
  ])(
    'stops a running verify (its process group killed) and the server answers the next call (%s)',
    async (_mode: string, flags: string[]) => {
      const pids = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'ew-mcp-pids-')));
      const pgidFile = path.join(pids, 'pgid');
      const root = tempRoot({
        'src/app.txt': 'alpha\n',
        // The start marker is written outside the root: a sandbox.writable folder.
        '.editwarden.yml': `verify:\n  build: "echo $$ > ${pgidFile}; sleep 30.6${flags.length}91"\n  test: "true"\nsandbox:\n  writable: ['${pids}']\n`,
      });
      // A writable host folder loosens the sandbox: the person trusts the file.
      trustRepoConfig(root);
      cleanup.push(() => {
        fs.rmSync(root, { recursive: true, force: true });
        fs.rmSync(pids, { recursive: true, force: true });
      });
      const server: Connected = await connect(['--root', root, ...flags]);
      cleanup.push(() => server.close());

      const controller = new AbortController();
      const pending = server.client.callTool({ name: 'verify', arguments: { kind: 'build' } }, undefined, { signal: controller.signal });
      const settled = pending.then(
        (answer) => `answered: ${JSON.stringify(answer.content)}`,
        (error: unknown) => `rejected: ${(error as Error).message}`,
      );
      // The build has started once it wrote its marker. A call that settles first (refused, failed) fails here with its answer,
      // a missing marker with what the build and the server printed: CI once saw no marker in 10 s, and nothing said why.
      const marked = waitFor(() => fs.existsSync(pgidFile) && fs.statSync(pgidFile).size > 0, 20_000).then((ok) => (ok ? 'started' : `no marker in 20 s\n${whatTheBuildSaid(root, server)}`));
      expect(await Promise.race([marked, settled])).toBe('started');
      await new Promise((r) => setTimeout(r, 300));
      controller.abort('the person pressed stop');
      expect(await settled).toMatch(/^rejected/);

      // The build's whole tree goes away without waiting out `sleep 30` (found by command line: pids inside the sandbox are its namespace's).
      const sleeping = () =>
        fs
          .readdirSync('/proc')
          .filter((p) => /^\d+$/.test(p))
          .filter((p) => {
            try {
              return fs.readFileSync(`/proc/${p}/cmdline`, 'utf8') === `sleep\u000030.6${flags.length}91\u0000` && pidRunning(Number(p));
            } catch {
              return false;
            }
          });
      expect(await waitFor(() => sleeping().length === 0, 20_000)).toBe(true);

      // The session is healthy: the next calls are answered, in the same run (a cancel is no violation, headless or not).
      const read = await call(server.client, 'read_file', { path: 'src/app.txt' });
      expect(read.isError).toBe(false);
      expect(read.text).toContain('1\talpha');
      const test = await call(server.client, 'verify', { kind: 'test' });
      expect(test.isError).toBe(false);
      expect(test.text).toContain('test passed');

      // The run's log has the cancelled call, recorded as cancelled by the client.
      const runs = path.join(root, '.editwarden/runs');
      const [run] = fs.readdirSync(runs);
      const calls = fs
        .readFileSync(path.join(runs, run as string, 'calls.jsonl'), 'utf8')
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l) as { tool: string; status: string; error?: { code: string } });
      expect(calls.map((c) => c.tool)).toEqual(['verify', 'read_file', 'verify']);
      expect(calls[0]).toMatchObject({ status: 'failed', error: { code: 'E_CANCELLED' } });
    },
    90_000,
  );
});
