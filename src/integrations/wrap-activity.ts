/**
 * When the wrapped agent writes: a hint, never the record. One inotify watch
 * per folder of the project (Node's `fs.watch` of one folder), so a write
 * anywhere tells `editwarden wrap` that a step is open and when it went
 * quiet, and a write at a protected path asks for a capture at once. What
 * changed is always read by the capture itself (CommandEffects: the diff
 * against the index taken at the step's start), so a missed event can only
 * make a step end later, never lose or invent a change.
 *
 * Why a watcher and not a capture every few seconds: a capture walks the
 * tree (~0.9 s of CPU for 50k files); the watcher costs nothing while the
 * agent thinks, which is most of a session. Node's own recursive watch on
 * Linux stats and watches every FILE (node_modules: 100k watches, a
 * synchronous walk) — here only folders are watched, and not the ones
 * whose writes do not matter for timing: `.git/` (read-only in the
 * sandbox), the state folder, dependency folders (`node_modules/`). Over
 * MAX_FOLDERS, or where a watch cannot be had (the inotify limit), it says
 * so (`degraded`) and the caller captures on a timer instead.
 *
 * It must never write anything.
 */
import fs from 'node:fs';
import path from 'node:path';
import { GIT_DIR } from '../config/protected-set.js';

/** Folders not watched (their writes still land in the step: the capture reads the tree). */
const UNWATCHED = new Set([GIT_DIR, 'node_modules']);
/** Past this many folders, the timer takes over (a watch per folder is one inotify watch of the user's budget). */
const MAX_FOLDERS = 8192;

export class ActivityWatcher {
  private readonly watchers = new Map<string, fs.FSWatcher>();
  private closed = false;
  /** Why the watcher cannot see every folder (null: it can). The caller then captures on a timer as well. */
  degraded: string | null = null;

  /** `onWrite(rel)`: a root-relative path ('/' separators) something was written at. */
  constructor(
    private readonly root: string,
    private readonly skip: readonly string[],
    private readonly onWrite: (rel: string) => void,
  ) {
    this.watchTree('');
  }

  close(): void {
    this.closed = true;
    for (const w of this.watchers.values()) w.close();
    this.watchers.clear();
  }

  private unwatched(rel: string): boolean {
    const name = rel.split('/').pop() ?? '';
    return UNWATCHED.has(name) || this.skip.includes(rel);
  }

  private watchTree(rel: string): void {
    const stack = [rel];
    while (stack.length > 0 && !this.closed) {
      const dir = stack.pop() as string;
      if (!this.watchFolder(dir)) continue;
      let entries: fs.Dirent[];
      try {
        entries = fs.readdirSync(path.join(this.root, dir), { withFileTypes: true });
      } catch {
        continue;
      }
      for (const e of entries) {
        const child = dir === '' ? e.name : `${dir}/${e.name}`;
        // A link to a folder is not walked: its target may lie outside the root (the capture reads the link itself).
        if (e.isDirectory() && !this.unwatched(child)) stack.push(child);
      }
    }
  }

  private watchFolder(rel: string): boolean {
    if (this.watchers.has(rel)) return false;
    if (this.watchers.size >= MAX_FOLDERS) {
      this.degraded = `more than ${MAX_FOLDERS} folders`;
      return false;
    }
    let w: fs.FSWatcher;
    try {
      w = fs.watch(path.join(this.root, rel), { persistent: false }, (_event, name) => this.seen(rel, name === null ? null : String(name)));
    } catch (error) {
      this.degraded = `a folder could not be watched (${(error as Error).message})`;
      return false;
    }
    w.on('error', () => {
      // The folder went away (its parent's event says so); a folder made again is watched anew by that event.
      w.close();
      this.watchers.delete(rel);
    });
    this.watchers.set(rel, w);
    return true;
  }

  private seen(dir: string, name: string | null): void {
    if (this.closed) return;
    const rel = name === null ? dir : dir === '' ? name : `${dir}/${name}`;
    this.onWrite(rel);
    if (name === null || this.unwatched(rel)) return;
    // A folder made (or moved in): watch it and everything already in it.
    try {
      if (fs.lstatSync(path.join(this.root, rel)).isDirectory()) this.watchTree(rel);
    } catch {
      // Gone again.
    }
  }
}
