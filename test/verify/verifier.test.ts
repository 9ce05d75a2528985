import { openWorkspace } from '../../src/workspace/open.js';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, test } from 'vitest';
import { defaultConfig, withOverrides } from '../../src/config/config.js';
import { ErrorCode, EditwardenError } from '../../src/errors.js';
import { newRunId, runDir } from '../../src/runs/runs.js';
import { verify, verifyFailure } from '../../src/verify/verifier.js';
import type { Workspace } from '../../src/workspace/workspace.js';

const here = path.dirname(fileURLToPath(import.meta.url));
const repo = path.resolve(here, '../..');
// TypeScript 5's own binary, not node_modules/.bin/tsc: typescript-native (TypeScript 7) installs a `tsc` too, and which
// one .bin links depends on the install's history (7 exits 1 on a type error where 5 exits 2).
const TSC = path.join(repo, 'node_modules/typescript/bin/tsc');
const temps: string[] = [];
afterAll(() => {
  for (const dir of temps) fs.rmSync(dir, { recursive: true, force: true });
});

/** A fresh copy of a fixture project in a temp folder, opened as a workspace. */
function project(name: string): Workspace {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), `ew-verify-${name}-`));
  temps.push(dir);
  fs.cpSync(path.join(here, '../fixtures/verify/projects', name), dir, { recursive: true });
  return openWorkspace(dir).ws;
}
const write = (ws: Workspace, rel: string, text: string) => fs.writeFileSync(path.join(ws.root, rel), text);
const config = defaultConfig();

describe('a CMake C++ project (cmake + g++)', () => {
  const ws = project('cmake-cpp');
  const runId = newRunId();

  test('passes: configured and built, evidence filed under the run', async () => {
    const r = await verify(ws, { kind: 'build', runId, config });
    expect(r.command).toBe('cmake -S . -B build && cmake --build build');
    expect(r.source).toBe('detected');
    expect(r.passed).toBe(true);
    expect(r.exit_code).toBe(0);
    expect(r.n).toBe(1);
    expect(r.artifact_dir).toBe(`.editwarden/runs/${runId}/verify/1`);
    for (const f of ['stdout.log', 'stderr.log', 'combined.log', 'result.json']) expect(fs.existsSync(path.join(ws.root, r.artifact_dir, f))).toBe(true);
    const record = JSON.parse(fs.readFileSync(path.join(ws.root, r.artifact_dir, 'result.json'), 'utf8'));
    expect(record).toMatchObject({ command: r.command, cwd: ws.root, exit_code: 0, signal: null, timed_out: false, passed: true, kind: 'build', run_id: runId });
    expect(fs.existsSync(path.join(ws.root, 'build/greeter'))).toBe(true);
  });

  test('fails with g++ diagnostics once the source is broken; the existing build folder is reused', async () => {
    write(ws, 'main.cpp', '#include "greet.hpp"\nint main() {\n  std::string s = greet(42);\n  return 0;\n}\n');
    const r = await verify(ws, { kind: 'build', runId, config });
    expect(r.command).toBe('cmake --build build');
    expect(r.passed).toBe(false);
    expect(r.exit_code).not.toBe(0);
    expect(r.n).toBe(2);
    expect(r.diagnostics.find((d) => d.severity === 'error')).toMatchObject({ tool: 'gcc', file: expect.stringMatching(/main\.cpp$/), line: 3 });
    const failure = verifyFailure(r);
    expect(failure.code).toBe(ErrorCode.VERIFY_FAILED);
    expect(failure.message).toMatch(/main\.cpp:3:\d+ error/);
    expect(failure.hint).toContain(r.artifact_dir);
  });

  test('ctest runs the tests once it builds again', async () => {
    write(ws, 'main.cpp', '#include <iostream>\n#include "greet.hpp"\nint main() { std::cout << greet("x") << std::endl; return 0; }\n');
    const r = await verify(ws, { kind: 'test', runId, config });
    expect(r.command).toBe('ctest --test-dir build --output-on-failure');
    // ctest does not rebuild; the build step of the same run is what the CLI runs first.
    const built = await verify(ws, { kind: 'build', runId, config });
    expect(built.passed).toBe(true);
    const again = await verify(ws, { kind: 'test', runId, config });
    expect(again.passed).toBe(true);
    expect(r.n).toBeLessThan(again.n);
  });
});

describe('a TypeScript project (the repository tsc)', () => {
  const ws = project('ts-tsc');
  const tsConfig = withOverrides(config, { verify: { build: `${TSC} -p tsconfig.json` } });

  test('passes; the configured command wins over detection', async () => {
    const r = await verify(ws, { kind: 'build', config: tsConfig });
    expect(r.source).toBe('config');
    expect(r.passed).toBe(true);
    expect(r.diagnostics).toEqual([]);
  });

  test('fails with tsc diagnostics', async () => {
    write(ws, 'src/index.ts', 'export const n: number = "one";\n');
    const r = await verify(ws, { kind: 'build', config: tsConfig });
    expect(r.passed).toBe(false);
    expect(r.exit_code).toBe(2);
    expect(r.diagnostics).toEqual([expect.objectContaining({ tool: 'tsc', file: 'src/index.ts', line: 1, column: 14, code: 'TS2322' })]);
  });
});

