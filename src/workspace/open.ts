/**
 * The one way commands open a workspace: open the root, roll back any
 * transaction a killed process left unfinished (under the root lock, so a
 * live process's transaction is never mistaken for a dead one's), report
 * what was rolled back, and install the transactional committer so every
 * later `ws.commit` is checkpointed and journaled. It never rolls forward
 * and never discards a journal record it could not roll back.
 */
import { EditwardenError, ErrorCode } from '../errors.js';
import type { LockOptions } from './lock.js';
import { Journal, type JournalRecord } from './journal.js';
import { installTransactions, rollbackCheckpoints, type TransactionLayer } from './transaction.js';
import { Workspace, type WorkspaceOptions } from './workspace.js';
import type { CheckpointService } from './checkpoints/service.js';

export interface OpenWorkspaceOptions extends WorkspaceOptions {
  lock?: LockOptions;
  /** Clock for checkpoint times (tests of retention). */
  now?: () => Date;
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

export interface OpenedWorkspace {
  ws: Workspace;
  recovered: RecoveryNotice[];
  transactions: TransactionLayer;
}

export function openWorkspace(root: string, options: OpenWorkspaceOptions = {}): OpenedWorkspace {
  const ws = Workspace.open(root, options);
  const transactions = installTransactions(ws, {
    ...(options.lock ? { lockOptions: options.lock } : {}),
    ...(options.now ? { now: options.now } : {}),
  });
  const recovered = recoverUnfinished(transactions.checkpoints);
  return { ws, recovered, transactions };
}

/**
 * Rolls back every transaction whose process died. Cheap when there is
 * nothing to do (one readdir, no lock); otherwise it waits for the root lock:
 * a record whose owner is alive is still being written, and its owner holds
 * the lock until it ends.
 */
export function recoverUnfinished(service: CheckpointService): RecoveryNotice[] {
  const journal: Journal = service.journal;
  if (!journal.hasAny()) return [];
  return service.lock.with(() => journal.unfinished().map((record) => recoverOne(service, record)));
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
    if (manifest.scope === 'workspace') workspaceScope = true;
    for (const e of manifest.entries) paths.add(e.path);
  }
  let safety: string | undefined;
  if (available.length > 0) {
    const name = `interrupted ${record.name}`;
    const reason = `state left by transaction ${record.tx} (pid ${record.pid}), before recovery rolled it back`;
    const origin = { kind: 'safety' as const, before: record.tx };
    safety = (workspaceScope ? service.createWorkspace(name, reason, origin, paths) : service.createFiles(paths, name, reason, origin)).id;
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
