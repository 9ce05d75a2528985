/**
 * The real opencode (npm opencode-ai, pinned devDependency) protected by
 * `editwarden init opencode` (the plugin .opencode/plugins/editwarden.js),
 * driven by the scripted model on 127.0.0.1 through a provider of the
 * test's own (`@ai-sdk/openai-compatible`). No skips.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ChatRun, OPENCODE, runOpencode } from './chat-clients.js';
import { cleanup, editwarden, hookSessionIds, project, removableGuard, type ScriptedCall, tempDir, THIRTY_LINES } from './helpers.js';

beforeAll(() => {
  expect(fs.existsSync(OPENCODE), `${OPENCODE} is missing; run npm ci`).toBe(true);
  // opencode-ai's postinstall puts the platform's binary in place (npm ci runs it; --ignore-scripts leaves the package's
  // own bin/opencode.exe, a 479-byte script that says so). The platform's binary is an ELF file: its first four bytes
  // tell it from that stub without starting it (`opencode --version` costs ~1 s of CPU here).
  const head = Buffer.alloc(4);
  const fd = fs.openSync(fs.realpathSync(OPENCODE), 'r');
  fs.readSync(fd, head, 0, 4, 0);
  fs.closeSync(fd);
  expect(head.toString('latin1'), `${OPENCODE} is not opencode's binary (npm ci --ignore-scripts leaves a stub): run npm ci`).toBe('\x7fELF');
});
afterAll(cleanup);

/** How many calls the first check makes: they open the shared session, the no-editwarden check's one call follows. */
const GUARDED_CALLS = 9;

interface SharedOpencode {
  root: string;
  run: ChatRun;
  config: string;
  src: Record<string, string>;
  plugin: string;
  pluginText: string;
  settings: string;
  gitConfig: string;
  outside: string;
  outsideDir: string;
}

let shared: Promise<SharedOpencode> | undefined;

/**
 * One real opencode session serves two checks (its start is most of each check's cost, ~6 s of CPU): in one project
 * `init opencode` protected, the first check's nine calls with editwarden installed, then editwarden taken off this
 * machine (the link on the client's PATH removed: the plugin's hook command looks for editwarden at every call, as
 * it would on a machine that never had it) and the no-editwarden check's write. Each check asserts on its own calls'
 * results; run once, whichever check asks first, so each also runs alone.
 */
function sharedSession(): Promise<SharedOpencode> {
  shared ??= (async () => {
    const config = 'constraints:\n  max_files: 5\n';
    const src = { 'src/a.ts': 'export const a = 1;\n', 'src/lib/b.ts': 'export const b = "b";\n' };
    const root = project({ ...src, 'notes.txt': 'alpha\nbeta\n', '.editwarden.yml': config });
    const init = editwarden(['init', 'opencode', '--root', root]);
    expect(init.code, init.stderr).toBe(0);
    const plugin = path.join(root, '.opencode', 'plugins', 'editwarden.js');
    const pluginText = fs.readFileSync(plugin, 'utf8');
    const settings = fs.readFileSync(path.join(root, 'opencode.json'), 'utf8');
    const gitConfig = fs.readFileSync(path.join(root, '.git', 'config'), 'utf8');
    const outsideDir = tempDir('ew-outside-');
    const outside = path.join(outsideDir, 'escape.txt');
    const guard = removableGuard();
    const guarded: ScriptedCall[] = [
      { name: 'write', args: { filePath: path.join(root, '.git', 'config'), content: '[core]\n\thooksPath = /tmp\n' } },
      { name: 'write', args: { filePath: '.editwarden.yml', content: 'constraints: {}\n' } },
      { name: 'write', args: { filePath: plugin, content: 'export const X = async () => ({});\n' } },
      { name: 'write', args: { filePath: path.join(root, 'opencode.json'), content: '{}\n' } },
      { name: 'read', args: { filePath: path.join(root, 'notes.txt') } },
      { name: 'edit', args: { filePath: path.join(root, 'notes.txt'), oldString: 'beta', newString: 'BETA' } },
      { name: 'bash', args: { command: `echo out > ${outside}`, description: 'write outside' } },
      { name: 'bash', args: { command: 'echo hi > x.txt', workdir: outsideDir, description: 'work outside' } },
      { name: 'bash', args: { command: 'rm -rf src && echo removed', description: 'remove src' } },
    ];
    expect(guarded).toHaveLength(GUARDED_CALLS);
    const withoutEditwarden: ScriptedCall = { name: 'write', args: { filePath: path.join(root, 'new.txt'), content: 'x\n' }, before: guard.uninstall };
    const run = await runOpencode(root, [...guarded, withoutEditwarden], { path: guard.path });
    return { root, run, config, src, plugin, pluginText, settings, gitConfig, outside, outsideDir };
  })();
  return shared;
}

