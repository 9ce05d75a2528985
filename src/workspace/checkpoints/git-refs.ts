/**
 * The root repository's ref state as part of an undo step: an agent's
 * commit, branch or stash belongs to the command that made it, so `undo`
 * puts back HEAD, the branches and tags, the index and the stash list, and
 * `redo` makes them again. The objects stay (content-addressed, harmless).
 *
 * The ref state is a closed set of files of the root's own `.git` folder
 * (config/git-machinery.ts `isRefStatePath`): HEAD, every loose ref under
 * `refs/`, `packed-refs`, the index and `logs/refs/stash` (the stash list IS
 * that reflog). Before a command they are read into memory; after it, if
 * any changed, the step holds ALL of them as they were (a `git gc` that
 * packs loose refs between the step and its undo would otherwise leave a
 * branch the undo removed alive in `packed-refs`) and the refs BY VALUE as
 * the step left them: "changed since" compares values, not files, so a
 * repack is no change and a branch the person moved is (E_CHANGED_SINCE).
 *
 * Only the one restore primitive (service.ts, through restore.ts) applies a
 * step's refs; this module writes nothing but through `applyRefEntries`,
 * every folder opened without following a link, every file by atomic
 * rename, never a path outside the ref state (the machinery stays out of
 * reach even of a forged manifest). A `.git` that is a file (a worktree's, a
 * submodule's checkout) has its gitdir elsewhere: no refs are recorded.
 */
import fs from 'node:fs';
import { isRefStatePath } from '../../config/git-machinery.js';
import { EditwardenError, ErrorCode } from '../../errors.js';
import { atomicWriteAt } from '../atomic.js';
import type { DirHandle, Resolver } from '../resolver.js';
import { sha256 } from '../workspace.js';
import type { BlobStore } from './blob-store.js';
import { currentStateAt, readRegularAt } from './current.js';
import { GIT_DIR as GITDIR } from '../../config/protected-set.js';

/** Loose ref files read at most (a repository with more is not recorded: its step holds the files only). */
const REF_FILES_LIMIT = 20_000;
/** Smaller files are kept in the manifest itself, as a files checkpoint keeps them. */
const INLINE_MAX = 16 * 1024;
const FIXED = ['HEAD', 'packed-refs', 'index', 'logs/refs/stash'] as const;

export type GitRefEntry = { path: string; type: 'file'; blob: string; size: number; mode: number; inline?: string } | { path: string; type: 'absent' };

/** The refs by value: what "changed since the step" compares (a repack changes files, not values). */
export interface RefValues {
  head: string;
  refs: Record<string, string>;
  /** sha256 of the stash's reflog (the stash list), '' when there is none. */
  stash: string;
  /** sha256 of the index's entries (mode, object, stage, path; not the stat data a `git status` refreshes), '' when none. */
  index: string;
}

/** A step's ref part: the ref files before it (paths inside the gitdir), the ones it changed (for the listing) and the values it left. */
export interface GitRefsPart {
  entries: GitRefEntry[];
  changed?: string[];
  after?: RefValues;
}

/** The ref-state files as they are: path inside the gitdir → bytes and mode. */
export type RefFiles = Map<string, { bytes: Buffer; mode: number }>;

/** The root's ref files now; null when the root has no `.git` folder of its own or too many refs to record. */
export function readRefFiles(resolver: Resolver): RefFiles | null {
  let gitdir: DirHandle | null;
  try {
    gitdir = resolver.openDirExact(GITDIR);
  } catch {
    return null; // a link or a file: not the root's own gitdir
  }
  if (gitdir === null) return null;
  gitdir.close();
  const out: RefFiles = new Map();
  for (const p of FIXED) readInto(resolver, p, out);
  const pending = ['refs'];
  let count = 0;
  while (pending.length > 0) {
    const rel = pending.pop() as string;
    let dir: DirHandle | null;
    try {
      dir = resolver.openDirExact(`${GITDIR}/${rel}`);
    } catch {
      continue; // a link where a folder was: git does not follow it either
    }
    if (dir === null) continue;
    try {
      for (const e of fs.readdirSync(dir.self, { withFileTypes: true })) {
        const child = `${rel}/${e.name}`;
        if (e.isDirectory()) pending.push(child);
        else if (e.isFile() && isRefStatePath(child)) {
          if (++count > REF_FILES_LIMIT) return null;
          const read = readRegularAt(dir, e.name);
          if (read) out.set(child, { bytes: read.bytes, mode: read.stat.mode & 0o7777 });
        }
      }
    } finally {
      dir.close();
    }
  }
  return out;
}

