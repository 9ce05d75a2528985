/**
 * The one way in: open the root with its transaction layer (so every later
 * `ws.commit` is checkpointed and journaled — the workspace has no other
 * way to write), roll back any transaction a killed process left unfinished
 * (under the root lock, so a live process's transaction is never mistaken
 * for a dead one's), and report what was rolled back.
 */
import type { LockOptions } from './lock.js';
import { recoverUnfinished, type RecoveryNotice } from './checkpoints/recovery.js';
import { TransactionLayer } from './transaction.js';
import { Workspace, type WorkspaceOptions } from './workspace.js';
import type { ReadView } from './view.js';
import type { CheckpointService } from './checkpoints/service.js';
import type { CheckpointLimits } from './checkpoints/budget.js';
import type { IgnoredCoverage } from './checkpoints/ignored.js';
import { defined } from '../defined.js';

export type { RecoveryNotice };

export interface OpenWorkspaceOptions extends WorkspaceOptions {
  /** Automatic retention: prune to the newest `keepLast` checkpoints once there are 10% more (0 or absent: keep all). */
  keepLast?: number;
  lock?: LockOptions;
  /** Clock for checkpoint times (tests of retention). */
  now?: () => Date;
  /** Size limits of checkpoints (config `checkpoints.max_file_bytes`, `max_total_bytes`). */
  checkpointLimits?: Partial<CheckpointLimits>;
  /** What a command's checkpoint covers of the ignored files (config `checkpoints.ignored`). */
  ignoredCoverage?: Partial<IgnoredCoverage>;
}

export interface OpenedWorkspace {
  ws: Workspace;
  /** Transactions of dead processes that were rolled back; print them (`message`) so a person knows. */
  recovered: RecoveryNotice[];
  /** The checkpoint service and the transaction state of this workspace. */
  transactions: TransactionLayer;
}

export function openWorkspace(root: string, options: OpenWorkspaceOptions = {}): OpenedWorkspace {
  const ws = Workspace.open(
    root,
    options,
    (opened) =>
      new TransactionLayer(opened, {
        ...defined({ lockOptions: options.lock, now: options.now, limits: options.checkpointLimits, ignored: options.ignoredCoverage }),
      }),
  );
  const transactions = ws.transactions;
  const recovered = recoverUnfinished(transactions.checkpoints);
  if (options.keepLast !== undefined && options.keepLast > 0) retain(transactions.checkpoints, options.keepLast);
  return { ws, recovered, transactions };
}

/**
 * Every write leaves a checkpoint; without retention an agent's thousands of
 * edits would fill the disk. Counting is one readdir; the prune itself (which
 * reads manifests) runs only once the count is 10% over the limit.
 */
function retain(service: CheckpointService, keepLast: number): void {
  if (service.manifests.ids().length <= keepLast + Math.max(1, Math.floor(keepLast / 10))) return;
  service.prune({ keepLast });
}

/**
 * Opens a root for reading only (detect, verify, ast): no recovery, no lock,
 * and a view whose type has no way to write.
 */
export function openReadOnly(root: string, options: WorkspaceOptions = {}): ReadView {
  return Workspace.open(root, options, (opened) => new TransactionLayer(opened));
}
