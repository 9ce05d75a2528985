/**
 * Headless Chromium for the tests that look at a report as a person does:
 * Debian's `chromium` (`.ci/run` installs it; never a downloaded browser),
 * each run with a profile and temp folder of its own that are removed with
 * the test's temp folders. A missing browser fails the test, never skips it.
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { tempDir } from '../temp-dirs.js';

let found: string | undefined;
/** $CHROMIUM, else `chromium` or `chromium-browser` on PATH (looked up once per file: each look-up runs the browser). */
export function findChromium(): string {
  if (found !== undefined) return found;
  const candidates = [process.env.CHROMIUM, 'chromium', 'chromium-browser'].filter((c): c is string => c !== undefined && c !== '');
  for (const c of candidates) {
    if (spawnSync(c, ['--version'], { encoding: 'utf8' }).status === 0) {
      found = c;
      return c;
    }
  }
  throw new Error('No Chromium found: the HTML report is checked in a real browser. Install it (Debian/Ubuntu: `sudo apt-get install -y chromium`) or point $CHROMIUM at the binary.');
}

/** Runs headless Chromium on a file with its own profile and temp folder (nothing is left behind). */
export function chromium(page: string, args: string[]): { stdout: string; stderr: string } {
  const home = tempDir('ew-chromium-');
  // Chromium puts its singleton socket under TMPDIR, and a socket's path has at most 107 bytes: under a long TMPDIR
  // (a clone in a deep folder, a test run's own) it dies with "Socket path too long". A short folder of its own, removed after.
  const socketDir = shortTemp();
  try {
    const r = spawnSync(
      findChromium(),
      ['--headless', '--disable-gpu', '--no-sandbox', '--no-first-run', '--disable-extensions', '--enable-logging=stderr', '--v=0', `--user-data-dir=${path.join(home, 'profile')}`, ...args, `file://${page}`],
      { encoding: 'utf8', env: { ...process.env, HOME: home, TMPDIR: socketDir ?? home, XDG_CONFIG_HOME: home, XDG_CACHE_HOME: home }, timeout: 90_000 },
    );
    if (r.status !== 0) throw new Error(`chromium exited ${r.status}: ${r.stderr}`);
    return { stdout: r.stdout, stderr: r.stderr };
  } finally {
    if (socketDir !== null) fs.rmSync(socketDir, { recursive: true, force: true });
  }
}

/** A fresh folder under /tmp (short), or null where there is none to use (then the test's own temp folder). */
function shortTemp(): string | null {
  try {
    return fs.mkdtempSync('/tmp/ewc-');
  } catch {
    return null;
  }
}

/** The console lines Chromium logged for the page (`:CONSOLE` in its log). */
export const consoleLines = (stderr: string): string[] => stderr.split('\n').filter((l) => /:CONSOLE[:(]/.test(l));
