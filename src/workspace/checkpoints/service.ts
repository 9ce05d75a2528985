/**
 * The checkpoint service of one workspace: create, list, diff, restore, drop,
 * prune. Everything that changes the disk runs under the root lock; a
 * restore first takes a safety checkpoint and journals itself, so a restore
 * can be undone and a restore killed half-way is rolled back by the next
 * command. It never touches `.git/` (index, stash, refs) nor ignored files it
 * did not record: it works the same with and without git.
 */
import path from 'node:path';
import { EditwardenError, ErrorCode } from '../../errors.js';
import { Journal } from '../journal.js';
import { currentProcess, ensureStateDir, RootLock, type LockOptions } from '../lock.js';
import type { Workspace } from '../workspace.js';
import { BlobStore } from './blob-store.js';
import { DEFAULT_CHECKPOINT_LIMITS, StoreBudget, StoreFullError, type CheckpointLimits } from './budget.js';
import { captureFiles, captureWorkspace, type Captured } from './capture.js';
import { LastRead, type HeldRead } from './held-read.js';
import { diffManifest, type DiffOptions } from './diff.js';
import { ManifestStore, type CacheStamp } from './manifest-store.js';
import { StatCacheStore, type StatCache } from './stat-cache.js';
import { collectGarbage, selectForPrune, type PrunePolicy } from './prune.js';
import { DEFAULT_IGNORED_COVERAGE, IgnoredCapture, type IgnoredCoverage } from './ignored.js';
import { IgnoredTable } from './ignored-table.js';
import type { WatchedTree } from './watched-tree.js';
import { checkManifestPath } from './current.js';
import { applyManifest, extrasOf, type IgnoreRules } from './restore.js';
import { readRefFiles, refEntries, refEntriesDiffer } from './git-refs.js';
import { parentDirs, type CheckpointChange, type CheckpointOrigin, type CheckpointScope, type CheckpointSummary, type Manifest, type PruneResult, type RestoreCause, type RestoreResult } from './types.js';
import { defined } from '../../defined.js';
import { appendAll } from '../../arrays.js';

export const CHECKPOINTS_DIR = 'checkpoints';

export interface CheckpointServiceOptions {
  /** The root lock to use (shared with the transaction layer); one is made when omitted. */
  lock?: RootLock;
  lockOptions?: LockOptions;
  /** Clock (tests of retention pass their own). */
  now?: () => Date;
  /** Size limits of what checkpoints store (config `checkpoints.max_file_bytes`, `max_total_bytes`); defaults when absent. */
  limits?: Partial<CheckpointLimits>;
  /** What a command's checkpoint covers of the ignored files (config `checkpoints.ignored`); defaults when absent. */
  ignored?: Partial<IgnoredCoverage>;
}

export interface CreateOptions {
  /** Files scope: the paths to record (as an agent names them; resolved inside the root). */
  paths?: string[];
  origin?: CheckpointOrigin;
}

export interface RestoreOptions {
  /** Which of editwarden's writes this is (default `restore`, a person's `checkpoint restore`): names the step the capture makes. */
  cause?: RestoreCause;
  /** Restores that form one act (a rollback of a transaction's checkpoints, one recovery): their captures are one undo step. */
  group?: string;
  /** What the step is called in `undo --list` (default: from the cause and the checkpoint). */
  label?: string;
  /** Files scope: restore only these paths of the manifest (the others are left as they are). */
  only?: ReadonlySet<string>;
  /** Which ignore rules decide what "created since" is (default: then or now; rollbacks use the checkpoint's). */
  rules?: IgnoreRules;
}

export class CheckpointService {
  readonly ws: Workspace;
  readonly lock: RootLock;
  readonly journal: Journal;
  readonly blobs: BlobStore;
  readonly manifests: ManifestStore;
  readonly statCache: StatCacheStore;
  /** The ignored files a command's checkpoint covers (ignored.ts); null when `checkpoints.ignored.enabled` is off. */
  readonly ignored: IgnoredCapture | null;
  /** The tree state a process that keeps the project open watches (watched-tree.ts): commands cost what changed. Null: every command walks. */
  tree: WatchedTree | null = null;
  private readonly now: () => Date;
  /** The file the workspace read last in this hold of the lock: a files checkpoint takes its bytes (held-read.ts). */
  private readonly lastRead: LastRead;

  /** A restore never changes a member of the project's protected set (workspace/policy.ts). */
  private readonly isProtected = (rel: string): boolean => this.ws.policy.protectedBy(rel) !== null;

