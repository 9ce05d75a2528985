/**
 * Rolling back transactions: the in-process rollback of a transaction and
 * the recovery of one a dead process left in the journal. Recovery restores
 * the transaction's checkpoints newest first (so every path ends as it was
 * before the transaction began), keeps the interrupted state as a safety
 * checkpoint, and only then removes the journal record. It never rolls
 * forward, and never removes a record it could not roll back.
 *
 * It acts only on records it can verify (a planted `.editwarden/` must not
 * make the first command delete or copy anything): the record names this
 * root (device and inode), and every checkpoint it names exists, is one
 * this transaction wrote, and holds only plain paths inside the root. A
 * record that fails, or whose rollback fails, is HELD (moved whole to
 * `.editwarden/journal/held/`): commands go on, every command says so, and
 * `editwarden checkpoint repair` retries or drops it. Nothing is deleted.
 */
import fs from 'node:fs';
import { EditwardenError, ErrorCode } from '../../errors.js';
import { isTempFor } from '../atomic.js';
import type { JournalRecord } from '../journal.js';
import { checkManifestPath } from './current.js';
import { isGone, type LockOwner } from '../lock.js';
import { DirCache } from '../resolver.js';
import type { CheckpointService } from './service.js';
import type { RestoreResult } from './types.js';
import { defined } from '../../defined.js';

export interface RollbackResult {
  tx: string;
  /** Checkpoints restored, newest first. */
  checkpoints: string[];
  written: string[];
  removed: string[];
  /** The capture of what the rollback overwrote (its first safety checkpoint): the undo step that takes the rollback back. */
  safety?: string;
  /** Bytes of the files written. */
  bytes?: number;
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
  /** Bytes of the files it wrote. */
  bytes?: number;
  /** The record could not be verified or rolled back: it was moved to journal/held/ and nothing was changed for it. */
  held?: string;
  message: string;
}

/**
 * Restores checkpoints newest first, so every path ends as the oldest one
 * recorded it: the state before the transaction. Each restore is the one
 * primitive (service.ts `restore`): what it overwrites is captured first,
 * the captures of this rollback form one undo step (`group`), so a rollback
 * that took a person's edit made during the transaction can itself be undone.
 */
export function rollbackCheckpoints(service: CheckpointService, tx: string, ids: readonly string[], cause: 'rollback' | 'recovery' = 'rollback', label = `rollback of ${tx}`): RollbackResult {
  const written = new Set<string>();
  const removed = new Set<string>();
  const order = [...ids].reverse();
  let safety: string | undefined;
  let bytes = 0;
  for (const id of order) {
    // The checkpoint's own ignore rules: a transaction that rewrote .gitignore cannot hide its files from its rollback.
    const r: RestoreResult = service.restore(id, { cause, group: `${cause}:${tx}`, label, rules: { only: 'checkpoint' } });
    safety ??= r.safety;
    bytes += r.bytes ?? 0;
    for (const p of r.written) written.add(p);
    for (const p of r.removed) removed.add(p);
  }
  return { tx, checkpoints: order, written: [...written].sort(), removed: [...removed].sort(), bytes, ...defined({ safety }) };
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
  // A process killed between writing its lock note and linking it leaves only that pending file: removed.
  service.lock.sweepPending();
  const held = heldNotices(service);
  // A holder killed with the lock (in a one-file write, which has no journal record, or anywhere else): taking the lock breaks it and cleans after it.
  if (service.lock.staleHolder()) return service.lock.with(() => recoverUnfinishedLocked(service, true));
  if (!service.journal.hasAny()) return held;
  const records = service.journal.unfinishedReadOnly();
  const bad = service.journal.unreadable();
  if (bad.length === 0 && !records.some((r) => isGone(r))) return held;
  return service.lock.with(() => recoverUnfinishedLocked(service, true));
}

/** What every command says while held records exist: what happened and how to continue. */
function heldNotices(service: CheckpointService): RecoveryNotice[] {
  return service.journal.heldRecords().map(({ file, why }) => ({
    tx: file.replace(/\.json$/, ''),
    name: 'held',
    reason: why,
    pid: 0,
    startedAt: '',
    checkpoints: [],
    restored: [],
    removed: [],
    held: file,
    message:
      `An unfinished transaction record (${file}) is held and was not rolled back: ${why}. Check the files, then run ` +
      `\`editwarden checkpoint repair --drop ${file}\` (keep the files as they are) or \`editwarden checkpoint repair --retry ${file}\`.`,
  }));
}