describe('a Makefile C project', () => {
  const ws = project('make-c');

  test('make passes, make test passes', async () => {
    const build = await verify(ws, { kind: 'build', config });
    expect(build).toMatchObject({ command: 'make', passed: true });
    const t = await verify(ws, { kind: 'test', config });
    expect(t).toMatchObject({ command: 'make test', passed: true });
    expect(t.tail).toContain('ok');
  });

  test('make fails on a compile error, read from gcc', async () => {
    write(ws, 'main.c', '#include <stdio.h>\nint main(void) {\n  printf("ok\\n")\n  return 0;\n}\n');
    const r = await verify(ws, { kind: 'build', config });
    expect(r.passed).toBe(false);
    expect(r.diagnostics[0]).toMatchObject({ tool: 'gcc', file: 'main.c', line: 3, severity: 'error' });
  });
});

describe('the baseline separates new failures from old ones', () => {
  test('one error fixed, one kept, one added', async () => {
    const ws = project('make-c');
    write(ws, 'main.c', 'int main(void) {\n  int a = undefined_one;\n  int b = undefined_two;\n  return a + b;\n}\n');
    const before = await verify(ws, { kind: 'build', config, baseline: 'record' });
    expect(before.passed).toBe(false);
    expect(before.baseline_recorded).toBe(true);
    expect(fs.existsSync(path.join(ws.stateDir, 'verify/baseline.json'))).toBe(true);

    // Lines move (a comment on top): old failures must still be recognised.
    write(ws, 'main.c', '/* moved */\nint main(void) {\n  int a = 1;\n  int b = undefined_two;\n  int c = undefined_three;\n  return a + b + c;\n}\n');
    const after = await verify(ws, { kind: 'build', config });
    expect(after.passed).toBe(false);
    expect(after.baseline?.new.map((d) => d.message)).toEqual([expect.stringContaining('undefined_three')]);
    expect(after.baseline?.old.map((d) => d.message)).toEqual([expect.stringContaining('undefined_two')]);
    expect(after.baseline?.fixed.map((f) => f.message)).toEqual([expect.stringContaining('undefined_one')]);
    expect(after.baseline?.regressed).toBe(true);
  });

  test('a baseline of another command is not compared', async () => {
    const ws = project('make-c');
    await verify(ws, { kind: 'build', config, baseline: 'record' });
    const r = await verify(ws, { kind: 'test', config });
    expect(r.baseline).toBeUndefined();
  });
});

describe('commands, timeouts, refusals', () => {
  test('a verification past its timeout fails as timed out', async () => {
    const ws = project('make-c');
    const r = await verify(ws, { kind: 'cmd', command: 'sleep 20', timeoutMs: 300, graceMs: 300, config });
    expect(r).toMatchObject({ passed: false, timed_out: true, kind: 'cmd' });
    expect(verifyFailure(r).message).toMatch(/timed out/);
  });

  test('runs in one run are numbered 1, 2, 3', async () => {
    const ws = project('make-c');
    const runId = newRunId();
    const ns = [];
    for (let i = 0; i < 3; i++) ns.push((await verify(ws, { kind: 'cmd', command: 'true', runId, config })).n);
    expect(ns).toEqual([1, 2, 3]);
    expect(fs.readdirSync(path.join(runDir(ws, runId), 'verify')).sort()).toEqual(['1', '2', '3']);
  });

  test('no command configured or detected is refused with E_CONFIG', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ew-verify-empty-'));
    temps.push(dir);
    const err = await verify(openWorkspace(dir).ws, { kind: 'build', config }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(EditwardenError);
    expect((err as EditwardenError).code).toBe(ErrorCode.CONFIG);
    expect((err as EditwardenError).hint).toMatch(/verify\.build/);
  });

  test('a cmd verification without a command is a usage error', async () => {
    const ws = project('make-c');
    await expect(verify(ws, { kind: 'cmd', config })).rejects.toMatchObject({ code: ErrorCode.USAGE });
  });
});

describe('artifacts are the verifier’s alone', () => {
  test('an agent-side path into the evidence folder is refused with E_DENIED_PATH', async () => {
    const ws = project('make-c');
    const r = await verify(ws, { kind: 'cmd', command: 'echo evidence', config });
    const target = `${r.artifact_dir}/result.json`;
    expect(fs.existsSync(path.join(ws.root, target))).toBe(true);
    for (const p of [target, `./${target}`, `src/../${target}`]) {
      expect(() => ws.resolve(p)).toThrow(expect.objectContaining({ code: ErrorCode.DENIED_PATH }));
    }
    expect(() => ws.transact((tx) => ws.commit(tx, [{ kind: 'write', path: target, bytes: Buffer.from('{"passed":true}') }]))).toThrow(expect.objectContaining({ code: ErrorCode.DENIED_PATH }));
    expect(JSON.parse(fs.readFileSync(path.join(ws.root, target), 'utf8')).passed).toBe(true);
  });
});
