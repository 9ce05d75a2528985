import fs from 'node:fs';
import path from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ErrorCode } from '../../src/errors.js';
import { EVENTS_FILE } from '../../src/runs/events.js';
import { readEvents } from '../../src/runs/events-read.js';
import { recordHookCommand, recordHookEdit, recordHookRefusal } from '../../src/runs/hook-records.js';
import { hookRecords } from '../../src/runs/hook-view.js';
import { tempDir } from '../temp-dirs.js';

const hook = { via: 'hook', client: 'claude', session: 's1' };
const shell = { via: 'shell', client: 'claude', session: 's1' };
const patch = (p: string): string => `--- a/${p}\n+++ b/${p}\n@@ -1 +1,2 @@\n-old\n+new\n+more\n`;

function root(): { root: string; state: string } {
  const dir = tempDir('ew-hook-records-');
  return { root: dir, state: path.join(dir, '.editwarden') };
}

function lines(state: string): number {
  try {
    return fs
      .readFileSync(path.join(state, EVENTS_FILE), 'utf8')
      .split('\n')
      .filter((l) => l !== '').length;
  } catch {
    return 0;
  }
}

describe('a hooked native edit is written once, to the event log, and the hooks view reads it back', () => {
  it('records the diff, the undo step, the call id and which paths were created, modified or deleted', () => {
    const { root: r, state } = root();
    const changes = [
      { path: 'new.txt', change: 'created', patch: patch('new.txt') },
      { path: 'a.txt', change: 'modified', patch: patch('a.txt') },
      { path: 'gone.txt', change: 'deleted', patch: patch('gone.txt') },
    ];
    expect(recordHookEdit(r, hook, 'Edit', { call: 'toolu_1', checkpoint: 'cp-1', changes })).toBeNull();
    expect(lines(state)).toBe(1);
    const [event] = readEvents(state).events;
    expect(event).toMatchObject({ kind: 'edit', tool: 'Edit', paths: ['new.txt', 'a.txt', 'gone.txt'], added: 6, removed: 3, created: ['new.txt'], deleted: ['gone.txt'], call: 'toolu_1', checkpoint: 'cp-1' });
    expect(hookRecords(state)).toEqual([
      {
        at: event?.time,
        client: 'claude',
        session: 's1',
        tool: 'Edit',
        call: 'toolu_1',
        checkpoint: 'cp-1',
        changes: [
          { path: 'new.txt', change: 'created' },
          { path: 'a.txt', change: 'modified' },
          { path: 'gone.txt', change: 'deleted' },
        ],
      },
    ]);
    // What changes.jsonl said, and tests read as text.
    expect(JSON.stringify(hookRecords(state)[0])).toContain('"path":"a.txt","change":"modified"');
  });

  it('a vetted edit that changed nothing writes nothing; an edit no hook vetted (no checkpoint) is still recorded', () => {
    const { root: r, state } = root();
    expect(recordHookEdit(r, hook, 'Edit', { checkpoint: 'cp-1', changes: [] })).toBeNull();
    expect(lines(state)).toBe(0);
    expect(recordHookEdit(r, { via: 'hook', client: 'cursor' }, 'afterFileEdit', { checkpoint: null, changes: [] })).toBeNull();
    expect(hookRecords(state)).toEqual([{ at: expect.any(String), client: 'cursor', tool: 'afterFileEdit', checkpoint: null, changes: [] }]);
  });

  it('an edit no hook vetted is recorded with the paths the client named, root-relative; a vetted one with its diff paths only', () => {
    const { root: r, state } = root();
    const cursor = { via: 'hook', client: 'cursor' };
    expect(recordHookEdit(r, cursor, 'afterFileEdit', { checkpoint: null, changes: [], named: [path.join(r, 'src/a.txt'), '/elsewhere/b.txt', path.join(r, 'src/a.txt')] })).toBeNull();
    expect(recordHookEdit(r, hook, 'Edit', { checkpoint: 'cp', changes: [{ path: 'c.txt', change: 'modified', patch: patch('c.txt') }], named: ['ignored.txt'] })).toBeNull();
    expect(readEvents(state).events.map((e) => e.paths)).toEqual([['src/a.txt', '/elsewhere/b.txt'], ['c.txt']]);
    expect(readEvents(state).events[0]).toMatchObject({ added: 0, removed: 0 });
    expect(readEvents(state).events[0]?.checkpoint).toBeUndefined();
  });

  it('every path keeps its kind, whatever the mix (property)', () => {
    const { root: r, state } = root();
    const kinds = fc.constantFrom('created', 'modified', 'deleted');
    fc.assert(
      fc.property(fc.uniqueArray(fc.tuple(fc.stringMatching(/^[a-z]{1,8}\.txt$/), kinds), { selector: ([p]) => p, minLength: 1, maxLength: 12 }), (files) => {
        fs.rmSync(state, { recursive: true, force: true });
        const changes = files.map(([p, change]) => ({ path: p, change, patch: patch(p) }));
        expect(recordHookEdit(r, hook, 'Write', { checkpoint: 'cp', changes })).toBeNull();
        const [record] = hookRecords(state);
        expect(record && 'changes' in record && Array.isArray(record.changes) ? record.changes : null).toEqual(files.map(([p, change]) => ({ path: p, change })));
      }),
      { numRuns: 40 },
    );
  });
});

describe('a guarded shell command is written once, to the event log, and the hooks view reads it back', () => {
  it('records its folder and sandbox beside its exit code, changes and undo step', () => {
    const { root: r, state } = root();
    const run = { command: 'echo x > a.txt', cwd: r, sandbox: 'bwrap', exitCode: 0, changes: [{ path: 'a.txt', added: 1, removed: 1 }], checkpoint: 'step-1', refusal: null, diff: patch('a.txt') };
    expect(recordHookCommand(r, shell, 'Bash', run)).toBeNull();
    expect(lines(state)).toBe(1);
    expect(readEvents(state).events[0]).toMatchObject({ kind: 'command', cwd: r, sandbox: 'bwrap', exit_code: 0, paths: ['a.txt'], changes: { added: 1, removed: 1 } });
    expect(hookRecords(state)).toEqual([
      { at: expect.any(String), client: 'claude', session: 's1', tool: 'Bash', command: 'echo x > a.txt', cwd: r, exit_code: 0, sandbox: 'bwrap', checkpoint: 'step-1', paths: ['a.txt'], changes: { added: 1, removed: 1 } },
    ]);
  });

  it('a command refused before it ran is in the log, not among the commands that ran; refusals and other routes are not hook records', () => {
    const { root: r, state } = root();
    const refusal = { code: ErrorCode.UNSANDBOXED, message: 'no sandbox', hint: 'install bubblewrap' };
    recordHookCommand(r, shell, 'Bash', { command: 'true', exitCode: null, changes: [], checkpoint: null, refusal });
    recordHookRefusal(r, hook, 'Edit', { requests: [{ path: path.join(r, '.git/config') }], pathsOnly: [] }, { ...refusal, code: ErrorCode.DENIED_PATH });
    recordHookEdit(r, { via: 'mcp' }, 'edit_file', { checkpoint: 'cp', changes: [{ path: 'a.txt', change: 'modified', patch: patch('a.txt') }] });
    const events = readEvents(state).events;
    expect(events.map((e) => e.kind)).toEqual(['command', 'refusal', 'edit']);
    // The refusal shows the path root-relative.
    expect(events[1]?.paths).toEqual(['.git/config']);
    expect(hookRecords(state)).toEqual([]);
  });
});
