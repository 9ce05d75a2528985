/**
 * Lists what a workspace checkpoint covers: every file, symlink and folder
 * under the root that git would not ignore (nested .gitignore files and
 * .git/info/exclude honoured), never `.git` (at any depth: submodules,
 * nested clones) nor the root's `.editwarden/`, nor editwarden's own
 * in-flight temp files. Symlinks are listed, never followed. Read-only.
 * The files' lstat (cache keys, never deciding which bytes are read) may be
 * taken on the stat pool's threads (stat-pool.ts); the folders are listed
 * and the rules applied here, through descriptors only this thread holds.
 */
import fs from 'node:fs';
import ignore, { type Ignore } from 'ignore';
import { TEMP_PREFIX } from '../atomic.js';
import { sealedEntry } from '../../config/protected-set.js';
import { EXCLUDE_FILE } from '../../config/git-machinery.js';
import { Resolver, type DirHandle } from '../resolver.js';
import { readRegularAt } from './current.js';
import { nameScreen, type NameScreen } from './ignore-screen.js';
import { keepListings, listingsOf, recordable, stillListed, type Listing } from './listings.js';
import type { FsClock } from './stat-cache.js';
import { sharedStatPool, type StatPool } from './stat-pool.js';
import { NO_STAT } from './stat-batch.js';
import { StatRun } from './stat-run.js';

/** Where a walk or capture starts: a root path (made into a resolver) or the workspace's resolver. */
export type RootArg = string | Resolver;

export function asResolver(root: RootArg): Resolver {
  return typeof root === 'string' ? new Resolver(root) : root;
}

/** Reads a small file in an opened folder without following a symlink; null when missing or not a regular file. */
export function readSmallAt(dir: DirHandle, name: string): string | null {
  return readRegularAt(dir, name)?.bytes.toString('utf8') ?? null;
}

/** Reads a root-relative file exactly (no symlink followed on the way or at the end); null when it cannot be. */
export function readExact(resolver: Resolver, rel: string): string | null {
  let parent: DirHandle | null = null;
  let name = rel;
  try {
    ({ parent, name } = resolver.parentExact(rel));
  } catch {
    return null;
  }
  if (parent === null) return null;
  try {
    return readSmallAt(parent, name);
  } finally {
    parent.close();
  }
}

type WalkedEntry =
  /**
   * `stats[at …]`: the file's lstat taken by path string, as numbers
   * (stat-batch.ts `AT`, `keyAt`; the first NaN when that failed or found no
   * regular file), a cache key only (stat-cache.ts): it never decides which
   * bytes are read, since every read goes through a descriptor opened inside
   * the root. Shared with the other files of its batch: read, never kept.
   */
  | { path: string; type: 'file'; stats: Float64Array; at: number }
  /** `target`: read through the opened folder during the walk; null when it vanished since readdir. */
  | { path: string; type: 'symlink'; target: string | null };

type WalkedFile = Extract<WalkedEntry, { type: 'file' }>;

export interface WalkResult {
  entries: WalkedEntry[];
  dirs: string[];
}

/**
 * Supplies the text of the ignore file of a folder ("" for the root); null
 * when it has none. `onDisk` says whether the folder holds a .gitignore now
 * (the walk has just listed it), so no read is tried in folders without one.
 */
export type IgnoreSource = (dir: string, onDisk: boolean) => string | null;

/** The ignore files as they are on disk now. */
export function diskIgnoreSource(root: RootArg): IgnoreSource {
  const resolver = asResolver(root);
  return (dir, onDisk) => {
    if (!onDisk) return null;
    return readExact(resolver, dir === '' ? '.gitignore' : `${dir}/.gitignore`);
  };
}

interface Level {
  /** Folder the rules belong to, relative to the root ("" for the root). */
  base: string;
  /** One rule set per ignore source (null: that source has no ignore file here). */
  bySource: Array<Ignore | null>;
  /** Per source, the name pre-test of its rules (ignore-screen.ts); null: always test. */
  screens: Array<NameScreen | null>;
}

/** How a walk takes its per-file stats. */
export interface WalkOptions {
  /** Threads for the stats (stat-pool.ts); null: this thread only. Default: the process's pool, once it runs. */
  pool?: StatPool | null;
  /**
   * The file system's clock read before this walk (stat-cache.ts): given, the walk records the folders it lists for the
   * next walk to reuse (listings.ts) and replaces the root's table. Absent: recorded listings are only read.
   */
  clock?: FsClock | null;
  /** false: every folder is read, no listing reused or recorded (a cold walk, to check the others against). Default true. */
  reuseListings?: boolean;
  /**
   * Given: the walk lists the IGNORED files and symlinks instead (ignored-walk.ts), and its `dirs` are the ignored
   * folders it entered. Non-ignored folders are still entered (they may hold ignored files); a folder `skip` names is
   * never entered (a rebuildable one: node_modules/, target/ …).
   */
  ignoredOnly?: IgnoredOnly;
}

