import fs from 'node:fs';
import path from 'node:path';
import { PassThrough } from 'node:stream';
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { Command } from 'commander';
import { describe, expect, it } from 'vitest';
import { registerCheckpoint } from '../../src/cli/commands/checkpoint.js';
import type { Io } from '../../src/cli/output.js';
import { snapshotTree, tempRoot, write } from './fixtures/checkpoint-helpers.js';

async function cli(...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  const stdout = new PassThrough();
  const stderr = new PassThrough();
  let out = '';
  let err = '';
  stdout.on('data', (d) => (out += d));
  stderr.on('data', (d) => (err += d));
  const io: Io = { stdout, stderr, stdin: new PassThrough(), env: { NO_COLOR: '1' } };
  let code = 0;
  const program = new Command().exitOverride();
  registerCheckpoint(program, io, (c) => (code = c));
  await program.parseAsync(['node', 'editwarden', 'checkpoint', ...args]);
  return { code, stdout: out, stderr: err };
}

describe('editwarden checkpoint', () => {
  it('create --json prints {"id"}, list shows it with sizes, diff shows the change, restore undoes it', async () => {
    const root = tempRoot();
    write(root, 'a.txt', 'hello\n');
    const before = snapshotTree(root);
    const created = await cli('create', '--root', root, '--name', 'start', '--reason', 'before edits', '--json');
    expect(created.code).toBe(0);
    const { id } = JSON.parse(created.stdout) as { id: string };
    expect(id).toMatch(/^\d{8}-\d{6}-\d{3}-[0-9a-f]{4}$/);

    const list = JSON.parse((await cli('list', '--root', root, '--json')).stdout) as { checkpoints: Array<Record<string, unknown>> };
    expect(list.checkpoints).toEqual([expect.objectContaining({ id, name: 'start', reason: 'before edits', files: 1, bytes: 6 })]);
    expect((await cli('list', '--root', root)).stdout).toContain('start: before edits');

    write(root, 'a.txt', 'changed\n');
    const diff = await cli('diff', id, '--root', root);
    expect(diff.stdout).toContain('M a.txt');
    expect(diff.stdout).toContain('+changed');

    const restored = await cli('restore', id, '--root', root, '--json');
    const r = JSON.parse(restored.stdout) as { ok: boolean; safety: string; written: string[] };
    expect(r).toMatchObject({ ok: true, written: ['a.txt'] });
    expect(snapshotTree(root)).toEqual(before);
    expect((await cli('restore', r.safety, '--root', root)).stdout).toContain('undo with: editwarden checkpoint restore');
    expect(fs.readFileSync(path.join(root, 'a.txt'), 'utf8')).toBe('changed\n');
  });

  it('create --scope files records only the named files', async () => {
    const root = tempRoot();
    write(root, 'a.txt', 'a');
    write(root, 'b.txt', 'b');
    const { id } = JSON.parse((await cli('create', 'a.txt', '--scope', 'files', '--root', root, '--json')).stdout) as { id: string };
    const list = JSON.parse((await cli('list', '--root', root, '--json')).stdout) as { checkpoints: Array<{ id: string; scope: string; files: number }> };
    expect(list.checkpoints).toEqual([expect.objectContaining({ id, scope: 'files', files: 1 })]);
  });

  it('drop and prune remove checkpoints', async () => {
    const root = tempRoot();
    write(root, 'a.txt', 'a');
    const ids: string[] = [];
    for (let i = 0; i < 4; i++) {
      write(root, 'a.txt', `v${i}`);
      ids.push((JSON.parse((await cli('create', '--root', root, '--json')).stdout) as { id: string }).id);
    }
    const dropped = JSON.parse((await cli('drop', ids[0] as string, '--root', root, '--json')).stdout) as { freedBytes: number };
    expect(dropped.freedBytes).toBe(2);
    const pruned = JSON.parse((await cli('prune', '--keep-last', '1', '--root', root, '--json')).stdout) as { dropped: string[]; kept: number };
    expect(pruned).toMatchObject({ dropped: [ids[1], ids[2]], kept: 1 });
    expect((await cli('list', '--root', root)).stdout).toContain(ids[3] as string);
  });

  it('errors carry a code and a hint; usage errors exit 64', async () => {
    const root = tempRoot();
    const missing = await cli('restore', '20250101-000000-000-abcd', '--root', root, '--json');
    expect(missing.code).toBe(1);
    expect(JSON.parse(missing.stdout)).toMatchObject({ ok: false, error: { code: 'E_NOT_FOUND' } });
    const noRule = await cli('prune', '--root', root);
    expect(noRule.code).toBe(64);
    expect(noRule.stderr).toContain('E_USAGE');
    expect(noRule.stderr).toContain('hint:');
    expect((await cli('create', '--scope', 'nope', '--root', root)).code).toBe(64);
  });

  it('any checkpoint command first rolls back a transaction a killed process left, and says so', async () => {
    const root = tempRoot();
    write(root, 'a.txt', 'original a\n');
    write(root, 'b.txt', 'original b\n');
    const before = snapshotTree(root);
    const child = path.join(path.dirname(fileURLToPath(import.meta.url)), 'fixtures', 'tx-child.mjs');
    spawnSync(process.execPath, [child, 'die-mid-tx', root]);
    const human = await cli('list', '--root', root);
    expect(human.stderr).toMatch(/recovered: Rolled back the unfinished transaction "doomed"/);
    expect(snapshotTree(root)).toEqual(before);
  });
});
