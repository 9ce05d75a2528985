/**
 * The warm server's per-project state keeps a watched tree (hook-projects.ts,
 * watched-tree.ts) and the guarded shell's route uses it: commands that
 * change nothing are measured without a walk, a command that writes a file
 * still has its step (undo gives the file back) — a write through a shared
 * memory mapping too, which inotify does not report but the write witness
 * does — and dropping the state
 * ends the watch's helper process.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { UndoHistory } from '../../src/workspace/checkpoints/history.js';
import { openWorkspace } from '../../src/workspace/open.js';
import { tempRoot, write } from '../workspace/fixtures/checkpoint-helpers.js';
import { warmState, watchedShell } from './watched-shell.js';

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return fs.readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.[0] !== 'Z';
  } catch {
    return false;
  }
}

describe('the guarded shell through the warm state', () => {
  it('measures unchanged commands from the watch, still records a write as an undoable step, and ends the helper with the state', async () => {
    const root = tempRoot('ew-hp-watch-');
    write(root, '.gitignore', 'node_modules/\n*.log\n');
    write(root, 'a.txt', 'one\n');
    write(root, 'src/b.ts', 'export const b = 1;\n');
    write(root, 'debug.log', 'kept\n');
    const { state, shell, said, tree } = await watchedShell(root);
    // The helper's first scan (a command never waits for it: one during it walks).
    expect(tree.watch.whenReady(30_000)).toBe(true);
    for (let i = 0; i < 3; i++) expect(await shell('true'), said.join('')).toBe(0);
    expect(tree.counts.indexReused).toBeGreaterThanOrEqual(2);
    expect(tree.counts.diffSkipped).toBeGreaterThanOrEqual(2);
    expect(await shell('printf two > a.txt')).toBe(0);
    expect(fs.readFileSync(path.join(root, 'a.txt'), 'utf8')).toBe('two');
    new UndoHistory(openWorkspace(root).transactions.checkpoints).undo();
    expect(fs.readFileSync(path.join(root, 'a.txt'), 'utf8')).toBe('one\n');
    // A write through a shared mapping makes no inotify event: the write witness names the file, so it is still the command's step.
    for (let i = 0; i < 2; i++) expect(await shell('true')).toBe(0);
    const mmapWrite = `python3 -c "import mmap; f = open('a.txt', 'r+b'); m = mmap.mmap(f.fileno(), 0); m[0:1] = b'X'; m.flush()"`;
    expect(await shell(mmapWrite), said.join('')).toBe(0);
    expect(fs.readFileSync(path.join(root, 'a.txt'), 'utf8')).toBe('Xne\n');
    new UndoHistory(openWorkspace(root).transactions.checkpoints).undo();
    expect(fs.readFileSync(path.join(root, 'a.txt'), 'utf8')).toBe('one\n');
    const pid = tree.watch.pid as number;
    expect(alive(pid)).toBe(true);
    state.dispose();
    // Killed at once; on a loaded machine the kernel may take a moment to end it.
    for (let i = 0; i < 200 && alive(pid); i++) await new Promise((r) => setTimeout(r, 50));
    expect(alive(pid)).toBe(false);
  });

  it("EDITWARDEN_WATCH=off in the server's environment: no watched tree, every command walks", () => {
    const root = tempRoot('ew-hp-watch-');
    const state = warmState(root);
    const was = process.env.EDITWARDEN_WATCH;
    process.env.EDITWARDEN_WATCH = 'off';
    try {
      expect(state.tree(root)).toBeNull();
    } finally {
      if (was === undefined) delete process.env.EDITWARDEN_WATCH;
      else process.env.EDITWARDEN_WATCH = was;
    }
    expect(state.tree(root)).not.toBeNull();
  });
});
