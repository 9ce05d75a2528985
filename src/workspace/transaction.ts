/**
 * Transactions: every write to project files runs inside one. A transaction
 * holds the root lock from begin to end, checkpoints exactly the files each
 * batch is about to write (or the whole workspace at begin, for steps whose
 * effects are unknown), journals those checkpoints (unless the batch is one
 * atomic write of its own, see applyBatch), makes all of it durable BEFORE
 * writing, then writes. It ends by commit, by rollback (exact restore), or — after a
 * failed verification — by the policy the caller picked: rollback, keep, or
 * fix-forward (stay open for more writes). A process killed mid-transaction
 * leaves its journal record behind; openWorkspace rolls it back.
 *
 * Every Workspace is born with its layer (openWorkspace), and its
 * `commit(tx, writes)` hands every batch here: a batch joins the open
 * transaction, or is a one-batch transaction of its own. There is no other
 * way to write. This module never writes project files except through its
 * DiskWriter (disk-writer.ts) and a checkpoint restore.
 */
import { randomBytes } from 'node:crypto';
import { EditwardenError, ErrorCode } from '../errors.js';
import { CheckpointService, type CheckpointServiceOptions } from './checkpoints/service.js';
import type { CheckpointScope, Manifest } from './checkpoints/types.js';
import type { JournalRecord } from './journal.js';
import { observe } from './durable.js';
import { currentProcess } from './lock.js';
import { recoverUnfinishedLocked, rollbackCheckpoints, type RecoveryNotice, type RollbackResult } from './checkpoints/recovery.js';
import { DiskWriter } from './disk-writer.js';
import type { FileView, WriteTransaction } from './view.js';
import { Workspace, type FileWrite } from './workspace.js';
import { defined } from '../defined.js';
import { appendAll } from '../arrays.js';

export type FailurePolicy = 'rollback' | 'keep' | 'fix-forward';
export type TransactionState = 'open' | 'committed' | 'rolled-back' | 'kept';

export interface TransactionOptions {
  name: string;
  reason?: string;
  /** 'files' (default): checkpoint each batch's files. 'workspace': also checkpoint every file at begin (for running commands). */
  scope?: CheckpointScope;
  /** What a failed verification does (default 'rollback'). */
  onFailure?: FailurePolicy;
}

export type TransactionVerifyOutcome = boolean | { ok: boolean; detail?: string };
export type TransactionVerifyHook = (tx: Transaction) => TransactionVerifyOutcome | Promise<TransactionVerifyOutcome>;

export type TransactionVerifyResult = { ok: true; state: 'open' } | { ok: false; policy: FailurePolicy; state: TransactionState; detail?: string; rollback?: RollbackResult };

export type { RollbackResult };

export interface TransactionLayerOptions extends CheckpointServiceOptions {}

/**
 * The transaction machinery of one workspace, made by openWorkspace with the
 * workspace (`ws.transactions`); two workspaces have two layers.
 */
export class TransactionLayer {
  /** The workspace whose writes this layer carries. */
  readonly workspace: Workspace;
  /** What this layer's transactions see of it, the raw writer included: private, so nothing else can write through it. */
  private readonly access: LayerAccess;
  readonly checkpoints: CheckpointService;
  private active: Transaction | null = null;
  /** Id of the checkpoint taken by the most recent batch (for results that report "checkpoint"). */
  lastCheckpoint: string | null = null;
  /**
   * `deferred`: a transaction's lone one-file write leaves the fsyncs of its
   * checkpoint and of the folder after its rename to `settleDurable`
   * (durable.ts), which a long-lived server runs right after its answer and
   * before it answers anything else (checkpoints.durability; docs/checkpoints.md).
   * `strict` (the default here: a one-shot command has no "after its answer"): all before the rename.
   */
  durability: 'strict' | 'deferred' = 'strict';
  /** Transactions of dead processes this layer rolled back when it took the lock (beyond those openWorkspace reported). */
  readonly recovered: RecoveryNotice[] = [];

