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
 * cannot loop. It is bounded: past `NESTED_SEARCH_LIMIT` folders it refuses
 * (fail closed) rather than answer with a list that may miss one.
 *
 * It must never write, and never follow a symlink.
 */
import fs from 'node:fs';
import path from 'node:path';
import { STATE_DIR } from './protected-set.js';
import { EditwardenError, ErrorCode } from '../errors.js';

/** Folders listed before the search gives up (about 2 s of readdir on this machine's disks); a tree this large is refused, not half-searched. */
export const NESTED_SEARCH_LIMIT = 200_000;

/** Root-relative paths ('/' separators, sorted) of every `.git` below `root` except the top one: folders, gitdir-link files and links. */
export function findNestedGitDirs(root: string, limit: number = NESTED_SEARCH_LIMIT): string[] {
  const found: string[] = [];
  // An explicit stack, not recursion: a deeply nested tree cannot exhaust the call stack.
  const pending: string[] = [''];
  let listed = 0;
  while (pending.length > 0) {
    const rel = pending.pop() as string;
    if (++listed > limit) throw tooLarge(root, limit);
    let entries: fs.Dirent[];
    try {
      entries = fs.readdirSync(rel === '' ? root : path.join(root, ...rel.split('/')), { withFileTypes: true });
    } catch {
      continue; // Vanished, or unreadable to us (then unreadable to the command too: it runs as the same user or less).
    }
    for (const e of entries) {
      const child = rel === '' ? e.name : `${rel}/${e.name}`;
      // `.GIT` too: on a case-insensitive disk git opens it as `.git`.
      if (e.name.toLowerCase() === '.git') {
        if (rel !== '') found.push(child);
        continue;
      }
      if (rel === '' && e.name === STATE_DIR) continue;
      if (e.isDirectory()) pending.push(child);
      else if (!e.isSymbolicLink() && !e.isFile() && unknownIsDirectory(root, child)) pending.push(child);
    }
  }
  return found.sort();
}

// File systems that report no type (DT_UNKNOWN) need an lstat; a link is never entered.
function unknownIsDirectory(root: string, rel: string): boolean {
  try {
    return fs.lstatSync(path.join(root, ...rel.split('/'))).isDirectory();
  } catch {
    return false;
  }
}

function tooLarge(root: string, limit: number): EditwardenError {
  return new EditwardenError({
    code: ErrorCode.TREE_TOO_LARGE,
    message: `The search of ${root} for nested repositories (each one's .git/ is protected from commands) stopped after ${limit} folders, so a command could not be confined safely.`,
    hint: 'Run the command from a smaller root (--root a subfolder), or remove folders of generated content from the project; a person may set sandbox.git_writable: true in their own configuration to let commands write every .git/.',
  });
}