/** How a walk of the ignored files passes over the folders it must not enter. */
interface IgnoredOnly {
  /** Whether the folder at `rel` is one the walk must not enter (its files are not listed). */
  skip(rel: string): boolean;
  /** Called with each folder `skip` kept out. */
  skipped?(rel: string): void;
}

/**
 * Walks the root. `sources` are alternative ignore-file texts; a path is
 * skipped when ANY of them ignores it. Restore walks with both the rules of
 * the checkpoint and today's, so that a file ignored under either (a `.env`,
 * a build folder) is never taken for "created since" and deleted.
 *
 * This thread lists every folder and applies the rules; the files' lstat
 * (their cache keys) goes to the stat pool's threads in batches while the
 * listing goes on. A batch a thread holds too long is statted again here; a
 * thread that throws costs a second walk on this thread alone: never a
 * partial result.
 */
export function walkWorkspace(rootArg: RootArg, sources?: IgnoreSource[], exclude?: string | null, options: WalkOptions = {}): WalkResult {
  const resolver = asResolver(rootArg);
  const pool = options.pool === undefined ? sharedStatPool() : options.pool;
  const folders = folderListings(resolver, options);
  if (pool?.usable) {
    const threaded = walkWith(resolver, sources, exclude, pool.run(), folders, options.ignoredOnly);
    if (threaded !== null) return folders.done(threaded);
    // A thread threw (the pool is given up): the whole walk again, here.
  }
  const result = folders.done(walkWith(resolver, sources, exclude, new StatRun(null, Number.POSITIVE_INFINITY), folders, options.ignoredOnly) as WalkResult);
  // Only the process's own pool starts by itself, in a process that walks large trees more than once.
  if (options.pool === undefined) pool?.noteWalk(result.entries.length);
  return result;
}

/**
 * A folder's entries are sorted by key: a file's name, a folder's name with
 * "/" after it, a symlink's name with NUL after it. Names hold neither
 * character, so a symlink sorts as its name does, and a folder as its path
 * prefix does: the walk's output comes out in path order without a sort of
 * every path (one sort per folder, of strings, with no comparator).
 */
const DIR_MARK = '/';
const LINK_MARK = '\0';

/** An entry's sort key (see DIR_MARK) by its type, from a Dirent or an lstat; null for anything but a file, folder or symlink. */
function keyOf(name: string, type: Pick<fs.Dirent, 'isFile' | 'isDirectory' | 'isSymbolicLink'>): string | null {
  if (type.isFile()) return name;
  if (type.isDirectory()) return name + DIR_MARK;
  return type.isSymbolicLink() ? name + LINK_MARK : null;
}

/** A walk's use of the recorded listings (listings.ts): which it may reuse, and the table it records when it read a clock. */
interface FolderListings {
  /** The folder's entries (sorted keys) and whether it holds a .gitignore; read from disk unless its recorded listing holds. */
  list(dir: DirHandle): Entries | null;
  /** Keeps the recorded table (a walk that read a clock and finished); returns the result. */
  done(result: WalkResult): WalkResult;
}

function folderListings(resolver: Resolver, options: WalkOptions): FolderListings {
  const reuse = options.reuseListings !== false;
  const prior = reuse ? listingsOf(resolver.identity) : new Map<string, Listing>();
  const clock = reuse ? (options.clock ?? null) : null;
  const table = clock === null ? null : new Map<string, Listing>();
  return {
    list(dir) {
      let key: fs.Stats | null = null;
      if (reuse) {
        // The key BEFORE the listing: a change while it is read leaves a newer key than the one recorded with it.
        try {
          key = fs.fstatSync(dir.fd);
        } catch {
          key = null;
        }
        const known = prior.get(dir.rel);
        if (key !== null && known !== undefined && stillListed(known, key)) {
          table?.set(dir.rel, known);
          return known;
        }
      }
      const listed = readListing(dir);
      if (listed !== null && table !== null && key !== null && clock !== null && recordable(key, clock)) {
        table.set(dir.rel, { dev: key.dev, ino: key.ino, mtimeMs: key.mtimeMs, ctimeMs: key.ctimeMs, ...listed });
      }
      return listed;
    },
    done(result) {
      // A first walk the threads failed left its records here too: each was true when made, and the second walk's replace them.
      if (table !== null) keepListings(resolver.identity, table);
      return result;
    },
  };
}