  /** openWorkspace makes the layer as it opens the workspace. */
  constructor(ws: Workspace, options: TransactionLayerOptions = {}) {
    this.workspace = ws;
    this.checkpoints = new CheckpointService(ws, options);
    const writer = new DiskWriter(ws);
    // The accessors below read and set this layer's live state.
    const layer = this;
    this.access = {
      ws: writer,
      workspace: ws,
      checkpoints: this.checkpoints,
      get lastCheckpoint(): string | null {
        return layer.lastCheckpoint;
      },
      get durability(): 'strict' | 'deferred' {
        return layer.durability;
      },
      set lastCheckpoint(id: string | null) {
        layer.lastCheckpoint = id;
      },
      ended: (tx) => layer.ended(tx),
    };
  }

  get current(): Transaction | null {
    return this.active;
  }

  /** @internal Workspace.commit: a batch joins the open transaction, or becomes a transaction of its own. */
  commitWrites(writes: FileWrite[]): void {
    if (writes.length === 0) return;
    if (this.active) {
      this.active.applyBatch(writes);
      return;
    }
    const paths = writes.map((w) => w.path);
    const tx = this.begin({ name: 'write', reason: `write ${summarize(paths)}` }, false);
    try {
      tx.applyBatch(writes);
    } catch (error) {
      // applyBatch already put this batch back; the (empty) transaction just ends.
      tx.finish('rolled-back');
      throw error;
    }
    tx.commit();
  }

  begin(options: TransactionOptions, journalNow = true): Transaction {
    if (this.active) {
      throw new EditwardenError({
        code: ErrorCode.INTERNAL,
        message: `Transaction "${options.name}" cannot begin: "${this.active.name}" is still open in this workspace.`,
        hint: 'Commit, roll back or keep the open transaction first; transactions do not nest.',
      });
    }
    this.checkpoints.lock.acquire();
    try {
      // Holding the lock proves nobody else is mid-transaction: any record left is a dead (or failed) one. Undo it before writing over it.
      appendAll(this.recovered, recoverUnfinishedLocked(this.checkpoints));
      const tx = new Transaction(this.access, options);
      if (options.scope === 'workspace') {
        const cp = this.checkpoints.createWorkspace(options.name, options.reason ?? 'before a step with unknown effects', { kind: 'transaction', tx: tx.id });
        tx.addCheckpoint(cp);
      }
      if (journalNow || tx.checkpoints.length > 0) tx.journal();
      this.active = tx;
      return tx;
    } catch (error) {
      this.checkpoints.lock.release();
      throw error;
    }
  }

  /** Called by a transaction as it ends. */
  ended(tx: Transaction): void {
    if (this.active === tx) this.active = null;
    this.checkpoints.lock.release();
  }
}

/** What a transaction needs of its layer: the raw writer, the checkpoints, and the layer's bookkeeping. */
export interface LayerAccess {
  readonly ws: DiskWriter;
  readonly workspace: Workspace;
  readonly checkpoints: CheckpointService;
  lastCheckpoint: string | null;
  readonly durability: 'strict' | 'deferred';
  ended(tx: Transaction): void;
}

export class Transaction implements WriteTransaction {
  readonly id: string;
  readonly name: string;
  readonly reason: string;
  readonly scope: CheckpointScope;
  readonly policy: FailurePolicy;
  readonly startedAt: string;
  private stateValue: TransactionState = 'open';
  private readonly ids: string[] = [];
  private readonly writtenPaths = new Set<string>();
  private journaled = false;
  /** A failed write could not be undone in place: keep the journal record for recovery. */
  private broken = false;

  constructor(
    private readonly layer: LayerAccess,
    options: TransactionOptions,
  ) {
    this.id = `tx-${Date.now().toString(36)}-${randomBytes(4).toString('hex')}`;
    this.name = options.name;
    this.reason = options.reason ?? '';
    this.scope = options.scope ?? 'files';
    this.policy = options.onFailure ?? 'rollback';
    this.startedAt = new Date().toISOString();
  }

  get state(): TransactionState {
    return this.stateValue;
  }

  /** The workspace this transaction writes to (`ws.commit(tx, writes)` while it is open). */
  get view(): FileView {
    return this.layer.workspace;
  }

