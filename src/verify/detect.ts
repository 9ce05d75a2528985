/**
 * Project detection: from the files present at the root, which ecosystems
 * this is, and the commands that build and test it. Config (`verify.build`,
 * `verify.test`) overrides whatever is found here. Only reads, never runs a
 * command, never writes; a missing or unreadable file just means "not this".
 *
 * When several ecosystems live in one root, the build and test commands are
 * taken from the first in PRIORITY that has one: the native build systems
 * first (their build is the real one), a hand-written Makefile last (it is
 * often a set of helpers around one of the others).
 */
import fs from 'node:fs';
import path from 'node:path';
import { readSmallFile } from '../small-file.js';

/** Largest project manifest (package.json, Cargo.toml, a Makefile…) read to detect the build. */
const MAX_MANIFEST_BYTES = 4 * 1024 * 1024;

const ProjectKind = {
  CMAKE: 'cmake',
  MESON: 'meson',
  CARGO: 'cargo',
  GO: 'go',
  MAVEN: 'maven',
  GRADLE: 'gradle',
  NODE: 'node',
  TYPESCRIPT: 'typescript',
  PYTHON: 'python',
  MAKE: 'make',
} as const;
type ProjectKind = (typeof ProjectKind)[keyof typeof ProjectKind];

const PRIORITY: readonly ProjectKind[] = ['cmake', 'meson', 'cargo', 'go', 'maven', 'gradle', 'node', 'typescript', 'python', 'make'];

type TestFramework = 'vitest' | 'jest' | 'mocha' | 'node:test' | 'pytest' | 'unittest' | 'go test' | 'cargo test' | 'ctest' | 'gtest' | 'junit' | 'meson';

type PackageManager = 'npm' | 'pnpm' | 'yarn' | 'bun';

interface DetectedProject {
  kind: ProjectKind;
  build: string | null;
  test: string | null;
  framework: TestFramework | null;
  /** Files that led to this reading, relative to the root. */
  evidence: string[];
  packageManager?: PackageManager;
}

export interface Detection {
  root: string;
  kinds: ProjectKind[];
  projects: DetectedProject[];
  /** The build command chosen (first project in PRIORITY with one). */
  build: string | null;
  test: string | null;
  framework: TestFramework | null;
}

/** A tiny read-only view of the root, so each detector reads only what it needs. */
class Files {
  constructor(readonly root: string) {}
  has(rel: string): boolean {
    return fs.existsSync(path.join(this.root, rel));
  }
  isDir(rel: string): boolean {
    try {
      return fs.statSync(path.join(this.root, rel)).isDirectory();
    } catch {
      return false;
    }
  }
  text(rel: string): string | null {
    try {
      // A repository's own files: a committed link to /dev/zero or a FIFO is not read (small-file.ts), it counts as absent.
      return readSmallFile(path.join(this.root, rel), { maxBytes: MAX_MANIFEST_BYTES, follow: true }).toString('utf8');
    } catch {
      return null;
    }
  }
  first(names: readonly string[]): string | null {
    return names.find((n) => this.has(n)) ?? null;
  }
  list(rel = '.'): string[] {
    try {
      return fs.readdirSync(path.join(this.root, rel));
    } catch {
      return [];
    }
  }
}

type Detector = (files: Files) => DetectedProject | null;

export function detectProject(root: string): Detection {
  const files = new Files(root);
  const detectors: Record<ProjectKind, Detector> = {
    cmake: detectCmake,
    meson: detectMeson,
    cargo: detectCargo,
    go: detectGo,
    maven: detectMaven,
    gradle: detectGradle,
    node: detectNode,
    typescript: detectTypescript,
    python: detectPython,
    make: detectMake,
  };
  const projects: DetectedProject[] = [];
  for (const kind of PRIORITY) {
    const found = detectors[kind](files);
    if (found) projects.push(found);
  }
  const withBuild = projects.find((p) => p.build !== null);
  const withTest = projects.find((p) => p.test !== null);
  return {
    root,
    kinds: projects.map((p) => p.kind),
    projects,
    build: withBuild?.build ?? null,
    test: withTest?.test ?? null,
    framework: withTest?.framework ?? null,
  };
}

// ---- C and C++ -------------------------------------------------------------

const CMAKE_BUILD_DIRS = ['build', 'cmake-build-debug', 'cmake-build-release', 'out/build', '_build', 'builddir'];

