/**
 * The undo selection on every route besides the CLI (undo-session.test.ts):
 * the MCP server's undo_list / undo_steps / redo_steps tools (the real binary over
 * stdio) and the library's undoSelected / redoSelected / groupSteps — a
 * whole client session undone as one step and put back by one redo, back to
 * a step, and the list grouped by session — over the same two-session
 * history a client's hooks and guarded shell record.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { groupSteps, openWorkspace, redoSelected, UndoHistory, undoSelected } from '../../src/index.js';
import { call, connect } from '../mcp/helpers/server.js';
import { cleanup } from './helpers.js';
import { read, twoSessions } from './sessions.js';

afterAll(cleanup);

describe('over MCP: undo_list, undo_steps and redo_steps', () => {
  it('lists the sessions; undoes session s-1 as one step byte-exact (s-2 stays); one redo puts it back; undo to a step; refuses an unknown session with a hint', async () => {
    const { root, before } = twoSessions();
    const after = read(root, 'notes.txt');
    const server = await connect(['--root', root]);
    try {
      const listed = await call(server.client, 'undo_list');
      expect(listed.isError, listed.text).toBe(false);
      expect(listed.text).toContain('claude session s-1');
      expect(listed.text).toContain('claude session s-2');
      expect((listed.structured.sessions as Array<{ session?: string }>).map((g) => g.session)).toEqual(['s-2', 's-1']);

      const undo = await call(server.client, 'undo_steps', { session: 's-1' });
      expect(undo.isError, undo.text).toBe(false);
      for (const [file, text] of Object.entries(before)) expect(read(root, file)).toBe(text);
      expect(fs.existsSync(path.join(root, 'new.txt'))).toBe(false);
      expect(read(root, 'other.txt')).toBe('other\n');

      const redo = await call(server.client, 'redo_steps');
      expect(redo.isError, redo.text).toBe(false);
      expect(read(root, 'notes.txt')).toBe(after);
      expect(fs.existsSync(path.join(root, 'src'))).toBe(false);

      const first = (listed.structured.steps as Array<{ key: string }>).at(-1)?.key as string;
      const back = await call(server.client, 'undo_steps', { to: first.slice(first.indexOf(':') + 1) });
      expect(back.isError, back.text).toBe(false);
      for (const [file, text] of Object.entries(before)) expect(read(root, file)).toBe(text);
      expect(fs.existsSync(path.join(root, 'other.txt'))).toBe(false);

      const unknown = await call(server.client, 'undo_steps', { session: 'nope' });
      expect(unknown.isError).toBe(true);
      expect(unknown.error).toMatchObject({ code: 'E_NOT_FOUND', hint: expect.stringContaining('undo --list') });
    } finally {
      await server.close();
    }
  }, 120_000);
});

describe('the library: undoSelected, redoSelected, groupSteps', () => {
  it('undoes the latest session as one step and redoes it with one call; groups the list by session', () => {
    const { root, before } = twoSessions();
    const { transactions } = openWorkspace(root);
    const history = new UndoHistory(transactions.checkpoints);
    expect(groupSteps(history.list()).map((g) => [g.by, g.session, g.steps.length])).toEqual([
      ['claude', 's-2', 1],
      ['claude', 's-1', 4],
    ]);
    // `last` is s-2: only its file goes.
    expect(undoSelected(history, { kind: 'session', session: 'last' }).map((r) => r.change?.label)).toEqual(['before claude Write other.txt']);
    expect(fs.existsSync(path.join(root, 'other.txt'))).toBe(false);
    const s1 = undoSelected(history, { kind: 'session', session: 's-1' });
    expect(s1).toHaveLength(4);
    for (const [file, text] of Object.entries(before)) expect(read(root, file)).toBe(text);
    // One redo: the four steps of s-1 together.
    expect(redoSelected(history, { kind: 'newest' })).toHaveLength(4);
    expect(fs.existsSync(path.join(root, 'src'))).toBe(false);
    expect(fs.existsSync(path.join(root, 'other.txt'))).toBe(false);
    expect(redoSelected(history, { kind: 'session', session: 's-2' })).toHaveLength(1);
    expect(read(root, 'other.txt')).toBe('other\n');
  });
});
