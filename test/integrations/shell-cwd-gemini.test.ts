/**
 * The real Gemini CLI (devDependency, scripted model on 127.0.0.1) after
 * `editwarden init gemini`: its guarded run_shell_command keeps the folder
 * as Gemini CLI's own shell does — each command a fresh `bash -c` in the
 * project root or the call's own `dir_path`, so a `cd` does not carry over
 * (shell-cwd.ts; the carrying client, Claude Code, is in
 * shell-cwd-claude.test.ts).
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { editwardenHere } from './cli-in-process.js';
import { GEMINI, cleanup, editwarden, functionResponses, project, runGemini } from './helpers.js';

beforeAll(() => {
  expect(fs.existsSync(GEMINI), `${GEMINI} is missing; run npm ci`).toBe(true);
});
afterAll(cleanup);

describe("Gemini CLI's guarded shell keeps the folder as its own shell does", () => {
  it('a cd does not carry to the next command; the call’s dir_path is where it runs', async () => {
    const root = project({ 'sub/keep.txt': 'x\n' });
    const init = await editwardenHere(['init', 'gemini', '--root', root]);
    expect(init.code, init.stderr).toBe(0);
    const run = await runGemini(
      root,
      [
        { name: 'run_shell_command', args: { command: 'cd sub && pwd > here.txt', description: 'into sub' } },
        { name: 'run_shell_command', args: { command: 'pwd > where.txt', description: 'where' } },
        { name: 'run_shell_command', args: { command: 'pwd > there.txt', description: 'in sub', dir_path: 'sub' } },
      ],
      undefined,
      { approval: 'yolo' },
    );
    expect(run.code, run.stderr).toBe(0);
    expect(functionResponses(run.requests), run.stdout).toHaveLength(3);
    expect(fs.readFileSync(path.join(root, 'sub', 'here.txt'), 'utf8')).toBe(`${path.join(root, 'sub')}\n`);
    expect(fs.readFileSync(path.join(root, 'where.txt'), 'utf8')).toBe(`${root}\n`);
    expect(fs.readFileSync(path.join(root, 'sub', 'there.txt'), 'utf8')).toBe(`${path.join(root, 'sub')}\n`);
    // Each ran through editwarden: the log has them.
    const log = editwarden(['log', '--root', root]);
    expect(log.stdout).toContain('pwd > there.txt');
    // No state of a carried folder: Gemini CLI's own shell carries none.
    expect(fs.existsSync(path.join(root, '.editwarden', 'shell-cwd'))).toBe(false);
  }, 180_000);
});
