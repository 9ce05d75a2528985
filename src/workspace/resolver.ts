/**
 * The one race-free resolver: every file operation of editwarden on the
 * root (read, stat, list, search, mkdir, temp write, rename, delete,
 * checkpoint capture, restore, recovery) reaches its target through here.
 * A path is walked one component at a time from an opened root, each folder
 * opened with O_DIRECTORY|O_NOFOLLOW RELATIVE TO THE FOLDER BEFORE IT; the
 * operation then acts on a name relative to the opened parent. On Linux the
 * parent is addressed as `/proc/self/fd/<fd>/<name>`: the kernel starts the
 * lookup at the descriptor's folder, not at a path string, which gives the
 * `*at()` system calls' semantics through Node's ordinary fs API.
 *
 * It must never hand back a handle to a folder reached through a symlink
 * (symlinks inside the root are followed only by re-walking their target
 * from the root, component by component), and never build a path from a
 * string that names an intermediate folder by name.
 *
 * Where `/proc/self/fd` is missing (macOS, BSD) it falls back to path
 * strings: every folder is still opened with O_NOFOLLOW and checked, but a
 * folder swapped for a symlink between the check and the operation can
 * redirect that one operation (docs/workspace-boundary.md, "macOS").
 */
import fs from 'node:fs';
import path from 'node:path';
import { EditwardenError, ErrorCode } from '../errors.js';
import { prependAll } from '../arrays.js';

const C = fs.constants;
const DIR_FLAGS = C.O_RDONLY | C.O_DIRECTORY | C.O_NOFOLLOW;
/** Opening a file to read: never through a final symlink, never blocking on a FIFO. */
export const READ_FLAGS = C.O_RDONLY | C.O_NOFOLLOW | C.O_NONBLOCK;

/** Whether `/proc/self/fd/N/name` gives *at() semantics here (Linux). Probed once. */
const FD_PATHS: boolean = (() => {
  if (process.platform !== 'linux') return false;
  try {
    return fs.statSync('/proc/self/fd').isDirectory();
  } catch {
    return false;
  }
})();

/** Force the path-string fallback (tests of the macOS code path on Linux). */
let forceFallback = false;
export function setResolverFallback(on: boolean): void {
  forceFallback = on;
}

/** An opened folder of the root. `at(name)` names an entry of it; close it when done. */
export class DirHandle {
  private closed = false;
  constructor(
    readonly fd: number,
    /** Path of the folder relative to the root ("/" separators, "" for the root). */
    readonly rel: string,
    /** Absolute path of the folder as it was walked: for messages, and the fallback's operations. */
    readonly display: string,
    /** Whether `at` and `self` name it through its descriptor (`/proc/self/fd/N`), exactly. */
    readonly viaFd: boolean,
  ) {}

  /** The path that names `name` inside this folder, for any fs call. */
  at(name: string): string {
    return this.viaFd ? `/proc/self/fd/${this.fd}/${name}` : path.join(this.display, name);
  }

  /** The path of this folder itself (for readdir). */
  get self(): string {
    return this.viaFd ? `/proc/self/fd/${this.fd}` : this.display;
  }

  relOf(name: string): string {
    return this.rel === '' ? name : `${this.rel}/${name}`;
  }

  /** Opens a sub-folder of this one without following a symlink; null when it is missing or not a real folder. */
  openChild(name: string): DirHandle | null {
    let fd: number;
    try {
      fd = fs.openSync(this.at(name), DIR_FLAGS);
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code === 'ENOENT' || code === 'ENOTDIR' || code === 'ELOOP') return null;
      throw error;
    }
    return new DirHandle(fd, this.relOf(name), path.join(this.display, name), this.viaFd);
  }

  fsync(): void {
    try {
      fs.fsyncSync(this.fd);
    } catch {
      // Some file systems refuse fsync on folders; renames are still atomic.
    }
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    fs.closeSync(this.fd);
  }
}

/** What a walk found at the end of a path. */
export interface Located {
  /** The opened parent folder, or null when a folder on the way does not exist (and was not to be created). */
  parent: DirHandle | null;
  /** Last component (the entry inside `parent`); "" for the root itself. */
  name: string;
  /** Real path relative to the root ("/" separators). */
  relative: string;
  /** Absolute real path (for messages and results). */
  absolute: string;
  /** lstat of the entry (via the parent), null when absent. */
  stat: fs.Stats | null;
}

