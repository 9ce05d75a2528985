/**
 * Inside a repository's `.git`: which paths are its MACHINERY — what git
 * runs or reads as configuration, so that an agent writing it could make
 * the person's next git command run a program of its choosing, outside
 * every sandbox — and which are its DATA — objects, refs, the index, the
 * logs, ORIG_HEAD, the lock files, what every `git commit`, `checkout -b`,
 * `stash`, `merge`, `rebase` and `tag` writes.
 *
 * The protected set (protected-set.ts) holds every `.git` whole for the file
 * tools; for COMMANDS it is finer-grained through this one decision: the
 * sandbox binds the machinery read-only and leaves the data writable
 * (sandbox/git-binds.ts), the command-effects check watches and puts back
 * the machinery only (workspace/governing.ts), and the refs an undo may put
 * back are the data named by `isRefStatePath` (workspace/checkpoints/git-refs.ts).
 *
 * Deny by default: a name this table does not know is machinery (a future
 * git may read a new file as configuration, as 2.20 began reading
 * `config.worktree`). Data is a closed list of what git writes in the
 * ordinary work of a commit, a branch, a stash, a merge or a rebase.
 *
 * Pure: strings in, a decision out. It must never read the disk.
 */
import { GIT_DIR } from './protected-set.js';

/** The repository's own ignore rules, below every .gitignore (root-relative): read by the walks, never written by editwarden. */
export const EXCLUDE_FILE = `${GIT_DIR}/info/exclude`;

/** What a path inside a `.git` is, for commands: read-only machinery, writable data, or a folder that holds gitdirs (descended, never bound whole). */
export type GitPathKind = 'machinery' | 'data' | 'container';

/**
 * The entries of a gitdir that are data: what git itself writes in ordinary work. Compared lower-case (on a
 * case-insensitive disk `HEAD` and `head` are one file). `objects/` is data except the alternates files (below).
 */
const DATA_ENTRIES = new Set(
  [
    'objects',
    'refs',
    'logs',
    'index',
    'sharedindex', // split index: sharedindex.<sha> (prefix match below)
    'HEAD',
    'ORIG_HEAD',
    'FETCH_HEAD',
    'MERGE_HEAD',
    'MERGE_MSG',
    'MERGE_MODE',
    'MERGE_RR',
    'MERGE_AUTOSTASH',
    'AUTO_MERGE',
    'CHERRY_PICK_HEAD',
    'REVERT_HEAD',
    'REBASE_HEAD',
    'COMMIT_EDITMSG',
    'SQUASH_MSG',
    'TAG_EDITMSG',
    'ADD_EDIT.patch',
    'NOTES_MERGE_PARTIAL',
    'NOTES_MERGE_REF',
    'NOTES_MERGE_WORKTREE',
    'packed-refs',
    'shallow',
    'rebase-merge',
    'rebase-apply',
    'sequencer',
    'rr-cache',
    'lfs',
    'gc.pid',
    'gc.log',
    'fsmonitor--daemon',
    'fsmonitor--daemon.ipc',
  ].map((n) => n.toLowerCase()),
);

/** Data by prefix: `BISECT_LOG`, `BISECT_START` …; `sharedindex.<sha>`; the temporary index of `git stash` (`index.stash.<pid>`) and of `git commit <paths>` (`next-index-<pid>.lock`). */
const DATA_PREFIXES = ['bisect_', 'sharedindex.', 'index.stash.', 'next-index-'];

/**
 * The machinery git reads as configuration or runs (kept for the reasons; deny-by-default covers any other name):
 * config, config.worktree (per-worktree config), hooks/ (programs run at commit, checkout, merge …), info/
 * (exclude, attributes, sparse-checkout, grafts), commondir and gitdir (where a worktree's real gitdir is),
 * description, branches/ and remotes/ (old-style remote definitions).
 */
const MACHINERY_ENTRIES = new Set(['config', 'config.worktree', 'hooks', 'info', 'commondir', 'gitdir', 'description', 'branches', 'remotes']);

/** Inside `objects/`: the files that point git at other object stores (read as configuration, not written by git's ordinary work). */
const OBJECTS_MACHINERY = new Set(['info/alternates', 'info/http-alternates']);

/** Folders of a gitdir that hold other gitdirs: `modules/<name…>/` (submodules, names may hold slashes), `worktrees/<id>/` (linked worktrees). */
const CONTAINERS = new Set(['modules', 'worktrees']);

const LOCK = '.lock';

/** The kind of a gitdir's top entry `name` (lower-cased), ignoring what lies below it. */
function entryKind(name: string): GitPathKind {
  if (MACHINERY_ENTRIES.has(name)) return 'machinery';
  if (DATA_ENTRIES.has(name) || DATA_PREFIXES.some((p) => name.startsWith(p))) return 'data';
  // `config.lock` is machinery (git renames it over `config`); `index.lock`, `HEAD.lock`, `packed-refs.lock` are data.
  if (name.endsWith(LOCK) && name.length > LOCK.length) return entryKind(name.slice(0, -LOCK.length));
  if (CONTAINERS.has(name)) return 'container';
  return 'machinery';
}

/**
 * The kind of `parts` (path segments below a gitdir, never empty). `modules/` holds submodules' gitdirs at any
 * depth (a submodule named `vendor/sub` lives in `modules/vendor/sub/`): the first segment that names a gitdir's
 * entry starts that gitdir — but a name this table reads as machinery anywhere below `modules/` decides machinery,
 * so a submodule named `vendor/objects/x` cannot make `modules/vendor/objects/x/config` look like data.
 */
