/**
 * Finds the `.git` of every repository nested below a root: a `git init` in
 * a subfolder (`vendor/lib/.git/`, a folder) and a submodule (`.git`, a FILE
 * `gitdir: ../../.git/modules/…` whose gitdir lies in the top `.git/`). Each
 * is a member of the protected set (config/protected-set.ts): its hooks run
 * at the person's next `git commit` in that folder, its config names
 * programs git runs, and a submodule's `.git` file names the gitdir git
 * trusts — rewritten, it points git at hooks the agent planted.
 *
 * Nothing is skipped by the ignore rules: they are written by the repository
 * (an untrusted author could ignore `vendor/` to hide a nested repository),
 * and a command writes an ignored folder as easily as any other. Only what
 * cannot hold a nested repository a command could use is left out: the top
 * `.git/` (a member as a whole: submodules' gitdirs are inside it) and
 * editwarden's state folder (read-only in the sandbox), and nothing below a
 * `.git` once found. Folders are listed with their types (d_type, no stat)
 * and links are never followed, so the walk is one `readdir` per folder and
 * cannot loop; kept warm (`NestedRepoSearch`), a later search lists only the
 * folders that changed. It is bounded: past `NESTED_SEARCH_LIMIT` folders it
 * refuses (fail closed) rather than answer with a list that may miss one.
 *
 * It must never write, and never follow a symlink.
 */
import fs from 'node:fs';
import path from 'node:path';
import { GIT_DIR, STATE_DIR } from './protected-set.js';
import { EditwardenError, ErrorCode } from '../errors.js';
import { appendAll } from '../arrays.js';

/** Folders visited before the search gives up (about 2 s of readdir on this machine's disks); a tree this large is refused, not half-searched. */
const NESTED_SEARCH_LIMIT = 200_000;

/**
 * A folder listing is reused only when its change time is older than this when it was read: a change within the
 * same timestamp tick as the read would leave the change time as it was (git's "racy" index entries, the same rule).
 */
export const RACY_MS = 2_000;

/** One folder as last listed: its identity and change time, the `.git` entries and the sub-folders it held. */
interface Listing {
  ino: number;
  ctimeMs: number;
  /** The change time was old enough when read that any later change moves it (see RACY_MS). */
  settled: boolean;
  gits: string[];
  dirs: string[];
}

/**
 * The search, kept warm for one project (the Policy holds one): a folder
 * whose inode and change time are those of its last listing is not listed
 * again, so a search after the first is one `lstat` per folder. The change
 * time, not the modification time: a command can set a folder's mtime back
 * (`touch -d`) after planting a `.git` in it, never its ctime. The bound
 * counts every folder visited, listed or not.
 */
export class NestedRepoSearch {
  private listings = new Map<string, Listing>();

  constructor(
    readonly root: string,
    private readonly options: { limit?: number; racyMs?: number } = {},
  ) {}

  /** Root-relative paths ('/' separators, sorted) of every `.git` below the root except the top one: folders, gitdir-link files and links. */
  find(): string[] {
    const limit = this.options.limit ?? NESTED_SEARCH_LIMIT;
    const found: string[] = [];
    const next = new Map<string, Listing>();
    // An explicit stack, not recursion: a deeply nested tree cannot exhaust the call stack.
    const pending: string[] = [''];
    let visited = 0;
    while (pending.length > 0) {
      const rel = pending.pop() as string;
      if (++visited > limit) throw tooLarge(this.root, limit);
      const abs = rel === '' ? this.root : path.join(this.root, ...rel.split('/'));
      const readAt = Date.now();
      let st: fs.Stats;
      try {
        st = fs.lstatSync(abs);
      } catch {
        continue; // Vanished since its parent was listed.
      }
      if (!st.isDirectory()) continue; // Replaced by a link or a file since: a link is never entered.
      const last = this.listings.get(rel);
      const listing = last?.settled && last.ino === st.ino && last.ctimeMs === st.ctimeMs ? last : this.list(rel, abs, st, readAt);
      if (listing === null) continue;
      next.set(rel, listing);
      appendAll(found, listing.gits);
      appendAll(pending, listing.dirs);
    }
    this.listings = next;
    return found.sort();
  }

  private list(rel: string, abs: string, st: fs.Stats, readAt: number): Listing | null {
    let entries: fs.Dirent[];
    try {
      entries = fs.readdirSync(abs, { withFileTypes: true });
    } catch {
      return null; // Unreadable to us, then to the command too: it runs as the same user or less.
    }
    const gits: string[] = [];
    const dirs: string[] = [];
    for (const e of entries) {
      const child = rel === '' ? e.name : `${rel}/${e.name}`;
      // `.GIT` too: on a case-insensitive disk git opens it as `.git`.
      if (e.name.toLowerCase() === GIT_DIR) {
        if (rel !== '') gits.push(child);
        continue;
      }
      if (rel === '' && e.name === STATE_DIR) continue;
      // A type the file system did not report (DT_UNKNOWN) is looked at when visited (lstat); a link never is.
      if (e.isDirectory() || !(e.isFile() || e.isSymbolicLink() || e.isFIFO() || e.isSocket() || e.isBlockDevice() || e.isCharacterDevice())) dirs.push(child);
    }
    return { ino: st.ino, ctimeMs: st.ctimeMs, settled: st.ctimeMs < readAt - (this.options.racyMs ?? RACY_MS), gits, dirs };
  }
}

/** One search from cold (no listing reused). */
export function findNestedGitDirs(root: string, limit: number = NESTED_SEARCH_LIMIT): string[] {
  return new NestedRepoSearch(root, { limit }).find();
}

function tooLarge(root: string, limit: number): EditwardenError {
  return new EditwardenError({
    code: ErrorCode.TREE_TOO_LARGE,
    message: `The search of ${root} for nested repositories (each one's .git/ is protected from commands) stopped after ${limit} folders, so a command could not be confined safely.`,
    hint: 'Run the command from a smaller root (--root a subfolder), or remove folders of generated content from the project; a person may set sandbox.git_writable: true in their own configuration to let commands write every .git/.',
  });
}