  constructor(ws: Workspace, options: CheckpointServiceOptions = {}) {
    this.ws = ws;
    this.lock = options.lock ?? new RootLock(ws.stateDir, options.lockOptions);
    this.lastRead = new LastRead(this.lock);
    // Every state path goes through the race-free resolver, and `.editwarden/` is checked before it is trusted (state-dir.ts).
    this.journal = new Journal(ws.resolver);
    this.blobs = new BlobStore(ws.resolver, `${CHECKPOINTS_DIR}/blobs`);
    const blobs = this.blobs;
    // The ledger is read again in each hold of the root lock: other processes' checkpoints charge it too.
    const lock = this.lock;
    this.blobs.budget = new StoreBudget(
      path.join(ws.stateDir, CHECKPOINTS_DIR),
      { ...DEFAULT_CHECKPOINT_LIMITS, ...options.limits },
      () => blobs.occupied(),
      () => lock.holds,
    );
    this.manifests = new ManifestStore(ws.resolver, `${CHECKPOINTS_DIR}/manifests`);
    this.statCache = new StatCacheStore(ws.resolver, CHECKPOINTS_DIR);
    const coverage = { ...DEFAULT_IGNORED_COVERAGE, ...options.ignored };
    this.ignored = coverage.enabled ? new IgnoredCapture(ws.resolver, this.blobs, CHECKPOINTS_DIR, coverage) : null;
    this.now = options.now ?? (() => new Date());
  }

  /** Creates a checkpoint and returns its id. Workspace scope by default; files scope needs `paths`. */
  create(name: string, reason: string, scope: CheckpointScope = 'workspace', options: CreateOptions = {}): string {
    const origin = options.origin ?? { kind: 'manual' };
    if (scope === 'workspace') return this.createWorkspace(name, reason, origin, options.paths ?? []).id;
    if (!options.paths || options.paths.length === 0) {
      throw new EditwardenError({
        code: ErrorCode.USAGE,
        message: 'A files checkpoint needs the paths it should record.',
        hint: 'Name the files, or take a workspace checkpoint (the default) to record every file.',
      });
    }
    return this.createFiles(options.paths, name, reason, origin).id;
  }

  /**
   * Files scope: cost grows with the number of paths, not with the repository.
   * Paths are resolved like an agent's (symlinks inside the root followed),
   * unless `exact`: then they are root-relative paths as a manifest stores
   * them, recorded as they are (a symlink as a link).
   *
   * With `deferred`, nothing is fsynced here: the paths of every file and
   * folder the checkpoint wrote are added to it, and the caller makes them
   * durable (in one group with its own fsyncs, durable.ts) BEFORE the write
   * the checkpoint covers — a checkpoint is never less durable than the
   * change it undoes.
   */
  createFiles(paths: Iterable<string>, name: string, reason: string, origin: CheckpointOrigin, exact = false, deferred?: string[], gitPaths?: readonly string[]): Manifest {
    const relative = this.relativePaths(paths, exact);
    return this.lock.with(() => {
      ensureStateDir(this.ws.stateDir);
      const scanStartedMs = Date.now();
      const durability = deferred ? 'defer' : 'each';
      try {
        const held = this.lastRead.take();
        const captured = this.withRoom(() => captureFiles(this.ws.resolver, relative, this.blobs, durability, undefined, held));
        // The root repository's ref files a restore is about to write (a step's refs): as they stand now.
        if (gitPaths !== undefined && gitPaths.length > 0) captured.git = { entries: refEntriesNow(this.ws.resolver, gitPaths, this.blobs) };
        return this.save('files', name, reason, origin, scanStartedMs, captured, deferred);
      } finally {
        if (deferred) appendAll(deferred, this.blobs.takeDeferred());
      }
    });
  }

  /** @internal The workspace tells of each file it reads (workspace.ts read): kept only while the lock is held. */
  noteRead(read: HeldRead): void {
    this.lastRead.note(read);
  }

