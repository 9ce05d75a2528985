/**
 * Puts the disk back exactly as a manifest recorded it: bytes and mode of
 * every file, symlinks as links, files created since removed, deleted files
 * back, folders created since (and left empty) removed. Every file lands by
 * an atomic rename. Every operation acts relative to a folder opened by the
 * race-free resolver without following a symlink (a folder swapped for a
 * link to the outside is never written or deleted through). It never touches
 * ignored files it did not record, never `.git/` (but the root repository's
 * ref state a step recorded: git-refs.ts) or `.editwarden/`, and never
 * deletes, replaces or recreates a FIFO, socket or device (it reports them).
 * The caller holds the root lock and takes the safety checkpoint; this
 * module only applies.
 */
import fs from 'node:fs';
import { memberCovering, PROTECTED_MEMBERS } from '../../config/protected-set.js';
import path from 'node:path';
import { EditwardenError, ErrorCode } from '../../errors.js';
import { atomicWriteAt, isTempFor, TEMP_PREFIX, tempNameFor } from '../atomic.js';
import { DirCache, type DirHandle } from '../resolver.js';
import type { BlobStore } from './blob-store.js';
import { applyRefEntries } from './git-refs.js';
import { bytesOf, checkManifestPath, currentStateAt, sameContent } from './current.js';
import type { Manifest, ManifestEntry, RestoreResult } from './types.js';
import { asResolver, diskIgnoreSource, walkWorkspace, type IgnoreSource, type RootArg } from './walk.js';
import { defined } from '../../defined.js';
import { appendAll } from '../../arrays.js';

/** The ignore files as the manifest recorded them (so restore judges "ignored" as the checkpoint did, too). */
export function manifestIgnoreSource(manifest: Manifest, blobs: BlobStore): IgnoreSource {
  const byDir = new Map<string, string>();
  for (const e of manifest.entries) {
    if (e.type !== 'file' || (e.path !== '.gitignore' && !e.path.endsWith('/.gitignore'))) continue;
    const dir = e.path === '.gitignore' ? '' : e.path.slice(0, -'/.gitignore'.length);
    try {
      byDir.set(dir, bytesOf(e, blobs).toString('utf8'));
    } catch {
      // A missing blob fails the restore later, where it is reported.
    }
  }
  return (dir) => byDir.get(dir) ?? null;
}

/**
 * Which ignore rules say a path is not project content. Default: ignored
 * then OR now (a user's `.env` ignored since is never deleted). `only:
 * 'checkpoint'`: the rules the checkpoint recorded (and `exclude`, the text
 * of .git/info/exclude then, when known) — for undoing an agent's run or
 * charging a command, whose own rule changes must not hide its files.
 */
export interface IgnoreRules {
  only?: 'checkpoint';
  exclude?: string | null;
}

/** Paths a workspace restore would delete: on disk now, not ignored (then or now), not recorded. */
export function extrasOf(rootArg: RootArg, manifest: Manifest, blobs: BlobStore, rules: IgnoreRules = {}): { files: string[]; dirs: string[] } {
  const resolver = asResolver(rootArg);
  // 'checkpoint': only the rules as they were — a .gitignore rewritten since (`*`) cannot hide what was created since.
  const walked = rules.only === 'checkpoint' ? walkWorkspace(resolver, [manifestIgnoreSource(manifest, blobs)], rules.exclude) : walkWorkspace(resolver, [manifestIgnoreSource(manifest, blobs), diskIgnoreSource(resolver)]);
  const recorded = new Set(manifest.entries.map((e) => e.path));
  const recordedDirs = new Set(manifest.dirs);
  return {
    files: walked.entries.filter((e) => !recorded.has(e.path)).map((e) => e.path),
    dirs: walked.dirs.filter((d) => !recordedDirs.has(d)),
  };
}

/**
 * The protected set is never changed by a restore: an agent that may call
 * checkpoint_restore (or undo) could otherwise bring back an older, looser
 * `.editwarden.yml` or `.claude/settings.json`. Only a person edits them.
 * `isProtected` is the project's Policy (workspace/policy.ts); the default
 * protects the fixed members, for a caller that restores a bare root.
 */
