import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { NotASmallFile, readSmallFile } from '../src/small-file.js';
import { tempDir } from './temp-dirs.js';

const READ = { maxBytes: 1024, follow: true };

function refusal(fn: () => unknown): string {
  try {
    fn();
  } catch (error) {
    return error instanceof NotASmallFile ? `refused: ${error.reason}` : `error: ${(error as NodeJS.ErrnoException).code}`;
  }
  return 'read';
}

describe('readSmallFile', () => {
  it('reads a regular file, and through a link only when told to follow', () => {
    const dir = tempDir('ew-small-');
    fs.writeFileSync(path.join(dir, 'a.yml'), 'key: 1\n');
    fs.symlinkSync('a.yml', path.join(dir, 'link.yml'));
    expect(readSmallFile(path.join(dir, 'a.yml'), READ).toString()).toBe('key: 1\n');
    expect(readSmallFile(path.join(dir, 'link.yml'), READ).toString()).toBe('key: 1\n');
    expect(refusal(() => readSmallFile(path.join(dir, 'link.yml'), { ...READ, follow: false }))).toBe('error: ELOOP');
    expect(refusal(() => readSmallFile(path.join(dir, 'none.yml'), READ))).toBe('error: ENOENT');
  });

  it('refuses at once what is no file to read: a FIFO nobody writes, a device, a folder, a file over the cap', () => {
    const dir = tempDir('ew-small-');
    const fifo = path.join(dir, 'fifo');
    expect(spawnSync('mkfifo', [fifo]).status).toBe(0);
    fs.symlinkSync('/dev/zero', path.join(dir, 'zero'));
    fs.writeFileSync(path.join(dir, 'big'), 'x'.repeat(1025));
    fs.writeFileSync(path.join(dir, 'exact'), 'x'.repeat(1024));
    expect(refusal(() => readSmallFile(fifo, READ))).toBe('refused: is not a regular file (a FIFO)');
    expect(refusal(() => readSmallFile(path.join(dir, 'zero'), READ))).toBe('refused: is not a regular file (a device)');
    expect(refusal(() => readSmallFile(dir, READ))).toBe('refused: is not a regular file (a folder)');
    expect(refusal(() => readSmallFile(path.join(dir, 'big'), READ))).toBe('refused: is 1025 bytes, over the 1024 bytes read here');
    expect(readSmallFile(path.join(dir, 'exact'), READ).length).toBe(1024);
  });
});