function readInto(resolver: Resolver, p: string, out: RefFiles): void {
  const slash = p.lastIndexOf('/');
  let dir: DirHandle | null;
  try {
    dir = resolver.openDirExact(slash < 0 ? GITDIR : `${GITDIR}/${p.slice(0, slash)}`);
  } catch {
    return;
  }
  if (dir === null) return;
  try {
    const read = readRegularAt(dir, p.slice(slash + 1));
    if (read) out.set(p, { bytes: read.bytes, mode: read.stat.mode & 0o7777 });
  } finally {
    dir.close();
  }
}

/** The paths whose bytes (or presence) differ between two readings, sorted. */
export function changedRefFiles(before: RefFiles, after: RefFiles): string[] {
  const out = new Set<string>();
  for (const [p, b] of before) {
    const a = after.get(p);
    if (a === undefined || !a.bytes.equals(b.bytes) || a.mode !== b.mode) out.add(p);
  }
  for (const p of after.keys()) if (!before.has(p)) out.add(p);
  return [...out].sort();
}

/** The step's entries: every file of `before` as it was, and `absent` for each path only `after` has. Under the root lock (blobs are stored). */
export function refEntries(before: RefFiles, after: RefFiles | null, blobs: BlobStore): GitRefEntry[] {
  const entries: GitRefEntry[] = [];
  for (const [p, f] of before) {
    if (f.bytes.length <= INLINE_MAX) entries.push({ path: p, type: 'file', blob: sha256(f.bytes), size: f.bytes.length, mode: f.mode, inline: f.bytes.toString('base64') });
    else entries.push({ path: p, type: 'file', blob: blobs.put(f.bytes, 'each'), size: f.bytes.length, mode: f.mode });
  }
  // Absent: each path only `after` has, and the fixed files it lacks (a `packed-refs` a later `git gc` writes must go again).
  for (const p of new Set([...FIXED, ...(after?.keys() ?? [])])) if (!before.has(p)) entries.push({ path: p, type: 'absent' });
  return entries.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
}

/** The refs by value (packed-refs, then the loose refs over it; HEAD's text; the stash list's and the index entries' hashes). */
export function refValues(files: RefFiles): RefValues {
  const refs: Record<string, string> = {};
  for (const line of (files.get('packed-refs')?.bytes.toString('utf8') ?? '').split('\n')) {
    const m = /^([0-9a-f]{40,64}) (refs\/\S+)$/.exec(line);
    if (m) refs[m[2] as string] = m[1] as string;
  }
  for (const [p, f] of files) if (p.startsWith('refs/')) refs[p] = f.bytes.toString('utf8').trim();
  const stash = files.get('logs/refs/stash');
  const index = files.get('index');
  return { head: files.get('HEAD')?.bytes.toString('utf8').trim() ?? '', refs, stash: stash ? sha256(stash.bytes) : '', index: index ? indexKey(index.bytes) : '' };
}

/** What differs between the values a step left and the values now, as `.git/…` names (empty: nothing the person moved). */
export function refDifferences(then: RefValues, now: RefValues): string[] {
  const out: string[] = [];
  if (then.head !== now.head) out.push(`${GITDIR}/HEAD`);
  for (const name of new Set([...Object.keys(then.refs), ...Object.keys(now.refs)])) if (then.refs[name] !== now.refs[name]) out.push(`${GITDIR}/${name}`);
  if (then.stash !== now.stash) out.push(`${GITDIR}/logs/refs/stash`);
  if (then.index !== now.index) out.push(`${GITDIR}/index`);
  return out.sort();
}

/**
 * The index's entries without their stat data (git's index format, versions 2 to 4: a `git status` rewrites the
 * stat fields and the extensions, never an entry's mode, object or path). A file it cannot read is keyed by its bytes.
 */
function indexKey(bytes: Buffer): string {
  try {
    if (bytes.toString('latin1', 0, 4) !== 'DIRC') throw new Error('not an index');
    const version = bytes.readUInt32BE(4);
    const count = bytes.readUInt32BE(8);
    if (version < 2 || version > 4) throw new Error('unknown version');
    // The object id's length: the checksum at the end is one (sha1: 20, sha256: 32); entries use the same.
    const oid = oidLength(bytes, count, version);
    const parts: string[] = [];
    let at = 12;
    let previous = '';
    for (let i = 0; i < count; i++) {
      const start = at;
      const mode = bytes.readUInt32BE(at + 24);
      const id = bytes.toString('hex', at + 40, at + 40 + oid);
      const flags = bytes.readUInt16BE(at + 40 + oid);
      at += 40 + oid + 2 + (version >= 3 && flags & 0x4000 ? 2 : 0);
      let name: string;
      if (version === 4) {
        let strip = 0;
        let byte: number;
        do {
          byte = bytes[at++] as number;
          strip = (strip << 7) | (byte & 0x7f);
          if (byte & 0x80) strip++;
        } while (byte & 0x80);
        const end = bytes.indexOf(0, at);
        name = previous.slice(0, previous.length - strip) + bytes.toString('utf8', at, end);
        at = end + 1;
      } else {
        const end = bytes.indexOf(0, at);
        name = bytes.toString('utf8', at, end);
        at = start + Math.ceil((end - start + 1) / 8) * 8;
      }
      if (at > bytes.length) throw new Error('truncated');
      previous = name;
      parts.push(`${mode.toString(8)} ${id} ${(flags >> 12) & 3}\t${name}`);
    }
    return sha256(Buffer.from(parts.join('\n')));
  } catch {
    return sha256(bytes);
  }
}

