/** One RunProfile per mode: the failure policy, approval and dry run each mode runs under. */
import { describe, expect, it } from 'vitest';
import { defaultConfig } from '../../src/config/config.js';
import { editorFlavour, runProfile } from '../../src/runs/profile.js';

const config = (on_violation: 'keep' | 'rollback') => {
  const c = defaultConfig();
  return { ...c, constraints: { ...c.constraints, on_violation } };
};

describe('a mode is one RunProfile value', () => {
  it('headless and interactive fail by on_violation; only interactive asks a person', () => {
    const limits = { network: false, sizeLimits: { max_files: 10, max_lines_changed: 500 } };
    expect(runProfile('headless', { config: config('rollback') })).toEqual({ mode: 'headless', failure: 'rollback', approval: 'constraints', dryRun: false, ...limits });
    expect(runProfile('interactive', { config: config('keep') })).toEqual({ mode: 'interactive', failure: 'keep', approval: 'person', dryRun: false, ...limits });
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
