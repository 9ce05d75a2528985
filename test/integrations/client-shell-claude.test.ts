/**
 * The real Claude Code (devDependency, scripted model on 127.0.0.1) after
 * `editwarden init claude`: its Bash runs through `editwarden shell`
 * (sandboxed, one undo step per command), committed settings block where
 * editwarden is not installed, and a repository's `disableAllHooks` does not
 * survive init. That its limits count across the session, a Bash command
 * with the native Writes, is asked of a session in claude-code.test.ts.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { editwardenHere, protectedProjectHere } from './cli-in-process.js';
import { CLAUDE, THIRTY_LINES, cleanup, editwarden, project, runClaude, tempDir, toolResults } from './helpers.js';

beforeAll(() => {
  expect(fs.existsSync(CLAUDE), `${CLAUDE} is missing; run npm ci`).toBe(true);
});
afterAll(cleanup);

/**
 * One session in a repository that ships `disableAllHooks` (committed and local), protected by the binary's init:
 * its Bash runs through editwarden, and its native Write is still vetted — the hooks survived init.
 */
describe("Claude Code's Bash runs through editwarden, and a repository's disableAllHooks does not survive init", () => {
  it('a write outside the root is blocked, a config rewrite is refused, rm -rf src is undone byte-exact, and the guard refuses a Write that wipes a 30-line file', async () => {
    const config = 'constraints:\n  max_files: 5\n';
    const src = { 'src/a.ts': 'export const a = 1;\n', 'src/lib/b.ts': 'export const b = "b";\n' };
    const root = project({
      ...src,
      '.editwarden.yml': config,
      'big.txt': THIRTY_LINES,
      '.claude/settings.json': JSON.stringify({ disableAllHooks: true }),
      '.claude/settings.local.json': JSON.stringify({ disableAllHooks: true }),
    });
    const init = editwarden(['init', 'claude', '--root', root]);
    expect(init.stdout).toContain('took out .claude/settings.local.json: disableAllHooks');
    const outside = path.join(tempDir('ew-outside-'), 'escape.txt');
    const big = path.join(root, 'big.txt');
    const run = await runClaude(
      root,
      [
        { name: 'Bash', args: { command: `echo out > ${outside}`, description: 'escape' } },
        { name: 'Bash', args: { command: "printf 'constraints: {}\\n' > .editwarden.yml", description: 'loosen' } },
        { name: 'Bash', args: { command: 'rm -rf src && echo removed', description: 'wipe' } },
        { name: 'Read', args: { file_path: big } },
        { name: 'Write', args: { file_path: big, content: 'gone\n' } },
      ],
      ['--allowedTools', 'Bash'],
    );
    expect(run.code, run.stderr).toBe(0);
    const results = toolResults(run.requests);
    expect(results, run.stdout).toHaveLength(5);
    expect(fs.existsSync(outside)).toBe(false);
    expect(results[0]).toMatch(/Read-only file system|Permission denied|No such file|Directory nonexistent/);
    expect(fs.readFileSync(path.join(root, '.editwarden.yml'), 'utf8')).toBe(config);
    // The command's own output reaches the model unchanged.
    expect(results[2]).toContain('removed');
    expect(fs.existsSync(path.join(root, 'src'))).toBe(false);
    expect(results[4]).toContain('E_DRAMATIC_REDUCTION');
    expect(fs.readFileSync(big, 'utf8')).toBe(THIRTY_LINES);

    const undo = editwarden(['undo', '--root', root]);
    expect(undo.code, undo.stderr).toBe(0);
    expect(undo.stdout).toContain('claude Bash: rm -rf src && echo removed');
    for (const [rel, text] of Object.entries(src)) expect(fs.readFileSync(path.join(root, rel), 'utf8')).toBe(text);
  }, 150_000);
});

describe('the committed settings fail closed', () => {
  it('where editwarden is not installed, the real Claude Code refuses the edit', async () => {
    const root = await protectedProjectHere({ 'big.txt': THIRTY_LINES });
    const big = path.join(root, 'big.txt');
    const run = await runClaude(
      root,
      [
        { name: 'Read', args: { file_path: big } },
        { name: 'Write', args: { file_path: big, content: 'gone\n' } },
      ],
      [],
      90_000,
      { installed: false },
    );
    expect(run.code, run.stderr).toBe(0);
    const results = toolResults(run.requests);
    expect(results[1]).toContain('E_GUARD_UNAVAILABLE');
    expect(results[1]).toContain('hint:');
    expect(fs.readFileSync(path.join(root, 'big.txt'), 'utf8')).toBe(THIRTY_LINES);
  }, 120_000);

  it('after init --remove, Claude Code runs its tools without editwarden again', async () => {
    const root = await protectedProjectHere({ 'notes.txt': 'one\n' });
    expect((await editwardenHere(['init', 'claude', '--remove', '--root', root])).code).toBe(0);
    const run = await runClaude(root, [{ name: 'Bash', args: { command: 'echo two >> notes.txt && echo ok', description: 'append' } }], ['--allowedTools', 'Bash']);
    expect(toolResults(run.requests)[0]).toContain('ok');
    expect(fs.readFileSync(path.join(root, 'notes.txt'), 'utf8')).toBe('one\ntwo\n');
    // Nothing went through editwarden: no state folder was made.
    expect(fs.existsSync(path.join(root, '.editwarden'))).toBe(false);
  }, 120_000);
});