  /**
   * Workspace scope: every non-ignored file, reusing unchanged blobs of the last workspace checkpoint; `extra` paths are recorded even if ignored.
   * With `reuse`: when the stat cache vouched for every file and the scan's shape (stat-cache.ts `shapeOf`) is the cached
   * manifest's, that manifest holds exactly these entries; if `reuse` accepts its id, it is returned (with its own id)
   * instead of a new one written. Only a command's index asks for this (command-index.ts).
   */
  createWorkspace(name: string, reason: string, origin: CheckpointOrigin, extra: Iterable<string> = [], exact = false, durable = true, reuse?: (id: string) => boolean): Manifest {
    const relative = this.relativePaths(extra, exact);
    return this.lock.with(() => {
      ensureStateDir(this.ws.stateDir);
      const scanStartedMs = Date.now();
      // The file system's clock BEFORE the scan: what this scan records is trusted next time only if older (stat-cache.ts).
      const clock = this.statCache.clock();
      const cache = this.statCache.load(this.manifests);
      // The same clock lets the walk record the folders it lists, for the next walk to reuse (listings.ts).
      const captured = this.withRoom(() => captureWorkspace(this.ws.resolver, this.blobs, cache, relative, undefined, { clock }));
      if (cache !== null && captured.read === 0 && sameTree(cache, captured) && reuse?.(cache.manifest)) {
        // Nothing written: every folder's chunk is the cached manifest's (same paths, stats, blobs, links), and so are its folders.
        // This scan's start, not the cached one's: every stat was taken again now, so a file is as trustworthy as in a new index.
        return { format: 1, id: cache.manifest, name, reason, scope: 'workspace', origin, createdAt: this.now().toISOString(), scanStartedMs, entries: captured.entries, dirs: captured.dirs, absentDirs: captured.absentDirs };
      }
      // Not durable (a command's index): its blobs are flushed by the capture; its chunks are not, and its top record says
      // which (the next durable manifest that reuses one fsyncs it). Losing it in a crash only costs the next scan its base.
      const stamp = clock === null ? undefined : { root: this.ws.resolver.identity, clock };
      return this.save('workspace', name, reason, origin, scanStartedMs, captured, durable ? undefined : [], stamp, cache?.unsynced);
    });
  }

  /**
   * Runs a capture; when the store is full (checkpoints.max_total_bytes),
   * removes what the capture had stored, prunes the oldest checkpoints no
   * unfinished transaction needs until the store is at most half full, and
   * tries once more. Still full: E_CHECKPOINT_TOO_LARGE, nothing kept.
   * Under the root lock.
   */
  private withRoom(capture: () => Captured): Captured {
    try {
      return capture();
    } catch (error) {
      if (!(error instanceof StoreFullError)) throw error;
      const budget = this.blobs.budget;
      const inUse = this.inUse();
      const prunable = this.manifests
        .ids()
        .map(({ id }) => id)
        .filter((id) => !inUse.has(id))
        .sort();
      // The blobs the failed capture wrote are named by no manifest: collected here.
      this.collect();
      for (const id of prunable) {
        if (budget === null || budget.current() <= budget.limits.maxTotalBytes / 2) break;
        this.manifests.remove(id);
        this.collect();
      }
      try {
        return capture();
      } catch (again) {
        if (again instanceof StoreFullError) this.collect();
        throw again;
      }
    }
  }

  private relativePaths(paths: Iterable<string>, exact: boolean): string[] {
    if (!exact) return [...paths].map((p) => this.ws.resolve(p).relative);
    const out = [...paths];
    for (const p of out) checkManifestPath(p);
    return out;
  }

  private save(scope: CheckpointScope, name: string, reason: string, origin: CheckpointOrigin, scanStartedMs: number, captured: Captured, deferred?: string[], stamp?: CacheStamp, unsyncedBase?: ReadonlySet<string>): Manifest {
    const now = this.now();
    const manifest: Manifest = {
      format: 1,
      id: this.manifests.newId(now),
      name,
      reason,
      scope,
      origin,
      createdAt: now.toISOString(),
      scanStartedMs,
      entries: captured.entries,
      dirs: captured.dirs,
      absentDirs: captured.absentDirs,
      ...(captured.git ? { git: captured.git } : {}),
    };
    // Blobs were flushed by capture (or are deferred with it, made durable in one group before anything relies on them): the manifest never names a blob that a crash could lose.
    this.manifests.write(manifest, deferred, captured.folders, stamp, unsyncedBase);
    return manifest;
  }

  get(id: string): Manifest {
    return this.manifests.read(id);
  }

