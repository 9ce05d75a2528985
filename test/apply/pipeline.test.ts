/**
 * The change pipeline's two steps on a real workspace: `plan` writes nothing
 * and says what a commit would do; `commit` writes exactly a plan `plan`
 * made, once — a hand-made or altered plan, or a second commit, is refused
 * before anything is written (E_PLAN_NOT_COMMITTABLE).
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { commit, plan, type Plan } from '../../src/apply/pipeline.js';
import { openWorkspace } from '../../src/workspace/open.js';
import { tempDir } from '../temp-dirs.js';

function project(): string {
  const root = tempDir('ew-pipeline-');
  fs.writeFileSync(path.join(root, 'a.txt'), 'one\ntwo\n');
  return root;
}

describe('plan → commit', () => {
  it('plans without writing, then commits exactly the plan', async () => {
    const root = project();
    const { ws } = openWorkspace(root);
    const planned = await plan(ws, [{ action: 'edit', path: 'a.txt', oldText: 'two', newText: 'TWO' }]);
    expect(planned.outcome.ok).toBe(true);
    expect(planned.changes).toEqual([{ path: 'a.txt', added: 1, removed: 1 }]);
    expect(planned.outcome.diff).toContain('+TWO');
    expect(fs.readFileSync(path.join(root, 'a.txt'), 'utf8')).toBe('one\ntwo\n');
    const done = await commit(planned);
    expect(done).toMatchObject({ ok: true, replanned: [] });
    expect(fs.readFileSync(path.join(root, 'a.txt'), 'utf8')).toBe('one\nTWO\n');
  });

  it('refuses a second commit of the same plan, a plan made by hand and an altered copy: nothing written', async () => {
    const root = project();
    const { ws } = openWorkspace(root);
    const planned = await plan(ws, [{ action: 'edit', path: 'a.txt', oldText: 'two', newText: 'TWO' }]);
    const forged: Plan = { ...planned, writes: [{ kind: 'write', path: 'a.txt', bytes: Buffer.from('forged\n') }] };
    await expect(commit(forged)).rejects.toMatchObject({ code: 'E_PLAN_NOT_COMMITTABLE' });
    expect(() => (planned.writes as unknown[]).push({})).toThrow();
    expect(fs.readFileSync(path.join(root, 'a.txt'), 'utf8')).toBe('one\ntwo\n');
    await commit(planned);
    fs.writeFileSync(path.join(root, 'a.txt'), 'one\ntwo\n');
    await expect(commit(planned)).rejects.toMatchObject({ code: 'E_PLAN_NOT_COMMITTABLE' });
    expect(fs.readFileSync(path.join(root, 'a.txt'), 'utf8')).toBe('one\ntwo\n');
  });

  it('a refused plan commits nothing and keeps its refusal', async () => {
    const root = project();
    const { ws } = openWorkspace(root);
    const planned = await plan(ws, [{ action: 'edit', path: 'a.txt', oldText: 'three', newText: 'x' }]);
    expect(planned.outcome.results[0]?.error?.code).toBe('E_NOT_FOUND');
    expect(planned.writes).toEqual([]);
    expect((await commit(planned)).ok).toBe(false);
    expect(fs.readFileSync(path.join(root, 'a.txt'), 'utf8')).toBe('one\ntwo\n');
  });
});
