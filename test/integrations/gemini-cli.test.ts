/**
 * The real Gemini CLI (npm @google/gemini-cli, pinned) protected by
 * `editwarden init gemini`, with the scripted model server on 127.0.0.1
 * playing the Gemini API (GOOGLE_GEMINI_BASE_URL). No skips.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GEMINI, THIRTY_LINES, cleanup, editwarden, hookSessionIds, functionResponses, project, runGemini } from './helpers.js';

beforeAll(() => {
  expect(fs.existsSync(GEMINI), `${GEMINI} is missing; run npm ci`).toBe(true);
});
afterAll(cleanup);

describe('Gemini CLI native edits go through editwarden', () => {
  // One Gemini CLI session (its start is most of the cost) is asked every question: the plain refusal, the edit let
  // through and its undo, and the link-graph and symlinked-config attacks.
  it('refuses a write_file that wipes a 30-line file with the code reaching the model, lets a valid replace through, and undo restores it; write_file to up/x, cfgdir/.editwarden.yml and the config’s real target (the link-graph and symlinked-config attacks) are refused', async () => {
    const config = 'constraints:\n  max_files: 5\n';
    const root = project({ 'big.txt': THIRTY_LINES, 'notes.txt': 'alpha\nbeta\n', 'tools/editwarden.yml': config, 'deep/keep.txt': 'k\n', 'sub/keep.txt': 's\n' });
    expect(editwarden(['init', 'gemini', '--root', root]).code).toBe(0);
    fs.symlinkSync('tools/editwarden.yml', path.join(root, '.editwarden.yml'));
    fs.symlinkSync('.', path.join(root, 'a'));
    fs.symlinkSync('a/..', path.join(root, 'up'));
    fs.symlinkSync('../sub', path.join(root, 'deep', 'X'));
    fs.symlinkSync('deep/X/..', path.join(root, 'cfgdir'));
    const run = await runGemini(root, [
      { name: 'write_file', args: { file_path: path.join(root, 'big.txt'), content: 'gone\n' } },
      { name: 'replace', args: { file_path: path.join(root, 'notes.txt'), old_string: 'beta', new_string: 'BETA', instruction: 'capitalise' } },
      { name: 'write_file', args: { file_path: path.join(root, 'up', 'x'), content: 'out\n' } },
      { name: 'write_file', args: { file_path: path.join(root, 'cfgdir', '.editwarden.yml'), content: 'constraints: {}\n' } },
      { name: 'write_file', args: { file_path: path.join(root, 'tools', 'editwarden.yml'), content: 'constraints: {}\n' } },
    ]);
    const responses = functionResponses(run.requests);
    expect(responses.length, `${run.stdout}\n${run.stderr}`).toBe(5);
    // The hook read the real client's session id where its record says the client sends it: every hooked event carries it.
    expect(hookSessionIds(root)).toEqual([expect.stringMatching(/\S/)]);
    expect(responses[0]).toContain('E_DRAMATIC_REDUCTION');
    expect(fs.readFileSync(path.join(root, 'big.txt'), 'utf8')).toBe(THIRTY_LINES);
    expect(fs.readFileSync(path.join(root, 'notes.txt'), 'utf8')).toBe('alpha\nBETA\n');
    // up/x: editwarden's E_OUTSIDE_ROOT, or Gemini's own workspace check (it resolves paths with realpath) first.
    expect(responses[2]).toMatch(/E_OUTSIDE_ROOT|outside|workspace/i);
    expect(responses[3]).toContain('E_DENIED_PATH');
    expect(responses[4]).toContain('E_DENIED_PATH');
    expect(fs.existsSync(path.join(path.dirname(root), 'x'))).toBe(false);
    expect(fs.readFileSync(path.join(root, 'tools', 'editwarden.yml'), 'utf8')).toBe(config);
    expect(editwarden(['undo', '--root', root]).code).toBe(0);
    expect(fs.readFileSync(path.join(root, 'notes.txt'), 'utf8')).toBe('alpha\nbeta\n');
  }, 150_000);
});
