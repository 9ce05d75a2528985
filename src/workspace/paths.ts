/**
 * Path resolution for the one root an agent may touch. Every path an agent
 * names goes through `resolveInRoot` before any byte is read or written; it
 * must never hand back a location outside the root, whatever the spelling or
 * the symlinks on the way.
 */
import fs from 'node:fs';
import path from 'node:path';
import { EditwardenError, ErrorCode } from '../errors.js';

export const DenialReason = {
  NUL_BYTE: 'nul-byte',
  EMPTY: 'empty',
  WINDOWS_PATH: 'windows-path',
  ESCAPES_ROOT: 'escapes-root',
  SYMLINK_ESCAPE: 'symlink-escape',
  SYMLINK_LOOP: 'symlink-loop',
  STATE_DIR: 'state-dir',
  GIT_DIR: 'git-dir',
} as const;
export type DenialReason = (typeof DenialReason)[keyof typeof DenialReason];

/** Folders no agent may touch, whatever the configuration says. */
export const STATE_DIR = '.editwarden';

export interface ResolvedPath {
  /** Absolute real location (symlinks inside the root followed). */
  absolute: string;
  /** Path relative to the real root, with "/" separators: the name used in results and globs. */
  relative: string;
  /** Whether something exists there now. */
  exists: boolean;
}

function outside(requested: string, reason: DenialReason, detail: string): EditwardenError {
  return new EditwardenError({
    code: ErrorCode.OUTSIDE_ROOT,
    message: `Path ${JSON.stringify(requested)} is outside the workspace root (${reason}: ${detail}).`,
    hint: 'Use a path relative to the workspace root, without "..", and do not follow symlinks that lead out of it.',
    path: requested,
  });
}

function denied(requested: string, reason: DenialReason, dir: string): EditwardenError {
  return new EditwardenError({
    code: ErrorCode.DENIED_PATH,
    message: `Path ${JSON.stringify(requested)} is inside ${dir}/, which agents may never read or write (${reason}).`,
    hint: `Leave ${dir}/ alone; editwarden manages it. Edit project files instead.`,
    path: requested,
  });
}

export function toPosix(p: string): string {
  return p.split(path.sep).join('/');
}

function isInside(root: string, candidate: string): boolean {
  if (candidate === root) return true;
  const rel = path.relative(root, candidate);
  // The prefix trick: "/repo-evil" starts with "/repo" but path.relative gives "../repo-evil".
  return rel !== '' && !rel.startsWith('..' + path.sep) && rel !== '..' && !path.isAbsolute(rel);
}

/** Checks the denied folders on the path relative to the real root. */
export function checkDeniedRelative(requested: string, relative: string): void {
  const segments = relative.split('/');
  if (segments[0] === STATE_DIR) throw denied(requested, DenialReason.STATE_DIR, STATE_DIR);
  // Any .git segment: the repository's own and those of submodules and nested clones.
  if (segments.includes('.git')) throw denied(requested, DenialReason.GIT_DIR, '.git');
}

/**
 * Resolves `requested` against `realRoot` (which must already be a real path).
 * Refuses NUL bytes, Windows drive paths, lexical escapes and symlinks — of the
 * file or of any parent — whose target is outside the root.
 */
export function resolveInRoot(realRoot: string, requested: string): ResolvedPath {
  if (requested.length === 0) {
    throw new EditwardenError({
      code: ErrorCode.OUTSIDE_ROOT,
      message: 'An empty path names no file.',
      hint: 'Give the path of a file relative to the workspace root.',
      path: requested,
    });
  }
  // NUL bytes truncate paths in C APIs: "ok.txt\0/../../etc/passwd".
  if (requested.includes('\0')) throw outside(requested, DenialReason.NUL_BYTE, 'the path contains a NUL byte');
  // A Windows drive or UNC path on POSIX would otherwise become a relative file name.
  if (path.sep === '/' && (/^[a-zA-Z]:[\\/]/.test(requested) || requested.startsWith('\\\\'))) {
    throw outside(requested, DenialReason.WINDOWS_PATH, 'a Windows drive or UNC path');
  }
  const lexical = path.resolve(realRoot, requested);
  if (!isInside(realRoot, lexical)) throw outside(requested, DenialReason.ESCAPES_ROOT, `it resolves to ${lexical}`);

  const real = realLocation(realRoot, lexical, requested);
  if (!isInside(realRoot, real.absolute)) {
    throw outside(requested, DenialReason.SYMLINK_ESCAPE, `a symlink leads to ${real.absolute}`);
  }
  const relative = toPosix(path.relative(realRoot, real.absolute));
  checkDeniedRelative(requested, relative);
  // The lexical spelling may dodge the check (".editwarden" reached through a symlink is caught above; "x/../.git" here).
  checkDeniedRelative(requested, toPosix(path.relative(realRoot, lexical)));
  return { absolute: real.absolute, relative, exists: real.exists };
}

/**
 * Follows symlinks component by component, like realpath, but also for paths
 * whose tail does not exist yet (a file to create in a folder to create).
 */
function realLocation(realRoot: string, lexical: string, requested: string): { absolute: string; exists: boolean } {
  const rel = path.relative(realRoot, lexical);
  const parts = rel === '' ? [] : rel.split(path.sep);
  let current = realRoot;
  let hops = 0;
  const queue = [...parts];
  while (queue.length > 0) {
    const part = queue.shift() as string;
    const next = path.join(current, part);
    let stat: fs.Stats;
    try {
      stat = fs.lstatSync(next);
    } catch {
      // The rest does not exist: it will be created lexically under `current`.
      return { absolute: path.join(next, ...queue), exists: false };
    }
    if (stat.isSymbolicLink()) {
      if (++hops > 40) throw outside(requested, DenialReason.SYMLINK_LOOP, 'too many symlinks');
      const target = fs.readlinkSync(next);
      const resolved = path.resolve(current, target);
      // Every hop must stay inside: a link out and back in is still refused.
      if (!isInside(realRoot, resolved)) {
        throw outside(requested, DenialReason.SYMLINK_ESCAPE, `${toPosix(path.relative(realRoot, next))} links to ${resolved}`);
      }
      const restart = path.relative(realRoot, resolved);
      queue.unshift(...(restart === '' ? [] : restart.split(path.sep)));
      current = realRoot;
      continue;
    }
    current = next;
  }
  return { absolute: current, exists: true };
}