/** Rolls back every journal record; the caller holds the root lock, which proves no live transaction owns them. */
export function recoverUnfinishedLocked(service: CheckpointService, includeHeld = false): RecoveryNotice[] {
  const notices: RecoveryNotice[] = service.lock.takeBrokenWriters().map((owner) => cleanAfterWriter(service, owner));
  if (service.journal.hasAny()) {
    for (const bad of service.journal.unreadable()) hold(service, bad.file, bad.why);
    for (const record of service.journal.unfinished()) {
      const why = verify(service, record);
      if (why !== null) {
        hold(service, `${record.tx}.json`, why);
        continue;
      }
      try {
        notices.push(recoverOne(service, record));
      } catch (error) {
        // A failed rollback never blocks the root: the record is kept aside for a person, with the reason.
        hold(service, `${record.tx}.json`, `its rollback failed (${error instanceof Error ? error.message : String(error)})`);
      }
    }
  }
  return includeHeld ? [...notices, ...heldNotices(service)] : notices;
}

/**
 * A process died holding the lock while it wrote files without a journal
 * record (one atomic write: transaction.ts). Each such file is whole — its
 * old bytes or its new ones, the rename decides — and its checkpoint was
 * durable before the rename, so `undo` is right either way. What it can
 * leave is its temp file: removed here. The paths come from the dead
 * holder's lock file, so they are checked like a manifest's, and only files
 * named like a temp of that very file (`.ew-tmp-<name>.<12 hex>`) go.
 */
function cleanAfterWriter(service: CheckpointService, owner: LockOwner): RecoveryNotice {
  const removed: string[] = [];
  const dirs = new DirCache(service.ws.resolver);
  try {
    for (const rel of owner.writing ?? []) {
      try {
        checkManifestPath(rel);
      } catch {
        continue; // Attack: a planted lock file naming `../x` or `.git/x` steers no delete.
      }
      const { parent, name } = dirs.tryParentOf(rel);
      if (parent === null) continue;
      for (const entry of fs.readdirSync(parent.self)) {
        if (!isTempFor(entry, name)) continue;
        try {
          if (!fs.lstatSync(parent.at(entry)).isFile()) continue;
          fs.unlinkSync(parent.at(entry));
          removed.push(parent.relOf(entry));
        } catch {
          // Gone already.
        }
      }
      if (removed.length > 0) parent.fsync();
    }
  } finally {
    dirs.closeAll();
  }
  const what = (owner.writing ?? []).join(', ');
  return {
    tx: '',
    name: 'write',
    reason: `process ${owner.pid} died while writing ${what}`,
    pid: owner.pid,
    startedAt: owner.acquiredAt,
    checkpoints: [],
    restored: [],
    removed,
    message:
      `Process ${owner.pid} died while writing ${what} (one atomic write): the file is whole, with its old or its new content; ` +
      `${removed.length === 0 ? 'nothing was left behind' : `removed ${removed.length} temp file(s) it left`}. If the write landed, \`editwarden undo\` takes it back.`,
  };
}

function hold(service: CheckpointService, file: string, why: string): void {
  try {
    service.journal.hold(file, why);
  } catch {
    // Already moved by another process.
  }
}

/** Why a record cannot be acted on; null when it is one of ours for this root. */
function verify(service: CheckpointService, record: JournalRecord): string | null {
  const id = service.ws.resolver.identity;
  if (!record.root || record.root.dev !== id.dev || record.root.ino !== id.ino) {
    return 'it was not written for this root (copied from another folder, or by an older editwarden)';
  }
  for (const cp of record.checkpoints) {
    if (service.manifests.scopeOf(cp) === null) return `its checkpoint ${JSON.stringify(cp).slice(0, 60)} is missing`;
    let manifest;
    try {
      manifest = service.manifests.read(cp);
    } catch (error) {
      return `its checkpoint ${cp} is unreadable (${error instanceof Error ? error.message : String(error)})`;
    }
    const origin = manifest.origin;
    const ours = record.tx.startsWith('restore-') ? origin.kind === 'safety' : origin.kind === 'transaction' && origin.tx === record.tx;
    if (!ours) return `its checkpoint ${cp} was not written by this transaction`;
    try {
      for (const e of manifest.entries) checkManifestPath(e.path);
      for (const d of [...manifest.dirs, ...manifest.absentDirs]) checkManifestPath(d);
    } catch (error) {
      return `its checkpoint ${cp} names a path outside the root (${error instanceof Error ? error.message : String(error)})`;
    }
  }
  return null;
}

function recoverOne(service: CheckpointService, record: JournalRecord): RecoveryNotice {
  const available = record.checkpoints.filter((id) => service.manifests.scopeOf(id) !== null);
  if (available.length !== record.checkpoints.length) {
    throw new EditwardenError({
      code: ErrorCode.IO,
      message: `Transaction "${record.name}" (pid ${record.pid}) did not finish, and some of its checkpoints are missing; it cannot be rolled back exactly.`,
      hint: `Inspect the files by hand, then run \`editwarden checkpoint repair --drop ${record.tx}.json\`.`,
    });
  }
  // The primitive captures the interrupted state (the files it overwrites, and what it deletes by the checkpoint's rules) before it writes.
  const rollback = rollbackCheckpoints(service, record.tx, available, 'recovery', `recovery of the interrupted ${record.name}`);
  const safety = rollback.safety;
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
  if (rollback.bytes !== undefined) notice.bytes = rollback.bytes;
  return notice;
}
