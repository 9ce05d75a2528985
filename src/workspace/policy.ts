/**
 * The project's `Policy`: the protected set (config/protected-set.ts) made
 * concrete for one root, once, when the project is opened — the fixed
 * members, every configuration file editwarden reads (an explicit
 * `--config` included) and the REAL target of each member that is a link
 * (`.editwarden.yml -> tools/editwarden.yml` protects tools/editwarden.yml
 * too; `.claude/settings.json -> ../config/claude.json` protects
 * config/claude.json). Every layer asks this one value: the write check of
 * every file tool and format (disk-writer.ts, overlay.ts through
 * `ResolvedPath.protectedBy`), restores and undo (checkpoints/restore.ts),
 * the hooks (integrations/vet.ts), the sandbox's read-only binds
 * (sandbox/for-workspace.ts) and the command-effects revert (governing.ts).
 * Nested repositories' `.git` are members too: the file tools and hooks
 * refuse any `.git` segment; for commands they are looked for afresh (a
 * warm search, config/nested-repos.ts) each time, because a person or a
 * command makes new ones between commands. Beside the set it carries the
 * trust state of the project's config (`trust`), as the loader judged it.
 *
 * It must never shrink the set: a configuration adds members, never removes
 * one (only `sandbox.git_writable` lets COMMANDS write `.git/`'s machinery;
 * git's data they always may, config/git-machinery.ts; the file tools never
 * write any of it).
 */
import fs from 'node:fs';
import path from 'node:path';
import { GIT_MEMBER, memberCovering, PROTECTED_MEMBERS, sealedMemberOf, STATE_DIR, type ProtectedMember } from '../config/protected-set.js';
import { EditwardenError, ErrorCode } from '../errors.js';
import { appendAll } from '../arrays.js';
import { NestedRepoSearch } from '../config/nested-repos.js';
import { type ConfigTrust, NO_REPOSITORY_CONFIG } from '../config/trust-state.js';
import { lexicalParts } from './paths.js';
import type { Resolver } from './resolver.js';
import type { KeptLinkLooks, LinkLook } from './policy-links.js';

export interface PolicyOptions {
  /** Configuration files editwarden reads beyond the default name (an explicit --config), absolute or root-relative. */
  configFiles?: readonly string[];
  /** `sandbox.git_writable`: commands may write `.git/` (the file tools still may not). */
  gitWritable?: boolean;
  /** The trust state of the config the project was opened with, as the loader judged it (absent: no repository config was read). */
  trust?: ConfigTrust;
  /**
   * The nested-repository search for this (real) root, kept warm by a process that opens the project again and
   * again (the warm server: cli/hook-projects.ts). Absent: a search of this Policy's own. Sound to share: the
   * search checks each folder's listing against the folder's inode and change time on every call.
   */
  nestedSearch?: (realRoot: string) => NestedRepoSearch;
  /**
   * The looks for links kept by a process that opens the project again and again (policy-links.ts; host/project.ts
   * passes the process's own in a long-lived server). Absent: the set looks for links every time it is made.
   */
  keptLinks?: KeptLinkLooks;
}

export class Policy {
  /** Every protected root-relative path: the fixed members, config files in the root, and the real targets of linked members. */
  readonly members: readonly ProtectedMember[];
  /** Configuration files outside the root (absolute): watched by the command-effects check, never written by editwarden. */
  readonly outsideConfigFiles: readonly string[];
  readonly gitWritable: boolean;
  /**
   * Who set the guard: the trust state of the repository's own configuration (config/trust-state.ts), judged
   * once by the loader when the project was opened — trusted, untrusted with the loosening keys named (and the
   * E_UNTRUSTED_CONFIG refusal when there are any), the person's own file, or no repository config. `doctor`
   * prints it; nothing judges the file again.
   */
  readonly trust: ConfigTrust;
  /** The nested-repository search, kept warm for this project: a search after the first lists only folders that changed. */
  private readonly nested: NestedRepoSearch;
  /** A search's result lent by a command's mark to the sandbox of the same command (lendNestedGitDirs), or null. */
  private lent: readonly string[] | null = null;

