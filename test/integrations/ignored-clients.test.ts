/**
 * Issue 37.4 with the real clients (devDependencies, scripted model on
 * 127.0.0.1, a temp project — never this repository): a session's shell
 * `git clean -fdx` deletes the person's ignored `.env`, `data/local.db` and
 * `debug.log`, and one `editwarden undo` brings all three back byte-exact,
 * modes included. `data/local.db` is a real SQLite database of ~2 MiB
 * written by the `sqlite3` process (a process writing 2 MiB of random bytes
 * where sqlite3 is not installed). A file over the cap the same command
 * rewrote is named in the command's result and in undo.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { editwardenHere } from './cli-in-process.js';
import { CLAUDE, GEMINI, cleanup, editwarden, functionResponses, project, runClaude, runGemini, toolResults } from './helpers.js';

beforeAll(() => {
  expect(fs.existsSync(CLAUDE), `${CLAUDE} is missing; run npm ci`).toBe(true);
  expect(fs.existsSync(GEMINI), `${GEMINI} is missing; run npm ci`).toBe(true);
});
afterAll(cleanup);

const FILES = ['.env', 'data/local.db', 'debug.log'];

/** The person's project: tracked sources, and the ignored files git cannot bring back. */
function personProject(): { root: string; before: Record<string, { bytes: Buffer; mode: number }> } {
  const root = project({ '.gitignore': '.env\ndata/\n*.log\n', 'src/a.ts': 'export const a = 1;\n' });
  fs.writeFileSync(path.join(root, '.env'), 'API_KEY=person-secret\n', { mode: 0o600 });
  fs.chmodSync(path.join(root, '.env'), 0o600);
  fs.writeFileSync(path.join(root, 'debug.log'), 'started\nrequest 1\n');
  fs.chmodSync(path.join(root, 'debug.log'), 0o640);
  fs.mkdirSync(path.join(root, 'data'));
  const db = path.join(root, 'data', 'local.db');
  const sql = 'CREATE TABLE t(b BLOB); WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x+1 FROM c WHERE x<500) INSERT INTO t SELECT randomblob(4000) FROM c;';
  if (spawnSync('sqlite3', [db, sql]).status !== 0) execFileSync(process.execPath, ['-e', `require('fs').writeFileSync(${JSON.stringify(db)}, require('crypto').randomBytes(2 << 20))`]);
  // Over the default cap (checkpoints.ignored.max_file_bytes, 16 MiB): never kept, so named when the command deletes it.
  fs.writeFileSync(path.join(root, 'huge.log'), Buffer.alloc(17 * 1024 * 1024, 1));
  const before: Record<string, { bytes: Buffer; mode: number }> = {};
  for (const rel of FILES) before[rel] = { bytes: fs.readFileSync(path.join(root, rel)), mode: fs.statSync(path.join(root, rel)).mode & 0o7777 };
  expect(before['data/local.db']?.bytes.length).toBeGreaterThan(2_000_000);
  expect(before['data/local.db']?.bytes.subarray(0, 15).toString()).toBe('SQLite format 3');
  return { root, before };
}

type Kept = Record<string, { bytes: Buffer; mode: number } | null>;

/** The person's ignored files as they are now (null: not there). */
function stateOf(root: string): Kept {
  const out: Kept = {};
  for (const rel of FILES) {
    const abs = path.join(root, rel);
    out[rel] = fs.existsSync(abs) ? { bytes: fs.readFileSync(abs), mode: fs.statSync(abs).mode & 0o7777 } : null;
  }
  return out;
}

function expectBack(now: Kept, before: Record<string, { bytes: Buffer; mode: number }>): void {
  for (const rel of FILES) {
    expect(now[rel], rel).not.toBeNull();
    expect(now[rel]?.bytes.equals(before[rel]?.bytes as Buffer), rel).toBe(true);
    expect(now[rel]?.mode, rel).toBe(before[rel]?.mode);
  }
}

