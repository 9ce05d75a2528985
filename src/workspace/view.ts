/**
 * FileView: what every reader and writer of project files is given — the
 * disk workspace (workspace.ts, opened by openWorkspace), or an overlay
 * (overlay.ts: the tools' planning view and the Editor's dry run) that keeps
 * writes in memory over another view. Code that edits files takes a
 * FileView and never knows which; a view it is handed decides whether
 * writes reach the disk.
 *
 * Writes go through a transaction only: `commit` takes the WriteTransaction
 * that `transact` hands out (or an explicit Transaction of the disk
 * workspace), so a write outside a transaction does not type-check. This
 * module holds types only and must never grow a way to write without one.
 */
import type { ResolvedPath } from './paths.js';
import type { FileSnapshot, FileWrite, PathInfo } from './workspace.js';

/**
 * Proof that writes run inside a transaction of one view: handed out by
 * `FileView.transact` (and, on disk, by the transaction layer's `begin`).
 * A view refuses a transaction of another view, so a dry run's transaction
 * can never carry a write to the disk, nor the disk's one into an overlay.
 */
export interface WriteTransaction {
  /** The view whose writes this transaction carries. */
  readonly view: FileView;
}

export interface FileView {
  /** The real path of the root folder. */
  readonly root: string;
  /** editwarden's own state folder of the root (runs, baselines, checkpoints): never a project file. */
  readonly stateDir: string;
  /** Largest file read for editing (bytes). */
  readonly maxFileBytes: number;
  /** Resolves a requested path inside the root (outside refused by its shape; `.git/`, `.editwarden/` by the project's Policy: workspace/workspace.ts). */
  resolve(requested: string): ResolvedPath;
  /** A file's bytes and mode for editing; null when it does not exist. */
  read(requested: string): FileSnapshot | null;
  exists(requested: string): boolean;
  /** What is at a path (file, folder, absent…), symlinks inside the root followed. */
  info(requested: string): PathInfo;
  /**
   * Runs `work` as one critical section of this view and hands it the
   * transaction its writes go through. On disk the section holds the root
   * lock (no other writer comes between what `work` reads and what it
   * commits) and a commit joins the open transaction or becomes one of its
   * own (checkpointed, journaled). `work` is synchronous on purpose: the
   * lock is re-entrant per process, so an await inside would let a second
   * call of this process in.
   */
  transact<T>(work: (tx: WriteTransaction) => T): T;
  /** Writes a planned batch inside `tx`, a transaction of this view; all or nothing. */
  commit(tx: WriteTransaction, writes: FileWrite[]): void;
}

/** A FileView without its writing half: what read-only commands are given (openReadOnly). */
export type ReadView = Omit<FileView, 'transact' | 'commit'>;

/** The FileView methods, by name: tests prove every view implements each one itself. */
export const FILE_VIEW_METHODS = ['resolve', 'read', 'exists', 'info', 'transact', 'commit'] as const satisfies ReadonlyArray<keyof FileView>;

/**
 * The root-relative path of the ENTRY `requested` names: its folders
 * resolved (links followed as the kernel follows them), its last component
 * kept as it is. A delete acts on the entry: `*** Delete File: lnk.txt`
 * where lnk.txt -> a.txt removes the link, as unlink(2) does, never a.txt.
 * The full path is resolved too, for its refusals (escapes, loops, the
 * protected set as spelled and as reached).
 */
export function entryRelative(view: Pick<FileView, 'resolve'>, requested: string): string {
  const full = view.resolve(requested);
  const trimmed = requested.replace(/\/+$/, '');
  const slash = trimmed.lastIndexOf('/');
  const name = slash < 0 ? trimmed : trimmed.slice(slash + 1);
  if (name === '' || name === '.' || name === '..') return full.relative;
  const folder = view.resolve(slash < 0 ? '.' : trimmed.slice(0, slash) || '/').relative;
  return folder === '' ? name : `${folder}/${name}`;
}
