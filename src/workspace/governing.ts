/**
 * The files that govern the agent and git rather than hold project content:
 * the members of the project's protected set (workspace/policy.ts) — the
 * machinery of the root's `.git/` and of every nested repository's (config,
 * hooks/, info/, a submodule's gitdir-link file, every name git reads as
 * configuration: config/git-machinery.ts — never git's data, the objects,
 * refs, index and logs a command's commit writes), editwarden's config file(s), every
 * client's settings — as the Policy lists them. Nested repositories are
 * looked for again after the command: a `.git` the command created (a
 * `git init vendor/x` whose hooks would run at the person's next commit
 * there) is removed like any other member it created. A command's changes
 * to them would be invisible to the limits (workspace checkpoints never
 * record `.git/`) or would outlive it (a client reads its settings at the
 * next start). Here they are snapshotted before a command, compared after
 * it, and each change is put back exactly — a member that did not exist is
 * removed again — whatever the run's on_violation says.
 *
 * It never follows a symlink (a folder swapped for a link is removed and
 * made again, never written through) and never writes outside the root: a
 * config file outside the root is watched but not restored (reported).
 */
import fs from 'node:fs';
import path from 'node:path';
import { gitDataOnly, gitdirDataOnly, gitPathKind, TODO_FILES, todoRunsCommands } from '../config/git-machinery.js';
import { atomicWriteFile } from './atomic.js';
import { readSmallFile } from '../small-file.js';

type Entry = { type: 'file'; bytes: Buffer; mode: number; size: number; mtimeMs: number; ctimeMs: number; ino: number } | { type: 'symlink'; target: string } | { type: 'dir'; mode: number } | { type: 'other' };

export interface GoverningSnapshot {
  root: string;
  /** Watched paths relative to the root ('/' separators), or absolute for a config file outside the root. */
  entries: Map<string, Entry>;
  /** Top-level paths watched (`.git`, config files, nested repositories' `.git`). */
  watched: string[];
  /** Finds the nested repositories' `.git` as they stand (the Policy's search), asked again after the command for new ones. */
  nestedGitDirs: () => readonly string[];
  /** What that search found when the snapshot was taken (the command's sandbox binds them read-only: Policy.lendNestedGitDirs). */
  nestedAtStart: readonly string[];
}

export interface GoverningChange {
  path: string;
  change: 'added' | 'deleted' | 'modified';
  /** Put back as it was (false: outside the root, or the restore failed — see `error`). */
  reverted: boolean;
  error?: string;
}

/**
 * What to watch: the Policy's governed paths (root-relative; `.git` only when commands may not write it), config files
 * outside the root (absolute) and, from `nestedGitDirs` (the Policy's; none when commands may write `.git`), every nested repository's `.git`.
 */
export function snapshotGoverning(root: string, paths: readonly string[], nestedGitDirs: () => readonly string[] = () => []): GoverningSnapshot {
  const nestedAtStart = nestedGitDirs();
  const watched = [...new Set([...paths.map((f) => keyOf(root, f)), ...nestedAtStart])];
  const entries = new Map<string, Entry>();
  for (const top of watched) scan(root, top, entries);
  return { root, entries, watched, nestedGitDirs, nestedAtStart };
}

/** The watched paths that differ from the snapshot now; a nested repository's `.git` that appeared since counts as added. */
export function governingChanges(snapshot: GoverningSnapshot): Array<Omit<GoverningChange, 'reverted'>> {
  const now = new Map<string, Entry>();
  for (const top of new Set([...snapshot.watched, ...snapshot.nestedGitDirs()])) scan(snapshot.root, top, now, snapshot.entries);
  const out: Array<Omit<GoverningChange, 'reverted'>> = [];
  for (const [p, then] of snapshot.entries) {
    const current = now.get(p);
    if (!current) out.push({ path: p, change: 'deleted' });
    else if (!sameEntry(then, current)) out.push({ path: p, change: 'modified' });
  }
  for (const p of now.keys()) if (!snapshot.entries.has(p)) out.push({ path: p, change: 'added' });
  return out.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
}

/** Puts every changed path back as the snapshot recorded it. Added paths are removed (deepest first), then the rest restored (parents first). */
export function revertGoverning(snapshot: GoverningSnapshot, changes: ReadonlyArray<Omit<GoverningChange, 'reverted'>>): GoverningChange[] {
  const results = new Map<string, GoverningChange>();
  const added = changes
    .filter((c) => c.change === 'added')
    .map((c) => c.path)
    .sort()
    .reverse();
  for (const p of added)
    results.set(
      p,
      attempt(snapshot, { path: p, change: 'added' }, () => fs.rmSync(absoluteOf(snapshot.root, p), { recursive: true, force: true })),
    );
  const rest = changes.filter((c) => c.change !== 'added').sort((a, b) => (a.path < b.path ? -1 : 1));
  for (const c of rest) {
    const then = snapshot.entries.get(c.path) as Entry;
    results.set(
      c.path,
      attempt(snapshot, c, () => restoreEntry(snapshot.root, c.path, then)),
    );
  }
  return changes.map((c) => results.get(c.path) as GoverningChange);
}

function attempt(snapshot: GoverningSnapshot, change: Omit<GoverningChange, 'reverted'>, work: () => void): GoverningChange {
  // Outside the root editwarden writes nothing: the change is reported, not undone.
  if (path.isAbsolute(change.path)) return { ...change, reverted: false, error: 'outside the workspace root: not restored' };
  try {
    ensureRealParents(snapshot.root, change.path);
    work();
    return { ...change, reverted: true };
  } catch (error) {
    return { ...change, reverted: false, error: error instanceof Error ? error.message : String(error) };
  }
}

