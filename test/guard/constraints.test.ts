import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { defaultConfig, withOverrides, type ConstraintsConfig } from '../../src/config/config.js';
import { loadConfig } from '../../src/config/load.js';
import { ConstraintGuard } from '../../src/guard/constraints.js';
import { buildMetrics, utilization } from '../../src/runs/metrics.js';
import { countPatchLines } from '../../src/guard/command-effects.js';
import { renderViolationMarkdown } from '../../src/runs/violation-report.js';
import { constraintOverrides } from '../../src/cli/constraint-flags.js';
import { tempDir } from '../temp-dirs.js';
import { trustRepoConfig } from '../trust-config.js';

function constraints(over: Partial<ConstraintsConfig> = {}): ConstraintsConfig {
  return { ...defaultConfig().constraints, ...over };
}

describe('max_files counts the union of files changed in the run', () => {
  it('allows the 10th file and refuses the 11th, before it is recorded', () => {
    const g = new ConstraintGuard(constraints());
    for (let i = 0; i < 10; i++) {
      expect(g.checkChanges([{ path: `f${i}.txt`, added: 1, removed: 0 }])).toBeNull();
      g.recordChanges([{ path: `f${i}.txt`, added: 1, removed: 0 }]);
    }
    const v = g.checkChanges([{ path: 'f10.txt', added: 1, removed: 0 }], { call: 10, tool: 'write_file' });
    expect(v).toMatchObject({ type: 'FileModification', constraint: 'max_files', limit: 10, actual: 11, call: 10, tool: 'write_file', path: 'f10.txt', prevented: true });
    expect(v?.message).toContain('constraints.max_files');
    expect(g.totals().files_modified).toBe(10);
  });

  it('changing an already-changed file again does not count as a new file', () => {
    const g = new ConstraintGuard(constraints({ max_files: 1 }));
    g.recordChanges([{ path: 'a.txt', added: 1, removed: 0 }]);
    expect(g.checkChanges([{ path: './a.txt', added: 1, removed: 1 }])).toBeNull();
  });
});

describe('max_lines_changed counts added + removed over the run', () => {
  it('allows exactly the limit and refuses one more', () => {
    const g = new ConstraintGuard(constraints({ max_lines_changed: 500 }));
    g.recordChanges([{ path: 'a', added: 300, removed: 100 }]);
    expect(g.checkChanges([{ path: 'b', added: 100, removed: 0 }])).toBeNull();
    const v = g.checkChanges([{ path: 'b', added: 100, removed: 1 }]);
    expect(v).toMatchObject({ constraint: 'max_lines_changed', limit: 500, actual: 501 });
    expect(v?.message).toContain('constraints.max_lines_changed');
  });
});

describe('patterns are checked before limits', () => {
  it('a denied path is a Pattern violation even when limits are exceeded too', () => {
    const g = new ConstraintGuard(constraints({ max_files: 0 }));
    expect(g.checkChanges([{ path: 'vendor/lib.go', added: 1, removed: 0 }])).toMatchObject({ type: 'Pattern', constraint: 'denied_patterns', limit: 'vendor/**' });
  });
  it('a path outside a non-empty allow list is a Pattern violation on allowed_patterns', () => {
    const g = new ConstraintGuard(constraints({ allowed_patterns: ['src/**'] }));
    expect(g.checkChanges([{ path: 'README.md', added: 1, removed: 0 }])).toMatchObject({ type: 'Pattern', constraint: 'allowed_patterns' });
  });
});

