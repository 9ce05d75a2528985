/**
 * Tests drive the real binary, which runs dist/: a test must never run
 * against a build older than the sources. Before any test file runs, dist/
 * is brought up to date with `tsc -b tsconfig.build.json` whenever it is
 * missing or any file under src/ is newer than its build info (the build is
 * incremental, so an up-to-date tree costs one stat walk). The binary runs
 * the CLI bundle (scripts/bundle-cli.mjs, made from dist/ after tsc): it is
 * rebuilt whenever it is missing or older than the tsc build, the bundling
 * script or package.json (whose version it inlines). A failing build fails
 * the run instead of testing old code.
 *
 * A run of the unit tier alone (`npm run test:unit`, `vitest run --project
 * unit`) skips the build: no unit test drives the binary or imports the
 * built package (test/tiers.ts keeps such files out of the tier), so a
 * developer editing src/ gets feedback without waiting for a compile.
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import type { TestProject } from 'vitest/node';

const REPO = path.resolve(__dirname, '..');
const BUILD_INFO = path.join(REPO, 'dist', 'build.tsbuildinfo');

function newestMtime(dir: string): number {
  let newest = 0;
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    newest = Math.max(newest, entry.isDirectory() ? newestMtime(full) : fs.statSync(full).mtimeMs);
  }
  return newest;
}

/** Whether dist/ is missing or older than something in src/. */
export function distIsStale(repo = REPO): boolean {
  const info = path.join(repo, 'dist', 'build.tsbuildinfo');
  if (!fs.existsSync(info)) return true;
  return newestMtime(path.join(repo, 'src')) > fs.statSync(info).mtimeMs;
}

/** Whether the CLI bundle the binary runs is missing or older than what it is made from. */
export function bundleIsStale(repo = REPO): boolean {
  const bundle = path.join(repo, 'dist', 'cli-bundle', 'cli.mjs');
  if (!fs.existsSync(bundle)) return true;
  const built = fs.statSync(bundle).mtimeMs;
  const inputs = [path.join(repo, 'dist', 'build.tsbuildinfo'), path.join(repo, 'scripts', 'bundle-cli.mjs'), path.join(repo, 'package.json')];
  return inputs.some((input) => fs.existsSync(input) && fs.statSync(input).mtimeMs > built);
}

/** Whether the tiers a run includes (by project name) drive the build: every tier but `unit` does. */
export function runNeedsBuild(projectNames: readonly string[]): boolean {
  return projectNames.some((name) => name !== 'unit');
}

export default function setup(project: TestProject): void {
  if (!runNeedsBuild(project.vitest.projects.map((p) => p.name))) return;
  if (distIsStale()) buildDist();
  if (bundleIsStale()) {
    const bundle = spawnSync(process.execPath, [path.join(REPO, 'scripts', 'bundle-cli.mjs')], { cwd: REPO, encoding: 'utf8' });
    if (bundle.status !== 0) throw new Error(`the CLI bundle is older than dist/ and bundling failed, so no test runs against stale code:\n${bundle.stdout}${bundle.stderr}`);
  }
}

function buildDist(): void {
  // The compiler `npm run build` uses: TypeScript 7's native one (package.json, devDependency typescript-native).
  const tsc = path.join(REPO, 'node_modules', 'typescript-native', 'bin', 'tsc');
  const build = spawnSync(process.execPath, [tsc, '-b', 'tsconfig.build.json'], { cwd: REPO, encoding: 'utf8' });
  if (build.status !== 0) throw new Error(`dist/ is older than src/ and the build failed, so no test runs against stale code:\n${build.stdout}${build.stderr}`);
  // tsc -b leaves the build info alone when no output changed (a touched but unchanged file): mark it fresh.
  if (fs.existsSync(BUILD_INFO)) {
    const now = new Date();
    fs.utimesSync(BUILD_INFO, now, now);
  }
}
