import { openWorkspace } from '../../src/workspace/open.js';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { atomicWriteFile, TEMP_PREFIX } from '../../src/workspace/atomic.js';

let dir: string;
beforeEach(() => {
  dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'ew-atomic-')));
});
afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

describe('atomic writes', () => {
  it('replaces the content and keeps the file mode', () => {
    const file = path.join(dir, 'run.sh');
    fs.writeFileSync(file, 'old\n');
    fs.chmodSync(file, 0o751);
    atomicWriteFile(file, Buffer.from('new\n'));
    expect(fs.readFileSync(file, 'utf8')).toBe('new\n');
    expect(fs.statSync(file).mode & 0o7777).toBe(0o751);
    expect(fs.readdirSync(dir)).toEqual(['run.sh']);
  });

  it('a failed write leaves the old file intact and no temp file behind', () => {
    const file = path.join(dir, 'keep.txt');
    fs.writeFileSync(file, 'precious\n');
    expect(() =>
      atomicWriteFile(file, Buffer.from('new\n'), {
        beforeRename: () => {
          throw new Error('disk on fire');
        },
      }),
    ).toThrow('disk on fire');
    expect(fs.readFileSync(file, 'utf8')).toBe('precious\n');
    expect(fs.readdirSync(dir).filter((f) => f.startsWith(TEMP_PREFIX))).toEqual([]);
  });

  it('does not follow a symlink planted at the target: the link itself is replaced', () => {
    const victim = path.join(dir, 'victim.txt');
    fs.writeFileSync(victim, 'victim\n');
    const link = path.join(dir, 'link.txt');
    fs.symlinkSync(victim, link);
    atomicWriteFile(link, Buffer.from('new\n'));
    expect(fs.readFileSync(victim, 'utf8')).toBe('victim\n');
    expect(fs.lstatSync(link).isSymbolicLink()).toBe(false);
  });

  it('creates parent folders through the workspace and writes the exact bytes', () => {
    const ws = openWorkspace(dir).ws;
    const bytes = Buffer.from([0xef, 0xbb, 0xbf, 0x61, 0x0d, 0x0a]);
    ws.transact((tx) => ws.commit(tx, [{ kind: 'write', path: 'deep/er/file.txt', bytes }]));
    expect(fs.readFileSync(path.join(dir, 'deep/er/file.txt'))).toEqual(bytes);
  });

  it('a write through a workspace goes to the target of an inside symlink and keeps the link', () => {
    fs.writeFileSync(path.join(dir, 'real.txt'), 'x\n');
    fs.symlinkSync('real.txt', path.join(dir, 'alias.txt'));
    const ws = openWorkspace(dir).ws;
    ws.transact((tx) => ws.commit(tx, [{ kind: 'write', path: 'alias.txt', bytes: Buffer.from('y\n') }]));
    expect(fs.readFileSync(path.join(dir, 'real.txt'), 'utf8')).toBe('y\n');
    expect(fs.lstatSync(path.join(dir, 'alias.txt')).isSymbolicLink()).toBe(true);
  });
});

describe('atomic writes of pieces', () => {
  it('writes the pieces in order as one file (one writev), large and empty pieces included', () => {
    const file = path.join(dir, 'pieces.txt');
    const big = Buffer.alloc(3 * 1024 * 1024, 0x61);
    atomicWriteFile(file, [Buffer.from('head\n'), Buffer.alloc(0), big, Buffer.from('\ntail')]);
    const got = fs.readFileSync(file);
    expect(got.length).toBe(5 + big.length + 5);
    expect(got.subarray(0, 5).toString()).toBe('head\n');
    expect(got.subarray(got.length - 5).toString()).toBe('\ntail');
  });
});
