/**
 * The disk workspace: the one root an agent may touch, and the FileView
 * (view.ts) of the files on disk. It is an object passed in, never a global,
 * so two roots can live in one process (and tests need no fs mocks). It is
 * born with its transaction layer (openWorkspace is the only way in) and has
 * no raw write of its own: `commit` hands every batch to the layer, whose
 * transactions write through disk-writer.ts.
 */
import fs from 'node:fs';
import path from 'node:path';
import { createHash } from 'node:crypto';
import { EditwardenError, ErrorCode } from '../errors.js';
import type { FileData } from './atomic.js';
import { lexicalParts, STATE_DIR, walkInRoot, type ResolvedPath } from './paths.js';
import { Policy, type PolicyOptions } from './policy.js';
import { realRootDir } from './root-dir.js';
import { READ_FLAGS, Resolver, type Located, type LocateOptions } from './resolver.js';
import type { TransactionLayer } from './transaction.js';
import type { FileView, WriteTransaction } from './view.js';
import { DEFAULT_EDIT_OPTIONS } from '../edit/types.js';

export interface FileSnapshot {
  /** Path relative to the root ("/" separators). */
  path: string;
  absolute: string;
  bytes: Buffer;
  /** sha256 of the bytes, hex: what read results return and stale checks compare (computed on first use). */
  readonly hash: string;
  mode: number;
}

/** One change to the disk, as the engine planned it. */
export type FileWrite = { kind: 'write'; path: string; bytes: FileData; mode?: number | undefined /** Replace a file that has no write bit (the request's `force`). */; force?: boolean } | { kind: 'delete'; path: string };

export interface WorkspaceOptions {
  /** Largest file the workspace will read for editing (bytes). */
  maxFileBytes?: number;
  /** Read regular files that have more than one hard link (`workspace.allow_hardlinks`; default false: E_HARD_LINK). */
  allowHardLinks?: boolean;
  /** What the protected set adds for this project (an explicit --config, git_writable): workspace/policy.ts. */
  policy?: PolicyOptions;
}

/** What is at a path, as the resolver found it (symlinks inside the root followed). */
export interface PathInfo {
  relative: string;
  absolute: string;
  type: 'file' | 'dir' | 'symlink' | 'other' | 'absent';
  stat: fs.Stats | null;
}

export function sha256(bytes: Uint8Array): string {
  return createHash('sha256').update(bytes).digest('hex');
}

/** A snapshot whose sha256 is computed on first use: hashing megabytes costs as much as writing them, so only stale checks and reads that report it pay. */
export function fileSnapshot(resolved: Pick<ResolvedPath, 'relative' | 'absolute'>, bytes: Buffer, mode: number): FileSnapshot {
  let hash: string | undefined;
  return {
    path: resolved.relative,
    absolute: resolved.absolute,
    bytes,
    get hash(): string {
      hash ??= sha256(bytes);
      return hash;
    },
    mode,
  };
}

export class Workspace implements FileView {
  readonly root: string;
  readonly maxFileBytes: number;
  readonly allowHardLinks: boolean;
  /** The protected set of this project, computed once when it is opened (workspace/policy.ts). */
  readonly policy: Policy;
  /** The one race-free resolver of this root (resolver.ts): every file operation goes through it. */
  readonly resolver: Resolver;
  /** This root's transaction layer (checkpoints, journal, lock): every commit goes through it. */
  readonly transactions: TransactionLayer;
  /** The transaction `transact` hands out: a commit with it joins the open transaction or becomes one. */
  private readonly section: WriteTransaction = Object.freeze({ view: this });

  private constructor(realRoot: string, options: WorkspaceOptions, layerOf: (ws: Workspace) => TransactionLayer) {
    this.root = realRoot;
    this.maxFileBytes = options.maxFileBytes ?? DEFAULT_EDIT_OPTIONS.maxFileBytes;
    this.allowHardLinks = options.allowHardLinks ?? false;
    this.resolver = new Resolver(realRoot);
    this.policy = new Policy(realRoot, this.resolver, options.policy);
    this.transactions = layerOf(this);
  }