function kindBelow(parts: readonly string[]): GitPathKind {
  const lower = parts.map((p) => p.toLowerCase());
  const first = lower[0] as string;
  const kind = entryKind(first);
  if (kind === 'data') {
    if (first === 'objects' && OBJECTS_MACHINERY.has(lower.slice(1).join('/'))) return 'machinery';
    return 'data';
  }
  if (kind !== 'container' || lower.length === 1) return kind;
  if (first === 'worktrees') return lower.length === 2 ? 'container' : kindBelow(parts.slice(2));
  // modules/…: any machinery name below it decides; otherwise the first entry name starts the submodule's gitdir.
  const rest = lower.slice(1);
  if (rest.some((p) => MACHINERY_ENTRIES.has(p) || MACHINERY_ENTRIES.has(p.endsWith(LOCK) ? p.slice(0, -LOCK.length) : p))) return 'machinery';
  const at = rest.findIndex((p) => entryKind(p) === 'data' || CONTAINERS.has(p));
  if (at <= 0) return 'container'; // no entry yet (a folder of submodule names), or `modules/modules` (a name, not a gitdir)
  return kindBelow(parts.slice(1 + at));
}

/**
 * The decision for a root-relative path ('/' separators): null when no segment is a `.git` (not a repository's
 * metadata); `machinery` for the `.git` itself (a folder bound in place, or a gitdir-link file naming where the
 * gitdir is) and for everything git reads as configuration or runs; `data` for what git writes in its work;
 * `container` for `modules/`, `worktrees/` and the folders of submodule names (their gitdirs are judged inside).
 * The first `.git` segment counts (a nested repository's `.git` is judged like the root's).
 */
export function gitPathKind(relative: string): GitPathKind | null {
  const parts = relative.split('/').filter((p) => p !== '' && p !== '.');
  const at = parts.findIndex((p) => p.toLowerCase() === GIT_DIR);
  if (at === -1) return null;
  const below = parts.slice(at + 1);
  // `.git/refs/../config` is `.git/config` to the kernel: a path that climbs is judged as the worst it can be.
  return below.length === 0 || below.includes('..') ? 'machinery' : kindBelow(below);
}

/** The kind of a path relative to a gitdir (the part after `.git/`, or inside a submodule's or worktree's gitdir). */
export function gitdirEntryKind(insideGitdir: string): GitPathKind {
  const parts = insideGitdir.split('/').filter((p) => p !== '' && p !== '.');
  return parts.length === 0 || parts.includes('..') ? 'machinery' : kindBelow(parts);
}

/** A ref name's segment as git allows it in a loose ref file (check-ref-format, the parts a path can break): no `..`, no leading dot, no `.lock` end, no control or glob characters. */
const REF_SEGMENT = /^(?!\.)(?!.*\.\.)(?!.*\.lock$)[^\x00-\x20\x7f~^:?*[\\]+$/;

/**
 * Whether a path inside the root's gitdir is part of the ref state a command's step records and its undo
 * restores: HEAD, every loose ref under `refs/`, `packed-refs`, the index, and the stash's reflog
 * (`logs/refs/stash`, which IS the stash list). Nothing else is ever written by an undo inside `.git`.
 */
export function isRefStatePath(insideGitdir: string): boolean {
  if (insideGitdir === 'HEAD' || insideGitdir === 'packed-refs' || insideGitdir === 'index' || insideGitdir === 'logs/refs/stash') return true;
  const parts = insideGitdir.split('/');
  return parts.length >= 2 && parts[0] === 'refs' && parts.slice(1).every((p) => REF_SEGMENT.test(p));
}

/**
 * Whether a scan for machinery may skip a path whole: it is data and nothing below it can be machinery (`objects/`
 * and `objects/info/` are data that hold the alternates files, so they are entered). `gitDataOnly` judges a
 * root-relative path (conservative below `modules/`, where a submodule's name may look like a gitdir's entry);
 * `gitdirDataOnly` a path relative to a gitdir the caller found on disk (a folder holding `HEAD`).
 */
export function gitDataOnly(relative: string): boolean {
  return gitPathKind(relative) === 'data' && !OBJECTS_INFO.test(relative);
}

export function gitdirDataOnly(insideGitdir: string): boolean {
  return gitdirEntryKind(insideGitdir) === 'data' && !OBJECTS_INFO.test(insideGitdir);
}

const OBJECTS_INFO = /(^|\/)objects(\/info)?$/i;

/**
 * The todo lists git runs from (`rebase-merge/git-rebase-todo` of a paused interactive rebase, `sequencer/todo` of a
 * cherry-pick or revert), relative to a gitdir, by the folder that holds them.
 */
export const TODO_FILES: Readonly<Record<string, string>> = { 'rebase-merge': 'git-rebase-todo', sequencer: 'todo' };

/**
 * Whether a todo list runs commands: an `exec` (or `x`) line is run by the person's `git rebase --continue`, with
 * their rights, outside every sandbox. Such a todo is machinery while it holds one (workspace/governing.ts);
 * without one it is git's data (a rebase the agent paused on a conflict and continues in its next command).
 */
export function todoRunsCommands(text: string): boolean {
  return text.split('\n').some((line) => /^\s*(x|exec)(\s|$)/.test(line));
}
