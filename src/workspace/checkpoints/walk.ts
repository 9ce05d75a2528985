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
import { nameScreen, type NameScreen } from './ignore-screen.js';
import type { StatKey } from './types.js';

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
   * `stat`: the file's lstat taken by path string (null when that failed or
   * found no regular file), a cache key only (stat-cache.ts): it never decides
   * which bytes are read, since every read goes through a descriptor opened
   * inside the root.
   */
  | { path: string; type: 'file'; stat: StatKey | null }
  /** `target`: read through the opened folder during the walk; null when it vanished since readdir. */
  | { path: string; type: 'symlink'; target: string | null };

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
  const excludeRule: Rules | null = excludeRules === null ? null : { rules: excludeRules, screen: nameScreen(excludeText as string) };
  // Each folder is opened relative to its opened parent, never by a path string: a folder swapped for a symlink is not entered.
  const visit = (dir: DirHandle, dirRel: string, stack: Level[]): void => {
    let names: fs.Dirent[];
    try {
      names = fs.readdirSync(dir.self, { withFileTypes: true });
    } catch {
      return;
    }
    const onDisk = names.some((d) => d.name === '.gitignore');
    const texts = ignoreSources.map((source) => source(dirRel, onDisk));
    const levels = texts.some((t) => t !== null) ? [...stack, { base: dirRel, bySource: texts.map((t) => (t === null ? null : ignore().add(t))), screens: texts.map((t) => (t === null ? null : nameScreen(t))) }] : stack;
    const check = levels.length > 0 || excludeRule !== null;
    names.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    const relDir = dirRel === '' ? '' : `${dirRel}/`;
    // Path strings serve only the files' cache-key lstat (see WalkedEntry); everything else goes through `dir`.
    const displayDir = dir.display.endsWith('/') ? dir.display : `${dir.display}/`;
    for (const dirent of names) {
      const name = dirent.name;
      if (name === '.git') continue;
      if (dirRel === '' && name === STATE_DIR) continue;
      if (name.startsWith(TEMP_PREFIX)) continue;
      const rel = relDir + name;
      // The type readdir reports (d_type) for the entry it listed in the opened folder: no lstat per folder or link.
      let kind: 'file' | 'dir' | 'symlink' | null = dirent.isFile() ? 'file' : dirent.isDirectory() ? 'dir' : dirent.isSymbolicLink() ? 'symlink' : null;
      if (kind === null) {
        if (dirent.isFIFO() || dirent.isSocket() || dirent.isBlockDevice() || dirent.isCharacterDevice()) continue; // Not project content.
        // File systems that do not report types (DT_UNKNOWN) need an lstat, through the opened folder.
        try {
          const st = fs.lstatSync(dir.at(name));
          kind = st.isFile() ? 'file' : st.isDirectory() ? 'dir' : st.isSymbolicLink() ? 'symlink' : null;
        } catch {
          continue; // Vanished while we walked.
        }
        if (kind === null) continue;
      }
      const isDir = kind === 'dir';
      if (check && isIgnored(levels, ignoreSources.length, excludeRule, rel, isDir, name)) continue;
      if (isDir) {
        const child = dir.openChild(name);
        if (child === null) continue; // Replaced (by a symlink?) since readdir: not entered.
        dirs.push(rel);
        try {
          visit(child, rel, levels);
        } finally {
          child.close();
        }
      } else if (kind === 'file') {
        let stat: StatKey | null = null;
        try {
          const st = fs.lstatSync(displayDir + name);
          stat = st.isFile() ? st : null;
        } catch {
          stat = null; // The capture reads it through the folder's descriptor and sees what is there.
        }
        entries.push({ path: rel, type: 'file', stat });
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
  entries.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
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
  const excluded = (): boolean | null => (exclude === null || (!isDir && exclude.screen !== null && !exclude.screen(name)) ? null : verdict(exclude.rules, rel, isDir));
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
    if (decided === null) decided = excluded();
    if (decided === true) return true;
  }
  if (sourceCount === 0) return excluded() === true;
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
