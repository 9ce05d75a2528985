/**
 * A Run owns its transaction and settles it by its profile's failure policy — the profile alone decides, whatever
 * `constraints.on_violation` says (runProfile reads that once, to build the profile). Driven as a library user
 * drives it (the package's entry), on real files in a temp folder.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { defaultConfig, openWorkspace, Run, runProfile, ToolRunner, type RunProfile } from '../../src/index.js';
import type { Config } from '../../src/config/config.js';

const roots: string[] = [];
afterEach(() => {
  for (const r of roots.splice(0)) fs.rmSync(r, { recursive: true, force: true });
});

function project(): string {
  const root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'ew-run-')));
  roots.push(root);
  fs.writeFileSync(path.join(root, 'a.txt'), 'one\n');
  fs.writeFileSync(path.join(root, 'b.txt'), 'two\n');
  return root;
}

/** A config that allows one changed file: the second file's edit is the violation. */
function oneFile(on_violation: 'keep' | 'rollback'): Config {
  const c = defaultConfig();
  return { ...c, constraints: { ...c.constraints, max_files: 1, on_violation } };
}

/** Edits a.txt (allowed), then b.txt (the max_files violation), and finishes the run. */
async function violate(root: string, config: Config, profile: RunProfile) {
  const { ws, transactions } = openWorkspace(root);
  const runner = ToolRunner.start({ ws, config, transactions, run: new Run({ profile }), artifacts: false });
  expect((await runner.call({ tool: 'edit_file', args: { path: 'a.txt', old_text: 'one', new_text: 'uno' } })).ok).toBe(true);
  const refused = await runner.call({ tool: 'edit_file', args: { path: 'b.txt', old_text: 'two', new_text: 'dos' } });
  expect(refused.violation?.type).toBe('FileModification');
  return runner.finish();
}

const read = (root: string, rel: string): string => fs.readFileSync(path.join(root, rel), 'utf8');

describe("a run's work is settled by its profile's failure policy, and only by it", () => {
  it('a profile with failure rollback rolls the run back after a violation, though the config says on_violation: keep', async () => {
    const root = project();
    const config = oneFile('keep');
    const profile: RunProfile = { ...runProfile('headless', { config }), failure: 'rollback' };
    const summary = await violate(root, config, profile);
    expect(summary.metrics.outcome).toBe('rolled-back');
    expect(summary.rollback?.written).toContain('a.txt');
    expect(read(root, 'a.txt')).toBe('one\n');
    // The record shows what editwarden itself wrote: the rollback, its bytes, and the step that takes it back.
    const events = fs
      .readFileSync(path.join(root, '.editwarden/events.jsonl'), 'utf8')
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l) as Record<string, unknown>);
    const rollback = events.find((e) => e.action === 'rollback');
    expect(rollback).toMatchObject({ kind: 'undo', written: ['a.txt'], bytes: 'one\n'.length, step: summary.rollback?.safety });
  });

  it('a profile with failure keep keeps the partial work, though the config says on_violation: rollback', async () => {
    const root = project();
    const config = oneFile('rollback');
    const profile: RunProfile = { ...runProfile('headless', { config }), failure: 'keep' };
    const summary = await violate(root, config, profile);
    expect(summary.metrics.outcome).toBe('kept');
    expect(read(root, 'a.txt')).toBe('uno\n');
  });

  it('runProfile maps on_violation to the policy once: the default run of a runner follows it', async () => {
    const root = project();
    const config = oneFile('rollback');
    expect(runProfile('headless', { config }).failure).toBe('rollback');
    const { ws, transactions } = openWorkspace(root);
    const runner = ToolRunner.start({ ws, config, transactions, artifacts: false });
    await runner.call({ tool: 'edit_file', args: { path: 'a.txt', old_text: 'one', new_text: 'uno' } });
    await runner.call({ tool: 'edit_file', args: { path: 'b.txt', old_text: 'two', new_text: 'dos' } });
    expect(runner.finish().metrics.outcome).toBe('rolled-back');
    expect(read(root, 'a.txt')).toBe('one\n');
  });

  it('fix-forward never reverts: a failed run keeps its transaction (kept), a successful one commits it', async () => {
    for (const succeeded of [false, true]) {
      const root = project();
      const config = defaultConfig();
      const { ws, transactions } = openWorkspace(root);
      const run = new Run({ profile: { ...runProfile('editor', { config }), failure: 'fix-forward' } });
      const tx = run.open(transactions, { name: 'session', reason: 'test' });
      expect(tx?.policy).toBe('fix-forward');
      await ws.transact((t) => ws.commit(t, [{ kind: 'write', path: 'a.txt', bytes: Buffer.from('uno\n') }]));
      expect(run.settle({ violated: !succeeded, succeeded })).toEqual({ outcome: 'kept', rollback: null });
      expect(tx?.state).toBe(succeeded ? 'committed' : 'kept');
      expect(read(root, 'a.txt')).toBe('uno\n');
    }
  });

  it('keep opens no transaction; open is once and settle is idempotent (the first settlement stands)', () => {
    const root = project();
    const config = defaultConfig();
    const { transactions } = openWorkspace(root);
    const keep = new Run({ profile: { ...runProfile('headless', { config }), failure: 'keep' } });
    expect(keep.open(transactions, { name: 'x', reason: 'y' })).toBeNull();
    const rollback = new Run({ profile: { ...runProfile('headless', { config }), failure: 'rollback' } });
    const tx = rollback.open(transactions, { name: 'x', reason: 'y' });
    expect(rollback.open(transactions, { name: 'other', reason: 'z' })).toBe(tx);
    const first = rollback.settle({ violated: false, succeeded: true });
    expect(tx?.state).toBe('committed');
    expect(rollback.settle({ violated: true, succeeded: false })).toBe(first);
  });
});
