/**
 * Puts the disk back exactly as a manifest recorded it: bytes and mode of
 * every file, symlinks as links, files created since removed, deleted files
 * back, folders created since (and left empty) removed. Every file lands by
 * an atomic rename. It never follows a symlink while writing, never touches
 * ignored files it did not record, and never touches `.git/` or
 * `.editwarden/`. The caller holds the root lock and takes the safety
 * checkpoint; this module only applies.
 */
import fs from 'node:fs';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import { EditwardenError, ErrorCode } from '../../errors.js';
import { atomicWriteFile, fsyncDir, TEMP_PREFIX } from '../atomic.js';
import type { BlobStore } from './blob-store.js';
import { bytesOf, checkManifestPath, currentState, sameContent } from './current.js';
import type { Manifest, ManifestEntry, RestoreResult } from './types.js';
import { diskIgnoreSource, walkWorkspace, type IgnoreSource } from './walk.js';

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
export function extrasOf(root: string, manifest: Manifest, blobs: BlobStore, rules: IgnoreRules = {}): { files: string[]; dirs: string[] } {
  // 'checkpoint': only the rules as they were — a .gitignore rewritten since (`*`) cannot hide what was created since.
  const walked =
    rules.only === 'checkpoint'
      ? walkWorkspace(root, [manifestIgnoreSource(manifest, blobs)], rules.exclude)
      : walkWorkspace(root, [manifestIgnoreSource(manifest, blobs), diskIgnoreSource(root)]);
  const recorded = new Set(manifest.entries.map((e) => e.path));
  const recordedDirs = new Set(manifest.dirs);
  return {
    files: walked.entries.filter((e) => !recorded.has(e.path)).map((e) => e.path),
    dirs: walked.dirs.filter((d) => !recordedDirs.has(d)),
  };
}

export function applyManifest(root: string, manifest: Manifest, blobs: BlobStore, rules: IgnoreRules = {}): Omit<RestoreResult, 'id' | 'safety'> {
  const result = { written: [] as string[], removed: [] as string[], dirsCreated: [] as string[], dirsRemoved: [] as string[], unchanged: 0 };
  const touchedDirs = new Set<string>();
  const recordedDirs = new Set(manifest.dirs);

  // 1. Remove what should not be there: absent entries, and (workspace) files created since.
  const toRemove = manifest.entries.filter((e) => e.type === 'absent').map((e) => e.path);
  let createdDirs: string[] = [];
  if (manifest.scope === 'workspace') {
    const extras = extrasOf(root, manifest, blobs, rules);
    toRemove.push(...extras.files);
    createdDirs = extras.dirs;
  }
  for (const rel of toRemove) {
    const abs = checkManifestPath(root, rel);
    const now = currentState(abs);
    if (now.type === 'file' || now.type === 'symlink' || now.type === 'other') {
      fs.rmSync(abs, { force: true });
      result.removed.push(rel);
      touchedDirs.add(path.dirname(abs));
    } else if (now.type === 'dir' && tryRmdir(abs)) {
      result.dirsRemoved.push(rel);
      touchedDirs.add(path.dirname(abs));
    }
  }
  // 2. Folders that did not exist then and are empty now, deepest first.
  const emptyCandidates = [...new Set([...createdDirs, ...manifest.absentDirs])].sort().reverse();
  for (const rel of emptyCandidates) {
    if (recordedDirs.has(rel)) continue;
    const abs = checkManifestPath(root, rel);
    if (currentState(abs).type === 'dir' && tryRmdir(abs)) {
      result.dirsRemoved.push(rel);
      touchedDirs.add(path.dirname(abs));
    }
  }
  // 3. Folders that existed then (parents first: the list is sorted).
  const known = new Set<string>();
  for (const rel of manifest.dirs) {
    if (ensureDir(root, rel, manifest, known)) result.dirsCreated.push(rel);
  }
  // 4. Files and symlinks.
  for (const entry of manifest.entries) {
    if (entry.type === 'absent') continue;
    const abs = checkManifestPath(root, entry.path);
    const parent = path.posix.dirname(entry.path);
    if (parent !== '.' && ensureDir(root, parent, manifest, known)) result.dirsCreated.push(parent);
    if (restoreEntry(abs, entry, blobs)) result.written.push(entry.path);
    else result.unchanged++;
  }
  // Temp files of writes killed mid-way (ours by name) next to the restored paths.
  const entryDirs = new Set(manifest.entries.map((e) => path.dirname(path.join(root, e.path))));
  if (manifest.scope === 'files') for (const dir of entryDirs) removeStaleTemps(dir, manifest.entries);
  for (const dir of touchedDirs) if (fs.existsSync(dir)) fsyncDir(dir);
  result.dirsCreated = [...new Set(result.dirsCreated)];
  return result;
}

