/**
 * editwarden's own state folder, `.editwarden/`, trusted only after it is
 * checked: it must be a real folder (never a symlink: a planted
 * `.editwarden -> /elsewhere` would send the journal and checkpoint copies
 * out of the root), owned by the user running editwarden, and every folder
 * in it is opened through the race-free resolver without following a
 * symlink. Names built from stored data (blob ids, manifest ids, journal
 * records) are validated before any path is made from them. This module
 * never reads or writes project files.
 */
import fs from 'node:fs';
import path from 'node:path';
import { EditwardenError, ErrorCode } from '../errors.js';
import { NotASmallFile, readSmallFile } from '../small-file.js';
import { STATE_DIR } from './paths.js';
import type { DirHandle, Resolver } from './resolver.js';

const STATE_GITIGNORE = '# editwarden state (checkpoints, journal, runs): never commit it.\n*\n';

/** sha256 in hex: the only shape a blob id may have (a planted `../../..` never becomes a path). */
export const BLOB_ID = /^[0-9a-f]{64}$/;
/** Journal record names: transactions and restores. */
export const TX_ID = /^(?:tx-[0-9a-z]{1,16}-[0-9a-f]{8}|restore-\d{8}-\d{6}-\d{3}-[0-9a-f]{4})$/;

export function untrusted(message: string, hint?: string): EditwardenError {
  return new EditwardenError({
    code: ErrorCode.UNTRUSTED_STATE,
    message,
    hint: hint ?? 'editwarden will not use a state folder it did not make. If this repository came with a `.editwarden/` (a clone or an archive), remove it (`rm -rf .editwarden`, after a look inside) and run the command again.',
  });
}

function ownUid(): number | null {
  return typeof process.getuid === 'function' ? process.getuid() : null;
}

/** Checks an existing `.editwarden` by its lstat: a real folder, owned by us. */
export function checkStateStat(display: string, st: fs.Stats): void {
  if (st.isSymbolicLink()) throw untrusted(`${display} is a symlink; editwarden's state must be a real folder inside the root.`);
  if (!st.isDirectory()) throw untrusted(`${display} is not a folder.`);
  const uid = ownUid();
  if (uid !== null && st.uid !== uid) throw untrusted(`${display} belongs to user ${st.uid}, not to the user running editwarden (${uid}).`);
}

/**
 * Path-based check for callers that only hold the state folder's path (the
 * root lock): creates it when missing, refuses it when untrusted.
 */
export function ensureTrustedStateDir(stateDir: string): void {
  let st: fs.Stats | null = null;
  try {
    st = fs.lstatSync(stateDir);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
  if (st !== null) {
    checkStateStat(stateDir, st);
    return;
  }
  try {
    fs.mkdirSync(stateDir, { mode: 0o755 });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
  }
  checkStateStat(stateDir, fs.lstatSync(stateDir));
  try {
    fs.writeFileSync(path.join(stateDir, '.gitignore'), STATE_GITIGNORE, { flag: 'wx' });
  } catch {
    // Another process created it first.
  }
}

/**
 * A folder inside `.editwarden/` (e.g. "runs/<id>", "verify"), made or found
 * one segment at a time and checked to be a real folder of this user. Attack:
 * a repository that ships `.editwarden/runs -> /somewhere` would otherwise
 * have run logs, metrics and baselines written outside the root.
 */
export function ensureStateSubdir(stateDir: string, rel: string): string {
  ensureTrustedStateDir(stateDir);
  let dir = stateDir;
  for (const segment of rel.split('/')) {
    if (segment === '' || segment === '.' || segment === '..') throw untrusted(`${JSON.stringify(rel)} is not a plain folder name inside .editwarden/.`);
    dir = path.join(dir, segment);
    try {
      fs.mkdirSync(dir, { mode: 0o755 });
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
    checkStateStat(dir, fs.lstatSync(dir));
  }
  return dir;
}

/** One folder inside `.editwarden/` (e.g. "journal", "checkpoints/blobs"), opened through the resolver for each use. */
export class StateFolder {
  /** Absolute path, for messages and tests (never used to act). */
  readonly dir: string;

  constructor(
    private readonly resolver: Resolver,
    readonly sub: string,
  ) {
    this.dir = path.join(resolver.root, STATE_DIR, ...sub.split('/'));
  }

  /** Opens the folder; null when it (or `.editwarden`) does not exist and `create` is false. Caller closes. */
  open(create: boolean): DirHandle | null {
    const root = this.resolver.openRoot();
    let cur: DirHandle | null = root;
    try {
      cur = openOrMake(root, STATE_DIR, create, path.join(this.resolver.root, STATE_DIR), true);
      root.close();
      if (cur === null) return null;
      for (const part of this.sub.split('/')) {
        const next = openOrMake(cur, part, create, path.join(cur.display, part), false);
        cur.close();
        cur = next;
        if (cur === null) return null;
      }
      const out = cur;
      cur = null;
      return out;
    } finally {
      root.close();
      cur?.close();
    }
  }

  /** Runs `fn` with the opened folder; `missing` when it does not exist (and `create` is false). */
  with<T>(create: boolean, missing: T, fn: (dir: DirHandle) => T): T {
    const h = this.open(create);
    if (h === null) return missing;
    try {
      return fn(h);
    } finally {
      h.close();
    }
  }
}

function openOrMake(parent: DirHandle, name: string, create: boolean, display: string, isStateRoot: boolean): DirHandle | null {
  for (let attempt = 0; attempt < 3; attempt++) {
    const child = parent.openChild(name);
    if (child !== null) {
      if (isStateRoot) {
        try {
          checkStateStat(display, fs.fstatSync(child.fd));
        } catch (error) {
          child.close();
          throw error;
        }
      }
      return child;
    }
    let st: fs.Stats | null = null;
    try {
      st = fs.lstatSync(parent.at(name));
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
    }
    if (st !== null && !st.isDirectory()) {
      if (isStateRoot) checkStateStat(display, st);
      // A planted `.editwarden/checkpoints -> /elsewhere`.
      throw untrusted(`${display} is ${st.isSymbolicLink() ? 'a symlink' : 'not a folder'}; editwarden's state folders must be real folders.`);
    }
    if (st === null) {
      if (!create) return null;
      try {
        fs.mkdirSync(parent.at(name), { mode: 0o755 });
        if (isStateRoot) {
          try {
            fs.writeFileSync(path.join(parent.at(name), '.gitignore'), STATE_GITIGNORE, { flag: 'wx' });
          } catch {
            // Another process wrote it.
          }
        }
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      }
    }
  }
  throw untrusted(`${display} kept changing while editwarden opened it.`);
}

/** Reads a small state file without following a symlink (a planted `journal/x.json -> /etc/shadow` is never read). */
export function readStateFile(dir: DirHandle, name: string): Buffer {
  try {
    // No size cap: a manifest of a large tree is tens of megabytes, and it is editwarden's own file.
    return readSmallFile(dir.at(name), { maxBytes: Number.POSITIVE_INFINITY, follow: false });
  } catch (error) {
    if (error instanceof NotASmallFile) throw untrusted(`${path.join(dir.display, name)} is not a regular file.`);
    throw error;
  }
}
