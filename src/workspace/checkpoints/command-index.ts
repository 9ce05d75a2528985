/**
 * The index of the workspace a shell command's effects are measured
 * against: a workspace checkpoint taken just before the command
 * (`take`), compared with the disk after it, then kept as the base of the
 * next command's index (`release`) instead of being dropped.
 *
 * Why keep it: the stat cache (stat-cache.ts) is valid only while the
 * checkpoint it was recorded with exists. Dropping each index made every
 * command pay a full read and copy of the tree before it and the removal of
 * every blob after it (5k files: seconds, not milliseconds). Kept, the next
 * index reuses every unchanged file by its stat and nothing is collected.
 *
 * `release` removes the previous index's manifest without running the
 * garbage collector: its only blobs no newer manifest names are the old
 * bytes of files changed since, which the step of the command or the
 * transaction that changed them names too; anything left (a hand edit's old
 * bytes) goes with the next prune or drop. A released index is never one a
 * command still measures against: only finished ones are released.
 * The pointer `.editwarden/checkpoints/command-index` is state: read
 * through the state folder, trusted only as a well-formed id.
 */
import { atomicWriteAt } from '../atomic.js';
import { readStateFile, StateFolder } from '../state-dir.js';
import { CHECKPOINTS_DIR, type CheckpointService } from './service.js';
import type { Manifest } from './types.js';

const POINTER = 'command-index';
const ID_PATTERN = /^\d{8}-\d{6}-\d{3}-[0-9a-f]{4}$/;

export class CommandIndex {
  private readonly folder: StateFolder;

  constructor(private readonly service: CheckpointService) {
    this.folder = new StateFolder(service.ws.resolver, CHECKPOINTS_DIR);
  }

  /** The workspace now (every non-ignored file; unchanged ones reused by their stat). */
  take(label: string): Manifest {
    return this.service.createWorkspace(`before ${label}`, 'index of the workspace before a command, to charge and undo what it changes', { kind: 'index' }, [], false, false);
  }

  /** Makes `id` the base of the next index and removes the one before it (manifest only, no collection). */
  release(id: string): void {
    this.service.lock.with(() => {
      const previous = this.pointer();
      this.folder.with(true, undefined, (dir) => atomicWriteAt(dir, POINTER, Buffer.from(`${id}\n`), { mode: 0o644, noSync: true }));
      if (previous === null || previous === id) return;
      try {
        // Only an index: a pointer edited to name another checkpoint must not remove it.
        if (this.service.manifests.isIndex(previous)) this.service.manifests.remove(previous);
      } catch {
        // Already gone (pruned, dropped): nothing to do.
      }
    });
  }

  private pointer(): string | null {
    try {
      const text = this.folder
        .with(false, Buffer.alloc(0), (dir) => readStateFile(dir, POINTER))
        .toString('utf8')
        .trim();
      return ID_PATTERN.test(text) ? text : null;
    } catch {
      return null;
    }
  }
}