/** sha256 repositories write 32-byte object ids: told by where the first entry's path would start. */
function oidLength(bytes: Buffer, count: number, version: number): number {
  if (count === 0 || version === 4) return 20;
  // With a 20-byte id the flags' name length (low 12 bits) matches the NUL-terminated name after it.
  const fits = (oid: number): boolean => {
    const nameLen = bytes.readUInt16BE(12 + 40 + oid) & 0xfff;
    const at = 12 + 40 + oid + 2;
    return nameLen < 0xfff && bytes[at + nameLen] === 0;
  };
  return fits(20) ? 20 : fits(32) ? 32 : 20;
}

/**
 * Puts the ref files back as `entries` recorded them (a file by atomic rename, `absent` removed, a ref folder left
 * empty removed), each folder opened without following a link. Returns the `.git/…` paths it wrote and removed.
 * Refuses a path outside the ref state: a manifest can never make a restore write git's machinery.
 */
export function applyRefEntries(resolver: Resolver, entries: readonly GitRefEntry[], blobs: BlobStore): { written: string[]; removed: string[] } {
  for (const e of entries) if (!isRefStatePath(e.path)) throw notRefState(e.path);
  const done: string[] = [];
  const removed: string[] = [];
  for (const e of entries) {
    const slash = e.path.lastIndexOf('/');
    const dirRel = slash < 0 ? GITDIR : `${GITDIR}/${e.path.slice(0, slash)}`;
    const name = e.path.slice(slash + 1);
    const parent = resolver.openDirExact(dirRel, { create: e.type === 'file' });
    if (parent === null) continue; // absent, and its folder too: nothing to remove
    try {
      const now = currentStateAt(parent, name);
      if (e.type === 'absent') {
        if (now.type === 'file' || now.type === 'symlink') {
          fs.unlinkSync(parent.at(name));
          removed.push(`${GITDIR}/${e.path}`);
        }
        continue;
      }
      const bytes = e.inline !== undefined ? Buffer.from(e.inline, 'base64') : blobs.get(e.blob);
      const same = now.type === 'file' && readRegularAt(parent, name)?.bytes.equals(bytes) === true && (now.stat.mode & 0o7777) === e.mode;
      if (same) continue;
      atomicWriteAt(parent, name, bytes, { mode: e.mode });
      done.push(`${GITDIR}/${e.path}`);
    } finally {
      parent.close();
    }
  }
  // Folders of refs the restore removed (refs/heads/feature/), deepest first, while empty; refs/ and its kinds stay.
  const folders = new Set(entries.filter((e) => e.type === 'absent' && e.path.split('/').length > 3).map((e) => e.path.slice(0, e.path.lastIndexOf('/'))));
  for (const f of [...folders].sort().reverse()) {
    const parts = f.split('/');
    for (let n = parts.length; n > 2; n--) {
      const dir = resolver.openDirExact(`${GITDIR}/${parts.slice(0, n - 1).join('/')}`);
      if (dir === null) break;
      try {
        fs.rmdirSync(dir.at(parts[n - 1] as string));
      } catch {
        break; // not empty, or gone
      } finally {
        dir.close();
      }
    }
  }
  return { written: done, removed };
}

/** The `.git/…` paths of a step's ref part that would change if it were restored now (nothing written). */
export function refEntriesDiffer(resolver: Resolver, entries: readonly GitRefEntry[]): string[] {
  const now = readRefFiles(resolver) ?? new Map();
  const out: string[] = [];
  for (const e of entries) {
    const f = now.get(e.path);
    if (e.type === 'absent' ? f !== undefined : f === undefined || f.mode !== e.mode || sha256(f.bytes) !== e.blob) out.push(`${GITDIR}/${e.path}`);
  }
  return out;
}

function notRefState(p: string): EditwardenError {
  return new EditwardenError({
    code: ErrorCode.OUTSIDE_ROOT,
    message: `A checkpoint names .git/${p} among the refs it restores, which is not ref state (HEAD, refs/, packed-refs, index, logs/refs/stash).`,
    hint: 'The checkpoint manifest was changed by hand; drop it and use another checkpoint.',
    path: `${GITDIR}/${p}`,
  });
}
