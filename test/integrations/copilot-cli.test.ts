/**
 * The real GitHub Copilot CLI (npm @github/copilot, pinned devDependency)
 * protected by `editwarden init copilot`, driven by the scripted model on
 * 127.0.0.1 (COPILOT_OFFLINE with a provider of its own), the project
 * trusted in the test's own COPILOT_HOME (Copilot runs a repository's hooks
 * only in a trusted folder). No skips.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ChatRun, COPILOT, runCopilot } from './chat-clients.js';
import { cleanup, editwarden, hookSessionIds, project, removableGuard, type ScriptedCall, tempDir } from './helpers.js';

beforeAll(() => {
  expect(fs.existsSync(COPILOT), `${COPILOT} is missing; run npm ci`).toBe(true);
});
afterAll(cleanup);

/** How many calls the first check makes: they open the shared session, the no-editwarden check's one call follows. */
const GUARDED_CALLS = 6;

interface SharedCopilot {
  root: string;
  run: ChatRun;
  config: string;
  src: Record<string, string>;
  hooksFile: string;
  hooks: string;
  gitConfig: string;
  outside: string;
}

let shared: Promise<SharedCopilot> | undefined;

/**
 * One real Copilot session serves two checks (its start is most of each check's cost): in one project `init copilot`
 * protected, the first check's six calls with editwarden installed, then editwarden taken off this machine (the link
 * on the client's PATH removed: the committed hook looks for editwarden at every call, as on a machine that never had
 * it) and the no-editwarden check's create. Each check asserts on its own calls' results; run once, whichever check
 * asks first, so each also runs alone.
 */
function sharedSession(): Promise<SharedCopilot> {
  shared ??= (async () => {
    const config = 'constraints:\n  max_files: 5\n';
    const src = { 'src/a.ts': 'export const a = 1;\n', 'src/lib/b.ts': 'export const b = "b";\n' };
    const root = project({ ...src, 'notes.txt': 'alpha\nbeta\n', '.editwarden.yml': config });
    const init = editwarden(['init', 'copilot', '--root', root]);
    expect(init.code, init.stderr).toBe(0);
    const hooksFile = path.join(root, '.github', 'hooks', 'editwarden.json');
    const hooks = fs.readFileSync(hooksFile, 'utf8');
    const gitConfig = fs.readFileSync(path.join(root, '.git', 'config'), 'utf8');
    const outside = path.join(tempDir('ew-outside-'), 'escape.txt');
    const guard = removableGuard();
    const guarded: ScriptedCall[] = [
      { name: 'create', args: { path: path.join(root, '.git', 'config'), file_text: '[core]\n\thooksPath = /tmp\n' } },
      { name: 'create', args: { path: path.join(root, '.editwarden.yml'), file_text: 'constraints: {}\n' } },
      { name: 'create', args: { path: hooksFile, file_text: '{}\n' } },
      { name: 'edit', args: { path: path.join(root, 'notes.txt'), old_str: 'beta', new_str: 'BETA' } },
      { name: 'bash', args: { command: `echo out > ${outside}`, description: 'write outside' } },
      { name: 'bash', args: { command: 'rm -rf src && echo removed', description: 'remove src' } },
    ];
    expect(guarded).toHaveLength(GUARDED_CALLS);
    const withoutEditwarden: ScriptedCall = { name: 'create', args: { path: path.join(root, 'new.txt'), file_text: 'x\n' }, before: guard.uninstall };
    const run = await runCopilot(root, [...guarded, withoutEditwarden], { path: guard.path });
    return { root, run, config, src, hooksFile, hooks, gitConfig, outside };
  })();
  return shared;
}

describe('Copilot CLI goes through editwarden', () => {
  it('refuses its native write of .git/config, .editwarden.yml and its hooks file with the code the model reads, lets a valid edit land, runs bash sandboxed (a write outside fails, rm -rf src is one undo step) and undo restores both byte-exact', async () => {
    const { root, run, config, src, hooksFile, hooks, gitConfig, outside } = await sharedSession();
    const said = `${run.stderr.slice(-2000)}\n${JSON.stringify(run.results)}`;
    // The hook read the real client's session id where its record says the client sends it: every hooked event carries it.
    expect(hookSessionIds(root), said).toEqual([expect.stringMatching(/\S/)]);
    // This check's six calls open the shared session (sharedSession); the no-editwarden check's one follows.
    expect(run.results, said).toHaveLength(GUARDED_CALLS + 1);
    const results = run.results.slice(0, GUARDED_CALLS);
    for (const i of [0, 1, 2]) expect(results[i], said).toContain('E_DENIED_PATH');
    expect(fs.readFileSync(path.join(root, '.git', 'config'), 'utf8')).toBe(gitConfig);
    expect(fs.readFileSync(path.join(root, '.editwarden.yml'), 'utf8')).toBe(config);
    expect(fs.readFileSync(hooksFile, 'utf8')).toBe(hooks);
    expect(fs.readFileSync(path.join(root, 'notes.txt'), 'utf8'), results[3]).toBe('alpha\nBETA\n');
    expect(results[4], said).toMatch(/Read-only file system|Directory nonexistent/);
    expect(fs.existsSync(outside)).toBe(false);
    expect(results[5], said).toContain('removed');
    expect(fs.existsSync(path.join(root, 'src'))).toBe(false);

    const first = editwarden(['undo', '--root', root]);
    expect(first.code, first.stderr).toBe(0);
    expect(first.stdout).toContain('copilot bash: rm -rf src && echo removed');
    for (const [rel, text] of Object.entries(src)) expect(fs.readFileSync(path.join(root, rel), 'utf8')).toBe(text);
    const second = editwarden(['undo', '--root', root]);
    expect(second.code, second.stderr).toBe(0);
    expect(fs.readFileSync(path.join(root, 'notes.txt'), 'utf8')).toBe('alpha\nbeta\n');
  }, 400_000);

  it('on a machine without editwarden the committed hook blocks the call (Copilot denies on its exit 2, without passing the reason on)', async () => {
    const { root, run } = await sharedSession();
    const said = `${run.stderr.slice(-2000)}\n${JSON.stringify(run.results)}`;
    // This check's one call comes after the first check's six (sharedSession), with editwarden taken off the machine.
    expect(run.results, said).toHaveLength(GUARDED_CALLS + 1);
    const results = run.results.slice(GUARDED_CALLS);
    expect(results, said).toHaveLength(1);
    expect(results[0], said).toMatch(/denied/i);
    expect(fs.existsSync(path.join(root, 'new.txt'))).toBe(false);
  }, 400_000);
});
