/**
 * The protected set: every path that governs the agent, the guard or what
 * runs with the person's rights, rather than holding project content. An
 * agent that could write one of them could switch its own guard off, make a
 * client start a command of its choosing, or plant a hook that runs at the
 * person's next commit, outside every sandbox. This table is the one list;
 * `workspace/policy.ts` turns it into the project's `Policy`, which the file
 * tools, every edit format, restores and undo, the hooks, the sandbox's
 * read-only binds and the command-effects revert all read. No layer keeps a
 * list of its own.
 *
 * Pure data: it must never read the disk. A configuration may add to the
 * set (an explicit `--config`), never remove from it, except `.git/` with
 * `sandbox.git_writable`. For commands `.git/` is finer-grained: its
 * machinery stays read-only, git's data is writable (git-machinery.ts).
 */
import { CLIENT_SETTINGS } from './client-settings.js';

/** editwarden's own state folder at the root (checkpoints, journal, runs). */
export const STATE_DIR = '.editwarden';

/** The project configuration, at the root (config/names.ts re-exports it beside the size the loader reads). */
export const CONFIG_FILE = '.editwarden.yml';

/**
 * A repository's metadata folder, in every folder of the root (the root's own, a nested clone's, a
 * submodule's gitdir-link file). Every module that means git's folder takes its name from here.
 */
export const GIT_DIR = '.git';

/**
 * A project-local install of editwarden (a devDependency), as npm lays it
 * out: its package folder and the packages its CLI bundle loads from
 * node_modules at run time (scripts/bundle-cli.mjs `external`). Their code
 * runs as the guard — the hooks, the guarded shell and the MCP server run
 * it (issue 38.1) — so an agent that could write them would replace the
 * guard. Read-only in every sandbox and refused to every edit route; not
 * snapshotted around each command (tens of MiB of grammars): a change that
 * gets past the sandbox anyway is caught by the digest the person recorded
 * (integrations/guard-install.ts), and the hooks then fail closed.
 */
export const PROJECT_INSTALL = {
  bin: 'node_modules/.bin/editwarden',
  package: 'node_modules/editwarden',
  externals: ['node_modules/web-tree-sitter', 'node_modules/tree-sitter-wasms'],
} as const;

function installMembers(): ProtectedMember[] {
  return [PROJECT_INSTALL.package, ...PROJECT_INSTALL.externals].map((p) => ({
    path: p,
    folder: true,
    install: true,
    reason:
      p === PROJECT_INSTALL.package
        ? 'the project-local editwarden: the code the hooks, the guarded shell and the MCP server run as the guard'
        : "a package the project-local editwarden's CLI loads at run time (code that runs as the guard)",
  }));
}

/**
 * Each member: a root-relative path ('/' separators), whether it is a
 * folder (everything below it is protected too) and why. Matched
 * case-insensitively (on macOS and Windows `.Claude/Settings.json` is the
 * same file).
 *
 * Left out on purpose: the instruction files (`CLAUDE.md`, `GEMINI.md`,
 * `AGENTS.md`, `QWEN.md`, `.github/copilot-instructions.md`, `.cursorrules`; `.cursor/rules` is inside `.cursor/`) are read
 * as text by a model, run nothing and loosen nothing, and agents are asked
 * to keep them current; build files (`package.json` scripts, Makefiles) are
 * project content every build edits — a command they run is sandboxed, and
 * SECURITY.md lists them as not defended.
 */
export const PROTECTED_MEMBERS = [
  { path: STATE_DIR, folder: true, sealed: 'state-dir', reason: "editwarden's own state: checkpoints, the journal and run records it trusts after a crash" },
  { path: GIT_DIR, folder: true, sealed: 'git-dir', everyFolder: true, reason: 'git metadata: hooks run at the next commit with your rights, config can name programs git runs (every repository, nested ones included)' },
  { path: CONFIG_FILE, folder: false, reason: "editwarden's configuration: the limits, patterns and sandbox of this run" },
  // Every client's settings and run-on-start files, from its row (config/client-settings.ts).
  ...Object.values(CLIENT_SETTINGS).flat(),
  { path: '.vscode', folder: true, reason: 'VS Code workspace settings: tasks.json (tasks can run on folder open), settings.json (programs the editor and extensions run), launch.json, extensions.json' },
  { path: '.devcontainer', folder: true, reason: 'dev container definition: postCreateCommand and friends run when the folder is opened in a container' },
  { path: '.envrc', folder: false, reason: 'direnv runs it in your shell on entering the folder (once allowed)' },
  { path: '.husky', folder: true, reason: 'git hooks (core.hooksPath) that run at your next commit, outside every sandbox' },
  { path: PROJECT_INSTALL.bin, folder: false, reason: "the project-local editwarden's command link: what `npx editwarden` and npm scripts run as the guard" },
  ...installMembers(),
] as const satisfies ReadonlyArray<ProtectedMember>;

export type ProtectedMember = {
  readonly path: string;
  readonly folder: boolean;
  readonly reason: string;
  /** Part of a project-local editwarden install: bound read-only and refused to edits, but not snapshotted around commands (its digest is checked instead). */
  readonly install?: boolean;
  /**
   * Sealed: agents may neither read nor write it (not only never write it) — editwarden's own state, which it
   * trusts after a crash, and git's metadata, which holds what an agent must not learn or plant (credentials in
   * a remote URL, hooks). The value is the refusal's short reason (`state-dir`, `git-dir`).
   */
  readonly sealed?: string;
  /** A member in every folder of the root, not only at the top: each repository's `.git`, nested ones included. */
  readonly everyFolder?: boolean;
};

/** The member that covers `relative` (a root-relative path, '/' separators) among `members`, or null. */
export function memberCovering(relative: string, members: readonly ProtectedMember[]): ProtectedMember | null {
  const lower = relative.replace(/^\.\//, '').toLowerCase();
  for (const m of members) {
    const name = m.path.toLowerCase();
    if (lower === name || (m.folder && lower.startsWith(`${name}/`))) return m;
  }
  // Then the members in every folder: each repository's `.git` at any depth (a `.git` FILE, a submodule's gitdir link, included).
  for (const m of members) if (m.everyFolder === true && lower.split('/').includes(m.path.toLowerCase())) return m;
  return null;
}

/** The sealed member (agents may neither read nor write it) that covers `relative`, or null: fixed members only, a configuration never adds one. */
export function sealedMemberOf(relative: string): ProtectedMember | null {
  return memberCovering(relative, SEALED_MEMBERS);
}

const SEALED_MEMBERS: readonly ProtectedMember[] = PROTECTED_MEMBERS.filter((m: ProtectedMember) => m.sealed !== undefined);

/** The lengths of the sealed members' names: most entries a walk meets are ruled out by their length alone. */
const SEALED_LENGTHS = new Set(SEALED_MEMBERS.map((m) => m.path.length));

/**
 * Whether a walk (list_files, a checkpoint's capture) leaves out the entry `name` of the folder `dirRel` ('' at the
 * root): a sealed member, compared as the Policy compares it (case-insensitively), so that nothing a walk offers or
 * records is a path the Policy refuses.
 */
export function sealedEntry(dirRel: string, name: string): boolean {
  if (!SEALED_LENGTHS.has(name.length)) return false;
  const lower = name.toLowerCase();
  return SEALED_MEMBERS.some((m) => m.path === lower && (dirRel === '' || m.everyFolder === true));
}

/** The member for git's metadata: every repository's `.git`. */
export const GIT_MEMBER: ProtectedMember = PROTECTED_MEMBERS.find((m: ProtectedMember) => m.path === GIT_DIR) as ProtectedMember;