  constructor(
    readonly root: string,
    resolver: Resolver,
    options: PolicyOptions = {},
  ) {
    this.gitWritable = options.gitWritable ?? false;
    this.trust = options.trust ?? NO_REPOSITORY_CONFIG;
    this.nested = options.nestedSearch?.(root) ?? new NestedRepoSearch(root);
    const members: ProtectedMember[] = [...PROTECTED_MEMBERS];
    const outside: string[] = [];
    for (const file of options.configFiles ?? []) {
      const abs = path.resolve(root, file);
      const rel = path.relative(root, abs);
      if (rel === '' || rel === '..' || rel.startsWith(`..${path.sep}`) || path.isAbsolute(rel)) outside.push(abs);
      else if (memberCovering(rel.split(path.sep).join('/'), members) === null) members.push({ path: rel.split(path.sep).join('/'), folder: false, reason: `editwarden's configuration for this run (--config ${file})` });
    }
    // A governing file is protected by its real target as well as by its name: the kernel writes the target.
    // The links inside a protected folder count too (`.claude/settings.json -> ../config/claude.json`).
    // A long-lived process skips the look while the disk is as it was when its last look found no link at all.
    const named = members.map((m) => m.path).join('\0');
    if (options.keptLinks?.stillNone(root, named) !== true) {
      const look = options.keptLinks?.start();
      appendAll(members, linkedTargets(root, resolver, members, look));
      if (look !== undefined) options.keptLinks?.finish(root, named, look);
    }
    this.members = members;
    this.outsideConfigFiles = outside;
  }

  /** The member that protects `relative` (a root-relative path, '/' separators), or null. */
  protectedBy(relative: string): ProtectedMember | null {
    return memberCovering(relative, this.members);
  }

  /**
   * Refuses any access — a read, a listing, a write — to a sealed member (`.git` of every repository, the state
   * folder); `relative` is checked as spelled and as the kernel reaches it. The resolver (paths.ts) judges only
   * the path's shape; this is where a path is refused for what it names.
   */
  checkReach(requested: string, ...relatives: string[]): void {
    checkReach(requested, ...relatives);
  }

  /** Refuses a write to a protected path; `relative` is checked as spelled and `real` as the kernel reaches it. */
  checkWrite(requested: string, ...relatives: string[]): void {
    for (const relative of relatives) {
      const member = this.protectedBy(relative);
      if (member) throw protectedRefusal(requested, member);
    }
  }

  /** The root-relative paths a command may not change (reverted after it): every member but the state folder (read-only in the sandbox), `.git` unless git_writable. */
  governedPaths(): string[] {
    return this.members.filter((m) => m.path !== STATE_DIR && m.install !== true && !(this.gitWritable && m === GIT_MEMBER)).map((m) => m.path);
  }

  /**
   * The `.git` of every repository nested below the root as it stands NOW
   * (a `git init` in a subfolder, a submodule's gitdir-link file): members of
   * the set like the top `.git`, found afresh on each call because a person
   * (or a command) makes new ones between commands. Empty when commands may
   * write `.git` (git_writable). Throws E_TREE_TOO_LARGE past the search's bound.
   */
  nestedGitDirs(): string[] {
    return this.gitWritable ? [] : this.nested.find();
  }

  /**
   * A command's mark (guard/command-effects.ts) searched for nested repositories a moment ago, just before its
   * sandbox is worked out: the next `existingProtectedPaths` takes that result instead of searching again (one
   * search less per command: ~1 ms of CPU at 5,000 files, ~3 ms at 50,000). Taken once, and dropped (null) when
   * the command ends, so no later sandbox uses an old search; a repository made between the mark and the start
   * is found by the after-pass, which always searches (as one made while the command runs).
   */
  lendNestedGitDirs(found: readonly string[] | null): void {
    this.lent = found;
  }

  /** Absolute real paths of the members that exist now, for the sandbox's read-only binds (a missing one is reverted after the command instead); nested repositories' `.git` and a project-local editwarden install included. */
  existingProtectedPaths(): string[] {
    const out: string[] = [];
    // A project-local editwarden install is bound read-only too, though not snapshotted around commands (protected-set.ts PROJECT_INSTALL).
    const installs = this.members.filter((m) => m.install === true).map((m) => m.path);
    const nested = this.lent ?? this.nestedGitDirs();
    this.lent = null;
    for (const rel of [...this.governedPaths(), ...installs, ...nested]) {
      const abs = path.join(this.root, ...rel.split('/'));
      try {
        fs.lstatSync(abs);
        out.push(abs);
      } catch {
        // Absent: nothing to bind; a command that creates it has it removed (governing.ts).
      }
    }
    return out;
  }
}

/**
 * The real targets of the members that are links or lie under one, and of the links inside protected folders, as
 * members (the fixed ones are `members`). `look`: records every path gone through, for a long-lived process to keep
 * (policy-links.ts); each is looked at before it is followed or listed.
 */