export type ProtectedTest = (rel: string) => boolean;
const fixedMembers: ProtectedTest = (rel) => memberCovering(rel, PROTECTED_MEMBERS) !== null;

/** A special file the restore left alone (never deleted, replaced or recreated). */
function skip(result: { skipped: string[] }, rel: string): void {
  if (!result.skipped.includes(rel)) result.skipped.push(rel);
}

export function applyManifest(rootArg: RootArg, manifest: Manifest, blobs: BlobStore, rules: IgnoreRules = {}, isConfigFile: ProtectedTest = fixedMembers): Omit<RestoreResult, 'id' | 'safety'> {
  const resolver = asResolver(rootArg);
  const result = { written: [] as string[], removed: [] as string[], dirsCreated: [] as string[], dirsRemoved: [] as string[], unchanged: 0, skipped: [] as string[] };
  let bytes = 0;
  const touchedDirs = new Set<string>();
  const recordedDirs = new Set(manifest.dirs);
  const dirs = new DirCache(resolver);
  try {
    // 0. Temp files of writes killed mid-way (ours by name), first: a folder holding one is not empty, and must still go in step 2.
    removeStaleTemps(dirs, manifest);

    // 1. Remove what should not be there: absent entries, and (workspace) files created since.
    const toRemove = manifest.entries.filter((e) => e.type === 'absent').map((e) => e.path);
    let createdDirs: string[] = [];
    if (manifest.scope === 'workspace') {
      const extras = extrasOf(resolver, manifest, blobs, rules);
      appendAll(toRemove, extras.files);
      createdDirs = extras.dirs;
    }
    for (const rel of toRemove) {
      checkManifestPath(rel);
      if (isConfigFile(rel)) {
        skip(result, rel);
        continue;
      }
      // A parent that is missing or a symlink now holds nothing of ours to remove (the link itself is handled as an entry).
      const { parent, name } = dirs.tryParentOf(rel);
      const now = currentStateAt(parent, name);
      if (parent === null) continue;
      if (now.type === 'file' || now.type === 'symlink') {
        fs.unlinkSync(parent.at(name));
        result.removed.push(rel);
        touchedDirs.add(parent.rel);
      } else if (now.type === 'other') {
        skip(result, rel);
      } else if (now.type === 'dir' && tryRmdir(parent, name)) {
        dirs.forget(rel);
        result.dirsRemoved.push(rel);
        touchedDirs.add(parent.rel);
      }
    }
    // 2. Folders that did not exist then and are empty now, deepest first.
    const emptyCandidates = [...new Set([...createdDirs, ...manifest.absentDirs])].sort().reverse();
    for (const rel of emptyCandidates) {
      if (recordedDirs.has(rel)) continue;
      checkManifestPath(rel);
      const { parent, name } = dirs.tryParentOf(rel);
      if (parent !== null && currentStateAt(parent, name).type === 'dir' && tryRmdir(parent, name)) {
        dirs.forget(rel);
        result.dirsRemoved.push(rel);
        touchedDirs.add(parent.rel);
      }
    }
    // 3. Folders that existed then (parents first: the list is sorted).
    const known = new Set<string>();
    for (const rel of manifest.dirs) {
      checkManifestPath(rel);
      if (ensureDir(dirs, rel, manifest, known, result)) result.dirsCreated.push(rel);
    }
    // 4. Files and symlinks.
    for (const entry of manifest.entries) {
      if (entry.type === 'absent') continue;
      checkManifestPath(entry.path);
      if (isConfigFile(entry.path)) {
        if (!sameAsNow(dirs, entry)) skip(result, entry.path);
        continue;
      }
      const parentRel = path.posix.dirname(entry.path);
      if (parentRel !== '.' && ensureDir(dirs, parentRel, manifest, known, result)) result.dirsCreated.push(parentRel);
      const { parent, name } = dirs.parentOf(entry.path);
      if (parent === null) {
        throw new EditwardenError({
          code: ErrorCode.IO,
          message: `Cannot restore ${entry.path}: its folder could not be made.`,
          hint: 'Check the folder by hand, then restore again.',
          path: entry.path,
        });
      }
      const done = restoreEntry(parent, name, entry, blobs, result);
      if (done) {
        result.written.push(entry.path);
        if (entry.type === 'file') bytes += entry.size;
        touchedDirs.add(parent.rel);
      } else result.unchanged++;
    }
    for (const rel of touchedDirs) dirs.tryGet(rel)?.fsync();
  } finally {
    dirs.closeAll();
  }
  // The root repository's refs (a command's commit, branch, stash): only ref state, never git's machinery (git-refs.ts).
  const git = manifest.git ? applyRefEntries(resolver, manifest.git.entries, blobs) : null;
  result.dirsCreated = [...new Set(result.dirsCreated)];
  const out: Omit<RestoreResult, 'id' | 'safety'> = { written: result.written, removed: result.removed, dirsCreated: result.dirsCreated, dirsRemoved: result.dirsRemoved, unchanged: result.unchanged, bytes };
  if (result.skipped.length > 0) out.skipped = result.skipped;
  if (git !== null && git.written.length + git.removed.length > 0) out.git = git;
  return out;
}

