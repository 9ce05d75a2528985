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
import { atomicWriteFile, fsyncDir, type FileData } from './atomic.js';
import { resolveInRoot, STATE_DIR, type ResolvedPath } from './paths.js';

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
  | { kind: 'write'; path: string; bytes: FileData; mode?: number }
  | { kind: 'delete'; path: string };

export interface WorkspaceOptions {
  /** Largest file the workspace will read for editing (bytes). */
  maxFileBytes?: number;
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
  private committer: WriteCommitter | undefined;

  private constructor(realRoot: string, options: WorkspaceOptions) {
    this.root = realRoot;
    this.maxFileBytes = options.maxFileBytes ?? 10 * 1024 * 1024;
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
    return resolveInRoot(this.root, requested);
  }

  /** Reads a file for editing; null when it does not exist. */
  read(requested: string): FileSnapshot | null {
    const resolved = this.resolve(requested);
    if (!resolved.exists) return null;
    const stat = fs.statSync(resolved.absolute);
    if (!stat.isFile()) {
      throw new EditwardenError({
        code: ErrorCode.NOT_A_FILE,
        message: `${resolved.relative || '.'} is a ${stat.isDirectory() ? 'folder' : 'special file'}, not a regular file.`,
        hint: 'Name a regular file; use list_files to see what a folder holds.',
        path: resolved.relative,
      });
    }
    if (stat.size > this.maxFileBytes) {
      throw new EditwardenError({
        code: ErrorCode.TOO_LARGE,
        message: `${resolved.relative} is ${stat.size} bytes, above the ${this.maxFileBytes}-byte limit for edits.`,
        hint: 'Edit a smaller file, or raise edit.max_file_bytes in .editwarden.yml if this is really intended.',
        path: resolved.relative,
      });
    }
    const bytes = fs.readFileSync(resolved.absolute);
    return fileSnapshot(resolved, bytes, stat.mode & 0o7777);
  }

  exists(requested: string): boolean {
    return this.resolve(requested).exists;
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
    const resolved = this.resolve(write.path);
    if (write.kind === 'delete') {
      if (resolved.exists) {
        fs.unlinkSync(resolved.absolute);
        fsyncDir(path.dirname(resolved.absolute));
      }
      return;
    }
    const dir = path.dirname(resolved.absolute);
    // Parent folders are made only for new files (an existing file's folder exists).
    if (!resolved.exists) fs.mkdirSync(dir, { recursive: true });
    atomicWriteFile(resolved.absolute, write.bytes, {
      ...(write.mode !== undefined ? { mode: write.mode } : {}),
      // A folder swapped for a symlink between validation and write must not redirect it.
      beforeRename: () => {
        const again = this.resolve(write.path);
        if (again.absolute !== resolved.absolute) {
          throw new EditwardenError({
            code: ErrorCode.OUTSIDE_ROOT,
            message: `${write.path} changed location while it was being written (a symlink appeared).`,
            hint: 'Retry the edit; do not create symlinks while edits run.',
            path: write.path,
          });
        }
      },
    });
  }
}