export interface LocateOptions {
  /** Follow a symlink in the last component (inside the root only). Folders on the way are always followed inside the root. */
  followFinal?: boolean;
  /** Create missing folders on the way (each with mkdir relative to its opened parent). */
  createParents?: boolean;
  /** Follow no symlink at all, anywhere (manifest paths, editwarden's own state): a symlinked folder on the way is refused. */
  exact?: boolean;
}

const MAX_HOPS = 40;

/** The resolver of one root. Holds no descriptor between calls (each call opens and closes its own). */
export class Resolver {
  readonly root: string;
  private readonly dev: number;
  private readonly ino: number;

  constructor(realRoot: string) {
    this.root = realRoot;
    const st = fs.statSync(realRoot);
    this.dev = st.dev;
    this.ino = st.ino;
  }

  /** The root's identity (device and inode): records of editwarden's state are bound to it. */
  get identity(): { dev: number; ino: number } {
    return { dev: this.dev, ino: this.ino };
  }

  private get viaFd(): boolean {
    return FD_PATHS && !forceFallback;
  }

  /** Opens the root itself; refuses if the folder at the root's path is no longer the one this workspace opened. */
  openRoot(): DirHandle {
    const fd = fs.openSync(this.root, DIR_FLAGS);
    const st = fs.fstatSync(fd);
    if (st.dev !== this.dev || st.ino !== this.ino) {
      fs.closeSync(fd);
      // The root replaced (renamed away and another put in its place) while editwarden ran.
      throw new EditwardenError({
        code: ErrorCode.OUTSIDE_ROOT,
        message: `The workspace root ${this.root} was replaced by another folder while editwarden ran.`,
        hint: 'Start editwarden again in the project folder.',
      });
    }
    return new DirHandle(fd, '', this.root, this.viaFd);
  }

  /**
   * Walks `relParts` (already lexically normalised, inside the root) one
   * component at a time. Symlinks inside the root are followed by re-walking
   * their target from the root (unless `exact`); a hop that would leave the
   * root calls `refuse`.
   */
  locate(relParts: readonly string[], refuse: (kind: 'escape' | 'loop' | 'link', detail: string) => EditwardenError, options: LocateOptions = {}): Located {
    const queue = [...relParts];
    let cur = this.openRoot();
    let curParts: string[] = [];
    let hops = 0;
    try {
      if (queue.length === 0) {
        const stat = fs.fstatSync(cur.fd);
        const out: Located = { parent: cur, name: '', relative: '', absolute: this.root, stat };
        cur = null as unknown as DirHandle; // handed to the caller
        return out;
      }
      for (;;) {
        const part = queue.shift() as string;
        // "." and ".." are walked as the kernel walks them: ".." from the folder reached so far (a real folder, since
        // every link restarts the walk from the root), never as text inside a link's target. Attack: `a -> .` and
        // `up -> a/..`: read as text, `up/x` is the root's x; the kernel writes the root's PARENT's x.
        if (part === '.' || part === '..') {
          if (part === '..') {
            if (curParts.length === 0) throw refuse('escape', `${[...curParts, part, ...queue].join('/')} climbs above the root`);
            curParts.pop();
          }
          // Re-open the folder reached (walked exactly from the root: its components are real folders).
          if (queue.length === 0 && curParts.length === 0) {
            cur.close();
            cur = this.openRoot();
            const out: Located = { parent: cur, name: '', relative: '', absolute: this.root, stat: fs.fstatSync(cur.fd) };
            cur = null as unknown as DirHandle;
            return out;
          }
          prependAll(queue, curParts);
          cur.close();
          cur = this.openRoot();
          curParts = [];
          continue;
        }
        const last = queue.length === 0;
        const entry = cur.at(part);
        if (last) {
          let stat: fs.Stats | null;
          try {
            stat = fs.lstatSync(entry);
          } catch (error) {
            if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
            stat = null;
          }
          if (stat?.isSymbolicLink() && options.followFinal && !options.exact) {
            const next = this.hop(cur, curParts, part, refuse, ++hops);
            prependAll(queue, next);
            cur.close();
            cur = this.openRoot();
            curParts = [];
            if (queue.length === 0) {
              // The link points at the root itself.
              const rootStat = fs.fstatSync(cur.fd);
              const out: Located = { parent: cur, name: '', relative: '', absolute: this.root, stat: rootStat };
              cur = null as unknown as DirHandle;
              return out;
            }
            continue;
          }
          const relative = [...curParts, part].join('/');
          const out: Located = { parent: cur, name: part, relative, absolute: path.join(this.root, ...curParts, part), stat };
          cur = null as unknown as DirHandle;
          return out;
        }
        let child = cur.openChild(part);
        if (child === null) {
          let stat: fs.Stats | null = null;
          try {
            stat = fs.lstatSync(entry);
          } catch (error) {
            if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
          }
          if (stat === null) {
            if (options.createParents) {
              try {
                fs.mkdirSync(entry);
              } catch (error) {
                if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
              }
              queue.unshift(part); // Open it (or whatever now stands there) on the next turn.
              if (++hops > MAX_HOPS * 4) throw refuse('loop', 'the path kept changing while it was walked');
              continue;
            }
            // The rest does not exist: it would be created under `cur` ("missing/../x" is plain text below a real folder).
            const relative = belowMissing(curParts, [part, ...queue], refuse);
            cur.close();
            cur = null as unknown as DirHandle;
            return { parent: null, name: queue[queue.length - 1] ?? part, relative, absolute: path.join(this.root, relative), stat: null };
          }
          if (stat.isSymbolicLink()) {
            if (options.exact) throw refuse('link', `${[...curParts, part].join('/')} is a symlink`);
            const next = this.hop(cur, curParts, part, refuse, ++hops);
            prependAll(queue, next);
            cur.close();
            cur = this.openRoot();
            curParts = [];
            continue;
          }
          if (stat.isDirectory()) {
            // Swapped back to a folder between the open and the lstat: try again.
            if (++hops > MAX_HOPS * 4) throw refuse('loop', 'the path kept changing while it was walked');
            queue.unshift(part);
            continue;
          }
          // A file where a folder is needed: nothing below it exists.
          const relative = belowMissing(curParts, [part, ...queue], refuse);
          cur.close();
          cur = null as unknown as DirHandle;
          if (options.createParents) {
            throw new EditwardenError({
              code: ErrorCode.NOT_A_FILE,
              message: `${[...curParts, part].join('/')} is a file, so ${relative} cannot be created under it.`,
              hint: 'Choose a path whose folders are folders.',
              path: relative,
            });
          }
          return { parent: null, name: queue[queue.length - 1] ?? part, relative, absolute: path.join(this.root, relative), stat: null };
        }
        cur.close();
        cur = child;
        child = null;
        curParts.push(part);
      }
    } finally {
      if (cur) cur.close();
    }
  }

