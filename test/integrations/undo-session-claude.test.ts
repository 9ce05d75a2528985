/**
 * Undo a whole Claude Code session with one command: the real Claude Code
 * (devDependency, scripted model on 127.0.0.1) after `editwarden init
 * claude`, in a temp project, makes two edits and runs two Bash commands
 * (one `rm -rf src`); `editwarden undo --list` shows the session under
 * Claude's own session id, and one `editwarden undo --session <id>` puts
 * every file back byte-exact; one `redo` brings the session's work back.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { protectedProjectHere } from './cli-in-process.js';
import { CLAUDE, cleanup, editwarden, runClaude, toolResults } from './helpers.js';

beforeAll(() => {
  expect(fs.existsSync(CLAUDE), `${CLAUDE} is missing; run npm ci`).toBe(true);
});
afterAll(cleanup);

describe('editwarden undo --session undoes a Claude Code session as one step', () => {
  it('two edits and two commands (one rm -rf src) are listed under the session id and undone byte-exact by one command', async () => {
    const files = { 'src/a.ts': 'export const a = 1;\n', 'src/lib/b.ts': 'export const b = "b";\r\n', 'notes.txt': 'alpha\nbeta\n' };
    const root = await protectedProjectHere(files);
    const notes = path.join(root, 'notes.txt');
    const run = await runClaude(
      root,
      [
        { name: 'Read', args: { file_path: notes } },
        { name: 'Edit', args: { file_path: notes, old_string: 'beta', new_string: 'BETA' } },
        { name: 'Write', args: { file_path: path.join(root, 'added.txt'), content: 'added\n' } },
        { name: 'Bash', args: { command: 'rm -rf src && echo removed', description: 'wipe' } },
        { name: 'Bash', args: { command: 'echo gamma >> notes.txt', description: 'append' } },
      ],
      ['--allowedTools', 'Bash'],
    );
    expect(run.code, run.stderr).toBe(0);
    expect(toolResults(run.requests)).toHaveLength(5);
    const session = (JSON.parse(run.stdout) as { session_id: string }).session_id;
    expect(session).toMatch(/^[0-9a-f-]{36}$/);
    expect(fs.existsSync(path.join(root, 'src'))).toBe(false);
    expect(fs.readFileSync(notes, 'utf8')).toBe('alpha\nBETA\ngamma\n');

    const list = editwarden(['undo', '--list', '--root', root]);
    expect(list.code, list.stderr).toBe(0);
    expect(list.stdout).toContain(`claude session ${session} — undo it all: editwarden undo --session ${session}`);
    const listed = JSON.parse(editwarden(['undo', '--list', '--json', '--root', root]).stdout) as { steps: Array<{ by: string; session?: string; label: string }> };
    expect(listed.steps).toHaveLength(4);
    // Every step is Claude's, in its session — its Bash steps included.
    for (const s of listed.steps) expect(s).toMatchObject({ by: 'claude', session });

    const undo = editwarden(['undo', '--session', session, '--root', root]);
    expect(undo.code, undo.stderr).toBe(0);
    for (const [rel, text] of Object.entries(files)) expect(fs.readFileSync(path.join(root, rel), 'utf8')).toBe(text);
    expect(fs.existsSync(path.join(root, 'added.txt'))).toBe(false);

    const redo = editwarden(['redo', '--root', root]);
    expect(redo.code, redo.stderr).toBe(0);
    expect(fs.readFileSync(notes, 'utf8')).toBe('alpha\nBETA\ngamma\n');
    expect(fs.readFileSync(path.join(root, 'added.txt'), 'utf8')).toBe('added\n');
    expect(fs.existsSync(path.join(root, 'src'))).toBe(false);
  }, 180_000);
});
