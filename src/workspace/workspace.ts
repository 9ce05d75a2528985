/**
 * The workspace: the one root an agent may touch, and the only code in
 * editwarden that reads or writes project files. It is an object passed in,
 * never a global, so two roots can live in one process (and tests need no fs
 * mocks).
 */
import fs from 'node:fs';
import path from 'node:path';
import { createHash } from 'node:crypto';
import { EditwardenError, ErrorCode } from '../errors.js';
import { atomicWriteAt, type FileData } from './atomic.js';
import { checkWritableRelative, lexicalParts, locateInRoot, resolveInRoot, STATE_DIR, type ResolvedPath } from './paths.js';
import { READ_FLAGS, Resolver, type Located, type LocateOptions } from './resolver.js';
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
export type FileWrite =
  | { kind: 'write'; path: string; bytes: FileData; mode?: number | undefined; /** Replace a file that has no write bit (the request's `force`). */ force?: boolean }
  | { kind: 'delete'; path: string };

export interface WorkspaceOptions {
  /** Largest file the workspace will read for editing (bytes). */
  maxFileBytes?: number;
  /** Read regular files that have more than one hard link (`workspace.allow_hardlinks`; default false: E_HARD_LINK). */
  allowHardLinks?: boolean;
  /** More root-relative files no agent write may change (an explicit --config file inside the root). */
  protectedFiles?: string[];
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

/** Hook that wraps a set of writes (checkpoint + journal) — the transaction layer plugs in here. */
export type WriteCommitter = (ws: Workspace, writes: FileWrite[]) => void;

export class Workspace {
  readonly root: string;
  readonly maxFileBytes: number;
  readonly allowHardLinks: boolean;
  readonly protectedFiles: readonly string[];
  /** The one race-free resolver of this root (resolver.ts): every file operation goes through it. */
  readonly resolver: Resolver;
  private committer: WriteCommitter | undefined;

  private constructor(realRoot: string, options: WorkspaceOptions) {
    this.root = realRoot;
    this.maxFileBytes = options.maxFileBytes ?? DEFAULT_EDIT_OPTIONS.maxFileBytes;
    this.allowHardLinks = options.allowHardLinks ?? false;
    this.protectedFiles = options.protectedFiles ?? [];
    this.resolver = new Resolver(realRoot);
  }

  static open(root: string, options: WorkspaceOptions = {}): Workspace {
    let real: string;
    try {
      real = fs.realpathSync(root);
    } catch {
      throw new EditwardenError({
        code: ErrorCode.NO_FILE,
        message: `Workspace root ${JSON.stringify(root)} does not exist.`,
        hint: 'Pass an existing folder with --root, or run editwarden inside the project.',
      });
    }
    if (!fs.statSync(real).isDirectory()) {
      throw new EditwardenError({
        code: ErrorCode.NOT_A_FILE,
        message: `Workspace root ${JSON.stringify(root)} is not a folder.`,
        hint: 'Pass the project folder with --root.',
      });
    }
    return new Workspace(real, options);
  }

  /** Folder for editwarden's own state (checkpoints, journal, runs). */
  get stateDir(): string {
    return path.join(this.root, STATE_DIR);
  }

  resolve(requested: string): ResolvedPath {
    return resolveInRoot(this.root, requested, this.resolver);
  }

  /** Walks to `requested` and keeps its parent folder open (resolver.ts); the caller closes `parent`. */
  locate(requested: string, options: LocateOptions = { followFinal: true }): Located {
    return locateInRoot(this.resolver, requested, options);
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

  /** Installs the transaction layer; every commit then goes through it. */
  setCommitter(committer: WriteCommitter | undefined): void {
    this.committer = committer;
  }

  /**
   * Writes a planned set of changes. The only entry point for project-file
   * writes: with a committer installed, it runs inside a checkpointed,
   * journaled transaction.
   */
  commit(writes: FileWrite[]): void {
    if (this.committer) this.committer(this, writes);
    else this.writeAll(writes);
  }

  /** Raw ordered writes, without a transaction: used by the transaction layer itself. */
  writeAll(writes: FileWrite[]): void {
    for (const write of writes) this.writeOne(write);
  }

  private writeOne(write: FileWrite): void {
    const followFinal = write.kind === 'write';
    // The configuration that governs the agent is never written by it, whatever the spelling.
    checkWritableRelative(write.path, lexicalParts(this.root, write.path).lexicalRelative, this.protectedFiles);
    const loc = this.locate(write.path, { followFinal, createParents: followFinal });
    try {
      checkWritableRelative(write.path, loc.relative, this.protectedFiles);
      const st = loc.stat;
      if (write.kind === 'delete') {
        if (st === null || loc.parent === null) return;
        if (st.isDirectory() || loc.name === '') throw notAFile(loc.relative, 'folder');
        if (!st.isFile() && !st.isSymbolicLink()) throw notRegular(loc.relative, st);
        // unlink relative to the opened parent: a symlink is removed as a link, never its target.
        fs.unlinkSync(loc.parent.at(loc.name));
        loc.parent.fsync();
        return;
      }
      if (loc.parent === null || loc.name === '') throw notAFile(loc.relative || '.', 'folder');
      if (st !== null) {
        if (st.isDirectory()) throw notAFile(loc.relative, 'folder');
        if (st.isSymbolicLink()) {
          throw new EditwardenError({
            code: ErrorCode.OUTSIDE_ROOT,
            message: `${write.path} changed while it was being written (a symlink appeared).`,
            hint: 'Retry the edit; do not create symlinks while edits run.',
            path: write.path,
          });
        }
        // A FIFO, socket or device is never replaced by a file.
        if (!st.isFile()) throw notRegular(loc.relative, st);
        if ((st.mode & 0o222) === 0 && !write.force) {
          throw new EditwardenError({
            code: ErrorCode.READ_ONLY,
            message: `${loc.relative} is read-only (mode ${(st.mode & 0o777).toString(8)}): someone made it so on purpose.`,
            hint: 'Leave it alone, or pass force: true (CLI --force) if replacing it is really intended; its mode is kept.',
            path: loc.relative,
          });
        }
      }
      // Temp file and rename inside the opened parent: a folder swapped for a symlink cannot redirect either.
      atomicWriteAt(loc.parent, loc.name, write.bytes, {
        ...(write.mode !== undefined ? { mode: write.mode } : {}),
        ...(st !== null ? { owner: { uid: st.uid, gid: st.gid } } : {}),
      });
    } finally {
      loc.parent?.close();
    }
  }
}

function notAFile(relative: string, what: string): EditwardenError {
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

export function hardLinked(relative: string, nlink: number): EditwardenError {
  return new EditwardenError({
    code: ErrorCode.HARD_LINK,
    message: `${relative} has ${nlink} hard links; another name for the same file may lie outside the workspace, so it is not read.`,
    hint: 'Read another file, or (a person) copy it to break the link: `cp --remove-destination x x.tmp && mv x.tmp x`, or set workspace.allow_hardlinks: true in .editwarden.yml.',
    path: relative,
  });
}
