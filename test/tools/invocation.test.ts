/**
 * The tool life cycle as one value: a write tool's prepare() returns an
 * Invocation whose run() commits exactly the plan it showed, at most once;
 * a write tool has no execute to reach without a plan.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { defaultConfig } from '../../src/config/config.js';
import { ErrorCode } from '../../src/errors.js';
import { checkpointRestoreTool } from '../../src/tools/service-tools.js';
import { editFileTool } from '../../src/tools/edit-file.js';
import { ToolRunner } from '../../src/tools/runner.js';
import { Invocation, type ToolContext, type WriteTool } from '../../src/tools/types.js';
import { writeFileTool } from '../../src/tools/write-file.js';
import { openWorkspace } from '../../src/workspace/open.js';
import type { Workspace } from '../../src/workspace/workspace.js';

let root: string;
beforeEach(() => {
  root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'ew-invocation-')));
});
afterEach(() => fs.rmSync(root, { recursive: true, force: true }));

const file = (rel: string) => path.join(root, rel);
const read = (rel: string) => fs.readFileSync(file(rel), 'utf8');

function contextOf(ws: Workspace): ToolContext {
  return { ws, config: defaultConfig(), mode: 'headless', call: 0, signal: new AbortController().signal, remainingMs: () => 60_000, runDir: null, apply: {} };
}

describe("an invocation's run() commits exactly the plan its prepare() showed", () => {
  it('writes nothing while prepared; run() writes the diff it showed', async () => {
    fs.writeFileSync(file('a.txt'), 'one\ntwo\nthree\n');
    const { ws } = openWorkspace(root);
    const prepared = await editFileTool.prepare({ path: 'a.txt', mode: 'edit', old_text: 'two', new_text: 'TWO', replace_all: false, force: false }, contextOf(ws));
    if (!prepared.ok) throw new Error(prepared.result.output);
    const { invocation } = prepared;
    expect(invocation.changes).toEqual([{ path: 'a.txt', added: 1, removed: 1 }]);
    expect(invocation.diff).toContain('-two\n+TWO');
    expect(read('a.txt')).toBe('one\ntwo\nthree\n');
    const result = await invocation.run();
    expect(result.ok).toBe(true);
    expect(result.changes).toEqual(invocation.changes);
    expect(read('a.txt')).toBe('one\nTWO\nthree\n');
  });

  it('a refused request is answered by prepare() and has no invocation to run', async () => {
    fs.writeFileSync(file('a.txt'), 'one\n');
    const { ws } = openWorkspace(root);
    const prepared = await editFileTool.prepare({ path: 'a.txt', mode: 'edit', old_text: 'absent', new_text: 'x', replace_all: false, force: false }, contextOf(ws));
    expect(prepared.ok).toBe(false);
    expect(prepared.ok ? null : prepared.result.error?.code).toBe(ErrorCode.NOT_FOUND);
  });
});

describe('an invocation runs at most once', () => {
  it('a second run() of a write is refused with E_INVOCATION_SPENT and writes nothing more', async () => {
    const { ws } = openWorkspace(root);
    const prepared = await writeFileTool.prepare({ path: 'new.txt', content: 'first\n', overwrite: false, force: false }, contextOf(ws));
    if (!prepared.ok) throw new Error(prepared.result.output);
    expect((await prepared.invocation.run()).ok).toBe(true);
    expect(prepared.invocation.spent).toBe(true);
    fs.writeFileSync(file('new.txt'), 'changed by a person\n');
    await expect(prepared.invocation.run()).rejects.toMatchObject({ code: ErrorCode.INVOCATION_SPENT });
    expect(read('new.txt')).toBe('changed by a person\n');
  });

  it('a checkpoint restore, approved once, is not restored a second time', async () => {
    fs.writeFileSync(file('a.txt'), 'one\n');
    const { ws, transactions } = openWorkspace(root);
    const id = transactions.checkpoints.create('before', '', 'workspace');
    fs.writeFileSync(file('a.txt'), 'two\n');
    const prepared = await checkpointRestoreTool.prepare({ id }, contextOf(ws));
    if (!prepared.ok) throw new Error(prepared.result.output);
    expect(prepared.invocation.changes.map((c) => c.path)).toEqual(['a.txt']);
    expect((await prepared.invocation.run()).ok).toBe(true);
    expect(read('a.txt')).toBe('one\n');
    fs.writeFileSync(file('a.txt'), 'three\n');
    await expect(prepared.invocation.run()).rejects.toMatchObject({ code: ErrorCode.INVOCATION_SPENT });
    expect(read('a.txt')).toBe('three\n');
  });

  it('any invocation, not only a write: the work runs once', async () => {
    let runs = 0;
    const invocation = new Invocation(async () => ({ ok: true, output: String(++runs) }));
    expect((await invocation.run()).output).toBe('1');
    await expect(invocation.run()).rejects.toMatchObject({ code: ErrorCode.INVOCATION_SPENT });
    expect(runs).toBe(1);
  });
});

describe('a write cannot be reached without its plan', () => {
  it('a write tool has no execute: only prepare() begins it', () => {
    const tool: WriteTool = editFileTool;
    // @ts-expect-error — a write tool has no execute to call without a plan.
    const execute: unknown = tool.execute;
    expect(execute).toBeUndefined();
    expect(typeof tool.prepare).toBe('function');
  });

  it('the approval hook sees the invocation’s changes and diff, and the runner writes exactly that', async () => {
    fs.writeFileSync(file('a.txt'), 'one\ntwo\n');
    const { ws, transactions } = openWorkspace(root);
    const seen: unknown[] = [];
    const runner = ToolRunner.start({
      ws,
      config: defaultConfig(),
      transactions,
      approve: (r) => {
        seen.push({ changes: r.changes, diff: r.diff });
        return { approved: true };
      },
    });
    const record = await runner.call({ tool: 'edit_file', args: { path: 'a.txt', old_text: 'two', new_text: 'TWO' } });
    runner.finish();
    expect(record.status).toBe('ok');
    expect(seen).toEqual([{ changes: [{ path: 'a.txt', added: 1, removed: 1 }], diff: expect.stringContaining('+TWO') }]);
    expect({ files: record.files, added: record.lines_added, removed: record.lines_removed }).toEqual({ files: ['a.txt'], added: 1, removed: 1 });
  });
});
