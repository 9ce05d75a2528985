/**
 * A run: its id, its profile, its cancellation, and the one transaction its
 * work joins — settled at the end by the profile's failure policy, the only
 * thing that decides what happens to the work of a run that failed
 * (DESIGN.md: three policies of one mechanism):
 *
 *   rollback     a transaction from the first change on; a violation (or a
 *                failed verification the mode judges, controlled mode's
 *                build) puts every file back; otherwise it is committed
 *   keep         no run transaction: each write is its own, and stays
 *   fix-forward  a transaction every write joins, never rolled back: kept
 *                open across failed verifications, committed on success,
 *                kept otherwise (the Editor)
 *
 * The ToolRunner holds the run and settles it in `finish()`; the Editor
 * opens it before its first write (the proposal it applies joins it);
 * controlled mode opens it at its one edit, named after the file. Nothing
 * else begins a run-wide transaction or reads `constraints.on_violation`:
 * `runProfile` (profile.ts) maps it to the policy once. It never writes a
 * file itself; the transaction layer does.
 */
import { toErrorInfo } from '../errors.js';
import type { CheckpointScope } from '../workspace/checkpoints/types.js';
import type { RollbackResult, Transaction, TransactionLayer } from '../workspace/transaction.js';
import type { RunProfile } from './profile.js';
import type { ChangesOutcome } from './outcome.js';
import type { EventRoute } from './event-types.js';
import { newRunId } from './runs.js';
import { recordEvent } from './events.js';
import { openLedger, type Ledger, type RunLimits, type SessionKey } from './ledger.js';
import type { RootLock } from '../workspace/lock.js';
import { defined } from '../defined.js';

export interface RunStart {
  profile: RunProfile;
  /** Default: a new run id. */
  id?: string;
  /** Cancels the run (Ctrl-C): the running call stops at once and later calls are refused. Not a failure: the work is kept. */
  signal?: AbortSignal;
  /**
   * Who opens the run's transaction: the ToolRunner as it starts (default), or the mode itself when it knows
   * what the transaction covers only later (controlled mode: its one edit, checkpointed under the file's name).
   */
  opener?: 'runner' | 'mode';
  /** A client session's run (its hooks, its guarded shell): the run counts in the session's ledger in the state folder, not in memory. */
  session?: SessionKey | null;
  /** A client's hook Run: whose calls these are (the client's name and the event log's route of its calls). */
  client?: ClientRun;
}

/**
 * Whose a client's hook Run is: the client, and the route its calls are recorded under (`via`, the client, its
 * session id). Its commands are named by the client's tool and, over the ledger's limits, put back (tools/command-charge.ts).
 */
export interface ClientRun {
  client: string;
  route: EventRoute;
}

/** How the run's work was left: the `outcome` metrics.json names, and what a rollback put back. */
export interface RunSettlement {
  outcome: ChangesOutcome;
  rollback: RollbackResult | null;
  /** Why the transaction is still open (a rollback that failed: the next command finishes it). */
  note?: string;
}

/** What the run's end says about its work: a violation happened, and whether the mode judged the run a success. */
export interface RunEnding {
  violated: boolean;
  succeeded: boolean;
}

export class Run {
  readonly id: string;
  readonly profile: RunProfile;
  readonly signal: AbortSignal | undefined;
  readonly opener: 'runner' | 'mode';
  readonly session: SessionKey | null;
  readonly client: ClientRun | undefined;
  /** The state folder of the run's workspace (its event log), once the run opened its transaction. */
  private stateDir: string | null = null;
  private tx: Transaction | null = null;
  private settled: RunSettlement | null = null;
  private counted: Ledger | null = null;

  constructor(start: RunStart) {
    this.id = start.id ?? newRunId();
    this.profile = start.profile;
    this.signal = start.signal;
    this.opener = start.opener ?? 'runner';
    this.session = start.session ?? null;
    this.client = start.client;
  }

