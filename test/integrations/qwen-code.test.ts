/**
 * The real Qwen Code (npm @qwen-code/qwen-code, pinned devDependency)
 * protected by `editwarden init qwen`, driven by the scripted model on
 * 127.0.0.1 as an OpenAI endpoint. Qwen ignores a hook's rewritten input,
 * so its shell is refused with the way through MCP execute_command. No skips.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { QWEN, runQwen } from './chat-clients.js';
import { cleanup, editwarden, hookSessionIds, project, tempDir } from './helpers.js';

beforeAll(() => {
  expect(fs.existsSync(QWEN), `${QWEN} is missing; run npm ci`).toBe(true);
});
afterAll(cleanup);

describe('Qwen Code goes through editwarden', () => {
  it('refuses its native write of .git/config, .editwarden.yml and .qwen/settings.json with the code the model reads, lets a valid edit land that undo restores byte-exact, and refuses its shell with the pointer to execute_command', async () => {
    const config = 'constraints:\n  max_files: 5\n';
    const root = project({ 'notes.txt': 'alpha\nbeta\n', '.editwarden.yml': config });
    const init = editwarden(['init', 'qwen', '--root', root]);
    expect(init.code, init.stderr).toBe(0);
    const settings = fs.readFileSync(path.join(root, '.qwen', 'settings.json'), 'utf8');
    const gitConfig = fs.readFileSync(path.join(root, '.git', 'config'), 'utf8');
    const outside = path.join(tempDir('ew-outside-'), 'escape.txt');
    const run = await runQwen(root, [
      { name: 'write_file', args: { file_path: path.join(root, '.git', 'config'), content: '[core]\n\thooksPath = /tmp\n' } },
      { name: 'write_file', args: { file_path: path.join(root, '.editwarden.yml'), content: 'constraints: {}\n' } },
      { name: 'write_file', args: { file_path: path.join(root, '.qwen', 'settings.json'), content: '{}\n' } },
      // Qwen edits only a file read in the session.
      { name: 'read_file', args: { file_path: path.join(root, 'notes.txt') } },
      { name: 'edit', args: { file_path: path.join(root, 'notes.txt'), old_string: 'beta', new_string: 'BETA' } },
      { name: 'run_shell_command', args: { command: `echo out > ${outside}`, description: 'write outside' } },
    ]);
    const said = `${run.stderr.slice(-2000)}\n${JSON.stringify(run.results)}`;
    // The hook read the real client's session id where its record says the client sends it: every hooked event carries it.
    expect(hookSessionIds(root), said).toEqual([expect.stringMatching(/\S/)]);
    expect(run.results, said).toHaveLength(6);
    for (const i of [0, 1, 2]) expect(run.results[i], said).toContain('E_DENIED_PATH');
    expect(run.results[5], said).toContain('E_SHELL_NOT_GUARDED');
    expect(run.results[5], said).toContain('execute_command');
    // The way the refusal points to is there: init registered editwarden's MCP server, whose tools Qwen offers.
    expect(run.tools, said).toContain('mcp__editwarden__execute_command');
    expect(fs.readFileSync(path.join(root, '.git', 'config'), 'utf8')).toBe(gitConfig);
    expect(fs.readFileSync(path.join(root, '.editwarden.yml'), 'utf8')).toBe(config);
    expect(fs.readFileSync(path.join(root, '.qwen', 'settings.json'), 'utf8')).toBe(settings);
    expect(fs.existsSync(outside)).toBe(false);
    expect(fs.readFileSync(path.join(root, 'notes.txt'), 'utf8'), run.results[4]).toBe('alpha\nBETA\n');

    const undo = editwarden(['undo', '--root', root]);
    expect(undo.code, undo.stderr).toBe(0);
    expect(fs.readFileSync(path.join(root, 'notes.txt'), 'utf8')).toBe('alpha\nbeta\n');
  }, 400_000);

  it('on a machine without editwarden the committed hooks block (Qwen runs a tool when a hook exits 1 or 127: the command exits 2), and the model reads E_GUARD_UNAVAILABLE', async () => {
    const root = project({ 'notes.txt': 'alpha\n' });
    expect(editwarden(['init', 'qwen', '--root', root]).code).toBe(0);
    const run = await runQwen(root, [{ name: 'write_file', args: { file_path: path.join(root, 'new.txt'), content: 'x\n' } }], { installed: false });
    const said = `${run.stderr.slice(-2000)}\n${JSON.stringify(run.results)}`;
    expect(run.results, said).toHaveLength(1);
    expect(run.results[0], said).toContain('E_GUARD_UNAVAILABLE');
    expect(fs.existsSync(path.join(root, 'new.txt'))).toBe(false);
  }, 400_000);
});
