/**
 * The sandbox policy: which paths a command may write, which it may only
 * read, which it must not see, whether it has a network, and which
 * environment names it gets — decided once from the root and the config,
 * then spelled for bubblewrap (bwrap.ts) or sandbox-exec (sbpl.ts). Pure
 * apart from lstat/realpath of the paths it protects.
 *
 * Path classes (docs/sandbox.md explains each):
 *   root                              writable
 *   the protected set                 read-only inside: .editwarden/, the config, client settings
 *                                     (config/protected-set.ts; §4 of the threat model)
 *   every .git (root, nested, modules) bound writable on itself, its machinery (config, hooks/, info/ …)
 *                                     read-only over it, its data (objects, refs, index, logs) writable
 *                                     (git-binds.ts; the decision: config/git-machinery.ts)
 *   the system (/usr, /etc, /opt …)   read-only
 *   /tmp, /var/tmp, /dev/shm          private, empty, discarded after the command
 *   home folders (/home, /root, HOME) hidden (an empty, throw-away HOME), except
 *                                     toolchain installs re-exposed read-only
 *   secrets under any exposed path    hidden again (belt and braces when the root holds HOME)
 *   /run/user, container sockets      hidden (doors to ssh-agent, keyrings, docker = root)
 *
 * It must never widen what the config asks for: a path it protects is
 * protected whatever the extra lists say, except `.git/` with git_writable.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { isWithin } from '../config/path-within.js';
import { GIT_DIR, PROTECTED_MEMBERS } from '../config/protected-set.js';
import { gitDirBinds } from './git-binds.js';
import type { NetworkSetting } from '../config/network-setting.js';
import { networkAccess, type NetworkAccess } from './network/access.js';
import { appendAll } from '../arrays.js';

/** The part of `.editwarden.yml` the sandbox reads (config.ts validates it). */
export interface SandboxConfig {
  /** false: commands run without a sandbox (results say so; headless runs then need allow_unsandboxed). */
  enabled: boolean;
  /** What network commands may reach: off (default), on, or a list of host patterns (through the filtering proxy). */
  network: NetworkSetting;
  /** `.git/` writable inside the sandbox, so the agent can commit. */
  git_writable: boolean;
  /** Headless runs may run commands where no sandbox can be had. */
  allow_unsandboxed: boolean;
  /** Environment names (or PREFIX*) added to the allowlist. */
  env: string[];
  /** Host paths exposed read-only (e.g. "~/.gitconfig"). */
  readable: string[];
  /** Host paths exposed writable (e.g. a shared build cache you accept the agent may write). */
  writable: string[];
}

export const DEFAULT_SANDBOX_CONFIG: SandboxConfig = {
  enabled: true,
  network: 'off',
  git_writable: false,
  allow_unsandboxed: false,
  env: [],
  readable: [],
  writable: [],
};

export interface SandboxPolicy {
  /** false (config `sandbox.enabled: false`): commands run bare, results say `sandbox: none`. */
  enabled: boolean;
  /** The workspace root: writable. */
  root: string;
  /** Existing real paths inside the root bound read-only over the writable root. */
  readOnly: string[];
  /**
   * Gitdirs inside the root (the root's `.git`, nested repositories', submodules' in `.git/modules/`) bound writable
   * on themselves before the read-only binds, so that git can commit while none of them can be renamed away; their
   * machinery is in `readOnly` (git-binds.ts). Empty with git_writable.
   */
  gitDirs: string[];
  /**
   * Of `readOnly` and `gitDirs`, the paths a person's git may remove between this policy and the sandbox's start (a
   * `config.lock` renamed over `config`, a worktree's gitdir pruned by `git gc`): bound only if still there, so the
   * person's git never makes the agent's command fail; one that vanished holds nothing to protect, and one made
   * again by the command is removed after it (workspace/governing.ts).
   */
  mayVanish?: string[];
  /**
   * `.editwarden/` when it does not exist yet: an empty read-only folder is mounted there, so a command
   * cannot plant state (a forged journal) for editwarden to find later. null when it exists (then in readOnly).
   */
  absentState: string | null;
  /** Folders replaced by an empty tmpfs (home folders). */
  hidden: string[];
  /** The HOME a command sees (an empty folder inside the sandbox). */
  home: string;
  /** Host paths exposed read-only inside a hidden folder (toolchains, `readable`). */
  readable: string[];
  /** Extra writable host paths (`writable`). */
  writable: string[];
  /** Secret folders and files hidden even where their parent is exposed. */
  secrets: string[];
  /** Sockets and runtime folders hidden (ssh-agent, docker, dbus). */
  sockets: string[];
  /** No network, all of it, or the listed hosts through the filtering proxy (network/access.ts). */
  networkAccess: NetworkAccess;
  /** Environment names added to the allowlist. */
  envAllow: string[];
  /** Environment names always removed (model keys). */
  envDeny: string[];
}

