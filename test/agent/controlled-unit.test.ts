import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { execFileSync } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ControlledEditSession, MESSAGES } from '../../src/agent/controlled.js';
import { hashTree } from '../../src/agent/hash-tree.js';
import { defaultConfig, withOverrides } from '../../src/config/config.js';
import { openWorkspace } from '../../src/workspace/open.js';
import { prepareLanguageHooks } from '../../src/host/language-hooks.js';
import '../wasm-baseline.js';

const REPO = path.resolve(__dirname, '../..');
const TSC = path.join(REPO, 'node_modules/.bin/tsc');

function copySample(name: string): string {
  const dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), `ew-ctl-${name}-`)));
  fs.cpSync(path.join(REPO, 'samples', name), dir, { recursive: true });
  return dir;
}

function session(root: string, overrides: Parameters<typeof withOverrides>[1] = {}, extra: Partial<ConstructorParameters<typeof ControlledEditSession>[1]> = {}) {
  const { ws } = openWorkspace(root);
  const config = withOverrides(defaultConfig(), overrides);
  return new ControlledEditSession(ws, {
    config,
    applyHooks: { prepareHooks: (paths) => prepareLanguageHooks(paths, config.edit.syntax_guard) },
    ...extra,
  });
}

describe('controlled edit on a real CMake C++ project', () => {
  let root: string;
  beforeAll(() => {
    root = copySample('cmake-hello');
    execFileSync('cmake', ['-S', '.', '-B', 'build'], { cwd: root, stdio: 'ignore' });
    execFileSync('cmake', ['--build', 'build'], { cwd: root, stdio: 'ignore' });
  });
  afterAll(() => fs.rmSync(root, { recursive: true, force: true }));

  it('a good edit builds: SUCCESS, report says PASSED, session over', async () => {
    const s = session(root);
    const out = await s.editFile({ filename: 'src/greeting.cpp', old_text: 'return 1;', new_text: 'return 2;' });
    expect(out.tool_exit_code).toBe(0);
    expect(out.message).toBe(MESSAGES.success);
    expect(out.state).toMatchObject({ has_edited: true, build_success: true, edit_file_path: 'src/greeting.cpp' });
    expect(out.state.edit_checkpoint_id).toBeTruthy();
    expect(out.verification?.command).toBe('cmake --build build');
    expect(fs.readFileSync(path.join(root, 'src/greeting.cpp'), 'utf8')).toContain('return 2;');
    const report = fs.readFileSync(path.join(root, 'docs/telemetry/controlled_edit_report.md'), 'utf8');
    expect(report).toContain('**Compilation Status:** PASSED');
    expect(report).toContain('**Automatic Rollback Triggered:** NO');
    expect(report).toContain(`**Checkpoint ID:** \`${out.state.edit_checkpoint_id}\``);
    const json = JSON.parse(fs.readFileSync(path.join(root, 'docs/telemetry/controlled_edit_report.json'), 'utf8'));
    expect(json).toMatchObject({ edit_status: 'SUCCESS', compilation_status: 'PASSED', rollback: false });

    // Second edit and second file, in the same session: refused, nothing written.
    const before = hashTree(root);
    const second = await s.editFile({ filename: 'src/greeting.cpp', old_text: 'return 2;', new_text: 'return 3;' });
    expect(second.error?.code).toBe('E_SECOND_EDIT');
    expect(second.tool_exit_code).toBe(1);
    const other = await s.editFile({ filename: 'src/main.cpp', old_text: 'return 0;', new_text: 'return 1;' });
    expect(other.error?.code).toBe('E_SECOND_FILE');
    expect(hashTree(root)).toEqual(before);
  });

  it('a breaking edit fails the build, is rolled back byte for byte, and the report says FAILED + YES with the compiler error', async () => {
    const before = hashTree(root, ['.editwarden', 'build', 'docs']);
    const s = session(root);
    const out = await s.editFile({ filename: 'src/greeting.cpp', old_text: 'return "Hello, " + name + "!";', new_text: 'return 42 + undefined_symbol;' });
    expect(out.tool_exit_code).toBe(2);
    expect(out.message).toBe(MESSAGES.buildFailed);
    expect(out.rolled_back).toBe(true);
    expect(out.rollback_check?.exact).toBe(true);
    expect(out.state.build_success).toBe(false);
    expect(hashTree(root, ['.editwarden', 'build', 'docs'])).toEqual(before);
    const report = fs.readFileSync(path.join(root, 'docs/telemetry/controlled_edit_report.md'), 'utf8');
    expect(report).toContain('**Compilation Status:** FAILED');
    expect(report).toContain('**Automatic Rollback Triggered:** YES');
    expect(report).toMatch(/greeting\.cpp:\d+:\d+.*undefined_symbol/);
  });

  it('a missing anchor writes nothing and runs no build', async () => {
    const before = hashTree(root, ['.editwarden', 'docs']);
    const s = session(root);
    const out = await s.editFile({ filename: 'src/greeting.cpp', old_text: 'return 999;', new_text: 'return 1;' });
    expect(out.tool_exit_code).toBe(1);
    expect(out.error?.code).toBe('E_NOT_FOUND');
    expect(out.message.startsWith('Edit failed: ')).toBe(true);
    expect(out.verification).toBeUndefined();
    // The design: a failed replacement still counts as the session's edit attempt.
    expect(out.state).toMatchObject({ has_edited: true, build_success: false, edit_file_path: 'src/greeting.cpp' });
    // No verify folder was made for this run: the build never started.
    expect(fs.existsSync(path.join(root, '.editwarden/runs', out.run_id, 'verify'))).toBe(false);
    expect(hashTree(root, ['.editwarden', 'docs'])).toEqual(before);
  });

  it('a hanging build times out and is rolled back', async () => {
    const before = hashTree(root, ['.editwarden', 'build', 'docs']);
    const s = session(root, {}, { buildCommand: 'sleep 30', buildTimeoutMs: 500 });
    const out = await s.editFile({ filename: 'src/greeting.cpp', old_text: 'return 2;', new_text: 'return 5;' });
    expect(out.tool_exit_code).toBe(2);
    expect(out.verification?.timed_out).toBe(true);
    expect(out.rolled_back).toBe(true);
    expect(hashTree(root, ['.editwarden', 'build', 'docs'])).toEqual(before);
  });

  it('an abort (Ctrl-C) kills the build at once and the edit, never verified, is rolled back', async () => {
    const before = hashTree(root, ['.editwarden', 'build', 'docs']);
    const s = session(root, {}, { buildCommand: 'sleep 30', buildTimeoutMs: 60_000 });
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 300);
    const started = Date.now();
    const out = await s.editFile({ filename: 'src/greeting.cpp', old_text: 'return 2;', new_text: 'return 6;' }, controller.signal);
    expect(Date.now() - started).toBeLessThan(15_000);
    expect(out.tool_exit_code).toBe(2);
    expect(out.rolled_back).toBe(true);
    expect(hashTree(root, ['.editwarden', 'build', 'docs'])).toEqual(before);
  });

  it('the syntax guard refuses an edit that breaks the C++ syntax before any build', async () => {
    const s = session(root);
    const out = await s.editFile({ filename: 'src/greeting.cpp', old_text: 'return 2;', new_text: 'return (1;' });
    expect(out.error?.code).toBe('E_SYNTAX');
    expect(out.verification).toBeUndefined();
  });
});

