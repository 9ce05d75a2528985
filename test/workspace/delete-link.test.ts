/**
 * A delete acts on the entry it names: `*** Delete File: lnk.txt` where
 * lnk.txt -> a.txt removes the link and leaves a.txt, in every format and
 * every route (library, dry run, CLI), as unlink(2) does; undo brings the
 * link back as a link.
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { applyReply } from '../../src/apply/apply-reply.js';
import { UndoHistory } from '../../src/workspace/checkpoints/history.js';
import { openWorkspace } from '../../src/workspace/open.js';
import { tempDir } from '../temp-dirs.js';

const BIN = path.resolve('bin/editwarden');

const FORMATS = {
  'apply-patch': '*** Begin Patch\n*** Delete File: lnk.txt\n*** End Patch\n',
  udiff: '--- a/lnk.txt\n+++ /dev/null\n@@ -1 +0,0 @@\n-a\n',
} as const;

function linkedRoot(): string {
  const root = tempDir('ew-delete-link-');
  fs.writeFileSync(path.join(root, 'a.txt'), 'a\n');
  fs.symlinkSync('a.txt', path.join(root, 'lnk.txt'));
  return root;
}

describe('a delete of a symlink deletes the link, never its target', () => {
  for (const [format, text] of Object.entries(FORMATS)) {
    it(`${format}: lnk.txt goes, a.txt stays; undo brings the link back as a link`, async () => {
      const root = linkedRoot();
      const opened = openWorkspace(root);
      const outcome = await applyReply(opened.ws, text, { format: format as keyof typeof FORMATS });
      expect(outcome.ok, JSON.stringify(outcome)).toBe(true);
      expect(outcome.results.map((r) => r.path)).toEqual(['lnk.txt']);
      expect(fs.lstatSync(path.join(root, 'lnk.txt'), { throwIfNoEntry: false })).toBeUndefined();
      expect(fs.readFileSync(path.join(root, 'a.txt'), 'utf8')).toBe('a\n');
      new UndoHistory(opened.transactions.checkpoints).undo();
      expect(fs.readlinkSync(path.join(root, 'lnk.txt'))).toBe('a.txt');
    });

    it(`${format} as a dry run reports the link, not its target`, async () => {
      const root = linkedRoot();
      const outcome = await applyReply(openWorkspace(root).ws, text, { format: format as keyof typeof FORMATS, dryRun: true });
      expect(outcome.results.map((r) => r.path)).toEqual(['lnk.txt']);
      expect(fs.readlinkSync(path.join(root, 'lnk.txt'))).toBe('a.txt');
    });
  }

  it('the CLI (editwarden apply) removes the link and leaves a.txt', () => {
    const root = linkedRoot();
    fs.writeFileSync(path.join(root, 'p.txt'), FORMATS['apply-patch']);
    const r = spawnSync(process.execPath, [BIN, 'apply', 'p.txt', '--format', 'apply-patch', '--root', root, '--json'], { cwd: root, encoding: 'utf8' });
    expect(r.status, r.stdout + r.stderr).toBe(0);
    expect(fs.lstatSync(path.join(root, 'lnk.txt'), { throwIfNoEntry: false })).toBeUndefined();
    expect(fs.readFileSync(path.join(root, 'a.txt'), 'utf8')).toBe('a\n');
  });
});
