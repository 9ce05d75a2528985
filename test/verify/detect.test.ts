import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, test } from 'vitest';
import { detectProject } from '../../src/verify/detect.js';

const here = path.dirname(fileURLToPath(import.meta.url));
const fixture = (name: string) => path.join(here, '../fixtures/verify/detect', name);
const pick = (name: string) => {
  const d = detectProject(fixture(name));
  return { kinds: d.kinds, build: d.build, test: d.test, framework: d.framework };
};

describe('JavaScript and TypeScript', () => {
  test('npm (package-lock) with build and vitest scripts, plus a tsconfig', () => {
    expect(pick('node-npm-vitest')).toEqual({ kinds: ['node', 'typescript'], build: 'npm run build', test: 'npm test', framework: 'vitest' });
    expect(detectProject(fixture('node-npm-vitest')).projects[0]).toMatchObject({ packageManager: 'npm', evidence: ['package.json', 'package-lock.json'] });
  });
  test('pnpm lockfile and a jest script; no build script and no tsconfig means no build', () => {
    expect(pick('node-pnpm-jest')).toEqual({ kinds: ['node'], build: null, test: 'pnpm test', framework: 'jest' });
  });
  test('yarn lockfile, a "compile" script as the build, mocha', () => {
    expect(pick('node-yarn-mocha')).toEqual({ kinds: ['node'], build: 'yarn run compile', test: 'yarn test', framework: 'mocha' });
  });
  test('the packageManager field wins; node --test is node:test', () => {
    expect(pick('node-node-test')).toEqual({ kinds: ['node'], build: null, test: 'pnpm test', framework: 'node:test' });
  });
  test("npm init's placeholder test script is not a test command", () => {
    expect(pick('node-placeholder')).toEqual({ kinds: ['node'], build: null, test: null, framework: null });
  });
  test('a bare tsconfig builds with tsc --noEmit', () => {
    expect(pick('typescript-only')).toEqual({ kinds: ['typescript'], build: 'npx --no-install tsc --noEmit -p tsconfig.json', test: null, framework: null });
  });
});

describe('C and C++', () => {
  test('CMake without a build folder configures first, and ctest runs after the build', () => {
    expect(pick('cmake-fresh')).toEqual({
      kinds: ['cmake'],
      build: 'cmake -S . -B build && cmake --build build',
      test: 'cmake -S . -B build && cmake --build build && ctest --test-dir build --output-on-failure',
      framework: 'ctest',
    });
  });
  test('CMake with an existing build folder builds it; GoogleTest is gtest', () => {
    expect(pick('cmake-built')).toEqual({ kinds: ['cmake'], build: 'cmake --build build', test: 'ctest --test-dir build --output-on-failure', framework: 'gtest' });
  });
  test('CMake without tests has no test command', () => {
    expect(pick('cmake-no-tests')).toEqual({ kinds: ['cmake'], build: 'cmake -S . -B build && cmake --build build', test: null, framework: null });
  });
  test('a Makefile builds with make and tests with its check target', () => {
    expect(pick('make-c')).toEqual({ kinds: ['make'], build: 'make', test: 'make check', framework: null });
  });
  test('meson without a build folder sets one up', () => {
    expect(pick('meson')).toEqual({ kinds: ['meson'], build: 'meson setup builddir && meson compile -C builddir', test: 'meson setup builddir && meson test -C builddir', framework: 'meson' });
  });
  test('a Makefile that CMake generated in-source is not a separate project', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ew-detect-'));
    try {
      fs.writeFileSync(path.join(dir, 'CMakeLists.txt'), 'project(x C)\n');
      fs.writeFileSync(path.join(dir, 'CMakeCache.txt'), '# cache\n');
      fs.writeFileSync(path.join(dir, 'Makefile'), '# CMAKE generated file: DO NOT EDIT!\nall:\n');
      expect(detectProject(dir)).toMatchObject({ kinds: ['cmake'], build: 'cmake --build .' });
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('Rust, Go, JVM, Python', () => {
  test('cargo', () => expect(pick('cargo')).toEqual({ kinds: ['cargo'], build: 'cargo build', test: 'cargo test', framework: 'cargo test' }));
  test('go', () => expect(pick('go')).toEqual({ kinds: ['go'], build: 'go build ./...', test: 'go test ./...', framework: 'go test' }));
  test('maven with junit', () => expect(pick('maven')).toEqual({ kinds: ['maven'], build: 'mvn -B -q compile', test: 'mvn -B -q test', framework: 'junit' }));
  test('gradle kotlin DSL with its wrapper', () => expect(pick('gradle-kts')).toEqual({ kinds: ['gradle'], build: './gradlew assemble', test: './gradlew test', framework: 'junit' }));
  test('gradle groovy DSL without a wrapper', () => expect(pick('gradle-groovy')).toEqual({ kinds: ['gradle'], build: 'gradle assemble', test: 'gradle test', framework: null }));
  test('pyproject with pytest configured', () => expect(pick('python-pytest')).toEqual({ kinds: ['python'], build: null, test: 'python3 -m pytest', framework: 'pytest' }));
  test('setup.cfg with [tool:pytest]', () => expect(pick('python-setupcfg')).toEqual({ kinds: ['python'], build: null, test: 'python3 -m pytest', framework: 'pytest' }));
  test('setup.py and a tests folder without pytest: unittest', () => expect(pick('python-unittest')).toEqual({ kinds: ['python'], build: null, test: 'python3 -m unittest discover', framework: 'unittest' }));
});

describe('several ecosystems in one root', () => {
  test('the native build system wins over package.json and a helper Makefile; all are listed', () => {
    expect(pick('mixed')).toEqual({ kinds: ['cmake', 'node', 'make'], build: 'cmake -S . -B build && cmake --build build', test: 'npm test', framework: 'vitest' });
  });
  test('an empty folder is nothing', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ew-detect-'));
    try {
      expect(detectProject(dir)).toMatchObject({ kinds: [], build: null, test: null, framework: null });
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
  test('a broken package.json is still a node project, without scripts', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ew-detect-'));
    try {
      fs.writeFileSync(path.join(dir, 'package.json'), '{ "scripts": ');
      expect(detectProject(dir)).toMatchObject({ kinds: ['node'], build: null, test: null });
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