describe('tools', () => {
  it('ask_question and converse are refused headless even when listed as allowed', () => {
    const g = new ConstraintGuard(constraints({ allowed_tools: ['ask_question', 'converse'] }));
    expect(g.checkTool('ask_question', {}, true)).toMatchObject({ type: 'ToolRestriction', constraint: 'headless' });
    expect(g.checkTool('converse', {}, true)).toMatchObject({ type: 'ToolRestriction', constraint: 'headless' });
  });
  it('interactive mode allows them when listed', () => {
    const g = new ConstraintGuard(constraints({ allowed_tools: ['ask_question'] }), { mode: 'interactive' });
    expect(g.checkTool('ask_question', {}, true)).toBeNull();
    expect(g.checkTool('converse', {}, true)).toMatchObject({ constraint: 'allowed_tools' });
  });
  it('a tool outside allowed_tools is refused, naming the list', () => {
    const g = new ConstraintGuard(constraints({ allowed_tools: ['read_file'] }));
    const v = g.checkTool('execute_command', {}, false);
    expect(v).toMatchObject({ type: 'ToolRestriction', constraint: 'allowed_tools', actual: 'execute_command' });
    expect(v?.message).toContain('read_file');
  });
  it('the default list includes task_completion', () => {
    expect(new ConstraintGuard(constraints()).checkTool('task_completion', {}, false)).toBeNull();
  });
});

describe('tokens and time', () => {
  it('the usage that crosses max_tokens is the violation, and it is counted', () => {
    const g = new ConstraintGuard(constraints({ max_tokens: 50_000 }));
    for (let i = 0; i < 10; i++) expect(g.recordTokens(5_000)).toBeNull();
    const v = g.recordTokens(5_000);
    expect(v).toMatchObject({ type: 'TokenLimit', constraint: 'max_tokens', limit: 50_000, actual: 55_000 });
    expect(g.totals().tokens_used).toBe(55_000);
  });

  it('the timeout is checked against an injected clock', () => {
    let now = 1_000_000;
    const g = new ConstraintGuard(constraints({ timeout: 300 }), { now: () => now });
    now += 300_000;
    expect(g.checkTime()).toBeNull();
    now += 60_000;
    expect(g.checkTime({ call: 3 })).toMatchObject({ type: 'Timeout', constraint: 'timeout', limit: 300, actual: 360, call: 3 });
    expect(g.remainingMs()).toBe(-60_000);
  });
});

describe('metrics in the ADR shape', () => {
  it('has execution_id and constraints.{configured, actual, utilization, violations}', () => {
    const g = new ConstraintGuard(constraints());
    g.recordChanges([{ path: 'a', added: 145, removed: 89 }]);
    g.recordTokens(12_450);
    const m = buildMetrics({
      runId: 'run-1',
      status: 'finished',
      mode: 'headless',
      startedAt: 'x',
      finishedAt: 'y',
      outcome: 'kept',
      config: g.config,
      totals: g.totals(),
      violations: [],
      tools: {},
      calls: 0,
      files: [],
    });
    expect(m.execution_id).toBe('run-1');
    expect(m.constraints.configured).toMatchObject({ max_files: 10, max_lines_changed: 500, max_tokens: 50_000, timeout_seconds: 300 });
    expect(m.constraints.actual).toMatchObject({ files_modified: 1, lines_added: 145, lines_removed: 89, tokens_used: 12_450 });
    expect(m.constraints.utilization).toMatchObject({ files: 0.1, lines: 0.468, tokens: 0.249 });
    expect(m.constraints.violations).toEqual([]);
  });
  it('utilization of a zero limit is null, not Infinity', () => {
    expect(utilization(3, 0)).toBeNull();
  });
  it('the markdown report names the violation, the limit and the policy outcome', () => {
    const g = new ConstraintGuard(constraints());
    const v = g.checkChanges([{ path: 'vendor/lib.go', added: 1, removed: 0 }], { call: 2, tool: 'write_file' });
    if (!v) throw new Error('expected a violation');
    const m = buildMetrics({ runId: 'r', status: 'failed', mode: 'headless', startedAt: 'x', finishedAt: 'y', outcome: 'rolled-back', config: g.config, totals: g.totals(), violations: [v], tools: {}, calls: 3, files: [] });
    const md = renderViolationMarkdown({ violation: v, metrics: m, calls: [], rollback: { written: ['a'], removed: ['b'] } });
    expect(md).toContain('# Constraint violation: Pattern');
    expect(md).toContain('constraints.denied_patterns');
    expect(md).toContain('call #3');
    expect(md).toContain('every change of the run was undone');
  });
});

