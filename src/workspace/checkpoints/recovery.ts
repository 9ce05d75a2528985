/**
 * Rolling back transactions: the in-process rollback of a transaction and
 * the recovery of one a dead process left in the journal. Recovery restores
 * the transaction's checkpoints newest first (so every path ends as it was
 * before the transaction began), keeps the interrupted state as a safety
 * checkpoint, and only then removes the journal record. It never rolls
 * forward, and never removes a record it could not roll back.
 */
import { EditwardenError, ErrorCode } from '../../errors.js';
import type { JournalRecord } from '../journal.js';
import { isGone } from '../lock.js';
import type { CheckpointService } from './service.js';
import type { RestoreResult } from './types.js';
import { extrasOf } from './restore.js';

export interface RollbackResult {
  tx: string;
  /** Checkpoints restored, newest first. */
  checkpoints: string[];
  written: string[];
  removed: string[];
}

/** What recovery did about one unfinished transaction. */
export interface RecoveryNotice {
  tx: string;
  name: string;
  reason: string;
  pid: number;
  startedAt: string;
  /** Checkpoints restored, newest first. */
  checkpoints: string[];
  /** Paths put back (written) and removed (created by the dead transaction). */
  restored: string[];
  removed: string[];
  /** Checkpoint of the interrupted state, so even the recovery can be undone. */
  safety?: string;
  message: string;
}

/** Restores checkpoints newest first, so every path ends as the oldest one recorded it: the state before the transaction. */
export function rollbackCheckpoints(service: CheckpointService, tx: string, ids: readonly string[]): RollbackResult {
  const written = new Set<string>();
  const removed = new Set<string>();
  const order = [...ids].reverse();
  for (const id of order) {
    // The checkpoint's own ignore rules: a transaction that rewrote .gitignore cannot hide its files from its rollback.
    const r: RestoreResult = service.restore(id, { safety: false, rules: { only: 'checkpoint' } });
    for (const p of r.written) written.add(p);
    for (const p of r.removed) removed.add(p);
  }
  return { tx, checkpoints: order, written: [...written].sort(), removed: [...removed].sort() };
}

/**
 * Recovery as a command starts. Cheap when there is nothing to do (one
 * readdir, no lock). A record whose owner is alive is a transaction in
 * progress: its owner holds the lock, so waiting for it would only block a
 * read-only command; it is left alone. If any owner is dead, the lock is
 * taken (which also waits out live writers) and every record left is rolled
 * back.
 */
export function recoverUnfinished(service: CheckpointService): RecoveryNotice[] {
  if (!service.journal.hasAny()) return [];
  const records = service.journal.unfinishedReadOnly();
  if (!records.some((r) => isGone(r))) return [];
  return service.lock.with(() => recoverUnfinishedLocked(service));
}

/** Rolls back every journal record; the caller holds the root lock, which proves no live transaction owns them. */
export function recoverUnfinishedLocked(service: CheckpointService): RecoveryNotice[] {
  if (!service.journal.hasAny()) return [];
  return service.journal.unfinished().map((record) => recoverOne(service, record));
}

function recoverOne(service: CheckpointService, record: JournalRecord): RecoveryNotice {
  const available = record.checkpoints.filter((id) => service.manifests.scopeOf(id) !== null);
  if (available.length !== record.checkpoints.length) {
    throw new EditwardenError({
      code: ErrorCode.IO,
      message: `Transaction "${record.name}" (pid ${record.pid}) did not finish, and some of its checkpoints are missing; it cannot be rolled back exactly.`,
      hint: `Inspect the files by hand; remove ${service.journal.dir}/${record.tx}.json once the workspace is as it should be.`,
    });
  }
  const paths = new Set<string>();
  let workspaceScope = false;
  for (const id of available) {
    const manifest = service.manifests.read(id);
    if (manifest.scope === 'workspace') {
      workspaceScope = true;
      // What the rollback will delete by the checkpoint's rules goes into the safety checkpoint too, even if today's rules ignore it.
      for (const p of extrasOf(service.ws.root, manifest, service.blobs, { only: 'checkpoint' }).files) paths.add(p);
    }
    for (const e of manifest.entries) paths.add(e.path);
  }
  let safety: string | undefined;
  if (available.length > 0) {
    const name = `interrupted ${record.name}`;
    const reason = `state left by transaction ${record.tx} (pid ${record.pid}), before recovery rolled it back`;
    const origin = { kind: 'safety' as const, before: record.tx };
    safety = (workspaceScope ? service.createWorkspace(name, reason, origin, paths, true) : service.createFiles(paths, name, reason, origin, true)).id;
  }
  const rollback = rollbackCheckpoints(service, record.tx, available);
  service.journal.close(record.tx);
  const changed = rollback.written.length + rollback.removed.length;
  const notice: RecoveryNotice = {
    tx: record.tx,
    name: record.name,
    reason: record.reason,
    pid: record.pid,
    startedAt: record.startedAt,
    checkpoints: rollback.checkpoints,
    restored: rollback.written,
    removed: rollback.removed,
    message:
      `Rolled back the unfinished transaction "${record.name}" of process ${record.pid} (started ${record.startedAt}): ` +
      `${changed === 0 ? 'nothing had been written yet' : `${rollback.written.length} file(s) put back, ${rollback.removed.length} removed`}` +
      (safety ? `; the interrupted state is kept as checkpoint ${safety}.` : '.'),
  };
  if (safety) notice.safety = safety;
  return notice;
}