  /** Checkpoint ids that hold the state before this transaction, oldest first. */
  get checkpoints(): readonly string[] {
    return this.ids;
  }

  /** Paths written so far (relative to the root). */
  get written(): string[] {
    return [...this.writtenPaths].sort();
  }

  /**
   * Checkpoints `paths` now, before anything is attempted, for a mode whose contract is "checkpoint,
   * then try" (controlled edit: a replacement that is then refused still names its checkpoint).
   * Durable and journaled before it returns; a rollback restores it like the batches' own.
   */
  checkpointBefore(paths: readonly string[]): string {
    this.assertOpen();
    const cp = this.layer.checkpoints.createFiles(paths, this.name, this.reason || `before ${summarize([...paths])}`, { kind: 'transaction', tx: this.id });
    this.addCheckpoint(cp);
    this.journal();
    return cp.id;
  }

  /** @internal */
  addCheckpoint(manifest: Manifest): void {
    this.ids.push(manifest.id);
    this.layer.lastCheckpoint = manifest.id;
  }

  /**
   * @internal Records the transaction and its checkpoints: durably before it
   * returns, or — with `deferred` — into the group the first write fsyncs
   * before its rename (applyBatch). Either way, on disk before any write it covers.
   */
  journal(deferred?: string[]): void {
    const record: JournalRecord = {
      format: 1,
      tx: this.id,
      name: this.name,
      reason: this.reason,
      scope: this.scope,
      ...currentProcess(),
      startedAt: this.startedAt,
      checkpoints: [...this.ids],
    };
    this.layer.checkpoints.journal.write(record, deferred);
    this.journaled = true;
  }

  /**
   * @internal One `ws.commit` batch: checkpoint its files, journal, write. A
   * batch that fails half-way is put back as it was before the batch, so a
   * batch is all-or-nothing even inside a long transaction.
   *
   * The protocol (docs/checkpoints.md, "What is on disk when"): the
   * checkpoint and the journal record are written without fsync; the first
   * write fsyncs them in ONE group with its own temp file (durable.ts), then
   * renames, then fsyncs its folder. So everything that makes the write
   * undoable is on disk before the write can be, at the cost of one disk
   * round trip before the rename and one after.
   *
   * A transaction's only batch that writes one file into an existing folder
   * needs no journal record at all: its rename (or unlink) is atomic, so a
   * crash leaves the old file or the new one, and the durable checkpoint
   * undoes the new one. The lock file names the path meanwhile, so whoever
   * breaks the lock of a holder killed mid-write removes its temp file.
   */
  applyBatch(writes: FileWrite[]): void {
    this.assertOpen();
    const ws = this.layer.ws;
    const files = ws.files;
    const lock = this.layer.checkpoints.lock;
    // A delete records the link itself (it removes the link, not its target); a write records what it writes.
    let folderMissing = false;
    const paths = writes.map((w) => {
      const loc = files.locate(w.path, { followFinal: w.kind === 'write' });
      if (loc.parent === null) folderMissing = true;
      loc.parent?.close();
      return loc.relative;
    });
    // Not journaled yet and nothing checkpointed: this is the transaction's first batch (commitWrites' one-batch transactions begin unjournaled).
    const alone = !this.journaled && this.ids.length === 0 && writes.length === 1 && !folderMissing;
    // Before the checkpoint: a holder killed while checkpointing is then cleaned after (and its lock broken) by the next command too.
    if (alone) lock.note(paths);
    const durableFirst: string[] = [];
    const cp = this.layer.checkpoints.createFiles(paths, this.name, this.reason || `before ${summarize(paths)}`, { kind: 'transaction', tx: this.id }, true, durableFirst);
    this.addCheckpoint(cp);
    observe({ op: 'checkpoint', id: cp.id, durable: false });
    if (!alone) this.journal(durableFirst);
    for (const p of paths) this.writtenPaths.add(p);
    try {
      // Only a lone write may defer: with more files (or a journal record) the checkpoint is what recovery rolls back with, so it is on disk first.
      ws.writeAll(writes, { durableFirst, deferDurable: alone && this.layer.durability === 'deferred' });
    } catch (error) {
      try {
        this.layer.checkpoints.restore(cp.id, { cause: 'rollback', label: `rollback of the failed write of ${this.name}` });
      } catch (restoreError) {
        // The journal record must outlive this process: the next command rolls the transaction back.
        this.broken = true;
        if (alone) this.journal();
        throw new EditwardenError(
          {
            code: ErrorCode.IO,
            message: `Writing failed (${messageOf(error)}) and putting the files back failed too (${messageOf(restoreError)}).`,
            hint: 'Fix the file-system problem (space, permissions); the next editwarden command in this root rolls the transaction back.',
          },
          { cause: error },
        );
      }
      throw error;
    } finally {
      if (alone) lock.note([]);
    }
  }