function tryRmdir(parent: DirHandle, name: string): boolean {
  try {
    fs.rmdirSync(parent.at(name));
    return true;
  } catch {
    return false; // Not empty (holds ignored or unrecorded files): it stays.
  }
}

/**
 * Makes `rel` a real folder, creating missing ones on the way, each relative
 * to its opened parent. A symlink or file standing where the manifest had a
 * folder is replaced in workspace scope (the workspace checkpoint recorded
 * that folder); in files scope it is refused, because writing through it
 * would land somewhere else. A special file there is never removed.
 */
function ensureDir(dirs: DirCache, rel: string, manifest: Manifest, known: Set<string>, result: { skipped: string[] }): boolean {
  if (known.has(rel)) return false;
  let created = false;
  const parts = rel.split('/');
  for (let i = 0; i < parts.length; i++) {
    const here = parts.slice(0, i + 1).join('/');
    if (known.has(here)) continue;
    const parent = dirs.get(parts.slice(0, i).join('/'));
    const name = parts[i] as string;
    if (parent === null) throw new Error(`folder ${parts.slice(0, i).join('/')} vanished during the restore`);
    const now = currentStateAt(parent, name);
    if (now.type === 'dir') {
      known.add(here);
      continue;
    }
    if (now.type !== 'absent') {
      if (manifest.scope !== 'workspace' || now.type === 'other') {
        if (now.type === 'other') skip(result, here);
        throw new EditwardenError({
          code: now.type === 'other' ? ErrorCode.NOT_REGULAR : ErrorCode.IO,
          message: `Cannot restore checkpoint ${manifest.id}: ${here} is now a ${now.type === 'other' ? 'special file (FIFO, socket or device)' : now.type}, where a folder was.`,
          hint: 'Move that file or symlink away by hand, then restore again.',
          path: here,
        });
      }
      // The link itself goes (unlink never follows it).
      fs.unlinkSync(parent.at(name));
    }
    fs.mkdirSync(parent.at(name));
    dirs.forget(here);
    known.add(here);
    created = true;
  }
  known.add(rel);
  return created;
}

