/**
 * Which root an `undo` run from some folder means: the nearest folder, from
 * the start upward, whose `.editwarden/` is a real folder (not a link) that
 * holds recorded checkpoints; failing that, the nearest git root (the
 * project, whose history is simply empty yet). A `.editwarden/` without
 * checkpoints (a stray one older versions made in a subfolder) is passed
 * over. It only looks (lstat); it never creates a state folder, so an undo
 * run in `src/` can no longer leave `src/.editwarden/` behind.
 */
import fs from 'node:fs';
import path from 'node:path';
import { EditwardenError, ErrorCode } from '../../errors.js';
import { STATE_DIR } from '../paths.js';
import { CHECKPOINTS_DIR } from './service.js';
import { GIT_DIR } from '../../config/protected-set.js';

export function findHistoryRoot(start: string): string {
  let dir = path.resolve(start);
  let gitRoot: string | null = null;
  for (;;) {
    // A link named .editwarden could point anywhere: only a real folder is a state folder (state-dir.ts checks it again).
    if (isRealDir(path.join(dir, STATE_DIR)) && isRealDir(path.join(dir, STATE_DIR, CHECKPOINTS_DIR, 'manifests'))) return dir;
    if (gitRoot === null && exists(path.join(dir, GIT_DIR))) gitRoot = dir;
    const parent = path.dirname(dir);
    if (parent === dir) break;
    dir = parent;
  }
  if (gitRoot !== null) return gitRoot;
  throw new EditwardenError({
    code: ErrorCode.NO_ROOT,
    message: `Neither ${path.resolve(start)} nor any folder above it holds editwarden's recorded history (.editwarden/checkpoints) or a git repository.`,
    hint: 'Run it inside the project editwarden worked on, or name the project with --root <dir>.',
  });
}

function isRealDir(p: string): boolean {
  try {
    return fs.lstatSync(p).isDirectory();
  } catch {
    return false;
  }
}

function exists(p: string): boolean {
  try {
    fs.lstatSync(p);
    return true;
  } catch {
    return false;
  }
}
