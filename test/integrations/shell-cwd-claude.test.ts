/**
 * The real Claude Code (devDependency, scripted model on 127.0.0.1) after
 * `editwarden init claude`: a `cd` in one guarded Bash call carries over to
 * the next, as Claude Code's own shell does — through Claude Code's own
 * tracking of the folder, which the rewritten command line feeds — and a
 * `cd` out of the project does not (the next call starts at the root).
 * What carries over and why: src/integrations/shell-cwd.ts.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { editwardenHere } from './cli-in-process.js';
import { CLAUDE, cleanup, editwarden, project, runClaude, toolResults } from './helpers.js';

beforeAll(() => {
  expect(fs.existsSync(CLAUDE), `${CLAUDE} is missing; run npm ci`).toBe(true);
});
afterAll(cleanup);

describe("a cd in Claude Code's guarded Bash carries over to its next command", () => {
  it('cd sub, then pwd > where.txt writes the sub folder; a cd out of the project leaves the next command at the root', async () => {
    const root = project({ 'sub/keep.txt': 'x\n' });
    const init = await editwardenHere(['init', 'claude', '--root', root]);
    expect(init.code, init.stderr).toBe(0);
    const run = await runClaude(
      root,
      [
        { name: 'Bash', args: { command: 'cd sub', description: 'into sub' } },
        { name: 'Bash', args: { command: 'pwd > where.txt', description: 'where' } },
        { name: 'Bash', args: { command: 'cd / && echo left', description: 'out' } },
        { name: 'Bash', args: { command: 'pwd > back.txt', description: 'back' } },
      ],
      ['--allowedTools', 'Bash'],
    );
    expect(run.code, run.stderr).toBe(0);
    const results = toolResults(run.requests);
    expect(results, run.stdout).toHaveLength(4);
    // Each command really ran through editwarden (one undo step per command that changed files).
    expect(fs.readFileSync(path.join(root, 'sub', 'where.txt'), 'utf8')).toBe(`${path.join(root, 'sub')}\n`);
    expect(fs.existsSync(path.join(root, 'where.txt'))).toBe(false);
    expect(fs.readFileSync(path.join(root, 'back.txt'), 'utf8')).toBe(`${root}\n`);
    // The model is told why the next command starts at the root.
    expect(results[2]).toContain('left');
    expect(results[2]).toContain('outside the project');
    const log = editwarden(['log', '--root', root]);
    expect(log.code, log.stderr).toBe(0);
    expect(log.stdout).toContain('pwd > where.txt');
  }, 150_000);
});