  /**
   * The ledger the run counts its changes in (ledger.ts), opened once on the run's limits: a client session's
   * in the root's state folder (`where`: its folder and lock), every other run's in memory.
   */
  ledger(limits: RunLimits, where: { stateDir: string; lock: RootLock }): Ledger {
    this.counted ??= openLedger(limits, this.session ? { key: this.session, ...where } : null);
    return this.counted;
  }

  /** The open transaction the run's writes join; null when the policy keeps none, before it is opened, or once it ended. */
  get transaction(): Transaction | null {
    return this.tx && this.tx.state === 'open' ? this.tx : null;
  }

  /**
   * Opens the run's transaction on `layer` as the failure policy wants it (once; later calls answer the same
   * one). `rollback` checkpoints the whole workspace at once (a command's effects are undone too) unless the
   * opener narrows it to the files it writes (`scope: 'files'`: controlled mode's one file); `keep` opens none.
   */
  open(layer: TransactionLayer | null, label: { name: string; reason: string; scope?: CheckpointScope }): Transaction | null {
    if (this.tx || this.settled || !layer) return this.transaction;
    this.stateDir = layer.checkpoints.ws.stateDir;
    switch (this.profile.failure) {
      case 'keep':
        return null;
      case 'rollback':
        this.tx = layer.begin({ name: label.name, reason: label.reason, scope: label.scope ?? 'workspace', onFailure: 'rollback' });
        return this.tx;
      case 'fix-forward':
        this.tx = layer.begin({ name: label.name, reason: label.reason, onFailure: 'fix-forward' });
        return this.tx;
      default: {
        const never: never = this.profile.failure;
        throw new Error(`unknown failure policy ${String(never)}`);
      }
    }
  }

  /**
   * Settles the run's transaction by the policy (idempotent: the first settlement stands). rollback: a
   * violation puts every file back, anything else commits; fix-forward: success commits, anything else keeps
   * the work; keep: nothing to settle. A transaction the mode already ended (controlled mode's build) stays
   * as the mode left it.
   */
  settle(ending: RunEnding): RunSettlement {
    if (this.settled) return this.settled;
    this.settled = this.settleOpen(ending);
    return this.settled;
  }

  /** The record shows what editwarden itself wrote: the rollback, its files and bytes, and the step that takes it back. */
  private recordRollback(rollback: RollbackResult): void {
    if (!this.stateDir || rollback.written.length + rollback.removed.length === 0) return;
    recordEvent(this.stateDir, {
      kind: 'undo',
      action: 'rollback',
      route: { via: 'run', run: this.id },
      label: `rollback of run ${this.id}`,
      written: rollback.written,
      removed: rollback.removed,
      paths: [...rollback.written, ...rollback.removed],
      ...defined({ bytes: rollback.bytes, checkpoint: rollback.safety, step: rollback.safety }),
    });
  }

  private settleOpen(ending: RunEnding): RunSettlement {
    const tx = this.transaction;
    if (!tx) return { outcome: 'kept', rollback: null };
    switch (this.profile.failure) {
      case 'rollback':
        if (!ending.violated) break;
        try {
          const rollback = tx.rollback();
          this.recordRollback(rollback);
          return { outcome: 'rolled-back', rollback };
        } catch (error) {
          // The journal still names the run's checkpoints: the next command in this root rolls it back.
          return { outcome: 'open', rollback: null, note: `Rolling back failed (${toErrorInfo(error).message}); the next editwarden command in this root finishes the rollback.` };
        }
      case 'fix-forward':
        // Fix forward never reverts: what is not a success is kept for the person.
        if (!ending.succeeded) {
          tx.keep();
          return { outcome: 'kept', rollback: null };
        }
        break;
      case 'keep':
        break;
      default: {
        const never: never = this.profile.failure;
        throw new Error(`unknown failure policy ${String(never)}`);
      }
    }
    tx.commit();
    return { outcome: 'kept', rollback: null };
  }
}