  /**
   * Runs the verification hook. On success the transaction stays open (commit
   * it). On failure the policy decides: 'rollback' restores the state before
   * begin, 'keep' ends the transaction keeping the writes, 'fix-forward'
   * leaves it open for more writes and another verify.
   */
  async verify(hook: TransactionVerifyHook, policy: FailurePolicy = this.policy): Promise<TransactionVerifyResult> {
    this.assertOpen();
    let outcome: { ok: boolean; detail?: string };
    try {
      const raw = await hook(this);
      outcome = typeof raw === 'boolean' ? { ok: raw } : raw;
    } catch (error) {
      outcome = { ok: false, detail: error instanceof Error ? error.message : String(error) };
    }
    if (outcome.ok) return { ok: true, state: 'open' };
    const failed = (extra: Partial<TransactionVerifyResult & { ok: false }>): TransactionVerifyResult => ({
      ok: false,
      policy,
      state: this.stateValue,
      ...defined({ detail: outcome.detail }),
      ...extra,
    });
    switch (policy) {
      case 'rollback': {
        const rollback = this.rollback();
        return failed({ state: this.stateValue, rollback });
      }
      case 'keep':
        this.keep();
        return failed({ state: this.stateValue });
      case 'fix-forward':
        return failed({ state: 'open' });
      default: {
        const never: never = policy;
        throw new Error(`unknown failure policy ${String(never)}`);
      }
    }
  }

  /** Ends the transaction keeping its writes. */
  commit(): void {
    this.assertOpen();
    this.finish('committed');
  }

  /** Ends the transaction keeping partial work after a failure (policy 'keep'): like commit, but says so. */
  keep(): void {
    this.assertOpen();
    this.finish('kept');
  }

  /** Puts every file back as it was before begin, exactly; ends the transaction. */
  rollback(): RollbackResult {
    this.assertOpen();
    const result = rollbackCheckpoints(this.layer.checkpoints, this.id, this.ids);
    this.finish('rolled-back');
    return result;
  }

  /** @internal */
  finish(state: Exclude<TransactionState, 'open'>): void {
    if (this.stateValue !== 'open') return;
    try {
      if (this.journaled && !this.broken) this.layer.checkpoints.journal.close(this.id);
    } finally {
      this.stateValue = state;
      this.layer.ended(this);
    }
  }

  private assertOpen(): void {
    if (this.stateValue !== 'open') {
      throw new EditwardenError({
        code: ErrorCode.INTERNAL,
        message: `Transaction "${this.name}" is already ${this.stateValue}.`,
        hint: 'Begin a new transaction for further writes.',
      });
    }
  }
}

/** The transaction layer under a view: the disk workspace's own; null for an overlay (a plan or a dry run has no checkpoints of its own). */
export function transactionsOf(view: FileView): TransactionLayer | null {
  return view instanceof Workspace ? view.transactions : null;
}

/**
 * Begins an explicit transaction for multi-step work: `ws.commit(tx, …)`
 * and every `ws.transact` section's commits join it until it is committed,
 * rolled back or kept.
 */
export function beginTransaction(ws: Workspace, options: TransactionOptions): Transaction {
  return ws.transactions.begin(options);
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

function summarize(paths: string[]): string {
  const unique = [...new Set(paths)];
  return unique.length <= 3 ? unique.join(', ') : `${unique.slice(0, 3).join(', ')} and ${unique.length - 3} more`;
}