  /**
   * @internal Only openWorkspace (open.ts) calls this: a workspace is born
   * with its transaction layer, so it has no way to write without one.
   */
  static open(root: string, options: WorkspaceOptions, layerOf: (ws: Workspace) => TransactionLayer): Workspace {
    return new Workspace(realRootDir(root), options, layerOf);
  }

  /** Folder for editwarden's own state (checkpoints, journal, runs). */
  get stateDir(): string {
    return path.join(this.root, STATE_DIR);
  }

  resolve(requested: string): ResolvedPath {
    const { located, lexicalRelative } = walk(this, requested, { followFinal: true });
    located.parent?.close();
    const resolved = { absolute: located.absolute, relative: located.relative, exists: located.stat !== null };
    // Protected as spelled ("x/../.claude/settings.json") and as the kernel reaches it (a link's real target).
    const member = this.policy.protectedBy(resolved.relative) ?? this.policy.protectedBy(lexicalRelative);
    return member ? { ...resolved, protectedBy: member } : resolved;
  }

  /** Walks to `requested` and keeps its parent folder open (resolver.ts); the caller closes `parent`. */
  locate(requested: string, options: LocateOptions = { followFinal: true }): Located {
    return walk(this, requested, options).located;
  }

  /** What is at a path now (symlinks inside the root followed), read through the opened parent. */
  info(requested: string): PathInfo {
    const loc = this.locate(requested);
    try {
      const st = loc.stat;
      const type = st === null ? 'absent' : st.isFile() ? 'file' : st.isDirectory() ? 'dir' : st.isSymbolicLink() ? 'symlink' : 'other';
      return { relative: loc.relative, absolute: loc.absolute, type, stat: st };
    } finally {
      loc.parent?.close();
    }
  }

  /** Reads a file for editing; null when it does not exist. */
  read(requested: string): FileSnapshot | null {
    for (let attempt = 0; ; attempt++) {
      const loc = this.locate(requested);
      try {
        if (loc.stat === null || loc.parent === null) return null;
        if (loc.name === '' || loc.stat.isDirectory()) throw notAFile(loc.relative, 'folder');
        if (!loc.stat.isFile() && !loc.stat.isSymbolicLink()) throw notRegular(loc.relative, loc.stat);
        let fd: number;
        try {
          // O_NOFOLLOW: a symlink put there since the walk is not followed; O_NONBLOCK: a FIFO put there never hangs the open.
          fd = fs.openSync(loc.parent.at(loc.name), READ_FLAGS);
        } catch (error) {
          const code = (error as NodeJS.ErrnoException).code;
          // Swapped for a symlink (ELOOP) or removed since the walk: walk again.
          if ((code === 'ELOOP' || code === 'ENOENT') && attempt < 3) continue;
          throw error;
        }
        try {
          // Before the read (and its stat): the checkpoint trusts held bytes only for a file changed well before this (checkpoints/held-read.ts).
          const readAtMs = Date.now();
          const stat = fs.fstatSync(fd);
          if (stat.isDirectory()) throw notAFile(loc.relative, 'folder');
          // A FIFO, socket or device is never read: reading one hangs or never ends.
          if (!stat.isFile()) throw notRegular(loc.relative, stat);
          // A second hard link may be a window onto a file outside the root (ln ~/.ssh/id_rsa x).
          if (stat.nlink > 1 && !this.allowHardLinks) throw hardLinked(loc.relative, stat.nlink);
          if (stat.size > this.maxFileBytes) {
            throw new EditwardenError({
              code: ErrorCode.TOO_LARGE,
              message: `${loc.relative} is ${stat.size} bytes, above the ${this.maxFileBytes}-byte limit for edits.`,
              hint: 'Edit a smaller file, or raise edit.max_file_bytes in .editwarden.yml if this is really intended.',
              path: loc.relative,
            });
          }
          const bytes = fs.readFileSync(fd);
          // An edit reads the file it replaces under the lock, then checkpoints it: that checkpoint need not read it again.
          this.transactions.checkpoints.noteRead({ relative: loc.relative, bytes, dev: stat.dev, ino: stat.ino, size: stat.size, mtimeMs: stat.mtimeMs, ctimeMs: stat.ctimeMs, readAtMs });
          return fileSnapshot(loc, bytes, stat.mode & 0o7777);
        } finally {
          fs.closeSync(fd);
        }
      } finally {
        loc.parent?.close();
      }
    }
  }