function restoreEntry(root: string, rel: string, then: Entry): void {
  const abs = absoluteOf(root, rel);
  const now = lstat(abs);
  switch (then.type) {
    case 'file':
      if (now?.isDirectory()) fs.rmSync(abs, { recursive: true, force: true });
      // Written by rename over whatever stands there: a symlink planted at the path is replaced, never followed.
      atomicWriteFile(abs, then.bytes, { mode: then.mode });
      fs.chmodSync(abs, then.mode);
      return;
    case 'symlink':
      if (now) fs.rmSync(abs, { recursive: true, force: true });
      fs.symlinkSync(then.target, abs);
      return;
    case 'dir':
      if (now && !now.isDirectory()) fs.rmSync(abs, { force: true });
      if (!now?.isDirectory()) fs.mkdirSync(abs);
      fs.chmodSync(abs, then.mode);
      return;
    case 'other':
      return; // A FIFO or socket is never recreated.
    default: {
      const never: never = then;
      throw new Error(`unknown entry ${JSON.stringify(never)}`);
    }
  }
}

// A parent folder swapped for a symlink to the outside must not carry the restore out of the root.
function ensureRealParents(root: string, rel: string): void {
  const parts = rel.split('/');
  let current = root;
  for (const part of parts.slice(0, -1)) {
    current = path.join(current, part);
    const st = lstat(current);
    if (st?.isDirectory()) continue;
    if (st) fs.rmSync(current, { force: true });
    fs.mkdirSync(current);
  }
}

function scan(root: string, rel: string, into: Map<string, Entry>, previous?: Map<string, Entry>, gitdir: string | null = null, whole = false): void {
  const abs = absoluteOf(root, rel);
  const st = lstat(abs);
  if (!st) return;
  if (st.isSymbolicLink()) {
    into.set(rel, { type: 'symlink', target: readlink(abs) });
    return;
  }
  if (st.isFile()) {
    const before = previous?.get(rel);
    // Same size, mtime, ctime and inode: unchanged without reading (ctime cannot be set back by a process).
    if (before?.type === 'file' && before.size === st.size && before.mtimeMs === st.mtimeMs && before.ctimeMs === st.ctimeMs && before.ino === st.ino && before.mode === (st.mode & 0o7777)) {
      into.set(rel, before);
      return;
    }
    let bytes: Buffer;
    try {
      bytes = fs.readFileSync(abs);
    } catch {
      return;
    }
    into.set(rel, { type: 'file', bytes, mode: st.mode & 0o7777, size: st.size, mtimeMs: st.mtimeMs, ctimeMs: st.ctimeMs, ino: st.ino });
    return;
  }
  if (!st.isDirectory()) {
    into.set(rel, { type: 'other' });
    return;
  }
  into.set(rel, { type: 'dir', mode: st.mode & 0o7777 });
  let names: string[];
  try {
    names = fs.readdirSync(abs);
  } catch {
    return;
  }
  // A folder of a repository's metadata that holds HEAD is a gitdir (the root's, a nested one's, a submodule's in
  // `.git/modules/…`, a worktree's): its entries are judged from it, as the sandbox's binds judge them (git-binds.ts).
  const here = names.includes('HEAD') && gitPathKind(rel) !== null ? rel : gitdir;
  for (const name of names) {
    const child = `${rel}/${name}`;
    // Its data is the command's to write (a commit, a branch, a stash: the step records the refs, checkpoints/git-refs.ts); its machinery is watched.
    if (!whole && (here !== null ? gitdirDataOnly(child.slice(here.length + 1)) : gitDataOnly(child))) {
      // A paused rebase whose todo has `exec` lines is run by the person's `git rebase --continue`: its whole folder is machinery while it holds one.
      const todo = TODO_FILES[name];
      if (todo !== undefined && runsCommands(root, `${child}/${todo}`)) scan(root, child, into, previous, here, true);
      continue;
    }
    scan(root, child, into, previous, here, whole);
  }
}

function sameEntry(a: Entry, b: Entry): boolean {
  if (a.type !== b.type) return false;
  switch (a.type) {
    case 'file':
      return b.type === 'file' && a.mode === b.mode && a.bytes.equals(b.bytes);
    case 'symlink':
      return b.type === 'symlink' && a.target === b.target;
    case 'dir':
      return b.type === 'dir' && a.mode === b.mode;
    case 'other':
      return true;
    default: {
      const never: never = a;
      return never;
    }
  }
}

/** A config file inside the root is keyed by its relative path; one outside by its absolute path. */
function keyOf(root: string, file: string): string {
  const rel = path.relative(root, path.resolve(root, file));
  return rel === '' || rel.startsWith('..') || path.isAbsolute(rel) ? path.resolve(root, file) : rel.split(path.sep).join('/');
}

function absoluteOf(root: string, key: string): string {
  return path.isAbsolute(key) ? key : path.join(root, ...key.split('/'));
}

function lstat(abs: string): fs.Stats | null {
  try {
    return fs.lstatSync(abs);
  } catch {
    return null;
  }
}

function readlink(abs: string): string {
  try {
    return fs.readlinkSync(abs);
  } catch {
    return '';
  }
}

/**
 * Whether the todo list at `rel` holds a line that runs a command. Read as a small file someone else put there (no
 * link followed, no FIFO waited on, at most 16 MiB: git's todo of a long rebase is a line per commit); one that
 * cannot be read so is judged by what git would do with it: run it, so watched.
 */
function runsCommands(root: string, rel: string): boolean {
  const abs = absoluteOf(root, rel);
  if (lstat(abs) === null) return false;
  try {
    return todoRunsCommands(readSmallFile(abs, { maxBytes: 16 * 1024 * 1024, follow: false }).toString('utf8'));
  } catch {
    return true;
  }
}
