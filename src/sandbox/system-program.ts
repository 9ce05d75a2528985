/**
 * A program editwarden runs outside the sandbox, found at a system location
 * only — never through PATH, where `npx editwarden` (or a person's direnv)
 * puts a project's own node_modules/.bin first, and a hostile repository can
 * ship a `python3`, `strace` or `mkfifo` of its own that would then run as
 * the person, unconfined. The rule detect.ts keeps for bubblewrap.
 */
import fs from 'node:fs';
import path from 'node:path';

/** Where the system's own programs live (Debian, Fedora, Arch, Alpine, macOS). */
const SYSTEM_BIN_DIRS: readonly string[] = ['/usr/bin', '/usr/local/bin', '/bin'];

/** The first executable regular file named `name` in the system folders, or null. */
export function systemProgram(name: string): string | null {
  for (const dir of SYSTEM_BIN_DIRS) {
    const candidate = path.join(dir, name);
    try {
      fs.accessSync(candidate, fs.constants.X_OK);
      if (fs.statSync(candidate).isFile()) return candidate;
    } catch {
      // Not here.
    }
  }
  return null;
}
