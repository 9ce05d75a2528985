/**
 * One line after vitest's own summary that says how each tier did, e.g.
 *
 *   Tiers  unit 803 passed (33 files, 47 s) · integration 905 passed (104 files, 260 s) · e2e 41 passed (5 files, 150 s)
 *
 * The seconds are the sum of the tier's file times (import, setup, tests and
 * hooks): the tiers run side by side on the same workers, so this is what each
 * costs, not a stretch of wall time. .ci/run prints this line with its own.
 *
 * Skipped tests are counted once more at the end of the line by their
 * reason, e.g. `· skipped 3 (needs root)`: the reason is a skip note up to
 * its first colon (`ctx.skip(!root, 'needs root: creates a user')`,
 * test/needs-root.ts); a skip without a note counts as `no reason given`.
 * A run that did not cover everything says so, and why, in the line CI reads.
 */
import type { Reporter, TestModule, Vitest } from 'vitest/node';
import { TIERS } from './tiers.js';

export interface TierCount {
  tier: string;
  files: number;
  passed: number;
  failed: number;
  skipped: number;
  /** Sum of the files' times, in milliseconds. */
  time: number;
}

/** Counts by tier (project name), tiers in their fixed order, then any other project. */
export function countByTier(modules: ReadonlyArray<TestModule>): TierCount[] {
  const counts = new Map<string, TierCount>();
  for (const module of modules) {
    const tier = module.project.name;
    const count = counts.get(tier) ?? { tier, files: 0, passed: 0, failed: 0, skipped: 0, time: 0 };
    count.files += 1;
    for (const test of module.children.allTests()) {
      const state = test.result().state;
      if (state === 'passed') count.passed += 1;
      else if (state === 'failed') count.failed += 1;
      else count.skipped += 1;
    }
    const d = module.diagnostic();
    count.time += d.prepareDuration + d.environmentSetupDuration + d.setupDuration + d.collectDuration + d.duration;
    counts.set(tier, count);
  }
  const order = (tier: string) => {
    const i = (TIERS as readonly string[]).indexOf(tier);
    return i === -1 ? TIERS.length : i;
  };
  return [...counts.values()].sort((a, b) => order(a.tier) - order(b.tier));
}

/** How many tests were skipped for each reason (a skip note up to its first colon), most first. */
export function skipReasons(modules: ReadonlyArray<TestModule>): Array<[reason: string, count: number]> {
  const reasons = new Map<string, number>();
  for (const module of modules) {
    for (const test of module.children.allTests()) {
      const result = test.result();
      if (result.state !== 'skipped') continue;
      const reason = result.note?.split(':')[0]?.trim() || 'no reason given';
      reasons.set(reason, (reasons.get(reason) ?? 0) + 1);
    }
  }
  return [...reasons].sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]));
}

export function tierLine(counts: readonly TierCount[], skipped: ReadonlyArray<[reason: string, count: number]> = []): string {
  const part = (c: TierCount) => {
    const outcomes = [`${c.passed} passed`, ...(c.failed > 0 ? [`${c.failed} failed`] : []), ...(c.skipped > 0 ? [`${c.skipped} skipped`] : [])].join(', ');
    return `${c.tier} ${outcomes} (${c.files} file${c.files === 1 ? '' : 's'}, ${Math.round(c.time / 1000)} s)`;
  };
  return `   Tiers  ${[...counts.map(part), ...skipped.map(([reason, n]) => `skipped ${n} (${reason})`)].join(' · ')}`;
}

export default class TierSummary implements Reporter {
  private vitest: Vitest | undefined;

  onInit(vitest: Vitest): void {
    this.vitest = vitest;
  }

  onTestRunEnd(modules: ReadonlyArray<TestModule>): void {
    const counts = countByTier(modules);
    if (counts.length > 0) this.vitest?.logger.log(tierLine(counts, skipReasons(modules)));
  }
}
