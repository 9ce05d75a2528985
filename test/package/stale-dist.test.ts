/**
 * The suite never runs against a dist/ older than src/ (test/global-setup.ts
 * rebuilds first): its staleness rule, on real files with real mtimes.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { bundleIsStale, distIsStale } from '../global-setup.js';

let repo: string;
beforeEach(() => {
  repo = fs.mkdtempSync(path.join(os.tmpdir(), 'ew-stale-'));
  fs.mkdirSync(path.join(repo, 'src', 'deep'), { recursive: true });
  fs.writeFileSync(path.join(repo, 'src', 'deep', 'a.ts'), 'export const a = 1;\n');
});
afterEach(() => fs.rmSync(repo, { recursive: true, force: true }));

function age(file: string, secondsAgo: number): void {
  const t = new Date(Date.now() - secondsAgo * 1000);
  fs.utimesSync(file, t, t);
}

describe('dist/ is stale when it is missing or older than any source', () => {
  it('no build at all is stale', () => {
    expect(distIsStale(repo)).toBe(true);
  });

  it('a build newer than every source is fresh; one edited source deep in src/ makes it stale', () => {
    fs.mkdirSync(path.join(repo, 'dist'));
    fs.writeFileSync(path.join(repo, 'dist', 'build.tsbuildinfo'), '{}');
    // The build 30 s ago, the source before it: the edit below is later than the build by more than any clock tick.
    age(path.join(repo, 'dist', 'build.tsbuildinfo'), 30);
    age(path.join(repo, 'src', 'deep', 'a.ts'), 60);
    expect(distIsStale(repo)).toBe(false);
    fs.writeFileSync(path.join(repo, 'src', 'deep', 'a.ts'), 'export const a = 2;\n');
    expect(distIsStale(repo)).toBe(true);
  });
});

describe('the CLI bundle is stale when it is missing or older than the build, its script or package.json', () => {
  it('follows each of its inputs', () => {
    const bundle = path.join(repo, 'dist', 'cli-bundle', 'cli.mjs');
    const info = path.join(repo, 'dist', 'build.tsbuildinfo');
    const script = path.join(repo, 'scripts', 'bundle-cli.mjs');
    const manifest = path.join(repo, 'package.json');
    fs.mkdirSync(path.dirname(bundle), { recursive: true });
    fs.mkdirSync(path.dirname(script), { recursive: true });
    for (const file of [info, script, manifest]) {
      fs.writeFileSync(file, '{}');
      age(file, 60);
    }
    expect(bundleIsStale(repo)).toBe(true);
    fs.writeFileSync(bundle, '');
    expect(bundleIsStale(repo)).toBe(false);
    for (const file of [info, script, manifest]) {
      // A second after the bundle: "now" in whole milliseconds can fall before the bundle's own finer mtime, written a moment earlier.
      age(file, -1);
      expect(bundleIsStale(repo), file).toBe(true);
      age(file, 60);
    }
    expect(bundleIsStale(repo)).toBe(false);
  });
});

describe('the test run is wired to rebuild a stale dist/', () => {
  it('vitest.config.ts names the global setup', () => {
    expect(fs.readFileSync(path.resolve(__dirname, '../../vitest.config.ts'), 'utf8')).toMatch(/globalSetup: \[[^\]]*'test\/global-setup\.ts'/);
  });
});