  /** Reads the link `part` in `cur` and returns the root-relative components of its target. */
  private hop(cur: DirHandle, curParts: string[], part: string, refuse: (kind: 'escape' | 'loop' | 'link', detail: string) => EditwardenError, hops: number): string[] {
    if (hops > MAX_HOPS) throw refuse('loop', 'too many symlinks');
    let target: string;
    try {
      target = fs.readlinkSync(cur.at(part));
    } catch (error) {
      // Replaced by something else since the lstat: walk it again.
      if ((error as NodeJS.ErrnoException).code === 'EINVAL' || (error as NodeJS.ErrnoException).code === 'ENOENT') return [...curParts, part];
      throw error;
    }
    const linkName = [...curParts, part].join('/');
    if (target.length === 0) throw refuse('escape', `${linkName} is an empty link`);
    let start: string[];
    let rest: string;
    if (path.isAbsolute(target)) {
      // An absolute target counts only when it names the root's real path literally: "/elsewhere/../root/x" is walked
      // by the kernel from "/", through folders editwarden cannot vouch for.
      const normalisedRoot = this.root.endsWith('/') ? this.root : `${this.root}/`;
      const collapsed = target.replace(/\/+/g, '/');
      if (collapsed !== this.root && collapsed !== this.root + '/' && !collapsed.startsWith(normalisedRoot)) throw refuse('escape', `${linkName} links to ${target}`);
      start = [];
      rest = collapsed.slice(this.root.length);
    } else {
      start = [...curParts];
      rest = target;
    }
    // The target's components, unresolved: the walk takes "." and ".." physically from the link's real folder.
    const parts = [...start, ...rest.split('/').filter((p) => p !== '' && p !== '.')];
    return parts;
  }

