/** One RunProfile per mode: the failure policy, approval and dry run each mode runs under. */
import { describe, expect, it } from 'vitest';
import { defaultConfig } from '../../src/config/config.js';
import fc from 'fast-check';
import { configUnder, editorFlavour, runProfile } from '../../src/runs/profile.js';

const config = (on_violation: 'keep' | 'rollback') => {
  const c = defaultConfig();
  return { ...c, constraints: { ...c.constraints, on_violation } };
};

describe('a mode is one RunProfile value', () => {
  it('headless and interactive fail by on_violation; only interactive asks a person', () => {
    const limits = { network: 'off', sizeLimits: { max_files: 10, max_lines_changed: 500 }, budget: { max_tokens: 50_000, timeout: 300 } };
    const none = { network: 'off', sizeLimits: { max_files: null, max_lines_changed: null }, budget: { max_tokens: null, timeout: null } };
    expect(runProfile('headless', { config: config('rollback') })).toEqual({ mode: 'headless', failure: 'rollback', approval: 'constraints', dryRun: false, ...limits });
    expect(runProfile('interactive', { config: config('keep') })).toEqual({ mode: 'interactive', failure: 'keep', approval: 'person', dryRun: false, ...none });
  });
});

describe('limits by mode: a headless run has the ADR limits, an interactive session only the caps a layer of the config set', () => {
  const caps = ['constraints.max_files', 'constraints.max_lines_changed', 'constraints.max_tokens', 'constraints.timeout'] as const;
  const valueOf = (c: ReturnType<typeof defaultConfig>, key: (typeof caps)[number]): number => c.constraints[key.slice('constraints.'.length) as 'max_files'];

  it('property: for any values and any set of configured keys, headless keeps every value and interactive keeps exactly the configured ones', () => {
    fc.assert(
      fc.property(fc.record({ max_files: fc.nat(100), max_lines_changed: fc.nat(5000), max_tokens: fc.nat(10 ** 6), timeout: fc.integer({ min: 1, max: 10_000 }) }), fc.subarray([...caps]), (values, configured) => {
        const c = defaultConfig();
        const cfg = { ...c, constraints: { ...c.constraints, ...values } };
        const headless = configUnder(cfg, runProfile('headless', { config: cfg, configured }));
        const interactive = configUnder(cfg, runProfile('interactive', { config: cfg, configured }));
        for (const key of caps) {
          expect(valueOf(headless, key)).toBe(valueOf(cfg, key));
          expect(valueOf(interactive, key)).toBe(configured.includes(key) ? valueOf(cfg, key) : Number.POSITIVE_INFINITY);
        }
      }),
      { numRuns: 200 },
    );
  });

  it('a value written down counts even when it equals the default; without the list, a value that differs from the default counts as set', () => {
    const c = defaultConfig();
    expect(runProfile('interactive', { config: c, configured: ['constraints.max_files'] }).sizeLimits.max_files).toBe(10);
    expect(runProfile('interactive', { config: { ...c, constraints: { ...c.constraints, max_files: 3 } } }).sizeLimits.max_files).toBe(3);
    expect(runProfile('interactive', { config: c }).sizeLimits.max_files).toBeNull();
  });

  it('controlled always rolls back; the editor fixes forward (rolls a violation back only under on_violation: rollback), and a dry run keeps (nothing is on disk)', () => {
    expect(runProfile('controlled', { config: config('keep') }).failure).toBe('rollback');
    expect(runProfile('editor', { config: config('keep') }).failure).toBe('fix-forward');
    expect(runProfile('editor', { config: config('rollback') }).failure).toBe('rollback');
    expect(runProfile('editor', { config: config('rollback'), dryRun: true })).toMatchObject({ failure: 'keep', dryRun: true });
  });

  it("a dry run is only the editor's", () => {
    expect(runProfile('headless', { config: config('keep'), dryRun: true }).dryRun).toBe(false);
  });

  it("the Editor's three flavours are the profile and its input", () => {
    const editor = runProfile('editor', { config: config('keep') });
    expect(editorFlavour(editor, false)).toBe('editor');
    expect(editorFlavour(editor, true)).toBe('apply-proposal');
    expect(editorFlavour(runProfile('editor', { config: config('keep'), dryRun: true }), false)).toBe('dry-run');
  });
});
