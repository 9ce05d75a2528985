/**
 * What a client's hook writes to the root's event log, through the real
 * binary: a refused native edit (code, hint, the client's session id, the
 * path relative to the root), unreadable hook input (fail closed, and
 * recorded), and an allowed edit once the client wrote it (the real diff and
 * the hook's checkpoint); `editwarden undo` then records its own step.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { readEvents } from '../../src/runs/events-read.js';
import { THIRTY_LINES, cleanup, editwarden, project } from './helpers.js';

afterAll(cleanup);

function hook(client: string, event: string, root: string, input: unknown): ReturnType<typeof editwarden> {
  return editwarden(['hook', client, event, '--root', root], { input: typeof input === 'string' ? input : JSON.stringify(input) });
}

const events = (root: string) => readEvents(path.join(root, '.editwarden')).events;

describe('hooks record what they refused and what the client changed', () => {
  it('a refused native Write is a refusal event with its code, hint, client and session', () => {
    const root = project({ 'big.txt': THIRTY_LINES });
    const r = hook('claude', 'pre-tool-use', root, { session_id: 'sess-42', tool_name: 'Write', tool_input: { file_path: path.join(root, 'big.txt'), content: 'gone\n' } });
    expect(r.stdout).toContain('E_DRAMATIC_REDUCTION');
    const [refusal] = events(root);
    expect(refusal).toMatchObject({ kind: 'refusal', tool: 'Write', code: 'E_DRAMATIC_REDUCTION', paths: ['big.txt'], route: { via: 'hook', client: 'claude', session: 'sess-42' } });
    expect(refusal?.kind === 'refusal' && refusal.hint.length > 0).toBe(true);
  });

  it('unreadable hook input is refused (fail closed) and the refusal recorded', () => {
    const root = project({ 'a.txt': 'a\n' });
    const r = hook('claude', 'pre-tool-use', root, { session_id: 's', tool_name: 'Edit', tool_input: { file_path: path.join(root, 'a.txt') } });
    expect(r.stdout).toContain('E_PARSE');
    expect(events(root)).toEqual([expect.objectContaining({ kind: 'refusal', code: 'E_PARSE', tool: 'Edit', route: { via: 'hook', client: 'claude', session: 's' } })]);
  });

  it('an allowed native Edit is an edit event with the real diff and the undo step, once the client wrote it; undo is recorded too', () => {
    const root = project({ 'notes.txt': 'alpha\nbeta\n' });
    const input = { session_id: 'sess-7', tool_name: 'Edit', tool_use_id: 'toolu_9', tool_input: { file_path: path.join(root, 'notes.txt'), old_string: 'beta', new_string: 'BETA' } };
    expect(hook('claude', 'pre-tool-use', root, input).stdout).toBe('');
    // Allowed, not yet written: nothing happened to log.
    expect(events(root)).toEqual([]);
    fs.writeFileSync(path.join(root, 'notes.txt'), 'alpha\nBETA\n');
    expect(hook('claude', 'post-tool-use', root, { ...input, tool_response: {} }).code).toBe(0);
    const [edit] = events(root);
    expect(edit).toMatchObject({ kind: 'edit', tool: 'Edit', paths: ['notes.txt'], added: 1, removed: 1, route: { via: 'hook', client: 'claude', session: 'sess-7' }, checkpoint: expect.stringMatching(/^\d{8}-/) });
    expect(edit?.kind === 'edit' && edit.diff).toContain('-beta\n+BETA');

    expect(editwarden(['undo', '--root', root]).code).toBe(0);
    const undo = events(root).at(-1);
    expect(undo).toMatchObject({ kind: 'undo', route: { via: 'cli' }, written: ['notes.txt'], label: expect.stringContaining('claude Edit'), checkpoint: expect.stringMatching(/^\d{8}-/) });
    expect(editwarden(['redo', '--root', root]).code).toBe(0);
    expect(events(root).at(-1)).toMatchObject({ kind: 'redo', written: ['notes.txt'] });
  });

  it('checkpoint create and restore are recorded', () => {
    const root = project({ 'a.txt': 'a\n' });
    const id = (JSON.parse(editwarden(['checkpoint', 'create', '--root', root, '--name', 'before', '--json']).stdout) as { id: string }).id;
    fs.writeFileSync(path.join(root, 'a.txt'), 'changed\n');
    expect(editwarden(['checkpoint', 'restore', id, '--root', root]).code).toBe(0);
    expect(events(root).map((e) => e.kind)).toEqual(['checkpoint', 'undo']);
    expect(events(root)[0]).toMatchObject({ label: 'before', checkpoint: id });
    expect(events(root)[1]).toMatchObject({ label: `checkpoint restore ${id}`, written: ['a.txt'] });
  });
});
