/**
 * One line after vitest's own summary that says how each tier did, e.g.
 *
 *   Tiers  unit 803 passed (33 files, 47 s) · integration 905 passed (104 files, 260 s) · e2e 41 passed (5 files, 150 s)
 *
 * The seconds are the sum of the tier's file times (import, setup, tests and
 * hooks): the tiers run side by side on the same workers, so this is what each
 * costs, not a stretch of wall time. .ci/run prints this line with its own.
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

export function tierLine(counts: readonly TierCount[]): string {
  const part = (c: TierCount) => {
    const outcomes = [`${c.passed} passed`, ...(c.failed > 0 ? [`${c.failed} failed`] : []), ...(c.skipped > 0 ? [`${c.skipped} skipped`] : [])].join(', ');
    return `${c.tier} ${outcomes} (${c.files} file${c.files === 1 ? '' : 's'}, ${Math.round(c.time / 1000)} s)`;
  };
  return `   Tiers  ${counts.map(part).join(' · ')}`;
}

export default class TierSummary implements Reporter {
  private vitest: Vitest | undefined;

  onInit(vitest: Vitest): void {
    this.vitest = vitest;
  }

  onTestRunEnd(modules: ReadonlyArray<TestModule>): void {
    const counts = countByTier(modules);
    if (counts.length > 0) this.vitest?.logger.log(tierLine(counts));
  }
}
