/**
 * The raw writer of project files: ordered temp-file-and-rename
 * writes and unlinks through the race-free resolver, with no checkpoint,
 * journal or lock of its own. Only the transaction layer (transaction.ts)
 * holds one, and only its transactions call it, after the batch is
 * checkpointed and journaled. Never imported anywhere else (pinned by
 * test/workspace/views.test.ts), never exported from the package.
 */
import fs from 'node:fs';
import { EditwardenError, ErrorCode } from '../errors.js';
import { atomicWriteAt } from './atomic.js';
import { deferDurable, observe, syncGroup } from './durable.js';
import { lexicalParts } from './paths.js';
import { notAFile, notRegular, type FileWrite, type Workspace } from './workspace.js';
import { defined } from '../defined.js';

/** How writeAll orders durability (see writeAll). */
export interface WriteAllOptions {
  /** Paths that must be durable before the first write lands (see writeAll). */
  durableFirst?: readonly string[];
  /** A lone write in deferred durability (transaction.ts applyBatch): `durableFirst` and the folder's fsync after the rename wait for settleDurable; the temp file is still fsynced before its rename, except where it replaces a file on a file system that orders that rename after the data (atomic.ts deferTempSync). */
  deferDurable?: boolean;
}

/**
 * Kept in the declarations (transaction.d.ts names it) but unreachable for a
 * user: the package exports neither this module nor a writer instance (the
 * layer holds its writer in a private field).
 */
export class DiskWriter {
  constructor(readonly files: Workspace) {}

  /** The root-relative path a write touches, as its checkpoint must record it (Workspace.targetOf). */
  targetOf(write: FileWrite): string {
    return this.files.targetOf(write);
  }

  /**
   * Raw ordered writes, without a transaction: the transaction layer calls
   * this inside one. `durableFirst`: paths (the checkpoint, the journal
   * record) that must be on disk before the first write lands; they are
   * fsynced in one group with the first write's temp file (durable.ts).
   */
  writeAll(writes: FileWrite[], options: WriteAllOptions = {}): void {
    let first = options.durableFirst ?? [];
    const defer = options.deferDurable === true;
    for (const write of writes) {
      this.writeOne(write, first, defer);
      first = [];
    }
  }

  private writeOne(write: FileWrite, checkpointPaths: readonly string[], defer: boolean): void {
    // Deferred: what makes the write undoable reaches the disk just after the answer (settleDurable), not before the rename.
    if (defer) deferDurable(checkpointPaths);
    const durableFirst = defer ? [] : checkpointPaths;
    const ws = this.files;
    const followFinal = write.kind === 'write';
    // The protected set (config, client settings, .git, state) is never written by an agent, whatever the spelling.
    ws.policy.checkWrite(write.path, lexicalParts(ws.root, write.path).lexicalRelative);
    const loc = ws.locate(write.path, { followFinal, createParents: followFinal });
    try {
      // ...nor through a link to it: the path the kernel reaches is checked too.
      ws.policy.checkWrite(write.path, loc.relative);
      const st = loc.stat;
      if (write.kind === 'delete') {
        if (st === null || loc.parent === null) return;
        if (st.isDirectory() || loc.name === '') throw notAFile(loc.relative, 'folder');
        if (!st.isFile() && !st.isSymbolicLink()) throw notRegular(loc.relative, st);
        syncGroup(durableFirst);
        // unlink relative to the opened parent: a symlink is removed as a link, never its target.
        fs.unlinkSync(loc.parent.at(loc.name));
        observe({ op: 'unlink', path: loc.absolute });
        if (defer) {
          deferDurable([loc.parent.display]);
          return;
        }
        loc.parent.fsync();
        observe({ op: 'fsync', path: loc.parent.display });
        return;
      }
      if (loc.parent === null || loc.name === '') throw notAFile(loc.relative || '.', 'folder');
      if (st !== null) {
        if (st.isDirectory()) throw notAFile(loc.relative, 'folder');
        if (st.isSymbolicLink()) {
          throw new EditwardenError({
            code: ErrorCode.OUTSIDE_ROOT,
            message: `${write.path} changed while it was being written (a symlink appeared).`,
            hint: 'Retry the edit; do not create symlinks while edits run.',
            path: write.path,
          });
        }
        // A FIFO, socket or device is never replaced by a file.
        if (!st.isFile()) throw notRegular(loc.relative, st);
        if ((st.mode & 0o222) === 0 && !write.force) {
          throw new EditwardenError({
            code: ErrorCode.READ_ONLY,
            message: `${loc.relative} is read-only (mode ${(st.mode & 0o777).toString(8)}): someone made it so on purpose.`,
            hint: 'Leave it alone, or pass force: true (CLI --force) if replacing it is really intended; its mode is kept.',
            path: loc.relative,
          });
        }
      }
      // Temp file and rename inside the opened parent: a folder swapped for a symlink cannot redirect either.
      atomicWriteAt(loc.parent, loc.name, write.bytes, {
        durableFirst,
        deferFolderSync: defer,
        deferTempSync: defer,
        ...defined({ mode: write.mode }),
        ...defined({ owner: st !== null ? { uid: st.uid, gid: st.gid } : undefined }),
      });
    } finally {
      loc.parent?.close();
    }
  }
}
