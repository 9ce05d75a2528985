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
import type { RecordedRequest } from '../../src/agent/providers/scripted-server.js';
import { CLAUDE, THIRTY_LINES, cleanup, editwarden, project, type Ran, removableGuard, runClaude, type ScriptedCall, tempDir, toolResults } from './helpers.js';

beforeAll(() => {
  expect(fs.existsSync(CLAUDE), `${CLAUDE} is missing; run npm ci`).toBe(true);
});
afterAll(cleanup);

/** How many calls the first check makes: they open the shared session, the not-installed check's two follow. */
const GUARDED_CALLS = 5;

let shared: Promise<{ root: string; run: Ran & { requests: RecordedRequest[] }; config: string; src: Record<string, string>; outside: string; big: string }> | undefined;

/**
 * One session in a repository that ships `disableAllHooks` (committed and local), protected by the binary's init:
 * its Bash runs through editwarden, and its native Write is still vetted — the hooks survived init. It also serves
 * the not-installed check: after the first check's five calls, editwarden is taken off this machine (the link on the
 * client's PATH removed: the committed hooks look for editwarden at every call, as on a machine that never had it)
 * for one Write, and put back for a last Read, so the session ends (its Stop hook) as before. Run once, whichever
 * check asks first, so each also runs alone; each asserts on its own calls' results.
 */
function sharedSession(): NonNullable<typeof shared> {
  shared ??= (async () => {
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
    const guard = removableGuard();
    const guarded: ScriptedCall[] = [
      { name: 'Bash', args: { command: `echo out > ${outside}`, description: 'escape' } },
      { name: 'Bash', args: { command: "printf 'constraints: {}\\n' > .editwarden.yml", description: 'loosen' } },
      { name: 'Bash', args: { command: 'rm -rf src && echo removed', description: 'wipe' } },
      { name: 'Read', args: { file_path: big } },
      { name: 'Write', args: { file_path: big, content: 'gone\n' } },
    ];
    expect(guarded).toHaveLength(GUARDED_CALLS);
    const withoutEditwarden: ScriptedCall[] = [
      { name: 'Write', args: { file_path: big, content: 'gone\n' }, before: guard.uninstall },
      { name: 'Read', args: { file_path: big }, before: guard.reinstall },
    ];
    const run = await runClaude(root, [...guarded, ...withoutEditwarden], ['--allowedTools', 'Bash'], 90_000, { path: guard.path });
    return { root, run, config, src, outside, big };
  })();
  return shared;
}

describe("Claude Code's Bash runs through editwarden, and a repository's disableAllHooks does not survive init", () => {
  it('a write outside the root is blocked, a config rewrite is refused, rm -rf src is undone byte-exact, and the guard refuses a Write that wipes a 30-line file', async () => {
    const { root, run, config, src, outside, big } = await sharedSession();
    expect(run.code, run.stderr).toBe(0);
    // This check's five calls open the shared session (sharedSession); the not-installed check's two follow.
    expect(toolResults(run.requests), run.stdout).toHaveLength(GUARDED_CALLS + 2);
    const results = toolResults(run.requests).slice(0, GUARDED_CALLS);
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
    const { root, run } = await sharedSession();
    expect(run.code, run.stderr).toBe(0);
    // This check's Write comes after the first check's five calls (sharedSession), with editwarden taken off the machine.
    const results = toolResults(run.requests).slice(GUARDED_CALLS, GUARDED_CALLS + 1);
    expect(results[0]).toContain('E_GUARD_UNAVAILABLE');
    expect(results[0]).toContain('hint:');
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
