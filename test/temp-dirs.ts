/**
 * Temp folders for tests that remove themselves: made inside a test, a folder
 * is removed when that test ends (after its afterEach hooks, so a server or a
 * child process stopped there has let go of it); made outside a test (at
 * collection, in beforeAll), when the file's tests end. A test that needs a
 * folder across tests makes it in beforeAll. test/global-temp.ts fails the
 * run if anything is left in the temp folder anyway.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { onTestFinished } from 'vitest';

const madeOutsideTests: string[] = [];

/** Removes `dir`; a process killed at the end of a test may still be finishing its last writes, so retry. */
function removeDir(dir: string): void {
  fs.rmSync(dir, { recursive: true, force: true, maxRetries: 5, retryDelay: 100 });
}

/** A fresh folder under os.tmpdir() (real path: no symlinked /tmp), removed when the current test, or file, ends. */
export function tempDir(prefix: string): string {
  const dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), prefix)));
  try {
    onTestFinished(() => removeDir(dir));
  } catch {
    // Not inside a test (vitest refuses the hook there): remove it when the file's tests end.
    madeOutsideTests.push(dir);
  }
  return dir;
}

/**
 * Removes the folders made outside a test. Registered for every test file by
 * the setup file test/temp-dirs-setup.ts, not here: in the integration tier a
 * worker imports this module once for many files (vitest.config.ts,
 * `isolate: false`), so a hook registered at import would end only the first
 * file's folders.
 */
export function removeMadeOutsideTests(): void {
  for (const dir of madeOutsideTests.splice(0)) removeDir(dir);
}