  /** Every checkpoint, oldest first, with its sizes. */
  list(): CheckpointSummary[] {
    const manifests = this.readAll();
    const refs = new Map<string, number>();
    for (const m of manifests) {
      for (const blob of blobsOf(m).keys()) refs.set(blob, (refs.get(blob) ?? 0) + 1);
      if (m.scope !== 'workspace') continue;
      for (const e of m.entries) {
        if (e.type !== 'file' || e.inline === undefined) continue;
        const key = inlineKey(e);
        refs.set(key, (refs.get(key) ?? 0) + 1);
      }
    }
    return manifests.map((m) => {
      const own = blobsOf(m);
      let uniqueBytes = 0;
      for (const [blob, size] of own) if (refs.get(blob) === 1) uniqueBytes += size;
      // Inline bytes: a files checkpoint's are its own; a workspace checkpoint's sit in folder chunks later ones may share.
      for (const e of m.entries) if (e.type === 'file' && e.inline !== undefined && (m.scope === 'files' || refs.get(inlineKey(e)) === 1)) uniqueBytes += e.size;
      return {
        id: m.id,
        name: m.name,
        reason: m.reason,
        scope: m.scope,
        origin: m.origin,
        createdAt: m.createdAt,
        files: m.entries.filter((e) => e.type !== 'absent').length,
        bytes: m.entries.reduce((sum, e) => sum + (e.type === 'file' ? e.size : 0), 0),
        uniqueBytes,
      };
    });
  }

  /** What changed on disk since the checkpoint (what a restore would undo). */
  diff(id: string, options: DiffOptions = {}): CheckpointChange[] {
    return diffManifest(this.ws.resolver, this.manifests.read(id), this.blobs, options);
  }

  /** The root repository's ref files a restore of the checkpoint would change (`.git/HEAD` …); empty when it recorded none. */
  refsDiff(id: string): string[] {
    const git = this.manifests.read(id).git;
    return git ? refEntriesDiffer(this.ws.resolver, git.entries) : [];
  }

  /**
   * THE restore primitive: every write editwarden makes to project files
   * from a checkpoint (checkpoint restore, undo, redo, a command's put-back,
   * a transaction's rollback, recovery after a crash) is this call, and no
   * module but this one applies a manifest (test/package/architecture.test.ts).
   * It first captures exactly what it is about to overwrite or delete (the
   * manifest's paths, and under the checkpoint's own ignore rules the files
   * it would delete as created since) as a safety checkpoint whose origin
   * names the cause, then journals itself against it: a restore killed
   * half-way is rolled back to it, and the capture is an undo step (undo's
   * and redo's are the redo stack), so nothing it overwrote is lost.
   *
   * `only` (files scope): restore just those paths of the manifest — a
   * put-back of what a command can be shown to have done, leaving the rest.
   */
  restore(id: string, options: RestoreOptions = {}): RestoreResult {
    const full = this.manifests.read(id);
    const manifest = options.only === undefined ? full : narrowed(full, options.only);
    return this.lock.with(() => {
      const cause = options.cause ?? 'restore';
      const reason = `state before ${cause === 'restore' ? 'restoring' : `the ${cause} of`} checkpoint ${id}`;
      const origin: CheckpointOrigin = { kind: 'safety', before: id, cause, ...defined({ group: options.group, label: options.label }) };
      const paths = manifest.entries.map((e) => e.path);
      // What the restore deletes by the checkpoint's own rules, although today's rules ignore it: captured too.
      if (manifest.scope === 'workspace' && options.rules?.only === 'checkpoint') appendAll(paths, extrasOf(this.ws.resolver, manifest, this.blobs, options.rules).files);
      // The manifest's own paths, not resolved: a path that is a symlink now is recorded as that symlink (and its refs as they are).
      const gitPaths = manifest.git?.entries.map((e) => e.path);
      const safety = manifest.scope === 'workspace' ? this.createWorkspace(`before ${cause} ${id}`, reason, origin, paths, true) : this.createFiles(paths, `before ${cause} ${id}`, reason, origin, true, undefined, gitPaths);
      const tx = `restore-${safety.id}`;
      this.journal.write({
        format: 1,
        tx,
        name: `${cause} ${id}`,
        reason,
        scope: manifest.scope,
        ...currentProcess(),
        startedAt: this.now().toISOString(),
        checkpoints: [safety.id],
      });
      let applied: Omit<RestoreResult, 'id' | 'safety'>;
      try {
        applied = applyManifest(this.ws.resolver, manifest, this.blobs, options.rules, this.isProtected);
      } catch (error) {
        // All or nothing: put back what the restore had already changed. If even that fails, the record stays for recovery.
        applyManifest(this.ws.resolver, safety, this.blobs, {}, this.isProtected);
        this.journal.close(tx);
        throw error;
      }
      this.journal.close(tx);
      return { id, safety: safety.id, ...applied };
    });
  }

  /** Removes a checkpoint and the blobs only it used; returns the bytes freed. */
  drop(id: string): { id: string; freedBytes: number } {
    return this.lock.with(() => {
      this.manifests.read(id);
      if (this.inUse().has(id)) throw inUseError(id);
      this.manifests.remove(id);
      return { id, freedBytes: this.collect() };
    });
  }