/** Toolchain installs under HOME, re-exposed read-only so PATH entries keep working. No credential lives in any of them. */
const HOME_TOOLCHAINS: readonly string[] = [
  '.nvm',
  '.volta',
  '.fnm',
  '.local/share/fnm',
  '.asdf',
  '.pyenv',
  '.rbenv',
  '.rustup',
  '.cargo/bin',
  '.cargo/registry',
  '.cargo/git',
  '.sdkman',
  'go',
  'sdk',
  '.local/bin',
  '.local/lib',
  '.m2/repository',
  '.deno',
  '.bun',
  '.dotnet',
  '.nuget/packages',
  '.elan',
  '.ghcup',
  '.opam',
  '.cache/ms-playwright',
];

/**
 * What editwarden itself runs from, re-exposed read-only: its own package
 * (the demo and detection find tsc in editwarden's node_modules) and the Node
 * installation running it (a registry `node@24` or an nvm Node under /tmp or
 * HOME, which the sandbox hides, is what `node` on PATH names). Code, never
 * credentials; the project root's own writable bind still wins inside it.
 */
export function selfInstallPaths(home: string, execPath: string = process.execPath): string[] {
  const packageRoot = path.resolve(fileURLToPath(new URL('../..', import.meta.url)));
  const nodePrefix = path.dirname(path.dirname(realOr(execPath)));
  // Never a folder that holds a home or the temp folders whole (a node in ~/bin would otherwise expose all of HOME).
  const tooWide = (p: string): boolean => ['/', '/tmp', '/var/tmp', '/home', '/root', '/Users', home].some((wide) => isWithin(wide, p));
  return [...new Set([packageRoot, nodePrefix])].filter((p) => !tooWide(p) && exists(p));
}

/** Known secret stores relative to HOME (hidden even if HOME is exposed by the root or `readable`). */
const HOME_SECRETS: readonly string[] = [
  '.ssh',
  '.aws',
  '.azure',
  '.config/gh',
  '.config/gcloud',
  '.config/hub',
  '.gnupg',
  '.netrc',
  '.npmrc',
  '.yarnrc',
  '.yarnrc.yml',
  '.pypirc',
  '.docker',
  '.kube',
  '.git-credentials',
  '.config/git/credentials',
  '.cargo/credentials',
  '.cargo/credentials.toml',
  '.m2/settings.xml',
  '.gradle/gradle.properties',
  '.terraform.d',
  '.vault-token',
  '.password-store',
  '.local/share/keyrings',
  '.config/op',
  '.claude',
  '.codex',
  '.gemini',
  '.config/anthropic',
  '.config/openai',
];

/** Sockets and runtime folders that open doors no file rule closes (connect() ignores a read-only mount). */
const HOST_SOCKETS: readonly string[] = ['/run/user', '/run/docker.sock', '/var/run/docker.sock', '/run/containerd', '/run/podman', '/run/dbus', '/var/run/dbus'];

export interface PolicyInput {
  root: string;
  /** `.editwarden/` (read-only inside; kept empty and read-only when it does not exist yet). */
  stateDir: string;
  config: SandboxConfig;
  /**
   * The existing members of the project's protected set (absolute: `Policy.existingProtectedPaths`, the config
   * files editwarden reads and nested repositories' `.git` among them): read-only inside. The root's `.git` among
   * them is dropped with git_writable. Absent: the set's fixed members under the root (`fixedMemberPaths`).
   */
  protectedPaths?: readonly string[];
  /** Default: os.homedir(). */
  home?: string;
  /** Environment names never passed on (model keys). */
  envDeny?: readonly string[];
}

/** Expands a leading `~/` to HOME; relative paths are refused by the config schema. */
function expandHome(p: string, home: string): string {
  return p === '~' ? home : p.startsWith('~/') ? path.join(home, p.slice(2)) : p;
}

