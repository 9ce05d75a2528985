/**
 * Why the guarded shell keeps its write witness on the warm server's route,
 * where the watched tree already sees most changes (docs/benchmarks.md, "The
 * guarded shell, round 6"): a tracked file changed through a hard link made
 * in a rebuildable folder the watch does not watch (`node_modules/`, inside
 * the project's own bind mount, so `ln` works in the sandbox) makes no event
 * in a watched folder. The witness credits the link's source, so the command
 * is diffed and its step holds the file (undo gives it back), as the stat
 * walk would find; the watch alone would have skipped the diff.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { UndoHistory } from '../../src/workspace/checkpoints/history.js';
import { openWorkspace } from '../../src/workspace/open.js';
import { tempRoot, write } from '../workspace/fixtures/checkpoint-helpers.js';
import { watchedShell } from './watched-shell.js';

describe('the witness on the watched route', () => {
  it('a write through a hard link made in an unwatched rebuildable folder is the command’s step, as the walk finds it', async () => {
    const root = tempRoot('ew-hp-witness-');
    write(root, '.gitignore', 'node_modules/\n');
    write(root, 'a.txt', 'one\n');
    write(root, 'node_modules/dep/index.js', 'module.exports = 1;\n');
    const { shell, said, tree } = await watchedShell(root);
    expect(tree.watch.whenReady(30_000)).toBe(true);
    for (let i = 0; i < 2; i++) expect(await shell('true'), said.join('')).toBe(0);
    // Not vacuous: unchanged commands are measured from the watch alone.
    expect(tree.counts.diffSkipped).toBeGreaterThanOrEqual(1);
    const walked = tree.counts.diffWalked;
    expect(await shell('ln a.txt node_modules/x && printf more >> node_modules/x && rm node_modules/x'), said.join('')).toBe(0);
    expect(fs.readFileSync(path.join(root, 'a.txt'), 'utf8')).toBe('one\nmore');
    // The witness named a.txt (the link's source): the command was diffed, not skipped.
    expect(tree.counts.diffWalked).toBe(walked + 1);
    new UndoHistory(openWorkspace(root).transactions.checkpoints).undo();
    expect(fs.readFileSync(path.join(root, 'a.txt'), 'utf8')).toBe('one\n');
  });
});
