/**
 * Controlled mode's transaction belongs to its Run (runs/run.ts): the session opens the run's transaction at its one
 * edit and a failed build is settled by the run's failure policy — which must be rollback, the design's promise, or
 * the edit is refused before anything is written. Real files, a real build command.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ControlledEditSession } from '../../src/agent/controlled.js';
import { defaultConfig } from '../../src/config/config.js';
import { runProfile } from '../../src/runs/profile.js';
import { Run } from '../../src/runs/run.js';
import { openWorkspace } from '../../src/workspace/open.js';

const roots: string[] = [];
afterEach(() => {
  for (const r of roots.splice(0)) fs.rmSync(r, { recursive: true, force: true });
});

function project(): string {
  const root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'ew-ctl-run-')));
  roots.push(root);
  fs.writeFileSync(path.join(root, 'notes.txt'), 'one\n');
  return root;
}

describe("controlled mode's one edit is in its run's transaction", () => {
  it('a run whose failure policy is not rollback is refused before anything is written (E_USAGE, with a hint)', async () => {
    const root = project();
    const config = defaultConfig();
    const run = new Run({ profile: { ...runProfile('controlled', { config }), failure: 'keep' }, opener: 'mode' });
    const { ws } = openWorkspace(root);
    const out = await new ControlledEditSession(ws, { config, run, buildCommand: 'true', reportPath: false }).editFile({ filename: 'notes.txt', old_text: 'one', new_text: 'two' });
    expect(out.tool_exit_code).toBe(1);
    expect(out.error).toMatchObject({ code: 'E_USAGE', path: 'notes.txt' });
    expect(out.error?.message).toContain('failure policy is "keep"');
    expect(out.error?.hint).toContain('rollback');
    expect(fs.readFileSync(path.join(root, 'notes.txt'), 'utf8')).toBe('one\n');
  });

  it("a passing build settles the run as a success: its transaction is committed, and the runner's later settle changes nothing", async () => {
    const root = project();
    const config = defaultConfig();
    const run = new Run({ profile: runProfile('controlled', { config }), opener: 'mode' });
    const { ws } = openWorkspace(root);
    const out = await new ControlledEditSession(ws, { config, run, buildCommand: 'true', reportPath: false }).editFile({ filename: 'notes.txt', old_text: 'one', new_text: 'two' });
    expect(out.tool_exit_code).toBe(0);
    expect(out.run_id).toBe(run.id);
    expect(run.transaction).toBeNull();
    expect(run.settle({ violated: true, succeeded: false })).toEqual({ outcome: 'kept', rollback: null });
    expect(fs.readFileSync(path.join(root, 'notes.txt'), 'utf8')).toBe('two\n');
  });

  it("a failed build is settled by the run's policy (rollback): the file is back, the run's transaction is over", async () => {
    const root = project();
    const config = defaultConfig();
    const run = new Run({ profile: runProfile('controlled', { config }), opener: 'mode' });
    const { ws } = openWorkspace(root);
    const out = await new ControlledEditSession(ws, { config, run, buildCommand: 'false', reportPath: false }).editFile({ filename: 'notes.txt', old_text: 'one', new_text: 'two' });
    expect(out).toMatchObject({ tool_exit_code: 2, rolled_back: true });
    expect(run.transaction).toBeNull();
    expect(fs.readFileSync(path.join(root, 'notes.txt'), 'utf8')).toBe('one\n');
  });
});
