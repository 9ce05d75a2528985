/**
 * sha256 of files, for proving a rollback exact ("the tree is byte-identical
 * to before"). Read-only.
 */
import fs from 'node:fs';
import path from 'node:path';
import { createHash } from 'node:crypto';
import { GIT_DIR, STATE_DIR } from '../config/protected-set.js';

/** Relative path → sha256 hex (or "absent"). */
export type FileHashes = Record<string, string>;

export function hashFiles(root: string, relatives: readonly string[]): FileHashes {
  const out: FileHashes = {};
  for (const rel of relatives) {
    try {
      out[rel] = createHash('sha256')
        .update(fs.readFileSync(path.join(root, rel)))
        .digest('hex');
    } catch {
      out[rel] = 'absent';
    }
  }
  return out;
}

/** Hashes every file under root except the named top-level folders (build output, state). */
export function hashTree(root: string, skip: readonly string[] = [STATE_DIR, GIT_DIR, 'build', 'node_modules', 'dist']): FileHashes {
  const files: string[] = [];
  const walk = (dir: string, rel: string): void => {
    for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
      const childRel = rel ? `${rel}/${entry.name}` : entry.name;
      if (!rel && skip.includes(entry.name)) continue;
      if (entry.isDirectory()) walk(path.join(dir, entry.name), childRel);
      else if (entry.isFile() || entry.isSymbolicLink()) files.push(childRel);
    }
  };
  walk(root, '');
  return hashFiles(root, files.sort());
}