function tryRmdir(abs: string): boolean {
  try {
    fs.rmdirSync(abs);
    return true;
  } catch {
    return false; // Not empty (holds ignored or unrecorded files): it stays.
  }
}

/**
 * Makes `rel` a real folder, creating missing ones on the way. A symlink or
 * file standing where the manifest had a folder is replaced in workspace
 * scope (the workspace checkpoint recorded that folder); in files scope it is
 * refused, because writing through it would land somewhere else.
 */
function ensureDir(root: string, rel: string, manifest: Manifest, known: Set<string>): boolean {
  if (known.has(rel)) return false;
  let created = false;
  let current = root;
  for (const part of rel.split('/')) {
    current = path.join(current, part);
    if (known.has(current)) continue;
    const now = currentState(current);
    if (now.type === 'dir') {
      known.add(current);
      continue;
    }
    if (now.type !== 'absent') {
      if (manifest.scope !== 'workspace') {
        throw new EditwardenError({
          code: ErrorCode.IO,
          message: `Cannot restore checkpoint ${manifest.id}: ${path.relative(root, current)} is now a ${now.type}, where a folder was.`,
          hint: 'Move that file or symlink away by hand, then restore again.',
          path: path.relative(root, current),
        });
      }
      fs.rmSync(current, { force: true });
    }
    fs.mkdirSync(current);
    known.add(current);
    created = true;
  }
  known.add(rel);
  return created;
}

/** Returns true when something was written. */
function restoreEntry(abs: string, entry: Exclude<ManifestEntry, { type: 'absent' }>, blobs: BlobStore): boolean {
  const now = currentState(abs);
  if (entry.type === 'file') {
    if (now.type === 'file' && sameContent(abs, now.stat, entry)) {
      if ((now.stat.mode & 0o7777) === entry.mode) return false;
      fs.chmodSync(abs, entry.mode);
      return true;
    }
    if (now.type === 'dir') clearDirFor(abs, entry.path);
    atomicWriteFile(abs, bytesOf(entry, blobs), { mode: entry.mode });
    return true;
  }
  switch (entry.type) {
    case 'symlink': {
      if (now.type === 'symlink' && now.target === entry.target) return false;
      if (now.type === 'dir') clearDirFor(abs, entry.path);
      // A link made under a temp name and renamed over: the path is never missing, never half made.
      const temp = path.join(path.dirname(abs), `${TEMP_PREFIX}${path.basename(abs)}.${randomBytes(6).toString('hex')}`);
      fs.symlinkSync(entry.target, temp);
      try {
        fs.renameSync(temp, abs);
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

function clearDirFor(abs: string, rel: string): void {
  if (!tryRmdir(abs)) {
    throw new EditwardenError({
      code: ErrorCode.IO,
      message: `Cannot restore ${rel}: a folder with files in it stands where the file was.`,
      hint: 'Move that folder away by hand, then restore again.',
      path: rel,
    });
  }
}

/** `.ew-tmp-<name>.<12 hex>`: the temp names atomicWriteFile uses; any such file for a recorded name is a killed write's leftover. */
function removeStaleTemps(dir: string, entries: ManifestEntry[]): void {
  let names: string[];
  try {
    names = fs.readdirSync(dir);
  } catch {
    return;
  }
  const bases = new Set(entries.map((e) => path.posix.basename(e.path)));
  for (const name of names) {
    if (!name.startsWith(TEMP_PREFIX)) continue;
    const m = /^(.*)\.[0-9a-f]{12}$/.exec(name.slice(TEMP_PREFIX.length));
    if (m && bases.has(m[1] as string)) fs.rmSync(path.join(dir, name), { force: true });
  }
}