  prune(policy: PrunePolicy): PruneResult {
    return this.lock.with(() => {
      const all = this.manifests.ids().map(({ id }) => ({ id, createdAt: this.manifests.read(id).createdAt }));
      const dropped = selectForPrune(all, policy, this.now(), this.inUse());
      for (const id of dropped) this.manifests.remove(id);
      const freedBytes = dropped.length > 0 ? this.collect() : 0;
      return { dropped, kept: all.length - dropped.length, freedBytes };
    });
  }

  /** Removes the blobs and chunks no remaining checkpoint names; returns the blob bytes freed. Under the root lock. */
  private collect(): number {
    // Chunks first: a blob stays alive through a chunk only while a manifest names that chunk.
    this.manifests.collectChunks();
    // The ignored files' table names blobs too (even with the coverage off now: a later command may turn it on again).
    const ignored = new IgnoredTable(this.ws.resolver, CHECKPOINTS_DIR).liveBlobs();
    return collectGarbage(this.blobs, this.readAll(), ignored);
  }

  /** Checkpoints an unfinished transaction still needs for its rollback. */
  private inUse(): Set<string> {
    return new Set(this.journal.unfinished().flatMap((r) => r.checkpoints));
  }

  private readAll(): Manifest[] {
    const out: Manifest[] = [];
    for (const { id } of this.manifests.ids()) {
      try {
        out.push(this.manifests.read(id));
      } catch {
        // A damaged manifest is skipped in listings; `diff`/`restore` of it report the damage.
      }
    }
    return out;
  }
}

/** A files manifest cut down to `only` (its folder lists recomputed for what is left). */
function narrowed(manifest: Manifest, only: ReadonlySet<string>): Manifest {
  if (manifest.scope !== 'files') throw new Error('restore: `only` narrows a files checkpoint, never a workspace one');
  const entries = manifest.entries.filter((e) => only.has(e.path));
  const had = new Set(manifest.dirs);
  const dirs = new Set<string>();
  const absentDirs = new Set<string>();
  for (const e of entries) for (const d of parentDirs(e.path)) (had.has(d) ? dirs : absentDirs).add(d);
  return { ...manifest, entries, dirs: [...dirs].sort(), absentDirs: [...absentDirs].sort() };
}

/** Whether a capture is exactly its base's manifest: the same folders, each with the base's chunk, and the same folder lists. */
function sameTree(cache: StatCache, captured: Captured): boolean {
  const now = captured.folders ?? [];
  const then = cache.folders;
  if (now.length !== then.length || !sameList(captured.dirs, cache.dirs) || !sameList(captured.absentDirs, cache.absentDirs)) return false;
  for (let i = 0; i < now.length; i++) {
    const a = now[i] as (typeof now)[number];
    const b = then[i] as (typeof then)[number];
    if (a.hash === null || a.hash !== b.hash || a.chunk.dir !== b.chunk.dir) return false;
  }
  return true;
}

function sameList(a: readonly string[], b: readonly string[]): boolean {
  return a.length === b.length && a.every((x, i) => x === b[i]);
}

/** An inline file of a workspace checkpoint, as shared with the others (the same path and bytes: the same chunk row). */
function inlineKey(e: { path: string; blob: string }): string {
  return `inline:${e.path}:${e.blob}`;
}

function blobsOf(manifest: Manifest): Map<string, number> {
  const out = new Map<string, number>();
  for (const e of manifest.entries) if (e.type === 'file' && e.inline === undefined) out.set(e.blob, e.size);
  return out;
}

function inUseError(id: string): EditwardenError {
  return new EditwardenError({
    code: ErrorCode.LOCKED,
    message: `Checkpoint ${id} belongs to a transaction that has not finished; it cannot be dropped.`,
    hint: 'Let the transaction finish (or run any editwarden command to recover a crashed one), then drop it.',
  });
}

/** The ref files `paths` as they stand now (each path's file, or absent), for a restore's capture. */
function refEntriesNow(resolver: Workspace['resolver'], paths: readonly string[], blobs: BlobStore): NonNullable<Manifest['git']>['entries'] {
  const now = readRefFiles(resolver) ?? new Map();
  const wanted = new Set(paths);
  const present = new Map([...now].filter(([p]) => wanted.has(p)));
  const absentOnes = new Map([...wanted].filter((p) => !present.has(p)).map((p) => [p, { bytes: Buffer.alloc(0), mode: 0 }]));
  return refEntries(present, absentOnes, blobs);
}