describe('lines from a unified diff', () => {
  it('counts + and - lines inside hunks, not the headers', () => {
    const patch = '===\n--- a/x\n+++ b/x\n@@ -1,3 +1,3 @@\n a\n-b\n+c\n+d\n--- e\n';
    expect(countPatchLines(patch)).toEqual({ added: 2, removed: 2 });
  });
});

describe('config precedence: defaults < file < CLI flags', () => {
  function rootWith(yaml?: string): string {
    const root = tempDir('ew-guard-cfg-');
    if (yaml !== undefined) fs.writeFileSync(path.join(root, '.editwarden.yml'), yaml);
    return root;
  }

  it('uses the ADR defaults without a file', () => {
    const c = loadConfig(rootWith()).constraints;
    expect(c).toMatchObject({ max_files: 10, max_lines_changed: 500, max_tokens: 50_000, timeout: 300, on_violation: 'keep', allowed_patterns: [] });
    expect(c.denied_patterns).toEqual(['.git/**', 'vendor/**', 'node_modules/**', '**/*_generated.*']);
    expect(c.allowed_tools).toContain('task_completion');
  });

  it('the file overrides the defaults and flags override the file', () => {
    const base = loadConfig(rootWith('constraints:\n  max_files: 3\n  max_tokens: 1000\n  timeout: 60\n'));
    expect(base.constraints).toMatchObject({ max_files: 3, max_tokens: 1000, timeout: 60, max_lines_changed: 500 });
    const merged = withOverrides(base, constraintOverrides(base, { maxFiles: '7', onViolation: 'rollback' }));
    expect(merged.constraints).toMatchObject({ max_files: 7, max_tokens: 1000, timeout: 60, on_violation: 'rollback' });
  });

  it('list flags extend the lists of the file (a flag never drops a deny rule)', () => {
    const root = rootWith('constraints:\n  denied_patterns: ["secrets/**"]\n');
    // Trusted, the file's list replaces the default denials (untrusted, it would only add to them).
    trustRepoConfig(root);
    const base = loadConfig(root);
    const merged = withOverrides(base, constraintOverrides(base, { deny: ['build/**'], allow: ['src/**'], allowTool: ['ask_question'] }));
    expect(merged.constraints.denied_patterns).toEqual(['secrets/**', 'build/**']);
    expect(merged.constraints.allowed_patterns).toEqual(['src/**']);
    expect(merged.constraints.allowed_tools).toContain('ask_question');
  });

  it.each([
    ['an invalid glob', 'constraints:\n  denied_patterns: ["src/[abc"]\n', 'constraints.denied_patterns.0'],
    ['a negative limit', 'constraints:\n  max_files: -1\n', 'constraints.max_files'],
    ['an unknown key', 'constraints:\n  max_filez: 3\n', 'constraints.max_filez'],
    ['a wrong type', 'constraints:\n  max_tokens: "lots"\n', 'constraints.max_tokens'],
    ['a bad policy', 'constraints:\n  on_violation: explode\n', 'constraints.on_violation'],
  ])('refuses %s in the file, naming the key', (_what, yaml, key) => {
    expect(() => loadConfig(rootWith(yaml))).toThrow(expect.objectContaining({ code: 'E_CONFIG', message: expect.stringContaining(key) }));
  });

  it('refuses a bad flag value, naming the key', () => {
    const base = defaultConfig();
    expect(() => withOverrides(base, constraintOverrides(base, { maxFiles: 'abc' }))).toThrow(expect.objectContaining({ code: 'E_CONFIG', message: expect.stringContaining('constraints.max_files') }));
    expect(() => withOverrides(base, constraintOverrides(base, { timeout: '-5' }))).toThrow(expect.objectContaining({ message: expect.stringContaining('constraints.timeout') }));
    expect(() => withOverrides(base, constraintOverrides(base, { deny: ['{a,b'] }))).toThrow(expect.objectContaining({ message: expect.stringContaining('constraints.denied_patterns') }));
  });
});
