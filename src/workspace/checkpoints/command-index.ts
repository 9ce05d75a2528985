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
 *
 * An unchanged tree reuses the index: when the stat cache vouches for every
 * file and nothing else differs (service.ts `createWorkspace` with `reuse`),
 * the pointer's index already holds exactly this state, and no manifest is
 * written (the JSON of every file, the stat cache, the pointer: most of what
 * a read-only command such as `ls` or `git status` paid besides the walks).
 * A reused index is released already, so another process's `release` could
 * remove it while this command still measures against it — and a later
 * garbage collection would lose the old bytes its undo step needs. So a
 * reuse takes a lease (`checkpoints/index-leases/<id>.<pid>.<random>`, made
 * under the root lock with the decision), `release` never removes a leased
 * index, and the lease ends after the command's step is written. A lease of
 * a process that is gone (a crash) no longer holds.
 */
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import { atomicWriteAt } from '../atomic.js';
import { readStateFile, StateFolder } from '../state-dir.js';
import { CHECKPOINTS_DIR, type CheckpointService } from './service.js';
import type { Manifest } from './types.js';

const POINTER = 'command-index';
const ID_PATTERN = /^\d{8}-\d{6}-\d{3}-[0-9a-f]{4}$/;
const LEASE_PATTERN = /^(\d{8}-\d{6}-\d{3}-[0-9a-f]{4})\.(\d+)\.[0-9a-f]{8}$/;

/** A command's index: the manifest, and the lease held on it when it is a reused one (null: a new index, no lease). */
export interface TakenIndex {
  manifest: Manifest;
  lease: string | null;
  /** The watch's mark taken before it (watched-tree.ts); null: no watch, or it could not tell. */
  mark: number | null;
}

export class CommandIndex {
  private readonly folder: StateFolder;
  private readonly leases: StateFolder;

  constructor(private readonly service: CheckpointService) {
    this.folder = new StateFolder(service.ws.resolver, CHECKPOINTS_DIR);
    this.leases = new StateFolder(service.ws.resolver, `${CHECKPOINTS_DIR}/index-leases`);
  }

  /**
   * The workspace now (every non-ignored file; unchanged ones reused by their stat; an unchanged tree reuses the current
   * index under a lease). With a watched tree (watched-tree.ts), an index nothing tracked changed since is reused
   * without a walk. `exclude`: .git/info/exclude's text now.
   */
  take(label: string, exclude: string | null = null): TakenIndex {
    return this.service.lock.with(() => {
      const current = this.pointer();
      // Only the pointer's own index: a stat cache naming another checkpoint (a transaction's) is not one a release may remove.
      const reusable = (id: string): boolean => id === current && this.service.manifests.isIndex(id);
      const tree = this.service.tree;
      // The mark before the decision and before any walk: every change after it is told about next time.
      const mark = tree?.look() ?? null;
      const still = tree && mark !== null ? tree.indexStill(current, exclude) : null;
      const manifest =
        still !== null && reusable(still.id)
          ? { ...still, name: `before ${label}`, createdAt: new Date().toISOString() }
          : this.service.createWorkspace(`before ${label}`, 'index of the workspace before a command, to charge and undo what it changes', { kind: 'index' }, [], false, false, reusable);
      tree?.rememberIndex(manifest, mark, exclude, this.service.ignored === null);
      if (manifest.id !== current) return { manifest, lease: null, mark };
      const lease = `${manifest.id}.${process.pid}.${randomBytes(4).toString('hex')}`;
      // "wx": a planted file is never written through; without the lease the reuse is unsafe, so a failure here fails the command (fail closed).
      this.leases.with(true, undefined, (dir) => fs.closeSync(fs.openSync(dir.at(lease), 'wx', 0o600)));
      return { manifest, lease, mark };
    });
  }

  /**
   * Ends a lease taken by `take` (its command's step is written). An index a
   * `release` kept only for this lease is removed now, unless it is the base
   * again or another command still leases it.
   */
  endLease(lease: string): void {
    const m = LEASE_PATTERN.exec(lease);
    if (m === null) return;
    const id = m[1] as string;
    this.service.lock.with(() => {
      this.leases.with(false, undefined, (dir) => fs.rmSync(dir.at(lease), { force: true }));
      if (id === this.pointer() || this.leased().has(id)) return;
      this.removeIndex(id);
    });
  }

  /** Makes `id` the base of the next index and removes the one before it (manifest only, no collection) unless a running command leases it. */
  release(id: string): void {
    this.service.lock.with(() => {
      const previous = this.pointer();
      // An unchanged tree's command reused the index the pointer names: nothing to write (every such command would rename a file).
      if (previous === id) return;
      this.folder.with(true, undefined, (dir) => atomicWriteAt(dir, POINTER, Buffer.from(`${id}\n`), { mode: 0o644, noSync: true }));
      if (previous === null || this.leased().has(previous)) return;
      this.removeIndex(previous);
    });
  }

  private removeIndex(id: string): void {
    try {
      // Only an index: a pointer edited to name another checkpoint must not remove it.
      // Not fsynced: an index is a cache (written without fsync too); one that comes back after a crash is only listed again.
      if (this.service.manifests.isIndex(id)) this.service.manifests.remove(id, false);
    } catch {
      // Already gone (pruned, dropped): nothing to do.
    }
  }

  /** Ids leased by a live process; leases of processes that are gone are removed. */
  private leased(): Set<string> {
    const out = new Set<string>();
    this.leases.with(false, undefined, (dir) => {
      for (const name of fs.readdirSync(dir.self)) {
        const m = LEASE_PATTERN.exec(name);
        if (m === null) continue;
        if (isAlive(Number(m[2]))) out.add(m[1] as string);
        else fs.rmSync(dir.at(name), { force: true });
      }
    });
    return out;
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

/** Whether a process of this id exists (EPERM: it does, another user's). Our own pid is alive. */
function isAlive(pid: number): boolean {
  if (!Number.isSafeInteger(pid) || pid <= 0) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}