  /**
   * Opens the folder `rel` exactly (no symlink followed anywhere): for
   * manifest paths and editwarden's own state. Null when it is missing (and
   * not created); a symlink or file on the way is refused.
   */
  openDirExact(rel: string, options: { create?: boolean } = {}): DirHandle | null {
    const parts = rel === '' ? [] : rel.split('/');
    const located = this.locate(parts.length === 0 ? [] : parts, exactRefusal(rel), { exact: true, createParents: options.create ?? false });
    if (parts.length === 0) return located.parent;
    const parent = located.parent;
    if (parent === null) return null;
    try {
      let child = parent.openChild(located.name);
      if (child === null && options.create && located.stat === null) {
        try {
          fs.mkdirSync(parent.at(located.name));
        } catch (error) {
          if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
        }
        child = parent.openChild(located.name);
      }
      if (child === null && (located.stat !== null || options.create)) {
        throw exactRefusal(rel)('link', `${rel} is not a real folder`);
      }
      return child;
    } finally {
      parent.close();
    }
  }

  /** The exact parent folder of a root-relative path (no symlink followed) and the entry's name; null parent when a folder on the way is missing. */
  parentExact(rel: string, options: { create?: boolean } = {}): { parent: DirHandle | null; name: string } {
    const slash = rel.lastIndexOf('/');
    const dir = slash < 0 ? '' : rel.slice(0, slash);
    const name = slash < 0 ? rel : rel.slice(slash + 1);
    return { parent: this.openDirExact(dir, options), name };
  }
}

/** The root-relative path of something that does not exist yet below the real folder `real`; ".." there is text (nothing below is a link). */
function belowMissing(real: readonly string[], rest: readonly string[], refuse: (kind: 'escape' | 'loop' | 'link', detail: string) => EditwardenError): string {
  const normal = path.posix.normalize([...real, ...rest].join('/'));
  if (normal === '..' || normal.startsWith('../') || normal.startsWith('/')) throw refuse('escape', `${[...real, ...rest].join('/')} climbs above the root`);
  return normal === '.' ? '' : normal.replace(/\/$/, '');
}

function exactRefusal(rel: string): (kind: 'escape' | 'loop' | 'link', detail: string) => EditwardenError {
  return (_kind, detail) =>
    new EditwardenError({
      code: ErrorCode.OUTSIDE_ROOT,
      message: `${rel} cannot be reached without following a symlink (${detail}).`,
      hint: 'A folder on the way was replaced by a symlink; remove the symlink (or move it away) and try again.',
      path: rel,
    });
}

/** Keeps the parent folders of a run of sorted paths open, so a walk over thousands of files opens each folder once. */
export class DirCache {
  private readonly open = new Map<string, DirHandle | null>();
  constructor(private readonly resolver: Resolver) {}

  /** The exact folder `rel` ("" for the root); null when missing. */
  get(rel: string): DirHandle | null {
    if (this.open.has(rel)) return this.open.get(rel) as DirHandle | null;
    // Few folders open at once: a sorted walk moves on and never comes back.
    if (this.open.size >= 32) this.closeAll();
    const handle = this.resolver.openDirExact(rel);
    this.open.set(rel, handle);
    return handle;
  }

  /** Like get, but a folder on the way that is a symlink (or file) counts as missing instead of throwing. */
  tryGet(rel: string): DirHandle | null {
    try {
      return this.get(rel);
    } catch (error) {
      if (error instanceof EditwardenError && error.code === ErrorCode.OUTSIDE_ROOT) {
        this.open.set(rel, null);
        return null;
      }
      throw error;
    }
  }

  /** Forgets a folder (after it was created or replaced). */
  forget(rel: string): void {
    for (const [key, handle] of this.open) {
      if (key === rel || key.startsWith(`${rel}/`) || rel === '') {
        handle?.close();
        this.open.delete(key);
      }
    }
  }

  /** The folder and name of a root-relative path (parent null when missing or reached only through a symlink). */
  tryParentOf(rel: string): { parent: DirHandle | null; name: string } {
    const slash = rel.lastIndexOf('/');
    return { parent: this.tryGet(slash < 0 ? '' : rel.slice(0, slash)), name: slash < 0 ? rel : rel.slice(slash + 1) };
  }

  /** The folder and name of a root-relative path. */
  parentOf(rel: string): { parent: DirHandle | null; name: string } {
    const slash = rel.lastIndexOf('/');
    return { parent: this.get(slash < 0 ? '' : rel.slice(0, slash)), name: slash < 0 ? rel : rel.slice(slash + 1) };
  }

  closeAll(): void {
    for (const h of this.open.values()) h?.close();
    this.open.clear();
  }
}
