/**
 * What the warm hook server keeps for each project between calls: one
 * `ProjectState` per root, the one place a server-held cache of a project
 * lives (the guarded shell's route reads it, cli/hook-shell.ts; the
 * capture's tree state hangs here too). Nothing here is believed without
 * checking: each cache validates itself against the disk on every use, so
 * a cache can only save time, never change an answer.
 *
 * What is NOT kept: the opened Project (config, trust records, the Policy,
 * the recovery of a dead process's transaction) — it is opened afresh for
 * every call, as the in-process route opens it, so an edited config, a new
 * trust record or a new link in a client's settings folder counts at once.
 *
 * Kept:
 * - the nested-repository search (config/nested-repos.ts `NestedRepoSearch`):
 *   a folder whose inode and change time are those of its last listing is
 *   not listed again; a `git init` anywhere changes its folder's ctime, so a
 *   new nested repository is still found.
 * - (process-wide, sandbox/detect.ts) the bubblewrap check, kept while the
 *   program file and the kernel's user-namespace switches are unchanged.
 * - (process-wide, workspace/policy-links.ts, through host/project.ts in any
 *   long-lived process) the protected set's look for links: kept only when
 *   it found none, believed while every path it went through is unchanged;
 *   the Policy is still made for every call, from it.
 * - the watched tree (workspace/checkpoints/watched-tree.ts): the last
 *   command index and ignored-files snapshot, and an inotify watch of the
 *   tree that says what changed since; a command that changed nothing is
 *   measured without a walk, and whatever the watch cannot tell is walked.
 *   Its helper process ends with the state (dropped, or the server gone).
 *
 * Bounded: at most MAX_PROJECTS, the least recently used dropped first.
 */
import { NestedRepoSearch } from '../config/nested-repos.js';
import { WatchedTree } from '../workspace/checkpoints/watched-tree.js';

const MAX_PROJECTS = 16;

export class ProjectState {
  private search: NestedRepoSearch | null = null;
  private watched: WatchedTree | null = null;

  constructor(readonly root: string) {}

  /**
   * The watched tree of the project's real root (a new one, the old one stopped, when the real root is another folder);
   * null when the server was started with EDITWARDEN_WATCH=off (every command walks: docs/checkpoints.md, "The watch").
   */
  tree(realRoot: string): WatchedTree | null {
    if (process.env.EDITWARDEN_WATCH === 'off') return null;
    if (this.watched === null || this.watched.watch.root !== realRoot) {
      this.watched?.stop();
      this.watched = new WatchedTree(realRoot);
    }
    return this.watched;
  }

  /** Ends what runs for this state (the watch's helper). */
  dispose(): void {
    this.watched?.stop();
    this.watched = null;
  }

  /** The warm nested-repository search of the project's real root (a new one when the real root is another folder). */
  nestedSearch(realRoot: string): NestedRepoSearch {
    if (this.search === null || this.search.root !== realRoot) this.search = new NestedRepoSearch(realRoot);
    return this.search;
  }
}

const states = new Map<string, ProjectState>();

/** The state kept for the project at `root` (an absolute path, as the route was given it), made on first use. */
export function projectState(root: string): ProjectState {
  let state = states.get(root);
  if (state === undefined) {
    state = new ProjectState(root);
    if (states.size >= MAX_PROJECTS) {
      const oldest = states.keys().next().value;
      if (oldest !== undefined) {
        states.get(oldest)?.dispose();
        states.delete(oldest);
      }
    }
  } else {
    states.delete(root);
  }
  // Map order is insertion order: re-inserting marks it the most recently used.
  states.set(root, state);
  return state;
}
