/**
 * Tests that only root can run (they create an OS user, chown to another
 * uid, or prove what a root-run sandbox hides) skip anywhere else, saying
 * why: an ordinary user's `npm test` passes, and the closing tier line
 * counts them (`skipped N (needs root)`, test/tier-summary.ts) so a run that
 * did not cover them says so. .ci/run runs the suite as root, where it
 * fails when anything was skipped, and once more as an ordinary user.
 *
 * A skip's note is `<reason>: <details>`: the tier line counts skips by the
 * reason before the colon.
 */
import type { TestContext } from 'vitest';

export const IS_ROOT = typeof process.getuid === 'function' && process.getuid() === 0;

/** The reason the tier line counts these skips under. */
const NEEDS_ROOT = 'needs root';

/** Skips the running test unless this process is root; `why` says what in it needs root. */
export function skipUnlessRoot(context: TestContext, why: string): void {
  context.skip(!IS_ROOT, `${NEEDS_ROOT}: ${why}`);
}
