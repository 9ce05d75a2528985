// npm ci refuses a lock that names a dependency it does not hold ("Missing: X from lock file"), optional platform
// packages included — and a registry that answers 404 for another system's binaries (this machine's) lets
// `npm install` write such a lock without a word. CI's first step is npm ci: this says it here, first.
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

const REPO = path.resolve(__dirname, '../..');

interface LockEntry {
  dependencies?: Record<string, string>;
  optionalDependencies?: Record<string, string>;
}

/** Where npm looks for `dep` required by the entry at `at`: its own node_modules, then each folder above. */
function resolves(packages: Record<string, LockEntry>, at: string, dep: string): boolean {
  let base = at;
  for (;;) {
    if (packages[`${base === '' ? '' : `${base}/`}node_modules/${dep}`]) return true;
    if (base === '') return false;
    const cut = base.lastIndexOf('/node_modules/');
    base = cut < 0 ? '' : base.slice(0, cut);
  }
}

describe('package-lock.json', () => {
  it('holds an entry for every dependency and optional dependency its packages name (npm ci would refuse it otherwise)', () => {
    const lock = JSON.parse(fs.readFileSync(path.join(REPO, 'package-lock.json'), 'utf8')) as { packages: Record<string, LockEntry> };
    const missing: string[] = [];
    for (const [at, entry] of Object.entries(lock.packages)) {
      for (const dep of [...Object.keys(entry.dependencies ?? {}), ...Object.keys(entry.optionalDependencies ?? {})]) {
        if (!resolves(lock.packages, at, dep)) missing.push(`${dep} (named by ${at || 'the root'})`);
      }
    }
    expect(missing).toEqual([]);
  });
});
