/**
 * The real Claude Code (devDependency, scripted model on 127.0.0.1) after
 * `editwarden init claude`, its Bash calls rewritten by the PreToolUse hook
 * into `editwarden shell … -- '<command>'`, run by the thin shell client
 * through a warm hook server of this test's own — against the same session
 * with the server turned off (EDITWARDEN_HOOK_SERVER=off: the in-process
 * route). The model reads the same tool results; the projects end in the
 * same state with the same undo steps; the server served every Bash call.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { editwardenHere } from './cli-in-process.js';
import { CLAUDE, cleanup, editwarden, project, runClaude, tempDir, toolResults } from './helpers.js';
import { endServers, runtimeEnv, shellsServed, warmServer } from './warm-server.js';

beforeAll(() => {
  expect(fs.existsSync(CLAUDE), `${CLAUDE} is missing; run npm ci`).toBe(true);
});
afterAll(cleanup);
afterEach(endServers);

const FILES = { 'src/a.ts': 'export const a = 1;\n', 'notes.txt': 'one\n', '.editwarden.yml': 'constraints:\n  max_files: 2\n' };
const CALLS = [
  { name: 'Bash', args: { command: "printf 'out\\n'; printf 'err\\n' >&2; echo two >> notes.txt", description: 'append' } },
  { name: 'Bash', args: { command: 'rm -rf src && echo removed; exit 4', description: 'wipe' } },
  // Over the session's limits (2 files): refused, its changes put back.
  { name: 'Bash', args: { command: 'echo x > x.txt; echo y > y.txt', description: 'two more' } },
];

/** A session whose hooks and shell reach the server of `env` (only its runtime folder is the client's: PATH, HOME stay runClaude's), or none with `off`. */
async function session(env: NodeJS.ProcessEnv, home: string, off = false): Promise<{ root: string; results: string[]; undo: string }> {
  const root = project(FILES);
  const init = await editwardenHere(['init', 'claude', '--root', root]);
  expect(init.code, init.stderr).toBe(0);
  const clientEnv: NodeJS.ProcessEnv = { XDG_RUNTIME_DIR: env.XDG_RUNTIME_DIR, ...(off ? { EDITWARDEN_HOOK_SERVER: 'off' } : {}) };
  const run = await runClaude(root, CALLS, ['--allowedTools', 'Bash'], 120_000, { env: clientEnv, home });
  expect(run.code, run.stderr).toBe(0);
  const results = toolResults(run.requests).map((r) => r.replaceAll(root, '<root>'));
  expect(results, run.stdout).toHaveLength(CALLS.length);
  const list = editwarden(['undo', '--list', '--root', root], { env: { ...process.env, EDITWARDEN_HOOK_SERVER: 'off' } });
  // The step ids and times are the run's own.
  const undo = list.stdout
    .replace(/\d{4}-\d\d-\d\dT[\d:.]+Z/g, '<time>')
    .replace(/\d{8}-\d{6}-\d{3}-[0-9a-f]{4}/g, '<step>')
    .replace(/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g, '<session>');
  return { root, results, undo };
}

describe("Claude Code's Bash through the thin shell client and the warm server", () => {
  it('gives the model the same results as the in-process route, and leaves the same files and undo steps', async () => {
    // The server must outlive two whole Claude Code sessions: at a load of 35 one session's start and end took longer
    // than the helpers' 20 s idle time, and the server had left before it was asked what it served.
    const env = runtimeEnv({ EDITWARDEN_HOOK_SERVER_IDLE_MS: '180000' });
    await warmServer(env);
    // One person: the same HOME for both sessions (their config's path is in a refusal's hint).
    const home = tempDir('ew-home-');
    const served = await session(env, home);
    expect(await shellsServed(env)).toBe(CALLS.length);
    const here = await session(env, home, true);
    // The in-process session did not reach the server.
    expect(await shellsServed(env)).toBe(CALLS.length);
    expect(served.results).toEqual(here.results);
    expect(served.results[1]).toContain('removed');
    expect(served.results[2]).toContain('E_CONSTRAINT');
    expect(served.undo).toBe(here.undo);
    expect(served.undo).toContain('claude Bash: rm -rf src');
    for (const rel of ['notes.txt', 'x.txt', 'y.txt', 'src/a.ts']) {
      const read = (root: string): string | null => (fs.existsSync(path.join(root, rel)) ? fs.readFileSync(path.join(root, rel), 'utf8') : null);
      expect(read(served.root), rel).toBe(read(here.root));
    }
  }, 300_000);
});
