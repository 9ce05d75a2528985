/**
 * The shapes of a checkpoint on disk: a manifest that names, for every path
 * it covers, what was there (a file with a content-addressed blob and a mode,
 * a symlink with its target, or nothing). Pure types and small helpers; no
 * I/O here.
 */
import type { GitRefsPart } from './git-refs.js';

/** `files`: just the paths a write is about to touch. `workspace`: every non-ignored file under the root. */
export type CheckpointScope = 'files' | 'workspace';

export type ManifestEntry =
  | {
      path: string;
      type: 'file';
      /** sha256 of the bytes, hex: the blob's name (or, with `inline`, just the hash). */
      blob: string;
      /**
       * The bytes themselves (base64), for small files of a files checkpoint:
       * one fsynced manifest instead of a blob and a manifest halves the
       * fsyncs of a 1-file checkpoint. No blob is stored then.
       */
      inline?: string;
      size: number;
      /** Permission bits (mode & 0o7777). */
      mode: number;
      /** Kept so the next workspace checkpoint can reuse the blob without reading the file. */
      mtimeMs: number;
      ctimeMs: number;
      ino: number;
      /** Owner, put back on restore where permitted (absent in manifests written before it was recorded). */
      uid?: number;
      gid?: number;
    }
  | { path: string; type: 'symlink'; target: string }
  | { path: string; type: 'absent' };

/**
 * What a walk records of a regular file for the stat cache (stat-cache.ts):
 * the lstat fields that prove a file unchanged, as plain numbers (an
 * fs.Stats fits). A cache key only: it never decides which bytes are read.
 */
export interface StatKey {
  dev: number;
  ino: number;
  size: number;
  mtimeMs: number;
  ctimeMs: number;
  /** The whole st_mode; only the permission bits are compared. */
  mode: number;
  uid: number;
  gid: number;
}

/**
 * Which of editwarden's own writes to project files a restore is: each is a step of the undo history (undo and redo
 * keep theirs as the redo stack), so `editwarden undo` right after any of them brings back what it overwrote.
 */
export type RestoreCause = 'restore' | 'undo' | 'redo' | 'put-back' | 'rollback' | 'recovery' | 'forced-undo';

/** Why a checkpoint exists: shown in `list` and used by recovery and prune. */
export type CheckpointOrigin =
  | { kind: 'manual' }
  | { kind: 'transaction'; tx: string }
  /**
   * The state a restore was about to overwrite or delete, captured first (service.ts `restore`, the one restore
   * primitive): `cause` says which of editwarden's own writes it was, `group` joins the captures of one act (a
   * rollback of several checkpoints) into one undo step, `label` names it. Absent fields: an older restore.
   */
  | { kind: 'safety'; before: string; cause?: RestoreCause; group?: string; label?: string }
  /** Taken by a client hook (`editwarden hook`) before an agent's own edit tool wrote these files. */
  | {
      kind: 'hook';
      client: string;
      tool: string;
      call?: string;
      session?: string;
      /** What the client's tool is planned to leave at each path: sha256 of the bytes, '' for none (integrations/hook-settle.ts). */
      plannedAfter?: Record<string, string>;
    }
  /**
   * The state before a shell command, of exactly the paths it changed
   * (steps.ts `recordCommandStep`): written after the command ran, from the
   * workspace index taken before it. One undo step, named by the command line.
   */
  | {
      kind: 'command';
      command: string;
      run?: string;
      session?: string;
      client?: string;
      tool?: string;
      /** Paths of the step its processes cannot be shown to have changed (a person's edit during it): an undo refuses them unless forced, a put-back leaves them. */
      unshown?: string[];
      /** When its processes ran. */
      window?: { start: string; end: string };
      /** How its writes were told from others': `strace` (the witness saw its processes), `none` (by times only). */
      witness?: 'strace' | 'none';
      /** Ignored files (and rebuildable folders, `name/`) the command changed whose old state was not kept (ignored.ts): undo cannot bring them back. */
      notKept?: Array<{ path: string; why: string }>;
    }
  /**
   * The workspace index a command's effects are measured against
   * (command-index.ts): kept after the command as the base of the next one
   * (its blobs back the stat cache), replaced by the next. Never an undo step.
   */
  | { kind: 'index' };

export interface Manifest {
  format: 1;
  id: string;
  name: string;
  reason: string;
  scope: CheckpointScope;
  origin: CheckpointOrigin;
  /** ISO time of creation. */
  createdAt: string;
  /** Wall-clock ms when the scan began: files modified after it are never trusted by size+mtime alone. */
  scanStartedMs: number;
  /** Sorted by path. */
  entries: ManifestEntry[];
  /**
   * Folders that existed (relative paths, sorted). Workspace scope: every
   * non-ignored folder. Files scope: the folders on the way to each entry.
   */
  dirs: string[];
  /** Files scope: folders on the way to an absent entry that did not exist either (removed on restore when empty). */
  absentDirs: string[];
  /** The root repository's ref state as it was (HEAD, refs, packed-refs, the index, the stash list): a command's commit, branch or stash, put back with the files (git-refs.ts). */
  git?: GitRefsPart;
}

/** One line of `checkpoint list`. */
export interface CheckpointSummary extends Pick<Manifest, 'id' | 'name' | 'reason' | 'scope' | 'origin' | 'createdAt'> {
  /** Number of files and symlinks recorded. */
  files: number;
  /** Sum of the recorded file sizes (what the checkpoint restores). */
  bytes: number;
  /** Bytes of blobs no other checkpoint shares: what dropping it frees. */
  uniqueBytes: number;
}

type ChangeKind = 'added' | 'deleted' | 'modified' | 'mode' | 'type';

/** One difference between a checkpoint and the disk now. */
export interface CheckpointChange {
  path: string;
  change: ChangeKind;
  before?: EntryState;
  after?: EntryState;
  /** Unified diff for text files (absent for binary or large files). */
  patch?: string;
}

export type EntryState = { type: 'file'; size: number; mode: number } | { type: 'symlink'; target: string };

export interface RestoreResult {
  id: string;
  /** Checkpoint of the state just before the restore (so the restore can be undone); absent when not asked for. */
  safety?: string;
  written: string[];
  removed: string[];
  dirsCreated: string[];
  dirsRemoved: string[];
  /** Entries already as recorded (nothing to do). */
  unchanged: number;
  /** FIFOs, sockets and devices the restore left alone: it never deletes, replaces or recreates one. */
  skipped?: string[];
  /** Bytes of the files written (what the event log reports). */
  bytes?: number;
  /** The root repository's ref files it put back (`.git/HEAD`, `.git/refs/heads/topic`, `.git/index` …). */
  git?: { written: string[]; removed: string[] };
}

export interface PruneResult {
  dropped: string[];
  kept: number;
  freedBytes: number;
}

export function compareByPath(a: { path: string }, b: { path: string }): number {
  return a.path < b.path ? -1 : a.path > b.path ? 1 : 0;
}

/** Parent folders of a relative path, outermost first: "a/b/c.txt" → ["a", "a/b"]. */
export function parentDirs(relative: string): string[] {
  const parts = relative.split('/');
  const out: string[] = [];
  for (let i = 1; i < parts.length; i++) out.push(parts.slice(0, i).join('/'));
  return out;
}