describe('opencode goes through editwarden', () => {
  it('refuses its native write of .git/config, .editwarden.yml, its plugin and opencode.json with the code the model reads, lets a valid edit land, runs bash sandboxed (a write outside fails, a workdir outside is refused, rm -rf src is one undo step) and undo restores both byte-exact', async () => {
    const { root, run, config, src, plugin, pluginText, settings, gitConfig, outside, outsideDir } = await sharedSession();
    const said = `${run.stderr.slice(-2000)}\n${JSON.stringify(run.results)}`;
    // The hook read the real client's session id where its record says the client sends it: every hooked event carries it.
    expect(hookSessionIds(root), said).toEqual([expect.stringMatching(/\S/)]);
    // This check's nine calls open the shared session (sharedSession); the no-editwarden check's one follows.
    expect(run.results, said).toHaveLength(GUARDED_CALLS + 1);
    const results = run.results.slice(0, GUARDED_CALLS);
    for (const i of [0, 1, 2, 3]) expect(results[i], said).toContain('E_DENIED_PATH');
    expect(fs.readFileSync(path.join(root, '.git', 'config'), 'utf8')).toBe(gitConfig);
    expect(fs.readFileSync(path.join(root, '.editwarden.yml'), 'utf8')).toBe(config);
    expect(fs.readFileSync(plugin, 'utf8')).toBe(pluginText);
    expect(fs.readFileSync(path.join(root, 'opencode.json'), 'utf8')).toBe(settings);
    expect(fs.readFileSync(path.join(root, 'notes.txt'), 'utf8'), results[5]).toBe('alpha\nBETA\n');
    expect(results[6], said).toMatch(/Read-only file system|Directory nonexistent/);
    expect(fs.existsSync(outside)).toBe(false);
    expect(results[7], said).toContain('E_OUTSIDE_ROOT');
    expect(fs.existsSync(path.join(outsideDir, 'x.txt'))).toBe(false);
    expect(results[8], said).toContain('removed');
    // init registered editwarden's MCP server: opencode offers its tools (named editwarden_<tool>).
    expect(run.tools, said).toContain('editwarden_edit_file');
    expect(fs.existsSync(path.join(root, 'src'))).toBe(false);

    const first = editwarden(['undo', '--root', root]);
    expect(first.code, first.stderr).toBe(0);
    expect(first.stdout).toContain('opencode bash: rm -rf src && echo removed');
    for (const [rel, text] of Object.entries(src)) expect(fs.readFileSync(path.join(root, rel), 'utf8')).toBe(text);
    const second = editwarden(['undo', '--root', root]);
    expect(second.code, second.stderr).toBe(0);
    expect(fs.readFileSync(path.join(root, 'notes.txt'), 'utf8')).toBe('alpha\nbeta\n');
  }, 400_000);

  it('with a gpt-5 model id its apply_patch goes through the apply-patch route: a patch of .editwarden.yml and one wiping a 30-line file are refused with the code the model reads, a valid patch lands and undo restores it byte-exact', async () => {
    const config = 'constraints:\n  max_files: 5\n';
    const root = project({ 'notes.txt': 'alpha\nbeta\n', 'big.txt': THIRTY_LINES, '.editwarden.yml': config });
    const init = editwarden(['init', 'opencode', '--root', root]);
    expect(init.code, init.stderr).toBe(0);
    const patch = (file: string, lines: string[]): string => ['*** Begin Patch', `*** Update File: ${file}`, '@@', ...lines, '*** End Patch'].join('\n');
    const wipe = THIRTY_LINES.trimEnd()
      .split('\n')
      .map((l) => `-${l}`);
    const run = await runOpencode(
      root,
      [
        { name: 'apply_patch', args: { patchText: patch('.editwarden.yml', ['-constraints:', '-  max_files: 5', '+constraints: {}']) } },
        { name: 'apply_patch', args: { patchText: patch('big.txt', [...wipe, '+gone']) } },
        { name: 'apply_patch', args: { patchText: patch('notes.txt', [' alpha', '-beta', '+BETA']) } },
      ],
      { model: 'gpt-5' },
    );
    const said = `${run.stderr.slice(-2000)}\n${JSON.stringify(run.results)}`;
    expect(run.results, said).toHaveLength(3);
    expect(run.results[0], said).toContain('E_DENIED_PATH');
    expect(run.results[1], said).toContain('E_DRAMATIC_REDUCTION');
    expect(fs.readFileSync(path.join(root, '.editwarden.yml'), 'utf8')).toBe(config);
    expect(fs.readFileSync(path.join(root, 'big.txt'), 'utf8')).toBe(THIRTY_LINES);
    expect(fs.readFileSync(path.join(root, 'notes.txt'), 'utf8'), run.results[2]).toBe('alpha\nBETA\n');
    const undo = editwarden(['undo', '--root', root]);
    expect(undo.code, undo.stderr).toBe(0);
    expect(fs.readFileSync(path.join(root, 'notes.txt'), 'utf8')).toBe('alpha\nbeta\n');
  }, 400_000);

  it('on a machine without editwarden the plugin throws: the call is blocked and the model reads E_GUARD_UNAVAILABLE', async () => {
    const { root, run } = await sharedSession();
    const said = `${run.stderr.slice(-2000)}\n${JSON.stringify(run.results)}`;
    // This check's one call comes after the first check's nine (sharedSession), with editwarden taken off the machine.
    expect(run.results, said).toHaveLength(GUARDED_CALLS + 1);
    const results = run.results.slice(GUARDED_CALLS);
    expect(results, said).toHaveLength(1);
    expect(results[0], said).toContain('E_GUARD_UNAVAILABLE');
    expect(fs.existsSync(path.join(root, 'new.txt'))).toBe(false);
  }, 400_000);
});
