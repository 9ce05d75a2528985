/**
 * The real Claude Code (npm @anthropic-ai/claude-code, pinned) protected by
 * `editwarden init claude`, with the scripted model server on 127.0.0.1
 * playing the model. No skips: if the client cannot run, these tests fail.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CLAUDE, THIRTY_LINES, cleanup, editwarden, protectedProject, runClaude, tempDir, toolResults } from './helpers.js';

beforeAll(() => {
  // A missing client is a failure, not a skip: `npm ci` installs it (devDependency).
  expect(fs.existsSync(CLAUDE), `${CLAUDE} is missing; run npm ci`).toBe(true);
});
afterAll(cleanup);

describe('Claude Code native edits go through editwarden', () => {
  it('refuses a Write that wipes a 30-line file, a Write outside the root and an Edit of .editwarden.yml, with the code reaching the model', async () => {
    const config = 'constraints:\n  max_files: 5\n';
    const root = protectedProject({ 'big.txt': THIRTY_LINES, '.editwarden.yml': config });
    const outside = path.join(tempDir('ew-outside-'), 'escape.txt');
    const run = await runClaude(root, [
      { name: 'Read', args: { file_path: path.join(root, 'big.txt') } },
      { name: 'Write', args: { file_path: path.join(root, 'big.txt'), content: 'gone\n' } },
      { name: 'Write', args: { file_path: outside, content: 'out\n' } },
      { name: 'Read', args: { file_path: path.join(root, '.editwarden.yml') } },
      { name: 'Edit', args: { file_path: path.join(root, '.editwarden.yml'), old_string: 'max_files: 5', new_string: 'max_files: 100000' } },
    ]);
    expect(run.code, run.stderr).toBe(0);
    const results = toolResults(run.requests);
    expect(results).toHaveLength(5);
    expect(results[1]).toContain('E_DRAMATIC_REDUCTION');
    expect(results[1]).toContain('hint:');
    expect(results[2]).toContain('E_OUTSIDE_ROOT');
    expect(results[4]).toContain('E_DENIED_PATH');
    expect(fs.readFileSync(path.join(root, 'big.txt'), 'utf8')).toBe(THIRTY_LINES);
    expect(fs.existsSync(outside)).toBe(false);
    expect(fs.readFileSync(path.join(root, '.editwarden.yml'), 'utf8')).toBe(config);
  }, 120_000);

  it('lets a valid native Edit through and calls editwarden over MCP; `editwarden undo` restores both, `redo` puts the last back', async () => {
    const original = 'alpha\nbeta\ngamma\n';
    const root = protectedProject({ 'notes.txt': original });
    const file = path.join(root, 'notes.txt');
    const run = await runClaude(
      root,
      [
        { name: 'Read', args: { file_path: file } },
        { name: 'Edit', args: { file_path: file, old_string: 'beta', new_string: 'BETA' } },
        { name: 'mcp__editwarden__edit_file', args: { path: 'notes.txt', old_text: 'gamma', new_text: 'GAMMA' } },
      ],
      ['--allowedTools', 'mcp__editwarden__*'],
    );
    expect(run.code, run.stderr).toBe(0);
    const results = toolResults(run.requests);
    expect(results.at(-1)).toContain('"status":"applied"');
    expect(fs.readFileSync(file, 'utf8')).toBe('alpha\nBETA\nGAMMA\n');
    // PostToolUse recorded the native change.
    const log = fs.readFileSync(path.join(root, '.editwarden', 'hooks', 'changes.jsonl'), 'utf8');
    expect(log).toContain('"path":"notes.txt","change":"modified"');

    expect(editwarden(['undo', '--root', root]).code).toBe(0);
    expect(fs.readFileSync(file, 'utf8')).toBe('alpha\nBETA\ngamma\n');
    const second = editwarden(['undo', '--root', root]);
    expect(second.stdout).toContain('claude Edit');
    expect(fs.readFileSync(file, 'utf8')).toBe(original);
    expect(editwarden(['redo', '--root', root]).code).toBe(0);
    expect(fs.readFileSync(file, 'utf8')).toBe('alpha\nBETA\ngamma\n');
  }, 120_000);

  it('the link-graph and symlinked-config attacks: native Writes to up/x, cfgdir/.editwarden.yml and the config’s real target are denied; so is MCP write_file of the target', async () => {
    const config = 'constraints:\n  max_files: 5\n';
    const root = protectedProject({ 'tools/editwarden.yml': config, 'deep/keep.txt': 'k\n', 'sub/keep.txt': 's\n' });
    fs.symlinkSync('tools/editwarden.yml', path.join(root, '.editwarden.yml'));
    fs.symlinkSync('.', path.join(root, 'a'));
    fs.symlinkSync('a/..', path.join(root, 'up'));
    fs.symlinkSync('../sub', path.join(root, 'deep', 'X'));
    fs.symlinkSync('deep/X/..', path.join(root, 'cfgdir'));
    const parentX = path.join(path.dirname(root), 'x');
    const run = await runClaude(
      root,
      [
        { name: 'Write', args: { file_path: path.join(root, 'up', 'x'), content: 'out\n' } },
        // Claude Code writes an existing file only after reading it.
        { name: 'Read', args: { file_path: path.join(root, 'cfgdir', '.editwarden.yml') } },
        { name: 'Write', args: { file_path: path.join(root, 'cfgdir', '.editwarden.yml'), content: 'constraints: {}\n' } },
        { name: 'Read', args: { file_path: path.join(root, 'tools', 'editwarden.yml') } },
        { name: 'Write', args: { file_path: path.join(root, 'tools', 'editwarden.yml'), content: 'constraints: {}\n' } },
        { name: 'mcp__editwarden__write_file', args: { path: 'tools/editwarden.yml', content: 'constraints: {}\n', overwrite: true } },
      ],
      ['--allowedTools', 'mcp__editwarden__*'],
    );
    expect(run.code, run.stderr).toBe(0);
    const results = toolResults(run.requests);
    expect(results).toHaveLength(6);
    expect(results[0]).toMatch(/E_OUTSIDE_ROOT|E_DENIED_PATH/);
    for (const i of [2, 4, 5]) expect(results[i]).toContain('E_DENIED_PATH');
    expect(fs.existsSync(parentX)).toBe(false);
    expect(fs.readFileSync(path.join(root, 'tools', 'editwarden.yml'), 'utf8')).toBe(config);
  }, 120_000);
});
