/**
 * What a write tool does when another process wrote the file between its
 * plan (gated, approved) and its commit: the same request is planned again
 * on the current text under the root lock and written only if it makes the
 * change that was checked — otherwise E_STALE, and nothing is overwritten.
 * The other writer is a real `bin/editwarden` process, run while the call
 * waits for approval.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { spawnSync } from 'node:child_process';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { defaultConfig } from '../../src/config/config.js';
import { checkpointCreateTool, checkpointRestoreTool } from '../../src/tools/service-tools.js';
import { BUILTIN_TOOLS } from '../../src/tools/registry.js';
import { ToolRunner, type ApprovalHook } from '../../src/tools/runner.js';
import { openWorkspace } from '../../src/workspace/open.js';

const BIN = path.resolve(__dirname, '../../bin/editwarden');
let root: string;
beforeEach(() => {
  root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'ew-replan-')));
  fs.writeFileSync(path.join(root, 'shared.txt'), 'a = 0\nb = 0\nc = 0\n');
});
afterEach(() => fs.rmSync(root, { recursive: true, force: true }));

const read = () => fs.readFileSync(path.join(root, 'shared.txt'), 'utf8');

/** Another editwarden process edits the file (synchronously, while our call waits for approval). */
function otherWriter(oldText: string, newText: string): void {
  const r = spawnSync(process.execPath, [BIN, 'edit', 'shared.txt', '--old', oldText, '--new', newText, '--root', root], { encoding: 'utf8' });
  expect(r.status, r.stdout + r.stderr).toBe(0);
}

function config(): ReturnType<typeof defaultConfig> {
  const c = defaultConfig();
  c.constraints.allowed_tools = [];
  return c;
}

function runner(approve: ApprovalHook): ToolRunner {
  const { ws, transactions } = openWorkspace(root);
  return ToolRunner.start({ ws, config: config(), transactions, approve, artifacts: false, tools: [...BUILTIN_TOOLS, checkpointCreateTool, checkpointRestoreTool] });
}

/** Approves every call, after letting another process write once (on the first approval only). */
function writeOnceThenApprove(write: () => void): ApprovalHook {
  let done = false;
  return () => {
    if (!done) {
      done = true;
      write();
    }
    return { approved: true };
  };
}

describe('a file changed by another writer after the plan was checked', () => {
  it('an edit of another line is re-planned on the current text and applied; both edits are in the file', async () => {
    const run = runner(writeOnceThenApprove(() => otherWriter('b = 0', 'b = 1')));
    const r = await run.call({ tool: 'edit_file', args: { path: 'shared.txt', old_text: 'a = 0', new_text: 'a = 1' } });
    expect(r.status, r.output).toBe('ok');
    expect(r.output).toMatch(/re-planned: shared\.txt changed after this call was planned/);
    expect(r).toMatchObject({ files: ['shared.txt'], lines_added: 1, lines_removed: 1 });
    expect(read()).toBe('a = 1\nb = 1\nc = 0\n');
  });

  it('an edit whose text the other writer changed is refused, and the other edit stays', async () => {
    const run = runner(writeOnceThenApprove(() => otherWriter('a = 0', 'a = 9')));
    const r = await run.call({ tool: 'edit_file', args: { path: 'shared.txt', old_text: 'a = 0', new_text: 'a = 1' } });
    expect(r.status).toBe('failed');
    expect(r.error?.code).toBe('E_NOT_FOUND');
    expect(read()).toBe('a = 9\nb = 0\nc = 0\n');
  });

  it('a re-plan that would make a different change than the checked one is refused with E_STALE', async () => {
    // replace_all of "= 0": the other writer adds a line with "= 0", so the same request would now change 4 lines, not 3.
    const run = runner(writeOnceThenApprove(() => otherWriter('c = 0\n', 'c = 0\nd = 0\n')));
    const r = await run.call({ tool: 'edit_file', args: { path: 'shared.txt', old_text: '= 0', new_text: '= 5', replace_all: true } });
    expect(r.status).toBe('failed');
    expect(r.error?.code).toBe('E_STALE');
    expect(read()).toBe('a = 0\nb = 0\nc = 0\nd = 0\n');
  });

  it('write_file over a file that changed since the plan is refused with E_STALE (never overwrites the other write)', async () => {
    const run = runner(writeOnceThenApprove(() => otherWriter('b = 0', 'b = 1')));
    const r = await run.call({ tool: 'write_file', args: { path: 'shared.txt', content: 'a = 0\nb = 0\nc = 7\n', overwrite: true } });
    expect(r.error?.code).toBe('E_STALE');
    expect(read()).toBe('a = 0\nb = 1\nc = 0\n');
  });

  it('checkpoint_restore planned before another write is refused with E_STALE; the other write stays', async () => {
    const run = runner(writeOnceThenApprove(() => undefined));
    const cp = await run.call({ tool: 'checkpoint_create', args: { name: 'start', paths: ['shared.txt'] } });
    expect(cp.status, cp.output).toBe('ok');
    const id = (cp.data as { id: string }).id;
    fs.writeFileSync(path.join(root, 'shared.txt'), 'a = 0\nb = 0\nc = 3\n');
    const { ws, transactions } = openWorkspace(root);
    const restore = ToolRunner.start({
      ws,
      config: config(),
      transactions,
      artifacts: false,
      tools: [checkpointRestoreTool],
      approve: writeOnceThenApprove(() => otherWriter('a = 0', 'a = 4')),
    });
    const r = await restore.call({ tool: 'checkpoint_restore', args: { id } });
    expect(r.error?.code, r.output).toBe('E_STALE');
    expect(read()).toBe('a = 4\nb = 0\nc = 3\n');
    // Planned again (a new call), it restores and is charged for what it really overwrites.
    const again = await ToolRunner.start({ ws, config: config(), transactions, artifacts: false, tools: [checkpointRestoreTool] }).call({ tool: 'checkpoint_restore', args: { id } });
    expect(again.status, again.output).toBe('ok');
    expect(again).toMatchObject({ lines_added: 2, lines_removed: 2 });
    expect(read()).toBe('a = 0\nb = 0\nc = 0\n');
  });
});