/** A folder's entries: sort keys (see DIR_MARK), sorted; each one's path from the root; whether a .gitignore is among them. */
type Entries = Pick<Listing, 'keys' | 'paths' | 'gitignore'>;

/** The folder's entries, without .git, the root's state folder or editwarden's temp files; null when it cannot be read. */
function readListing(dir: DirHandle): Entries | null {
  let names: fs.Dirent[];
  try {
    names = fs.readdirSync(dir.self, { withFileTypes: true });
  } catch {
    return null;
  }
  let gitignore = false;
  const keys: string[] = [];
  for (const dirent of names) {
    const name = dirent.name;
    // The sealed members (every `.git`, the state folder) are no project content: never offered, never recorded.
    if (sealedEntry(dir.rel, name)) continue;
    if (name.startsWith(TEMP_PREFIX)) continue;
    if (name === '.gitignore') gitignore = true;
    // The type readdir reports (d_type) for the entry it listed in the opened folder: no lstat per folder or link.
    let key = keyOf(name, dirent);
    if (key === null && !(dirent.isFIFO() || dirent.isSocket() || dirent.isBlockDevice() || dirent.isCharacterDevice())) {
      // File systems that do not report types (DT_UNKNOWN) need an lstat, through the opened folder.
      try {
        key = keyOf(name, fs.lstatSync(dir.at(name)));
      } catch {
        // Vanished while we walked.
      }
    }
    // null: a FIFO, socket or device (not project content), or gone.
    if (key !== null) keys.push(key);
  }
  keys.sort();
  // The paths once per listing: a reused listing hands the same strings to every later walk (no 50k concatenations each).
  const relDir = dir.rel === '' ? '' : `${dir.rel}/`;
  const paths = keys.map((key) => relDir + nameOf(key));
  return { keys, paths, gitignore };
}

/** The entry's name in its sort key (see DIR_MARK). */
function nameOf(key: string): string {
  const mark = key.charCodeAt(key.length - 1);
  return mark === 47 || mark === 0 ? key.slice(0, -1) : key;
}

/** One walk; null when the stat threads failed (nothing of it is used then). */
function walkWith(resolver: Resolver, sources: IgnoreSource[] | undefined, exclude: string | null | undefined, stats: StatRun, folders: FolderListings, only?: IgnoredOnly): WalkResult | null {
  const listed = listWith(resolver, sources, exclude, stats, folders, only);
  return stats.finish() ? listed : null;
}

/** A walk whose files' stats are made final as they are read, batch by batch, while the threads stat the rest. */
export interface PendingWalk extends WalkResult {
  /** Makes the numbers of the walk's `n`th file (0-based, in walk order) final; false: a stat thread failed. */
  ready(n: number): boolean;
  /** Every file made final; false: a stat thread failed. After a false, nothing of the walk may be used: walk again. */
  end(): boolean;
}

/**
 * A walk for a reader that goes through the files in order (the workspace capture): the listing is done here, and each
 * file's stat is made final when the reader asks for it, so the reader's own work on the first files runs while the
 * threads stat the later ones. Without usable threads it is walkWorkspace's result, final at once.
 */
export function startWalk(rootArg: RootArg, sources?: IgnoreSource[], exclude?: string | null, options: WalkOptions = {}): PendingWalk {
  const resolver = asResolver(rootArg);
  const pool = options.pool === undefined ? sharedStatPool() : options.pool;
  if (!pool?.usable) {
    const walked = walkWorkspace(resolver, sources, exclude, options);
    return { ...walked, ready: () => true, end: () => true };
  }
  const folders = folderListings(resolver, options);
  const run = pool.run();
  const listed = folders.done(listWith(resolver, sources, exclude, run, folders, options.ignoredOnly));
  run.seal();
  const perBatch = run.filesPerBatch;
  return { ...listed, ready: (n) => run.settle(Math.floor(n / perBatch)), end: () => run.end() };
}