/** Returns true when something was written. */
function restoreEntry(parent: DirHandle, name: string, entry: Exclude<ManifestEntry, { type: 'absent' }>, blobs: BlobStore, result: { skipped: string[] }): boolean {
  const now = currentStateAt(parent, name);
  const rel = parent.relOf(name);
  // A FIFO, socket or device is never deleted or replaced by a restore.
  if (now.type === 'other') {
    skip(result, rel);
    return false;
  }
  if (entry.type === 'file') {
    if (now.type === 'file' && sameContent(parent, name, now.stat, entry)) {
      const ownerSame = entry.uid === undefined || (now.stat.uid === entry.uid && now.stat.gid === entry.gid);
      if ((now.stat.mode & 0o7777) === entry.mode && ownerSame) return false;
      // fchmod through a descriptor opened without following a symlink.
      const fd = fs.openSync(parent.at(name), fs.constants.O_RDONLY | fs.constants.O_NOFOLLOW | fs.constants.O_NONBLOCK);
      try {
        if (!ownerSame) keepOwner(fd, entry.uid as number, entry.gid as number);
        fs.fchmodSync(fd, entry.mode);
      } finally {
        fs.closeSync(fd);
      }
      return true;
    }
    if (now.type === 'dir') clearDirFor(parent, name, entry.path);
    atomicWriteAt(parent, name, bytesOf(entry, blobs), {
      mode: entry.mode,
      ...defined({ owner: entry.uid !== undefined && entry.gid !== undefined ? { uid: entry.uid, gid: entry.gid } : undefined }),
    });
    return true;
  }
  switch (entry.type) {
    case 'symlink': {
      if (now.type === 'symlink' && now.target === entry.target) return false;
      if (now.type === 'dir') clearDirFor(parent, name, entry.path);
      // A link made under a temp name and renamed over: the path is never missing, never half made.
      const temp = parent.at(tempNameFor(name));
      fs.symlinkSync(entry.target, temp);
      try {
        fs.renameSync(temp, parent.at(name));
      } catch (error) {
        fs.rmSync(temp, { force: true });
        throw error;
      }
      return true;
    }
    default: {
      const never: never = entry;
      throw new Error(`unknown entry ${JSON.stringify(never)}`);
    }
  }
}

function keepOwner(fd: number, uid: number, gid: number): void {
  try {
    fs.fchownSync(fd, uid, gid);
  } catch {
    // Not permitted (not root, not our group): the owner stays as it is.
  }
}

function clearDirFor(parent: DirHandle, name: string, rel: string): void {
  if (!tryRmdir(parent, name)) {
    throw new EditwardenError({
      code: ErrorCode.IO,
      message: `Cannot restore ${rel}: a folder with files in it stands where the file was.`,
      hint: 'Move that folder away by hand, then restore again.',
      path: rel,
    });
  }
}

/**
 * `.ew-tmp-<name>.<12 hex>` (atomic.ts): a killed write's leftover next to a
 * recorded name, or any such file in a folder the checkpoint did not have.
 */
function removeStaleTemps(dirs: DirCache, manifest: Manifest): void {
  const byDir = new Map<string, Set<string>>();
  for (const e of manifest.entries) {
    const slash = e.path.lastIndexOf('/');
    const dir = slash < 0 ? '' : e.path.slice(0, slash);
    let names = byDir.get(dir);
    if (!names) byDir.set(dir, (names = new Set()));
    names.add(slash < 0 ? e.path : e.path.slice(slash + 1));
  }
  for (const dir of manifest.absentDirs) if (!byDir.has(dir)) byDir.set(dir, new Set());
  for (const [dir, bases] of byDir) {
    const handle = dirs.tryGet(dir);
    if (handle === null) continue;
    let names: string[];
    try {
      names = fs.readdirSync(handle.self);
    } catch {
      continue;
    }
    const anyTemp = manifest.absentDirs.includes(dir);
    for (const name of names) {
      if (!name.startsWith(TEMP_PREFIX)) continue;
      const ours = anyTemp ? /\.[0-9a-f]{12}$/.test(name) : [...bases].some((b) => isTempFor(name, b));
      if (!ours) continue;
      try {
        if (fs.lstatSync(handle.at(name)).isFile() || fs.lstatSync(handle.at(name)).isSymbolicLink()) fs.unlinkSync(handle.at(name));
      } catch {
        // Gone already.
      }
    }
  }
}

/** Whether a recorded file is on disk as recorded (so skipping it changes nothing worth reporting). */
function sameAsNow(dirs: DirCache, entry: Exclude<ManifestEntry, { type: 'absent' }>): boolean {
  if (entry.type !== 'file') return false;
  const { parent, name } = dirs.tryParentOf(entry.path);
  if (parent === null) return false;
  const now = currentStateAt(parent, name);
  return now.type === 'file' && sameContent(parent, name, now.stat, entry);
}