function linkedTargets(root: string, resolver: Resolver, members: readonly ProtectedMember[], look: LinkLook | undefined): ProtectedMember[] {
  const found: ProtectedMember[] = [];
  const all = (): ProtectedMember[] => [...members, ...found];
  for (const m of members) {
    if (m.path === STATE_DIR || m === GIT_MEMBER) continue; // a real folder by construction (state-dir.ts); .git's links lead into .git
    if (look !== undefined) lookAlong(root, m.path, look);
    // An install folder (node_modules/editwarden …) is not walked for links: hundreds of entries per opening, and its digest covers them.
    for (const link of [m, ...(m.folder && m.install !== true ? linksBelow(root, m.path, look) : [])]) {
      const target = realTargetOf(resolver, link.path);
      if (target !== null && target !== '' && memberCovering(target, all()) === null)
        found.push({ path: target, folder: link.folder, reason: `${m.reason} — the real target of ${link.path}`, ...(m.install === true ? { install: true } : {}) });
    }
  }
  return found;
}

/** Looks at each prefix of the root-relative `rel` (`a`, `a/b`, …) up to the first that is not a folder: where a walk to it goes. */
function lookAlong(root: string, rel: string, look: LinkLook): void {
  let abs = root;
  for (const part of rel.split('/')) {
    abs = path.join(abs, part);
    if (look.look(abs)?.isDirectory() !== true) return;
  }
}

/** How far the links inside a protected folder are looked for (client settings folders are small; a huge one is not walked whole). */
const LINK_SCAN = { depth: 4, entries: 2000 } as const;

/** The symlinks below the protected folder `rel` (not followed), root-relative; a link to a folder protects that folder. */
function linksBelow(root: string, rel: string, look: LinkLook | undefined): Array<{ path: string; folder: boolean }> {
  const out: Array<{ path: string; folder: boolean }> = [];
  let budget: number = LINK_SCAN.entries;
  const walk = (dir: string, depth: number): void => {
    const abs = path.join(root, ...dir.split('/'));
    // Seen before it is listed. Nothing there, or a file: nothing to list (and no thrown error). A link to a folder
    // is listed where it leads, as readdir does without a look (the look is then not kept: it saw a link).
    const seen = look?.look(abs, true);
    if (seen === null || (seen !== undefined && !seen.isDirectory() && !seen.isSymbolicLink())) return;
    let entries: fs.Dirent[];
    try {
      entries = fs.readdirSync(abs, { withFileTypes: true });
    } catch {
      return; // absent, a file, or a link (the member itself is handled as a link)
    }
    for (const e of entries) {
      if (--budget < 0) {
        look?.spoil(); // a listing cut short says nothing about what lies past it
        return;
      }
      const child = `${dir}/${e.name}`;
      if (e.isSymbolicLink()) {
        look?.spoil();
        let folder = false;
        try {
          folder = fs.statSync(path.join(root, ...child.split('/'))).isDirectory();
        } catch {
          // dangling: protects the file it would create
        }
        out.push({ path: child, folder });
      } else if (e.isDirectory() && depth < LINK_SCAN.depth) walk(child, depth + 1);
    }
  };
  walk(rel, 1);
  return out;
}

/** The root-relative path the kernel reaches for `rel` (links followed physically), or null when it leaves the root or cannot be walked. */
function realTargetOf(resolver: Resolver, rel: string): string | null {
  try {
    const { parts } = lexicalParts(resolver.root, rel);
    const located = resolver.locate(parts, (_kind, detail) => new EditwardenError({ code: ErrorCode.OUTSIDE_ROOT, message: detail, hint: '' }), { followFinal: true });
    located.parent?.close();
    return located.relative === rel ? null : located.relative;
  } catch {
    return null;
  }
}

/** The Policy's reach check without a project: the sealed members are fixed, no configuration adds one (a checkpoint manifest's paths are checked with it). */
export function checkReach(requested: string, ...relatives: string[]): void {
  for (const relative of relatives) {
    const member = sealedMemberOf(relative);
    if (member) throw sealedRefusal(requested, member);
  }
}

function sealedRefusal(requested: string, member: ProtectedMember): EditwardenError {
  return new EditwardenError({
    code: ErrorCode.DENIED_PATH,
    message: `Path ${JSON.stringify(requested)} is inside ${member.path}/, which agents may never read or write (${member.sealed}).`,
    hint: `Leave ${member.path}/ alone; editwarden manages it. Edit project files instead.`,
    path: requested,
  });
}

export function protectedRefusal(requested: string, member: ProtectedMember): EditwardenError {
  return new EditwardenError({
    code: ErrorCode.DENIED_PATH,
    message: `${JSON.stringify(requested)} is protected (${member.path}${member.folder ? '/' : ''}: ${member.reason}); agents may read it but never write it.`,
    hint: `Leave ${member.path} alone and edit project files. A person changes it by hand (client settings: \`editwarden init\`).`,
    path: requested,
  });
}
