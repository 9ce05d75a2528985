/**
 * Path resolution for the one root an agent may touch. Every path an agent
 * names goes through `lexicalParts` and `walkInRoot` before any byte is read or written; it
 * must never hand back a location outside the root, whatever the spelling or
 * the symlinks on the way.
 *
 * It judges only the path's SHAPE (NUL bytes, Windows spellings, escapes by
 * text or by link, loops). What a path NAMES — `.git`, the state folder, a
 * client's settings — is the project's `Policy` (workspace/policy.ts, from the
 * protected set), which the Workspace asks between the two looks here: the
 * text (`lexicalParts`) and the walk (`walkInRoot`).
 */
import path from 'node:path';
import { EditwardenError, ErrorCode } from '../errors.js';
import type { ProtectedMember } from '../config/protected-set.js';
import { Resolver, type Located, type LocateOptions } from './resolver.js';

const DenialReason = {
  NUL_BYTE: 'nul-byte',
  EMPTY: 'empty',
  WINDOWS_PATH: 'windows-path',
  ESCAPES_ROOT: 'escapes-root',
  SYMLINK_ESCAPE: 'symlink-escape',
  SYMLINK_LOOP: 'symlink-loop',
} as const;
type DenialReason = (typeof DenialReason)[keyof typeof DenialReason];

/** editwarden's state folder (its name lives with the protected set; the Policy seals it). */
export { STATE_DIR } from '../config/protected-set.js';

export interface ResolvedPath {
  /** Absolute real location (symlinks inside the root followed). */
  absolute: string;
  /** Path relative to the real root, with "/" separators: the name used in results and globs. */
  relative: string;
  /** Whether something exists there now. */
  exists: boolean;
  /** The protected-set member covering this path as spelled or as the kernel reaches it (workspace/policy.ts): readable, never writable. */
  protectedBy?: ProtectedMember;
}

function outside(requested: string, reason: DenialReason, detail: string): EditwardenError {
  return new EditwardenError({
    code: ErrorCode.OUTSIDE_ROOT,
    message: `Path ${JSON.stringify(requested)} is outside the workspace root (${reason}: ${detail}).`,
    hint: 'Use a path relative to the workspace root, without "..", and do not follow symlinks that lead out of it.',
    path: requested,
  });
}

function toPosix(p: string): string {
  return p.split(path.sep).join('/');
}

function isInside(root: string, candidate: string): boolean {
  if (candidate === root) return true;
  const rel = path.relative(root, candidate);
  // The prefix trick: "/repo-evil" starts with "/repo" but path.relative gives "../repo-evil".
  return rel !== '' && !rel.startsWith('..' + path.sep) && rel !== '..' && !path.isAbsolute(rel);
}

/** Lexical checks of an agent's path: NUL bytes, Windows spellings, escapes. Returns the root-relative components. */
export function lexicalParts(realRoot: string, requested: string): { parts: string[]; lexicalRelative: string } {
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
  // Read as text first: whatever climbs out as text is refused, even where the kernel would land inside.
  if (!isInside(realRoot, lexical)) throw outside(requested, DenialReason.ESCAPES_ROOT, `it resolves to ${lexical}`);
  const rel = path.relative(realRoot, lexical);
  return { parts: kernelParts(realRoot, requested, rel), lexicalRelative: toPosix(rel) };
}

/**
 * The components the kernel will walk, "." and ".." kept: `up/../x` is the
 * parent of wherever `up` really leads, not `x` (the resolver walks ".."
 * from the real folder). An absolute path counts only when it spells the
 * real root literally; otherwise its ".." would be taken from folders
 * outside the root, so it is refused unless it has none.
 */
function kernelParts(realRoot: string, requested: string, lexicalRel: string): string[] {
  const raw = requested.replace(/\/+/g, '/');
  let below: string;
  if (path.isAbsolute(raw)) {
    if (raw === realRoot || raw === `${realRoot}/`) return [];
    if (raw.startsWith(`${realRoot}/`)) below = raw.slice(realRoot.length + 1);
    else if (raw.split('/').includes('..')) throw outside(requested, DenialReason.ESCAPES_ROOT, 'an absolute path with ".." that does not name the root literally');
    else below = lexicalRel;
  } else below = raw;
  return below.split('/').filter((p) => p !== '' && p !== '.');
}

/**
 * The walk of `parts` (from `lexicalParts`): the race-free walk of
 * resolver.ts, with an agent's refusals of shape (a link leading out, a
 * loop). The caller owns `parent` and must close it.
 */
export function walkInRoot(resolver: Resolver, requested: string, parts: string[], options: LocateOptions): Located {
  return resolver.locate(parts, (kind, detail) => outside(requested, kind === 'loop' ? DenialReason.SYMLINK_LOOP : DenialReason.SYMLINK_ESCAPE, kind === 'escape' ? `a symlink leads out: ${detail}` : detail), options);
}

/**
 * Resolves `requested` against `realRoot` (which must already be a real path),
 * judging its shape only: refuses NUL bytes, Windows drive paths, lexical
 * escapes and symlinks — of the file or of any parent — whose target is
 * outside the root. What it names is the Policy's (`Workspace.resolve`).
 * Informational: anything that then reads or writes goes through the
 * Workspace, which acts on the opened parent folder, never on `absolute`.
 */
export function resolveInRoot(realRoot: string, requested: string, resolver: Resolver = new Resolver(realRoot)): ResolvedPath {
  const located = walkInRoot(resolver, requested, lexicalParts(realRoot, requested).parts, { followFinal: true });
  located.parent?.close();
  return { absolute: located.absolute, relative: located.relative, exists: located.stat !== null };
}
