/**
 * Lists what a workspace checkpoint covers: every file, symlink and folder
 * under the root that git would not ignore (nested .gitignore files and
 * .git/info/exclude honoured), never `.git` (at any depth: submodules,
 * nested clones) nor the root's `.editwarden/`, nor editwarden's own
 * in-flight temp files. Symlinks are listed, never followed. Read-only.
 */
import fs from 'node:fs';
import ignore, { type Ignore } from 'ignore';
import { TEMP_PREFIX } from '../atomic.js';
import { STATE_DIR } from '../paths.js';
import { Resolver, type DirHandle } from '../resolver.js';
import { readRegularAt } from './current.js';

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

export interface WalkedEntry {
  path: string;
  type: 'file' | 'symlink';
  stat: fs.Stats;
}

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
}

/**
 * Walks the root. `sources` are alternative ignore-file texts; a path is
 * skipped when ANY of them ignores it. Restore walks with both the rules of
 * the checkpoint and today's, so that a file ignored under either (a `.env`,
 * a build folder) is never taken for "created since" and deleted.
 */
export function walkWorkspace(rootArg: RootArg, sources?: IgnoreSource[], exclude?: string | null): WalkResult {
  const resolver = asResolver(rootArg);
  const ignoreSources = sources ?? [diskIgnoreSource(resolver)];
  const entries: WalkedEntry[] = [];
  const dirs: string[] = [];
  // `exclude` given: .git/info/exclude as it was (a command may have rewritten it since); else as it is now.
  const excludeText = exclude !== undefined ? exclude : readExact(resolver, '.git/info/exclude');
  // .git/info/exclude has the lowest precedence of all: below every .gitignore.
  const excludeRules = excludeText === null ? null : ignore().add(excludeText);
  // Each folder is opened relative to its opened parent, never by a path string: a folder swapped for a symlink is not entered.
  const visit = (dir: DirHandle, dirRel: string, stack: Level[]): void => {
    let names: fs.Dirent[];
    try {
      names = fs.readdirSync(dir.self, { withFileTypes: true });
    } catch {
      return;
    }
    const onDisk = names.some((d) => d.name === '.gitignore');
    const bySource = ignoreSources.map((source) => {
      const text = source(dirRel, onDisk);
      return text === null ? null : ignore().add(text);
    });
    const levels = bySource.some((r) => r !== null) ? [...stack, { base: dirRel, bySource }] : stack;
    names.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    for (const dirent of names) {
      const name = dirent.name;
      if (name === '.git') continue;
      if (dirRel === '' && name === STATE_DIR) continue;
      if (name.startsWith(TEMP_PREFIX)) continue;
      const rel = dirRel === '' ? name : `${dirRel}/${name}`;
      let stat: fs.Stats;
      try {
        stat = fs.lstatSync(dir.at(name));
      } catch {
        continue; // Vanished while we walked.
      }
      const isDir = stat.isDirectory();
      if (isIgnored(levels, ignoreSources.length, excludeRules, rel, isDir)) continue;
      if (isDir) {
        const child = dir.openChild(name);
        if (child === null) continue; // Replaced (by a symlink?) since the lstat: not entered.
        dirs.push(rel);
        try {
          visit(child, rel, levels);
        } finally {
          child.close();
        }
      } else if (stat.isFile()) {
        entries.push({ path: rel, type: 'file', stat });
      } else if (stat.isSymbolicLink()) {
        entries.push({ path: rel, type: 'symlink', stat });
      }
      // Sockets, FIFOs and devices are not project content.
    }
  };
  const rootDir = resolver.openRoot();
  try {
    visit(rootDir, '', []);
  } finally {
    rootDir.close();
  }
  entries.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  dirs.sort();
  return { entries, dirs };
}

/**
 * Git's precedence: the deepest ignore file with a rule matching the path
 * decides (a deeper "!keep" beats a shallower "*"). Ignored folders are never
 * entered, so a file inside one is ignored too, as in git.
 */
function isIgnored(levels: Level[], sourceCount: number, exclude: Ignore | null, rel: string, isDir: boolean): boolean {
  for (let alt = 0; alt < sourceCount; alt++) {
    let decided: boolean | null = null;
    for (let i = levels.length - 1; i >= 0 && decided === null; i--) {
      const level = levels[i] as Level;
      const rules = level.bySource[alt];
      if (!rules) continue;
      decided = verdict(rules, level.base === '' ? rel : rel.slice(level.base.length + 1), isDir);
    }
    if (decided === null && exclude) decided = verdict(exclude, rel, isDir);
    if (decided === true) return true;
  }
  if (sourceCount === 0 && exclude) return verdict(exclude, rel, isDir) === true;
  return false;
}

function verdict(rules: Ignore, local: string, isDir: boolean): boolean | null {
  const result = rules.test(isDir ? `${local}/` : local);
  if (result.ignored) return true;
  if (result.unignored) return false;
  return null;
}

/** The text of .git/info/exclude now; null when there is none. */
export function readExcludeFile(rootArg: RootArg): string | null {
  return readExact(asResolver(rootArg), '.git/info/exclude');
}
