/**
 * Undo a client session or back to a step, through the real binary: the
 * steps a client's hooks and guarded shell recorded under its session id
 * (native edits confirmed by the post hook, shell commands run through
 * `editwarden shell`) are listed grouped by session with the client's name,
 * undone as ONE step by `undo --session <id>` (or `last`) and put back by
 * one `redo`; `undo --to <step>` undoes that step and every later one;
 * `redo --session` / `--to` mirror them. Wrong names are coded refusals
 * whose hint says how to see the names.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { cleanup, editwarden } from './helpers.js';
import { read, twoSessions } from './sessions.js';

afterAll(cleanup);

interface Listed {
  steps: Array<{ key: string; by: string; session?: string; label: string }>;
  sessions: Array<{ by: string; session?: string; steps: string[] }>;
}

function list(root: string): Listed {
  const r = editwarden(['undo', '--list', '--json', '--root', root]);
  expect(r.code, r.stderr).toBe(0);
  return JSON.parse(r.stdout) as Listed;
}

describe('undo --list groups the steps by client session', () => {
  it("names the client and the session id, and a client's Bash step is the client's, not editwarden's", () => {
    const { root } = twoSessions();
    const listed = list(root);
    expect(listed.sessions.map((g) => [g.by, g.session, g.steps.length])).toEqual([
      ['claude', 's-2', 1],
      ['claude', 's-1', 4],
    ]);
    const rm = listed.steps.find((s) => s.label.includes('rm -rf src'));
    expect(rm).toMatchObject({ by: 'claude', session: 's-1' });
    const text = editwarden(['undo', '--list', '--root', root]).stdout;
    expect(text).toContain('claude session s-1 — undo it all: editwarden undo --session s-1');
    expect(text).toContain('claude session s-2 — undo it all: editwarden undo --session s-2');
    expect(text).toContain(rm?.key.slice(rm.key.indexOf(':') + 1));
  });
});

describe('undo --session undoes a whole session as one step; redo mirrors it', () => {
  it('restores every file of the session byte-exact and leaves the other session alone; one redo puts it all back; redo --session too', () => {
    const { root, before } = twoSessions();
    const after = { notes: read(root, 'notes.txt'), other: read(root, 'other.txt') };
    const undo = editwarden(['undo', '--session', 's-1', '--root', root]);
    expect(undo.code, undo.stderr).toBe(0);
    for (const [file, text] of Object.entries(before)) expect(read(root, file)).toBe(text);
    expect(fs.existsSync(path.join(root, 'new.txt'))).toBe(false);
    expect(read(root, 'other.txt')).toBe(after.other);
    expect(
      list(root)
        .steps.filter((s) => s.session === 's-1')
        .every((s) => (s as { undone?: boolean }).undone),
    ).toBe(true);

    // One redo: the whole session is back.
    const redo = editwarden(['redo', '--root', root]);
    expect(redo.code, redo.stderr).toBe(0);
    expect(read(root, 'notes.txt')).toBe(after.notes);
    expect(fs.existsSync(path.join(root, 'src'))).toBe(false);
    expect(read(root, 'new.txt')).toBe('new\n');

    // `last` is the latest session; redo --session names it back.
    expect(editwarden(['undo', '--session', 'last', '--root', root]).code).toBe(0);
    expect(fs.existsSync(path.join(root, 'other.txt'))).toBe(false);
    expect(read(root, 'notes.txt')).toBe(after.notes);
    expect(editwarden(['undo', '--session', 's-1', '--root', root]).code).toBe(0);
    for (const [file, text] of Object.entries(before)) expect(read(root, file)).toBe(text);
    // redo --session s-1: the newest undo on the stack (s-1's, as one step) is redone; s-2's undo below it stays.
    const back = editwarden(['redo', '--session', 's-1', '--root', root]);
    expect(back.code, back.stderr).toBe(0);
    expect(read(root, 'new.txt')).toBe('new\n');
    expect(read(root, 'notes.txt')).toBe(after.notes);
    expect(fs.existsSync(path.join(root, 'other.txt'))).toBe(false);
    // redo --session s-2 reaches under it.
    expect(editwarden(['redo', '--session', 's-2', '--root', root]).code).toBe(0);
    expect(read(root, 'other.txt')).toBe(after.other);
  });
});

describe('undo --to undoes back to a step', () => {
  it('undoes the named step and every later one as one step; redo --to brings them back up to it', () => {
    const { root, before } = twoSessions();
    const first = list(root).steps.at(-1) as { key: string };
    const id = first.key.slice(first.key.indexOf(':') + 1);
    const undo = editwarden(['undo', '--to', id, '--root', root]);
    expect(undo.code, undo.stderr).toBe(0);
    for (const [file, text] of Object.entries(before)) expect(read(root, file)).toBe(text);
    expect(fs.existsSync(path.join(root, 'other.txt'))).toBe(false);
    const redo = editwarden(['redo', '--to', id, '--root', root]);
    expect(redo.code, redo.stderr).toBe(0);
    expect(read(root, 'other.txt')).toBe('other\n');
    expect(fs.existsSync(path.join(root, 'src'))).toBe(false);
  });
});

describe('coded refusals with hints that fit', () => {
  it('an unknown session or step is E_NOT_FOUND pointing at --list; a session id given to --run says to use --session; --session with --to is E_USAGE', () => {
    const { root } = twoSessions();
    const unknown = JSON.parse(editwarden(['undo', '--session', 'nope', '--json', '--root', root]).stdout) as { error: { code: string; hint: string } };
    expect(unknown.error.code).toBe('E_NOT_FOUND');
    expect(unknown.error.hint).toContain('editwarden undo --list');
    const step = editwarden(['undo', '--to', 'nope', '--json', '--root', root]);
    expect(step.code).not.toBe(0);
    expect((JSON.parse(step.stdout) as { error: { code: string } }).error.code).toBe('E_NOT_FOUND');
    const run = editwarden(['undo', '--run', 's-1', '--json', '--root', root]);
    expect(run.code).toBe(64);
    expect((JSON.parse(run.stdout) as { error: { message: string } }).error.message).toContain('editwarden undo --session s-1');
    const both = editwarden(['undo', '--session', 's-1', '--to', 'x', '--json', '--root', root]);
    expect((JSON.parse(both.stdout) as { error: { code: string } }).error.code).toBe('E_USAGE');
    // Nothing was undone by any of them.
    expect(read(root, 'other.txt')).toBe('other\n');
  });
});
