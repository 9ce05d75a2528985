/**
 * The workspace boundary beyond path spelling: special files, hard links,
 * read-only files, symlink deletes, owners, the configuration file, temp
 * names within NAME_MAX and leftovers of killed writes.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { execFileSync } from 'node:child_process';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { codeOf } from '../error-code.js';
import { skipUnlessRoot } from '../needs-root.js';
import { defaultConfig } from '../../src/config/config.js';
import { openWorkspace } from '../../src/workspace/open.js';
import { ToolRunner } from '../../src/tools/runner.js';
import { NAME_MAX, TEMP_PREFIX, tempNameFor } from '../../src/workspace/atomic.js';

let base: string;
let root: string;
beforeEach(() => {
  base = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'ew-boundary-')));
  root = path.join(base, 'repo');
  fs.mkdirSync(root);
});
afterEach(() => fs.rmSync(base, { recursive: true, force: true }));

const put = (rel: string, text: string): void => {
  fs.mkdirSync(path.dirname(path.join(root, rel)), { recursive: true });
  fs.writeFileSync(path.join(root, rel), text);
};
describe('special files', () => {
  it('a FIFO is never opened for reading (E_NOT_REGULAR, no hang) and never replaced by a write', async () => {
    execFileSync('mkfifo', [path.join(root, 'pipe')]);
    const ws = openWorkspace(root).ws;
    expect(codeOf(() => ws.read('pipe'))).toBe('E_NOT_REGULAR');
    expect(codeOf(() => ws.transact((tx) => ws.commit(tx, [{ kind: 'write', path: 'pipe', bytes: Buffer.from('x') }])))).toBe('E_NOT_REGULAR');
    expect(codeOf(() => ws.transact((tx) => ws.commit(tx, [{ kind: 'delete', path: 'pipe' }])))).toBe('E_NOT_REGULAR');
    expect(fs.lstatSync(path.join(root, 'pipe')).isFIFO()).toBe(true);
    const { ws: ws2, transactions } = openWorkspace(root);
    const r = await ToolRunner.start({ ws: ws2, config: defaultConfig(), transactions }).call({ tool: 'read_file', args: { path: 'pipe' } });
    expect(r.ok).toBe(false);
    expect(r.error?.code).toBe('E_NOT_REGULAR');
  });

  it('a restore never deletes or replaces a FIFO standing where the checkpoint had nothing or a file', () => {
    put('a.txt', 'a\n');
    const { transactions } = openWorkspace(root);
    const cps = transactions.checkpoints;
    const id = cps.create('before', '', 'files', { paths: ['p', 'a.txt'] });
    fs.rmSync(path.join(root, 'a.txt'));
    execFileSync('mkfifo', [path.join(root, 'p')]);
    execFileSync('mkfifo', [path.join(root, 'a.txt')]);
    const r = cps.restore(id);
    expect(fs.lstatSync(path.join(root, 'p')).isFIFO()).toBe(true);
    expect(fs.lstatSync(path.join(root, 'a.txt')).isFIFO()).toBe(true);
    expect(r.skipped?.sort()).toEqual(['a.txt', 'p']);
  });
});

describe('hard links', () => {
  it('a regular file with a second link is not read (E_HARD_LINK) unless allowed', () => {
    fs.writeFileSync(path.join(base, 'secret.txt'), 'outside secret\n');
    fs.linkSync(path.join(base, 'secret.txt'), path.join(root, 'window.txt'));
    expect(codeOf(() => openWorkspace(root).ws.read('window.txt'))).toBe('E_HARD_LINK');
    expect(openWorkspace(root, { allowHardLinks: true }).ws.read('window.txt')?.bytes.toString()).toBe('outside secret\n');
  });
});

describe('read-only files, symlink deletes, owners', () => {
  it('refuses to replace a file without a write bit (E_READ_ONLY) unless forced; the mode is kept', () => {
    put('ro.txt', 'keep\n');
    fs.chmodSync(path.join(root, 'ro.txt'), 0o444);
    const ws = openWorkspace(root).ws;
    expect(codeOf(() => ws.transact((tx) => ws.commit(tx, [{ kind: 'write', path: 'ro.txt', bytes: Buffer.from('new\n') }])))).toBe('E_READ_ONLY');
    expect(fs.readFileSync(path.join(root, 'ro.txt'), 'utf8')).toBe('keep\n');
    ws.transact((tx) => ws.commit(tx, [{ kind: 'write', path: 'ro.txt', bytes: Buffer.from('new\n'), force: true }]));
    expect(fs.readFileSync(path.join(root, 'ro.txt'), 'utf8')).toBe('new\n');
    expect(fs.statSync(path.join(root, 'ro.txt')).mode & 0o777).toBe(0o444);
  });

  it('write_file on a read-only file fails with E_READ_ONLY and a hint naming force', async () => {
    put('ro.txt', 'keep\n');
    fs.chmodSync(path.join(root, 'ro.txt'), 0o444);
    const { ws, transactions } = openWorkspace(root);
    const r = await ToolRunner.start({ ws, config: defaultConfig(), transactions }).call({ tool: 'write_file', args: { path: 'ro.txt', content: 'x\n', overwrite: true } });
    expect(r.error?.code).toBe('E_READ_ONLY');
    expect(r.error?.hint).toContain('force');
  });

  it('deleting a symlink removes the link, not its target; the rollback puts the link back', () => {
    put('target.txt', 'target\n');
    fs.symlinkSync('target.txt', path.join(root, 'lnk.txt'));
    const { ws, transactions } = openWorkspace(root);
    ws.transact((tx) => ws.commit(tx, [{ kind: 'delete', path: 'lnk.txt' }]));
    expect(fs.existsSync(path.join(root, 'lnk.txt'))).toBe(false);
    expect(fs.readFileSync(path.join(root, 'target.txt'), 'utf8')).toBe('target\n');
    transactions.checkpoints.restore(transactions.lastCheckpoint as string);
    expect(fs.readlinkSync(path.join(root, 'lnk.txt'))).toBe('target.txt');
  });

  it('keeps the owner (uid/gid) on edit and on restore', (context) => {
    skipUnlessRoot(context, 'chowns a file to another uid');
    put('owned.txt', 'one\n');
    fs.chownSync(path.join(root, 'owned.txt'), 4321, 4322);
    const { ws, transactions } = openWorkspace(root);
    ws.transact((tx) => ws.commit(tx, [{ kind: 'write', path: 'owned.txt', bytes: Buffer.from('two\n') }]));
    let st = fs.statSync(path.join(root, 'owned.txt'));
    expect([st.uid, st.gid]).toEqual([4321, 4322]);
    const id = transactions.checkpoints.create('owned', '', 'files', { paths: ['owned.txt'] });
    fs.rmSync(path.join(root, 'owned.txt'));
    fs.writeFileSync(path.join(root, 'owned.txt'), 'three\n');
    transactions.checkpoints.restore(id);
    st = fs.statSync(path.join(root, 'owned.txt'));
    expect(fs.readFileSync(path.join(root, 'owned.txt'), 'utf8')).toBe('two\n');
    expect([st.uid, st.gid]).toEqual([4321, 4322]);
  });
});

describe("the configuration is out of the agent's reach", () => {
  it('every write path refuses .editwarden.yml with E_DENIED_PATH (any case, through a symlink, by delete)', async () => {
    put('.editwarden.yml', 'constraints:\n  max_files: 1\n');
    fs.symlinkSync('.editwarden.yml', path.join(root, 'cfg'));
    const { ws, transactions } = openWorkspace(root);
    for (const p of ['.editwarden.yml', './.editwarden.yml', 'cfg', '.EDITWARDEN.YML']) {
      expect(codeOf(() => ws.transact((tx) => ws.commit(tx, [{ kind: 'write', path: p, bytes: Buffer.from('constraints: {}\n') }])))).toBe('E_DENIED_PATH');
    }
    expect(codeOf(() => ws.transact((tx) => ws.commit(tx, [{ kind: 'delete', path: '.editwarden.yml' }])))).toBe('E_DENIED_PATH');
    const runner = ToolRunner.start({ ws, config: defaultConfig(), transactions });
    const calls = [
      { tool: 'write_file', args: { path: '.editwarden.yml', content: 'x: 1\n', overwrite: true } },
      { tool: 'edit_file', args: { path: '.editwarden.yml', old_text: 'max_files: 1', new_text: 'max_files: 1000' } },
      { tool: 'apply_patch', args: { patch: '*** Begin Patch\n*** Update File: .editwarden.yml\n@@\n-  max_files: 1\n+  max_files: 1000\n*** End Patch\n' } },
      { tool: 'apply_patch', args: { patch: '*** Begin Patch\n*** Delete File: .editwarden.yml\n*** End Patch\n' } },
    ];
    for (const call of calls) {
      const r = await runner.call(call);
      expect(r.ok, JSON.stringify(r)).toBe(false);
      expect(JSON.stringify(r)).toContain('E_DENIED_PATH');
    }
    expect(fs.readFileSync(path.join(root, '.editwarden.yml'), 'utf8')).toBe('constraints:\n  max_files: 1\n');
    // Reading it stays allowed.
    expect(ws.read('.editwarden.yml')?.bytes.toString()).toContain('max_files');
  });

  it('a restore never brings back an older configuration, nor deletes one made since (skipped and reported)', () => {
    put('a.txt', 'a\n');
    put('.editwarden.yml', 'constraints:\n  max_files: 100\n');
    const { transactions } = openWorkspace(root);
    const loose = transactions.checkpoints.create('loose', '', 'workspace');
    // The person tightens the limits after the checkpoint.
    put('.editwarden.yml', 'constraints:\n  max_files: 1\n');
    fs.writeFileSync(path.join(root, 'a.txt'), 'changed\n');
    const r = transactions.checkpoints.restore(loose);
    expect(fs.readFileSync(path.join(root, '.editwarden.yml'), 'utf8')).toBe('constraints:\n  max_files: 1\n');
    expect(fs.readFileSync(path.join(root, 'a.txt'), 'utf8')).toBe('a\n');
    expect(r.skipped).toEqual(['.editwarden.yml']);
    // A checkpoint from before any config existed does not delete the one made since.
    fs.rmSync(path.join(root, '.editwarden.yml'));
    const none = transactions.checkpoints.create('no config', '', 'workspace');
    put('.editwarden.yml', 'constraints:\n  max_files: 1\n');
    expect(transactions.checkpoints.restore(none).skipped).toEqual(['.editwarden.yml']);
    expect(fs.existsSync(path.join(root, '.editwarden.yml'))).toBe(true);
  });
});

describe('temp names and leftovers', () => {
  it('a 250-byte name (and a 255-byte one) is written and restored; temp names never exceed NAME_MAX', () => {
    for (const len of [235, 250, 255]) {
      const name = `${'n'.repeat(len - 4)}.txt`;
      expect(Buffer.byteLength(tempNameFor(name))).toBeLessThanOrEqual(NAME_MAX);
      const { ws, transactions } = openWorkspace(root);
      ws.transact((tx) => ws.commit(tx, [{ kind: 'write', path: name, bytes: Buffer.from('one\n') }]));
      const id = transactions.lastCheckpoint as string;
      ws.transact((tx) => ws.commit(tx, [{ kind: 'write', path: name, bytes: Buffer.from('two\n') }]));
      transactions.checkpoints.restore(id);
      expect(fs.existsSync(path.join(root, name))).toBe(false);
    }
    expect(Buffer.byteLength(tempNameFor('é'.repeat(127)))).toBeLessThanOrEqual(NAME_MAX);
  });

  it("a restore removes a killed write's temp file before the empty folder it sits in", () => {
    const { transactions } = openWorkspace(root);
    const cps = transactions.checkpoints;
    const id = cps.create('before', '', 'files', { paths: ['newdir/a.txt'] });
    fs.mkdirSync(path.join(root, 'newdir'));
    fs.writeFileSync(path.join(root, 'newdir', `${TEMP_PREFIX}a.txt.0123456789ab`), 'half written');
    cps.restore(id);
    expect(fs.existsSync(path.join(root, 'newdir'))).toBe(false);
  });
});

describe('the path-string fallback (systems without /proc/self/fd, e.g. macOS)', () => {
  it('still follows in-root symlinks, refuses escapes, reads and writes', async () => {
    const { setResolverFallback } = await import('../../src/workspace/resolver.js');
    setResolverFallback(true);
    try {
      put('src/a.txt', 'a\n');
      fs.symlinkSync('src', path.join(root, 'alias'));
      fs.symlinkSync(base, path.join(root, 'out'));
      const ws = openWorkspace(root).ws;
      expect(ws.read('alias/a.txt')?.bytes.toString()).toBe('a\n');
      expect(codeOf(() => ws.read('out/repo/src/a.txt'))).toBe('E_OUTSIDE_ROOT');
      ws.transact((tx) => ws.commit(tx, [{ kind: 'write', path: 'src/new/b.txt', bytes: Buffer.from('b\n') }]));
      expect(fs.readFileSync(path.join(root, 'src/new/b.txt'), 'utf8')).toBe('b\n');
      expect(codeOf(() => ws.transact((tx) => ws.commit(tx, [{ kind: 'write', path: 'out/x.txt', bytes: Buffer.from('x') }])))).toBe('E_OUTSIDE_ROOT');
      expect(fs.existsSync(path.join(base, 'x.txt'))).toBe(false);
    } finally {
      setResolverFallback(false);
    }
  });
});

describe('workspace.allow_hardlinks in the configuration', () => {
  it('is a config key (default false)', async () => {
    const { parseConfig } = await import('../../src/config/config.js');
    expect(parseConfig('workspace:\n  allow_hardlinks: true\n').workspace.allow_hardlinks).toBe(true);
    expect(defaultConfig().workspace.allow_hardlinks).toBe(false);
  });
});
