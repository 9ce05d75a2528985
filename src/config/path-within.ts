/**
 * Whether a path lies in a folder (or is it), by text: both paths absolute
 * and already resolved the way the caller needs (real paths where links
 * matter). One rule for the floors that ask it: the config loader (a
 * config or trust folder inside the repository is not the person's), the
 * sandbox (a bind inside the root, a mask beside it) and `editwarden trust`.
 */
import path from 'node:path';

export function isWithin(child: string, parent: string): boolean {
  const rel = path.relative(parent, child);
  return rel === '' || (!rel.startsWith('..') && !path.isAbsolute(rel));
}