describe('controlled edit on a TypeScript project verified with tsc', () => {
  let root: string;
  beforeAll(() => {
    root = copySample('ts-hello');
  });
  afterAll(() => fs.rmSync(root, { recursive: true, force: true }));

  it('good edit passes, type error is rolled back, second edit refused', async () => {
    const build = `${TSC} -p tsconfig.json --noEmit`;
    const good = session(root, { verify: { build } });
    const ok = await good.editFile({ file_path: 'src/greeting.ts', old_text: 'return 1;', new_text: 'return 2;' });
    expect(ok.tool_exit_code).toBe(0);
    const again = await good.editFile({ file_path: 'src/greeting.ts', old_text: 'return 2;', new_text: 'return 3;' });
    expect(again.error?.code).toBe('E_SECOND_EDIT');

    const before = hashTree(root, ['.editwarden', 'docs']);
    const bad = session(root, { verify: { build } });
    const out = await bad.editFile({ path: 'src/greeting.ts', old_text: 'return 2;', new_text: "return 'two';" });
    expect(out.tool_exit_code).toBe(2);
    expect(out.verification?.diagnostics.some((d) => d.file?.endsWith('greeting.ts') && /not assignable/.test(d.message))).toBe(true);
    expect(hashTree(root, ['.editwarden', 'docs'])).toEqual(before);
  });
});

describe('controlled edit refusals are outcomes, never throws', () => {
  it('a path outside the root is refused with E_OUTSIDE_ROOT and a report', async () => {
    const root = copySample('ts-hello');
    const s = session(root);
    const out = await s.editFile({ filename: '../escape.ts', old_text: 'a', new_text: 'b' });
    expect(out.tool_exit_code).toBe(1);
    expect(out.error?.code).toBe('E_OUTSIDE_ROOT');
    expect(out.report).toBeDefined();
    fs.rmSync(root, { recursive: true, force: true });
  });

  it('a report that cannot be written does not change the outcome', async () => {
    const root = copySample('ts-hello');
    const s = session(root, { verify: { build: 'true' } }, { reportPath: '.editwarden/report.md' });
    const out = await s.editFile({ filename: 'src/greeting.ts', old_text: 'return 1;', new_text: 'return 2;' });
    expect(out.tool_exit_code).toBe(0);
    expect(out.report_error?.code).toBe('E_DENIED_PATH');
    fs.rmSync(root, { recursive: true, force: true });
  });
});
