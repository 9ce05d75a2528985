/**
 * A hostile `.editwarden/` shipped inside a repository (a clone or an
 * archive can carry one): journal records pointing outside, blob ids that
 * are paths, a symlinked state folder, a parent folder swapped for a link.
 * No command may delete, read or write anything outside the root because
 * of it, and the root stays usable: every command says what happened and
 * how to continue (`editwarden checkpoint repair`).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import { spawnSync } from 'node:child_process';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openWorkspace } from '../../src/workspace/open.js';
import { call, connect } from '../mcp/helpers/server.js';

const BIN = path.resolve(__dirname, '../../bin/editwarden');

let base: string;
let root: string;
let outside: string;
let secret: string;
beforeEach(() => {
  base = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'ew-planted-')));
  root = path.join(base, 'repo');
  outside = path.join(base, 'outside');
  fs.mkdirSync(root);
  fs.mkdirSync(outside);
  secret = `SECRET-${randomBytes(8).toString('hex')}`;
  fs.writeFileSync(path.join(outside, 'victim.txt'), 'victim\n');
  fs.writeFileSync(path.join(outside, 'secret.txt'), `${secret}\n`);
  fs.writeFileSync(path.join(root, 'a.txt'), 'mine\n');
});
afterEach(() => fs.rmSync(base, { recursive: true, force: true }));

function cli(...args: string[]): { code: number | null; out: string } {
  const r = spawnSync(process.execPath, [BIN, ...args, '--root', root], { encoding: 'utf8', env: { ...process.env, NO_COLOR: '1' } });
  return { code: r.status, out: `${r.stdout}${r.stderr}` };
}

function outsideUntouched(): void {
  expect(fs.readdirSync(outside).sort()).toEqual(['secret.txt', 'victim.txt']);
  expect(fs.readFileSync(path.join(outside, 'victim.txt'), 'utf8')).toBe('victim\n');
}

const CP = '20200101-000000-000-abcd';
const TX = 'tx-evil-12345678';

function plant(record: Record<string, unknown>, manifest: Record<string, unknown>): void {
  const state = path.join(root, '.editwarden');
  fs.mkdirSync(path.join(state, 'journal'), { recursive: true });
  fs.mkdirSync(path.join(state, 'checkpoints', 'manifests', 'files'), { recursive: true });
  fs.writeFileSync(
    path.join(state, 'journal', `${TX}.json`),
    JSON.stringify({ format: 1, tx: TX, name: 'evil', reason: '', scope: 'files', pid: 2 ** 22 + 17, processStart: null, host: os.hostname(), startedAt: '2020-01-01T00:00:00.000Z', checkpoints: [CP], ...record }),
  );
  fs.writeFileSync(
    path.join(state, 'checkpoints', 'manifests', 'files', `${CP}.json`),
    JSON.stringify({ format: 1, id: CP, name: 'x', reason: '', scope: 'files', origin: { kind: 'transaction', tx: TX }, createdAt: '2020-01-01T00:00:00.000Z', scanStartedMs: 0, entries: [], dirs: [], absentDirs: [], ...manifest }),
  );
}

const rootIdentity = (): { dev: number; ino: number } => {
  const st = fs.statSync(root);
  return { dev: st.dev, ino: st.ino };
};

describe('a planted .editwarden/', () => {
  it('a journal record not written for this root is held, never acted on; every command says so until it is dropped', () => {
    plant({}, { entries: [{ path: '../../outside/victim.txt', type: 'absent' }] });
    const first = cli('checkpoint', 'list');
    expect(first.code).toBe(0);
    expect(first.out).toContain('held');
    expect(first.out).toContain('checkpoint repair --drop');
    outsideUntouched();
    const again = cli('checkpoint', 'create', '--name', 'after');
    expect(again.code).toBe(0);
    expect(again.out).toContain('held');
    const listed = cli('checkpoint', 'repair');
    expect(listed.out).toContain(`${TX}.json`);
    expect(cli('checkpoint', 'repair', '--drop', `${TX}.json`).code).toBe(0);
    expect(cli('checkpoint', 'list').out).not.toContain('held');
    outsideUntouched();
    expect(fs.readFileSync(path.join(root, 'a.txt'), 'utf8')).toBe('mine\n');
  });

  it('even bound to this root, a record whose checkpoint names paths outside is held', () => {
    plant(
      { root: rootIdentity() },
      {
        entries: [
          { path: '../../outside/victim.txt', type: 'absent' },
          { path: 'x/../../outside/victim.txt', type: 'absent' },
        ],
      },
    );
    const r = cli('checkpoint', 'list');
    expect(r.code).toBe(0);
    expect(r.out).toContain('outside the root');
    outsideUntouched();
  });

  it('a blob id that is a path ("../../..") is refused before any path is built; the record is held, a.txt kept', () => {
    const blob = '../../../outside/secret.txt';
    plant({ root: rootIdentity() }, { entries: [{ path: 'a.txt', type: 'file', blob, size: 5, mode: 0o644, mtimeMs: 0, ctimeMs: 0, ino: 0 }] });
    const r = cli('checkpoint', 'list');
    expect(r.code).toBe(0);
    expect(r.out).toContain('held');
    expect(r.out).not.toContain(secret);
    expect(fs.readFileSync(path.join(root, 'a.txt'), 'utf8')).toBe('mine\n');
    outsideUntouched();
  });

  it('a symlinked .editwarden is refused (E_UNTRUSTED_STATE): no lock, journal or checkpoint lands outside', () => {
    fs.mkdirSync(path.join(outside, 'state'));
    fs.symlinkSync(path.join(outside, 'state'), path.join(root, '.editwarden'));
    const r = cli('checkpoint', 'create');
    expect(r.code).not.toBe(0);
    expect(r.out).toContain('E_UNTRUSTED_STATE');
    expect(fs.readdirSync(path.join(outside, 'state'))).toEqual([]);
    const sub = fs.mkdirSync(path.join(root, 'sub'));
    void sub;
    fs.rmSync(path.join(root, '.editwarden'));
    fs.mkdirSync(path.join(root, '.editwarden', 'checkpoints'), { recursive: true });
    fs.symlinkSync(path.join(outside, 'state'), path.join(root, '.editwarden', 'checkpoints', 'blobs'));
    const again = cli('checkpoint', 'create');
    expect(again.out).toContain('E_UNTRUSTED_STATE');
    expect(fs.readdirSync(path.join(outside, 'state'))).toEqual([]);
  });

  it('restore and diff never follow a parent folder swapped for a link to the outside', () => {
    fs.mkdirSync(path.join(root, 'sub'));
    fs.writeFileSync(path.join(root, 'sub', 'secret.txt'), 'inside\n');
    fs.writeFileSync(path.join(root, 'sub', 'victim.txt'), 'inside victim\n');
    const { transactions } = openWorkspace(root);
    const cps = transactions.checkpoints;
    const ws = cps.create('ws', '');
    const files = cps.create('files', '', 'files', { paths: ['sub/new.txt', 'sub/secret.txt'] });
    fs.rmSync(path.join(root, 'sub'), { recursive: true });
    fs.symlinkSync(outside, path.join(root, 'sub'));
    const diff = cli('checkpoint', 'diff', ws);
    expect(diff.out).not.toContain(secret);
    expect(JSON.stringify(cps.diff(files))).not.toContain(secret);
    // Files scope: the symlinked folder is refused, nothing outside deleted or written.
    const refused = cli('checkpoint', 'restore', files);
    expect(refused.code).not.toBe(0);
    outsideUntouched();
    // Workspace scope: the link is replaced by the recorded folder, inside the root.
    const restored = cli('checkpoint', 'restore', ws);
    expect(restored.code).toBe(0);
    expect(fs.lstatSync(path.join(root, 'sub')).isDirectory()).toBe(true);
    expect(fs.readFileSync(path.join(root, 'sub', 'secret.txt'), 'utf8')).toBe('inside\n');
    outsideUntouched();
    // And the root is usable afterwards: no record left blocking.
    expect(cli('checkpoint', 'list').code).toBe(0);
  });

  it('through MCP: the server starts, holds the planted record, answers calls, and never writes the config or outside', async () => {
    plant({ root: rootIdentity() }, { entries: [{ path: '../../outside/victim.txt', type: 'absent' }] });
    fs.writeFileSync(path.join(root, '.editwarden.yml'), 'constraints:\n  max_files: 3\n');
    const server = await connect(['--root', root]);
    try {
      const read = await call(server.client, 'read_file', { path: 'a.txt' });
      expect(read.isError).toBe(false);
      expect(read.text).toContain('mine');
      const cfg = await call(server.client, 'write_file', { path: '.editwarden.yml', content: 'constraints: {}\n', overwrite: true });
      expect(cfg.isError).toBe(true);
      expect(cfg.text).toContain('E_DENIED_PATH');
      const list = await call(server.client, 'checkpoint_list', {});
      expect(list.isError).toBe(false);
      expect(server.stderr()).toContain('held');
    } finally {
      await server.close();
    }
    expect(fs.readFileSync(path.join(root, '.editwarden.yml'), 'utf8')).toBe('constraints:\n  max_files: 3\n');
    outsideUntouched();
  });
});

describe('planted folders and files inside .editwarden/ that records are written to', () => {
  function plantLink(rel: string, target: string): void {
    const at = path.join(root, '.editwarden', rel);
    fs.mkdirSync(path.dirname(at), { recursive: true });
    fs.symlinkSync(target, at);
  }

  it('.editwarden/runs as a symlink to the outside: verify refuses (E_UNTRUSTED_STATE) and writes no run record outside', () => {
    plantLink('runs', outside);
    const r = cli('verify', '--cmd', 'true', '--json');
    expect(r.code).not.toBe(0);
    expect(r.out).toContain('E_UNTRUSTED_STATE');
    outsideUntouched();
  });

  it('.editwarden/verify as a symlink to the outside: the baseline is refused, not written outside', () => {
    plantLink('verify', outside);
    const r = cli('verify', '--cmd', 'true', '--baseline', '--json');
    expect(r.out).toContain('E_UNTRUSTED_STATE');
    outsideUntouched();
  });

  it('.editwarden/hooks/changes.jsonl as a symlink to an outside file: the hook never appends to it', () => {
    plantLink('hooks/changes.jsonl', path.join(outside, 'victim.txt'));
    const input = JSON.stringify({ tool_name: 'Write', tool_input: { file_path: path.join(root, 'a.txt'), content: 'mine\nmore\n' } });
    spawnSync(process.execPath, [BIN, 'hook', 'claude', 'post-tool-use', '--root', root], { input, encoding: 'utf8' });
    outsideUntouched();
  });
});