function exists(p: string): boolean {
  try {
    fs.lstatSync(p);
    return true;
  } catch {
    return false;
  }
}

/**
 * The real path to protect for `p` inside the root, or null. A symlinked
 * `.git` is followed only to a target inside the root (a target outside is
 * read-only or hidden already); binding through a link to outside would
 * expose that outside path at the link's place.
 */
function protectedPath(p: string, root: string): string | null {
  let real: string;
  try {
    real = fs.realpathSync(p);
  } catch {
    return null;
  }
  return isWithin(real, root) ? real : null;
}

/** The real path of a `.git` FOLDER inside the root (a link into the root followed), or null (a file, absent, or leading outside). */
function realGitDir(p: string, root: string): string | null {
  const real = protectedPath(p, root);
  if (real === null || real === root) return null;
  try {
    return fs.statSync(real).isDirectory() ? real : null;
  } catch {
    return null;
  }
}

/** The fixed members of the protected set under `root` (absolute; missing ones are skipped when bound): the binds of a root without a project's Policy. */
export function fixedMemberPaths(root: string): string[] {
  return PROTECTED_MEMBERS.map((m) => path.join(root, ...m.path.split('/')));
}

function realOr(p: string): string {
  try {
    return fs.realpathSync(p);
  } catch {
    return p;
  }
}

export function sandboxPolicy(input: PolicyInput): SandboxPolicy {
  const root = fs.realpathSync(input.root);
  const home = path.resolve(input.home ?? os.homedir());
  const cfg = input.config;
  const readOnly: string[] = [];
  const gitDirs: string[] = [];
  const mayVanish: string[] = [];
  // Every read-only bind is a member of the one protected set (config/protected-set.ts), as the project's Policy made it concrete.
  const gitDir = path.join(root, GIT_DIR);
  const members = (input.protectedPaths ?? fixedMemberPaths(root)).filter((p) => !(cfg.git_writable && path.resolve(root, p) === gitDir));
  const candidates = [input.stateDir, ...members];
  const stateDir = path.resolve(root, input.stateDir);
  // A missing state folder directly under the root (its usual place) is kept empty and read-only inside.
  const absentState = !exists(stateDir) && path.dirname(stateDir) === root ? stateDir : null;
  const protect = (p: string, transient = false): void => {
    const real = protectedPath(path.resolve(root, p), root);
    if (real && real !== root && !readOnly.includes(real)) {
      readOnly.push(real);
      if (transient) mayVanish.push(real);
    }
  };
  for (const p of candidates) {
    const gitdir = path.basename(p).toLowerCase() === GIT_DIR ? realGitDir(path.resolve(root, p), root) : null;
    if (gitdir === null) {
      protect(p);
      continue;
    }
    // A repository's .git folder: git's data writable, its machinery read-only (a `.git` FILE, a gitdir link, is protected whole above).
    const binds = gitDirBinds(gitdir);
    for (const g of binds.self) if (!gitDirs.includes(g)) gitDirs.push(g);
    for (const m of binds.readOnly) protect(m, true);
    appendAll(
      mayVanish,
      binds.self.filter((g) => g !== gitdir),
    );
  }

  // Home folders: every user's, ours included, wherever HOME is.
  const hidden = ['/home', '/root', '/Users'].filter((p) => exists(p));
  if (!hidden.some((h) => isWithin(home, h))) hidden.push(home);

  const readable = [...HOME_TOOLCHAINS.map((t) => path.join(home, t)).filter(exists), ...selfInstallPaths(home), ...cfg.readable.map((p) => expandHome(p, home))];
  const writable = cfg.writable.map((p) => expandHome(p, home));
  const secrets = HOME_SECRETS.map((s) => path.join(home, s)).filter(exists);
  // /var/run is usually a link to /run: bind each real path once (bwrap cannot mount through the link).
  const sockets = [...new Set(HOST_SOCKETS.filter(exists).map((p) => realOr(p)))];

  return {
    enabled: cfg.enabled,
    root,
    readOnly,
    gitDirs,
    mayVanish,
    absentState,
    hidden,
    home,
    readable,
    writable,
    secrets,
    sockets,
    networkAccess: networkAccess(cfg.network),
    envAllow: [...cfg.env],
    envDeny: [...(input.envDeny ?? [])],
  };
}