function detectCmake(files: Files): DetectedProject | null {
  const lists = files.text('CMakeLists.txt');
  if (lists === null) return null;
  const evidence = ['CMakeLists.txt'];
  // An in-source build keeps its cache in the root.
  const existing = files.has('CMakeCache.txt') ? '.' : (CMAKE_BUILD_DIRS.find((d) => files.has(`${d}/CMakeCache.txt`)) ?? null);
  if (existing) evidence.push(existing === '.' ? 'CMakeCache.txt' : `${existing}/CMakeCache.txt`);
  const dir = existing ?? 'build';
  // Configuring is idempotent, so a missing cache is fixed by configuring first.
  const build = existing ? `cmake --build ${dir}` : `cmake -S . -B ${dir} && cmake --build ${dir}`;
  const testLists = [lists, files.text('test/CMakeLists.txt') ?? '', files.text('tests/CMakeLists.txt') ?? ''].join('\n');
  const hasTests = /\b(enable_testing|add_test|include\s*\(\s*CTest|gtest_discover_tests|gtest_add_tests)\b/i.test(testLists);
  const framework: TestFramework | null = hasTests ? (/\b(GTest|gtest|GoogleTest)\b/.test(testLists) ? 'gtest' : 'ctest') : null;
  const test = hasTests ? `${existing ? '' : `${build} && `}ctest --test-dir ${dir} --output-on-failure` : null;
  return { kind: 'cmake', build, test, framework, evidence };
}

function detectMeson(files: Files): DetectedProject | null {
  if (!files.has('meson.build')) return null;
  const existing = ['builddir', 'build', '_build'].find((d) => files.isDir(`${d}/meson-private`)) ?? null;
  const dir = existing ?? 'builddir';
  const setup = existing ? '' : `meson setup ${dir} && `;
  return {
    kind: 'meson',
    build: `${setup}meson compile -C ${dir}`,
    test: `${setup}meson test -C ${dir}`,
    framework: 'meson',
    evidence: existing ? ['meson.build', `${existing}/meson-private`] : ['meson.build'],
  };
}

const MAKEFILES = ['GNUmakefile', 'makefile', 'Makefile'];

function detectMake(files: Files): DetectedProject | null {
  const name = files.first(MAKEFILES);
  if (!name) return null;
  const text = files.text(name) ?? '';
  // A Makefile that CMake generated in an in-source build is CMake's, not the project's.
  if (/^# CMAKE generated file/m.test(text)) return null;
  const targets = new Set([...text.matchAll(/^([A-Za-z0-9_.-]+)\s*:(?!=)/gm)].map((m) => m[1] as string));
  const testTarget = targets.has('test') ? 'test' : targets.has('check') ? 'check' : null;
  return { kind: 'make', build: 'make', test: testTarget ? `make ${testTarget}` : null, framework: null, evidence: [name] };
}

// ---- Rust, Go, JVM ---------------------------------------------------------

function detectCargo(files: Files): DetectedProject | null {
  if (!files.has('Cargo.toml')) return null;
  return { kind: 'cargo', build: 'cargo build', test: 'cargo test', framework: 'cargo test', evidence: ['Cargo.toml'] };
}

function detectGo(files: Files): DetectedProject | null {
  if (!files.has('go.mod')) return null;
  return { kind: 'go', build: 'go build ./...', test: 'go test ./...', framework: 'go test', evidence: ['go.mod'] };
}

function detectMaven(files: Files): DetectedProject | null {
  const pom = files.text('pom.xml');
  if (pom === null) return null;
  const mvn = files.has('mvnw') ? './mvnw' : 'mvn';
  return {
    kind: 'maven',
    build: `${mvn} -B -q compile`,
    test: `${mvn} -B -q test`,
    framework: /junit/i.test(pom) ? 'junit' : null,
    evidence: files.has('mvnw') ? ['pom.xml', 'mvnw'] : ['pom.xml'],
  };
}

function detectGradle(files: Files): DetectedProject | null {
  const name = files.first(['build.gradle.kts', 'build.gradle']);
  if (!name) return null;
  const text = files.text(name) ?? '';
  const gradle = files.has('gradlew') ? './gradlew' : 'gradle';
  return {
    kind: 'gradle',
    build: `${gradle} assemble`,
    test: `${gradle} test`,
    framework: /junit|useJUnitPlatform/i.test(text) ? 'junit' : null,
    evidence: files.has('gradlew') ? [name, 'gradlew'] : [name],
  };
}

// ---- JavaScript and TypeScript ---------------------------------------------

interface PackageJson {
  scripts?: Record<string, string>;
  dependencies?: Record<string, string>;
  devDependencies?: Record<string, string>;
  packageManager?: string;
}

const NPM_PLACEHOLDER_TEST = /no test specified/;
const LOCKFILES: readonly [string, PackageManager][] = [
  ['pnpm-lock.yaml', 'pnpm'],
  ['yarn.lock', 'yarn'],
  ['bun.lockb', 'bun'],
  ['bun.lock', 'bun'],
  ['package-lock.json', 'npm'],
  ['npm-shrinkwrap.json', 'npm'],
];

function readPackageJson(files: Files): PackageJson | null {
  const text = files.text('package.json');
  if (text === null) return null;
  try {
    const data: unknown = JSON.parse(text);
    return data && typeof data === 'object' ? (data as PackageJson) : {};
  } catch {
    // A broken package.json is still a Node project; its scripts are just unknown.
    return {};
  }
}

function packageManagerOf(files: Files, pkg: PackageJson): { pm: PackageManager; evidence: string | null } {
  const declared = /^(npm|pnpm|yarn|bun)@/.exec(pkg.packageManager ?? '');
  if (declared) return { pm: declared[1] as PackageManager, evidence: 'package.json#packageManager' };
  for (const [file, pm] of LOCKFILES) if (files.has(file)) return { pm, evidence: file };
  return { pm: 'npm', evidence: null };
}

function runScript(pm: PackageManager, script: string): string {
  if (script === 'test' && pm !== 'bun') return `${pm} test`;
  // `bun test` is bun's own test runner, not the script: always say "run".
  return `${pm} run ${script}`;
}

function frameworkOfScript(script: string): TestFramework | null {
  if (/\bvitest\b/.test(script)) return 'vitest';
  if (/\bjest\b/.test(script)) return 'jest';
  if (/\bmocha\b/.test(script)) return 'mocha';
  if (/(^|\s)(node|tsx)\s+(?:[^|&;]*\s)?--test\b/.test(script)) return 'node:test';
  return null;
}

function detectNode(files: Files): DetectedProject | null {
  const pkg = readPackageJson(files);
  if (pkg === null) return null;
  const { pm, evidence: pmEvidence } = packageManagerOf(files, pkg);
  const scripts = pkg.scripts ?? {};
  const deps = { ...pkg.dependencies, ...pkg.devDependencies };
  const buildScript = ['build', 'typecheck', 'type-check', 'compile'].find((s) => typeof scripts[s] === 'string') ?? null;
  const testScript = typeof scripts.test === 'string' && !NPM_PLACEHOLDER_TEST.test(scripts.test) ? scripts.test : null;
  let framework = testScript ? frameworkOfScript(testScript) : null;
  if (!framework) framework = (['vitest', 'jest', 'mocha'] as const).find((d) => d in deps) ?? null;
  let test = testScript !== null ? runScript(pm, 'test') : null;
  if (test === null && (framework === 'vitest' || framework === 'jest')) test = framework === 'vitest' ? 'npx vitest run' : 'npx jest';
  const evidence = ['package.json', ...(pmEvidence && pmEvidence !== 'package.json#packageManager' ? [pmEvidence] : [])];
  return { kind: 'node', build: buildScript ? runScript(pm, buildScript) : null, test, framework, evidence, packageManager: pm };
}

function detectTypescript(files: Files): DetectedProject | null {
  if (!files.has('tsconfig.json')) return null;
  // The project's own compiler when installed; npx would otherwise fetch one from the registry.
  const tsc = files.has('node_modules/.bin/tsc') ? 'node_modules/.bin/tsc' : 'npx --no-install tsc';
  return { kind: 'typescript', build: `${tsc} --noEmit -p tsconfig.json`, test: null, framework: null, evidence: ['tsconfig.json'] };
}

// ---- Python ----------------------------------------------------------------

function detectPython(files: Files): DetectedProject | null {
  const markers = ['pyproject.toml', 'setup.cfg', 'setup.py'].filter((f) => files.has(f));
  if (markers.length === 0) return null;
  const configs = ['pyproject.toml', 'setup.cfg', 'tox.ini', 'requirements-dev.txt', 'requirements.txt'].map((f) => files.text(f) ?? '').join('\n');
  const pytest = files.has('pytest.ini') || files.has('conftest.py') || /\[tool\.pytest|\[tool:pytest\]|^\[pytest\]|\bpytest\b/m.test(configs);
  const evidence = [...markers, ...(files.has('pytest.ini') ? ['pytest.ini'] : []), ...(files.has('conftest.py') ? ['conftest.py'] : [])];
  if (pytest) return { kind: 'python', build: null, test: 'python3 -m pytest', framework: 'pytest', evidence };
  const testDir = ['tests', 'test'].find((d) => files.isDir(d));
  const hasTests = testDir !== undefined || files.list().some((f) => /^test_.*\.py$/.test(f));
  if (testDir) evidence.push(`${testDir}/`);
  // unittest's discovery fails when it finds nothing, so it is only proposed when tests exist.
  return { kind: 'python', build: null, test: hasTests ? 'python3 -m unittest discover' : null, framework: hasTests ? 'unittest' : null, evidence };
}