/** The listing of one walk: every entry, each file queued on `stats` (its numbers are final only once the run is). */
function listWith(resolver: Resolver, sources: IgnoreSource[] | undefined, exclude: string | null | undefined, stats: StatRun, folders: FolderListings, ignoredOnly?: IgnoredOnly): WalkResult {
  const ignoreSources = sources ?? [diskIgnoreSource(resolver)];
  const entries: WalkedEntry[] = [];
  const dirs: string[] = [];
  // `exclude` given: .git/info/exclude as it was (a command may have rewritten it since); else as it is now.
  const excludeText = exclude !== undefined ? exclude : readExact(resolver, EXCLUDE_FILE);
  // .git/info/exclude has the lowest precedence of all: below every .gitignore.
  const excludeRules = excludeText === null ? null : ignore().add(excludeText);
  const excludeRule: Rules | null = excludeRules === null ? null : { rules: excludeRules, screen: nameScreen(excludeText as string) };
  // Each folder is opened relative to its opened parent, never by a path string: a folder swapped for a symlink is not entered.
  const only = ignoredOnly ?? null;
  // `inIgnored`: the folder itself is ignored (a walk of the ignored files), so everything in it is, whatever rules it holds.
  const visit = (dir: DirHandle, dirRel: string, stack: Level[], inIgnored = false): void => {
    const listed = folders.list(dir);
    if (listed === null) return;
    const { keys, paths, gitignore: onDisk } = listed;
    const texts = inIgnored ? [] : ignoreSources.map((source) => source(dirRel, onDisk));
    const levels = texts.some((t) => t !== null) ? [...stack, { base: dirRel, bySource: texts.map((t) => (t === null ? null : ignore().add(t))), screens: texts.map((t) => (t === null ? null : nameScreen(t))) }] : stack;
    const check = !inIgnored && (levels.length > 0 || excludeRule !== null);
    // Path strings serve only the files' cache-key lstat (see WalkedEntry); everything else goes through `dir`.
    const displayDir = dir.display.endsWith('/') ? dir.display : `${dir.display}/`;
    for (let i = 0; i < keys.length; i++) {
      const key = keys[i] as string;
      const mark = key.charCodeAt(key.length - 1);
      const isDir = mark === 47; // DIR_MARK
      const isLink = mark === 0; // LINK_MARK
      const name = isDir || isLink ? key.slice(0, -1) : key;
      const rel = paths[i] as string;
      const ignored = inIgnored || (check && isIgnored(levels, ignoreSources.length, excludeRule, rel, isDir, name));
      if (only === null ? ignored : !ignored && !isDir) continue;
      if (isDir) {
        if (only?.skip(rel)) {
          only.skipped?.(rel);
          continue;
        }
        const child = dir.openChild(name);
        if (child === null) continue; // Replaced (by a symlink?) since readdir: not entered.
        if (only === null || ignored) dirs.push(rel);
        try {
          visit(child, rel, levels, ignored);
        } finally {
          child.close();
        }
      } else if (!isLink) {
        const entry: WalkedFile = { path: rel, type: 'file', stats: NO_STAT, at: 0 };
        entries.push(entry);
        stats.add(displayDir, name, entry);
      } else {
        let target: string | null = null;
        try {
          target = fs.readlinkSync(dir.at(name));
        } catch {
          target = null;
        }
        entries.push({ path: rel, type: 'symlink', target });
      }
    }
  };
  const rootDir = resolver.openRoot();
  try {
    visit(rootDir, '', []);
  } finally {
    rootDir.close();
  }
  // Entries are in path order already (see DIR_MARK); folders are not (a folder "a" is listed after "a-b").
  dirs.sort();
  return { entries, dirs };
}

interface Rules {
  rules: Ignore;
  screen: NameScreen | null;
}

/**
 * Git's precedence: the deepest ignore file with a rule matching the path
 * decides (a deeper "!keep" beats a shallower "*"). Ignored folders are never
 * entered, so a file inside one is ignored too, as in git. A file whose name
 * no rule of a level can match (its screen) gets no verdict from that level.
 */
function isIgnored(levels: Level[], sourceCount: number, exclude: Rules | null, rel: string, isDir: boolean, name: string): boolean {
  for (let alt = 0; alt < sourceCount; alt++) {
    let decided: boolean | null = null;
    for (let i = levels.length - 1; i >= 0 && decided === null; i--) {
      const level = levels[i] as Level;
      const rules = level.bySource[alt];
      if (!rules) continue;
      const screen = level.screens[alt];
      if (!isDir && screen && !screen(name)) continue;
      decided = verdict(rules, level.base === '' ? rel : rel.slice(level.base.length + 1), isDir);
    }
    if (decided === null) decided = excluded(exclude, rel, isDir, name);
    if (decided === true) return true;
  }
  if (sourceCount === 0) return excluded(exclude, rel, isDir, name) === true;
  return false;
}

function excluded(exclude: Rules | null, rel: string, isDir: boolean, name: string): boolean | null {
  return exclude === null || (!isDir && exclude.screen !== null && !exclude.screen(name)) ? null : verdict(exclude.rules, rel, isDir);
}

function verdict(rules: Ignore, local: string, isDir: boolean): boolean | null {
  const result = rules.test(isDir ? `${local}/` : local);
  if (result.ignored) return true;
  if (result.unignored) return false;
  return null;
}

/** The text of .git/info/exclude now; null when there is none. */
export function readExcludeFile(rootArg: RootArg): string | null {
  return readExact(asResolver(rootArg), EXCLUDE_FILE);
}