  exists(requested: string): boolean {
    return this.resolve(requested).exists;
  }

  /**
   * The root-relative path a write touches, as its checkpoint must record it:
   * a write follows a symlink inside the root to its target; a delete removes
   * the link itself, never its target.
   */
  targetOf(write: FileWrite): string {
    const loc = this.locate(write.path, { followFinal: write.kind === 'write' });
    loc.parent?.close();
    return loc.relative;
  }

  /**
   * Runs `work` as one critical section of this root: under the root lock
   * (re-entrant: inside an open transaction it is already held), so no other
   * editwarden process writes between what `work` reads and what it commits.
   * Its commits join the open transaction, or each becomes a one-batch
   * transaction of its own.
   */
  // Defends against lost updates: two writers that both read, plan on the old text and then commit.
  transact<T>(work: (tx: WriteTransaction) => T): T {
    return this.transactions.checkpoints.lock.with(() => work(this.section));
  }

  /**
   * Writes a planned set of changes inside `tx`: this workspace's section
   * (from `transact`) or its open Transaction. The only entry point for
   * project-file writes, and always through the transaction layer: each
   * batch is checkpointed and journaled before a byte is written.
   */
  commit(tx: WriteTransaction, writes: FileWrite[]): void {
    // Defends against an overlay's (a dry run's) transaction, or an ended one, carrying writes to the disk.
    if (tx !== this.section && (tx !== this.transactions.current || tx.view !== this)) throw foreignTransaction();
    this.transactions.commitWrites(writes);
  }
}

/**
 * Every look at an agent's path: its shape by text (paths.ts), what it names as spelled (the Policy: a sealed
 * member — every `.git`, the state folder — is refused to any access, before the disk is touched), its shape by
 * the walk, and what it names where the kernel lands (a link to `.git`). The caller closes `located.parent`.
 */
function walk(ws: Workspace, requested: string, options: LocateOptions): { located: Located; lexicalRelative: string } {
  const { parts, lexicalRelative } = lexicalParts(ws.root, requested);
  ws.policy.checkReach(requested, lexicalRelative);
  const located = walkInRoot(ws.resolver, requested, parts, options);
  try {
    ws.policy.checkReach(requested, located.relative);
  } catch (error) {
    located.parent?.close();
    throw error;
  }
  return { located, lexicalRelative };
}

function foreignTransaction(): EditwardenError {
  return new EditwardenError({
    code: ErrorCode.INTERNAL,
    message: 'A write reached the workspace with a transaction that is not open on it; nothing was written.',
    hint: 'Write inside ws.transact(...) or the transaction begun on this workspace, before it ends.',
  });
}

export function notAFile(relative: string, what: string): EditwardenError {
  return new EditwardenError({
    code: ErrorCode.NOT_A_FILE,
    message: `${relative || '.'} is a ${what}, not a regular file.`,
    hint: 'Name a regular file; use list_files to see what a folder holds.',
    path: relative,
  });
}

export function notRegular(relative: string, stat: fs.Stats): EditwardenError {
  const kind = stat.isFIFO() ? 'FIFO (named pipe)' : stat.isSocket() ? 'socket' : stat.isBlockDevice() || stat.isCharacterDevice() ? 'device' : 'special file';
  return new EditwardenError({
    code: ErrorCode.NOT_REGULAR,
    message: `${relative} is a ${kind}, not a regular file; editwarden never reads, replaces or deletes one.`,
    hint: 'Name a regular file. Special files are not project content; leave them alone.',
    path: relative,
  });
}

function hardLinked(relative: string, nlink: number): EditwardenError {
  return new EditwardenError({
    code: ErrorCode.HARD_LINK,
    message: `${relative} has ${nlink} hard links; another name for the same file may lie outside the workspace, so it is not read.`,
    hint: 'Read another file, or (a person) copy it to break the link: `cp --remove-destination x x.tmp && mv x.tmp x`, or set workspace.allow_hardlinks: true in .editwarden.yml.',
    path: relative,
  });
}