describe('ignored files deleted through a client shell come back with one undo', () => {
  it("Claude Code: its Bash's git clean -fdx deletes .env, data/local.db and debug.log and one editwarden undo brings them back byte-exact, modes included; then its native Write and Edit of ignored files, and editwarden's own edit (the MCP edit_file core), each undone exactly", async () => {
    const { root, before } = personProject();
    expect((await editwardenHere(['init', 'claude', '--root', root])).code).toBe(0);
    const env = path.join(root, '.env');
    const log = path.join(root, 'debug.log');
    // One session serves both: after the clean, the undo is run (and what it did seen) before the session goes on.
    const mid: { there?: Record<string, boolean>; undo?: ReturnType<typeof editwarden>; back?: Kept } = {};
    const undoTheClean = (): void => {
      mid.there = Object.fromEntries([...FILES, 'huge.log'].map((rel) => [rel, fs.existsSync(path.join(root, rel))]));
      mid.undo = editwarden(['undo', '--root', root]);
      mid.back = stateOf(root);
    };
    const run = await runClaude(
      root,
      [
        { name: 'Bash', args: { command: 'git clean -fdx; ls -A', description: 'clean' } },
        { name: 'Read', args: { file_path: env }, before: undoTheClean },
        { name: 'Write', args: { file_path: env, content: 'API_KEY=agent-wrote-this\n' } },
        { name: 'Read', args: { file_path: log } },
        { name: 'Edit', args: { file_path: log, old_string: 'request 1', new_string: 'request 2' } },
      ],
      ['--allowedTools', 'Bash,Write,Edit,Read'],
      200_000,
    );
    expect(run.code, run.stderr).toBe(0);
    const results = toolResults(run.requests);
    expect(results, run.stdout).toHaveLength(5);
    for (const rel of [...FILES, 'huge.log']) expect(mid.there?.[rel], rel).toBe(false);
    // The file over the cap is named in the command's result.
    expect(results[0]).toContain('not kept, undo cannot bring back: huge.log (over checkpoints.ignored.max_file_bytes)');
    expect(mid.undo?.code, mid.undo?.stderr).toBe(0);
    expect(mid.undo?.stdout).toContain('claude Bash: git clean -fdx; ls -A');
    expect(mid.undo?.stdout).toContain('huge.log (over checkpoints.ignored.max_file_bytes)');
    expectBack(mid.back as Kept, before);

    expect(fs.readFileSync(env, 'utf8')).toBe('API_KEY=agent-wrote-this\n');
    expect(fs.readFileSync(log, 'utf8')).toBe('started\nrequest 2\n');
    const own = editwarden(['edit', 'debug.log', '--old', 'started', '--new', 'begun', '--root', root]);
    expect(own.code, own.stderr).toBe(0);
    for (let i = 0; i < 3; i++) {
      const undo = editwarden(['undo', '--root', root]);
      expect(undo.code, undo.stderr).toBe(0);
    }
    expectBack(stateOf(root), before);
  }, 250_000);

  it("Gemini CLI's run_shell_command: the same git clean -fdx, the same one undo", async () => {
    const { root, before } = personProject();
    expect((await editwardenHere(['init', 'gemini', '--root', root])).code).toBe(0);
    const run = await runGemini(root, [{ name: 'run_shell_command', args: { command: 'git clean -fdx; ls -A', description: 'clean' } }], 150_000, { approval: 'yolo' });
    const responses = functionResponses(run.requests);
    expect(responses.length, `${run.stdout}\n${run.stderr}`).toBe(1);
    for (const rel of FILES) expect(fs.existsSync(path.join(root, rel)), rel).toBe(false);
    expect(responses[0]).toContain('huge.log (over checkpoints.ignored.max_file_bytes)');

    const undo = editwarden(['undo', '--root', root]);
    expect(undo.code, undo.stderr).toBe(0);
    expect(undo.stdout).toContain('gemini run_shell_command: git clean -fdx; ls -A');
    expectBack(stateOf(root), before);
  }, 200_000);
});
