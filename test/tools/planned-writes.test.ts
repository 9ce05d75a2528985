import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { plan, type Plan } from '../../src/apply/pipeline.js';
import { defaultConfig } from '../../src/config/config.js';
import { prepareWrites } from '../../src/tools/edits.js';
import { ToolRunner, type ApprovalHook } from '../../src/tools/runner.js';
import { openWorkspace } from '../../src/workspace/open.js';
import type { Workspace } from '../../src/workspace/workspace.js';

let root: string;
beforeEach(() => {
  root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'ew-planned-')));
});
afterEach(() => fs.rmSync(root, { recursive: true, force: true }));

const file = (rel: string) => path.join(root, rel);
const read = (rel: string) => fs.readFileSync(file(rel), 'utf8');

function runner(approve: ApprovalHook): ToolRunner {
  const { ws, transactions } = openWorkspace(root);
  return ToolRunner.start({ ws, config: defaultConfig(), transactions, approve });
}

/** An edit_file-like plan whose language hooks count how often the edit is planned (read, matched and diffed): once per plan. */
function countingEdit(oldText: string, newText: string): { planOn: (ws: Workspace) => Promise<Plan>; runs: () => number } {
  let runs = 0;
  const prepareHooks = async () => {
    runs++;
    return {};
  };
  return { planOn: (ws) => plan(ws, [{ action: 'edit', path: 'a.txt', oldText, newText }], { prepareHooks }), runs: () => runs };
}

describe('a planned write commits what its plan computed', () => {
  it('runs the edit pipeline once for plan and write together', async () => {
    fs.writeFileSync(file('a.txt'), 'one\ntwo\nthree\n');
    const { ws } = openWorkspace(root);
    const edit = countingEdit('two', 'TWO');
    const prepared = await prepareWrites(edit.planOn(ws));
    if (!prepared.ok) throw new Error('the plan was refused');
    expect(prepared.invocation.changes).toEqual([{ path: 'a.txt', added: 1, removed: 1 }]);
    expect(read('a.txt')).toBe('one\ntwo\nthree\n');
    const result = await prepared.invocation.run();
    expect(result.ok).toBe(true);
    expect(result.output).toContain('applied edit a.txt +1 -1');
    expect(read('a.txt')).toBe('one\nTWO\nthree\n');
    expect(edit.runs()).toBe(1);
  });

  it('plans again for another call: a plan belongs to its own invocation only', async () => {
    fs.writeFileSync(file('a.txt'), 'one\ntwo\n');
    const { ws } = openWorkspace(root);
    const edit = countingEdit('two', 'TWO');
    const first = await prepareWrites(edit.planOn(ws));
    const second = await prepareWrites(edit.planOn(ws));
    if (!first.ok || !second.ok) throw new Error('a plan was refused');
    await second.invocation.run();
    expect(edit.runs()).toBe(2);
    expect(first.invocation.spent).toBe(false);
    expect(read('a.txt')).toBe('one\nTWO\n');
  });

  it('writes nothing while planning, even through a pipeline that asks to write', async () => {
    fs.writeFileSync(file('a.txt'), 'one\ntwo\n');
    const { ws } = openWorkspace(root);
    const prepared = await prepareWrites(countingEdit('two', 'TWO').planOn(ws));
    expect(prepared.ok).toBe(true);
    expect(read('a.txt')).toBe('one\ntwo\n');
    expect(fs.existsSync(path.join(root, '.editwarden/checkpoints/manifests/files'))).toBe(false);
  });
});

describe('a write whose files changed after the plan is re-planned under the lock, and written only if it makes the checked change', () => {
  it('re-plans when another line changed while the call waited for approval: both changes are kept', async () => {
    fs.writeFileSync(file('a.txt'), 'one\ntwo\nthree\n');
    const run = runner(() => {
      fs.writeFileSync(file('a.txt'), 'one\ntwo\nthree, changed meanwhile\n');
      return { approved: true };
    });
    const r = await run.call({ tool: 'edit_file', args: { path: 'a.txt', old_text: 'two', new_text: 'TWO' } });
    expect(r.status).toBe('ok');
    expect(r.output).toContain('re-planned: a.txt changed after this call was planned');
    expect(read('a.txt')).toBe('one\nTWO\nthree, changed meanwhile\n');
  });

  it('refuses (E_NOT_FOUND, as on the current text) when the text to replace is gone by then, leaving the file as it became', async () => {
    fs.writeFileSync(file('a.txt'), 'one\ntwo\n');
    const run = runner(() => {
      fs.writeFileSync(file('a.txt'), 'one\nsomething else\n');
      return { approved: true };
    });
    const r = await run.call({ tool: 'edit_file', args: { path: 'a.txt', old_text: 'two', new_text: 'TWO' } });
    expect(r.status).toBe('failed');
    expect(r.error?.code).toBe('E_NOT_FOUND');
    expect(read('a.txt')).toBe('one\nsomething else\n');
  });

  it('re-plans after a mode change made after the plan: the edit is applied and the new mode kept', async () => {
    fs.writeFileSync(file('a.sh'), 'echo one\n', { mode: 0o644 });
    const run = runner(() => {
      fs.chmodSync(file('a.sh'), 0o755);
      return { approved: true };
    });
    const r = await run.call({ tool: 'edit_file', args: { path: 'a.sh', old_text: 'one', new_text: 'two' } });
    expect(r.status, r.output).toBe('ok');
    expect(read('a.sh')).toBe('echo two\n');
    expect(fs.statSync(file('a.sh')).mode & 0o777).toBe(0o755);
  });

  it('refuses to create a file that appeared after the plan found the path free', async () => {
    const run = runner(() => {
      fs.writeFileSync(file('new.txt'), 'written by someone else\n');
      return { approved: true };
    });
    const r = await run.call({ tool: 'write_file', args: { path: 'new.txt', content: 'mine\n' } });
    expect(r.status).toBe('failed');
    expect(r.error?.code).toBe('E_EXISTS');
    expect(read('new.txt')).toBe('written by someone else\n');
  });

  it('refuses when a folder became a symlink after the plan, writing through neither path', async () => {
    fs.mkdirSync(file('src'));
    fs.mkdirSync(file('other'));
    fs.writeFileSync(file('src/a.txt'), 'one\n');
    fs.writeFileSync(file('other/a.txt'), 'one\nother\n');
    const run = runner(() => {
      fs.rmSync(file('src'), { recursive: true });
      fs.symlinkSync('other', file('src'));
      return { approved: true };
    });
    const r = await run.call({ tool: 'edit_file', args: { path: 'src/a.txt', old_text: 'one', new_text: 'two' } });
    expect(r.error?.code).toBe('E_STALE');
    expect(read('other/a.txt')).toBe('one\nother\n');
  });
});
