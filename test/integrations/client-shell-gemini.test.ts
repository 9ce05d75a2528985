/**
 * The real Gemini CLI (devDependency, scripted model on 127.0.0.1) after
 * `editwarden init gemini`: run_shell_command runs through `editwarden
 * shell` (BeforeTool rewrites tool_input), sandboxed, as one undo step per
 * command, counted per Gemini session.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { editwardenHere } from './cli-in-process.js';
import { GEMINI, cleanup, editwarden, functionResponses, project, runGemini, tempDir } from './helpers.js';

beforeAll(() => {
  expect(fs.existsSync(GEMINI), `${GEMINI} is missing; run npm ci`).toBe(true);
});
afterAll(cleanup);

describe("Gemini CLI's run_shell_command runs through editwarden", () => {
  it('blocks a write outside the root, refuses a config rewrite, undoes rm -rf src byte-exact, and counts the session', async () => {
    const config = 'constraints:\n  max_files: 2\n';
    const src = { 'src/a.ts': 'export const a = 1;\n', 'src/lib/b.ts': 'export const b = "b";\n' };
    const root = project({ ...src, '.editwarden.yml': config });
    // Setup, as a person runs it before starting Gemini CLI: the built CLI's init, in this process.
    expect((await editwardenHere(['init', 'gemini', '--root', root])).code).toBe(0);
    const outside = path.join(tempDir('ew-outside-'), 'escape.txt');
    const run = await runGemini(
      root,
      [
        { name: 'run_shell_command', args: { command: `echo out > ${outside}`, description: 'escape' } },
        { name: 'run_shell_command', args: { command: "printf 'constraints: {}\\n' > .editwarden.yml", description: 'loosen' } },
        { name: 'run_shell_command', args: { command: 'rm -rf src && echo removed', description: 'wipe' } },
        { name: 'run_shell_command', args: { command: 'echo c > c.txt', description: 'third file' } },
      ],
      150_000,
      { approval: 'yolo' },
    );
    const responses = functionResponses(run.requests);
    expect(responses.length, `${run.stdout}\n${run.stderr}`).toBe(4);
    expect(fs.existsSync(outside)).toBe(false);
    expect(fs.readFileSync(path.join(root, '.editwarden.yml'), 'utf8')).toBe(config);
    expect(responses[2]).toContain('removed');
    // Two files changed by rm -rf src: a third in the same session is over max_files: 2 and put back.
    expect(responses[3]).toContain('3 of 2 files used in this session');
    expect(fs.existsSync(path.join(root, 'c.txt'))).toBe(false);

    // The put-back is an undo step of its own (nothing editwarden overwrites is out of reach): the first undo brings c.txt back,
    // the second takes the command back again, the third undoes rm -rf src.
    const putBack = editwarden(['undo', '--root', root]);
    expect(putBack.stdout).toContain('put-back of gemini run_shell_command');
    expect(fs.readFileSync(path.join(root, 'c.txt'), 'utf8')).toBe('c\n');
    expect(editwarden(['undo', '--root', root]).stdout).toContain('echo c > c.txt');
    expect(fs.existsSync(path.join(root, 'c.txt'))).toBe(false);
    const undo = editwarden(['undo', '--root', root]);
    expect(undo.code, undo.stderr).toBe(0);
    expect(undo.stdout).toContain('gemini run_shell_command: rm -rf src && echo removed');
    for (const [rel, text] of Object.entries(src)) expect(fs.readFileSync(path.join(root, rel), 'utf8')).toBe(text);
  }, 200_000);
});
