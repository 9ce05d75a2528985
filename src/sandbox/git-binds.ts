/**
 * The sandbox's binds of one repository's `.git` folder, derived from the
 * one decision of what inside it is machinery (config/git-machinery.ts): the
 * gitdir itself — and every gitdir inside it, a submodule's in `modules/`, a
 * linked worktree's in `worktrees/` — is bound WRITABLE ON ITSELF, and each
 * existing machinery entry (config, hooks/, info/, objects/info/alternates,
 * commondir, gitdir, config.worktree, any name git's table does not know) is
 * bound read-only over it. So a command's git can write objects, refs, the
 * index, the logs and its lock files, and cannot touch what git runs or reads
 * as configuration.
 *
 * Why binds on themselves: a file bound read-only in a writable folder could
 * still be replaced by a rename over it (git writes its config as
 * `config.lock` renamed over `config`) or unlinked, and a folder renamed away
 * and made again. A mount point cannot be renamed over, renamed or removed
 * (EBUSY), nor hard-linked elsewhere (EXDEV): the bound gitdir cannot be
 * swapped for one of the command's making, and neither can its machinery.
 * What does not exist yet cannot be bound (a new file in a missing `hooks/`):
 * it is created in the sandbox and removed after the command
 * (workspace/governing.ts), as every protected path a command creates is.
 *
 * It reads folders (readdir, lstat), never follows a link, and writes nothing.
 */
import fs from 'node:fs';
import path from 'node:path';
import { gitdirEntryKind } from '../config/git-machinery.js';

export interface GitDirBinds {
  /** Gitdirs bound writable on themselves (the top one first, then those inside it), so none can be renamed away. */
  self: string[];
  /** Machinery inside them, bound read-only after the self binds. */
  readOnly: string[];
}

/** How many entries of `modules/` and `worktrees/` are looked at; past it each further entry is bound read-only whole (fail closed). */
const CONTAINER_BUDGET = 5_000;

/**
 * The binds of the gitdir `gitdir` (an absolute real path of a folder). A container past the budget is bound
 * read-only whole (fail closed: its gitdirs' git then cannot write, but none of their machinery can be written).
 */
export function gitDirBinds(gitdir: string): GitDirBinds {
  const out: GitDirBinds = { self: [gitdir], readOnly: [] };
  const budget = { left: CONTAINER_BUDGET };
  bindGitdir(gitdir, out, budget);
  return out;
}

function bindGitdir(dir: string, out: GitDirBinds, budget: { left: number }): void {
  for (const name of list(dir)) {
    const abs = path.join(dir, name);
    const kind = gitdirEntryKind(name);
    if (kind === 'machinery') out.readOnly.push(abs);
    else if (kind === 'container') bindContainer(abs, name.toLowerCase() === 'worktrees' ? 'worktrees' : 'modules', out, budget);
    else if (name.toLowerCase() === 'objects') {
      // objects/ is data, except the files that point git at other object stores.
      for (const inner of ['info/alternates', 'info/http-alternates']) if (lstat(path.join(abs, inner)) !== null) out.readOnly.push(path.join(abs, inner));
    }
  }
}

/**
 * `modules/`: folders of submodule names down to gitdirs (a folder holding `HEAD`); `worktrees/`: one gitdir per
 * child. Each gitdir found is bound on itself and bound inside like the top one; a file in a container, or a
 * folder that is not a gitdir past the depth, is machinery (read-only).
 */
function bindContainer(dir: string, kind: 'modules' | 'worktrees', out: GitDirBinds, budget: { left: number }, depth = 0): void {
  if (!isRealDir(dir)) {
    if (lstat(dir) !== null) out.readOnly.push(dir);
    return;
  }
  for (const name of list(dir)) {
    const abs = path.join(dir, name);
    if (--budget.left < 0 || depth > 16) {
      out.readOnly.push(abs);
      continue;
    }
    if (!isRealDir(abs)) {
      out.readOnly.push(abs);
      continue;
    }
    if (kind === 'worktrees' || lstat(path.join(abs, 'HEAD')) !== null) {
      out.self.push(abs);
      bindGitdir(abs, out, budget);
    } else bindContainer(abs, kind, out, budget, depth + 1);
  }
}

function list(dir: string): string[] {
  try {
    return fs.readdirSync(dir).sort();
  } catch {
    return [];
  }
}

function lstat(p: string): fs.Stats | null {
  try {
    return fs.lstatSync(p);
  } catch {
    return null;
  }
}

function isRealDir(p: string): boolean {
  return lstat(p)?.isDirectory() ?? false;
}
