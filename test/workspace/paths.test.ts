import { openWorkspace } from '../../src/workspace/open.js';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { EditwardenError } from '../../src/errors.js';
import { codeOf } from '../error-code.js';

let base: string;
let root: string;
let outside: string;

beforeEach(() => {
  base = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'ew-paths-')));
  root = path.join(base, 'repo');
  outside = path.join(base, 'outside');
  fs.mkdirSync(path.join(root, 'src'), { recursive: true });
  fs.mkdirSync(outside);
  fs.writeFileSync(path.join(root, 'src', 'a.txt'), 'a\n');
  fs.writeFileSync(path.join(outside, 'secret.txt'), 'secret\n');
});
afterEach(() => fs.rmSync(base, { recursive: true, force: true }));

describe('paths resolve inside the root', () => {
  it('resolves relative and inside-absolute paths to the same file', () => {
    const ws = openWorkspace(root).ws;
    expect(ws.resolve('src/a.txt').relative).toBe('src/a.txt');
    expect(ws.resolve(path.join(root, 'src/a.txt')).relative).toBe('src/a.txt');
    expect(ws.resolve('./src/../src/a.txt').relative).toBe('src/a.txt');
  });

  it('refuses ".." escapes with E_OUTSIDE_ROOT', () => {
    const ws = openWorkspace(root).ws;
    expect(codeOf(() => ws.resolve('../outside/secret.txt'))).toBe('E_OUTSIDE_ROOT');
    expect(codeOf(() => ws.resolve('src/../../outside/secret.txt'))).toBe('E_OUTSIDE_ROOT');
  });

  it('refuses absolute paths outside the root', () => {
    const ws = openWorkspace(root).ws;
    expect(codeOf(() => ws.resolve('/etc/passwd'))).toBe('E_OUTSIDE_ROOT');
    expect(codeOf(() => ws.resolve(path.join(outside, 'secret.txt')))).toBe('E_OUTSIDE_ROOT');
  });

  it('refuses the prefix trick (/repo-evil for root /repo)', () => {
    fs.mkdirSync(`${root}-evil`);
    const ws = openWorkspace(root).ws;
    expect(codeOf(() => ws.resolve(`${root}-evil/x.txt`))).toBe('E_OUTSIDE_ROOT');
  });

  it('refuses NUL bytes and Windows drive paths', () => {
    const ws = openWorkspace(root).ws;
    expect(codeOf(() => ws.resolve('src/a.txt\0/../../x'))).toBe('E_OUTSIDE_ROOT');
    expect(codeOf(() => ws.resolve('C:\\Windows\\system32'))).toBe('E_OUTSIDE_ROOT');
    expect(codeOf(() => ws.resolve(''))).toBe('E_OUTSIDE_ROOT');
  });

  it('refuses a symlinked file that leads outside', () => {
    fs.symlinkSync(path.join(outside, 'secret.txt'), path.join(root, 'link.txt'));
    const ws = openWorkspace(root).ws;
    expect(codeOf(() => ws.resolve('link.txt'))).toBe('E_OUTSIDE_ROOT');
  });

  it('refuses a symlinked parent folder that leads outside, also for files that do not exist yet', () => {
    fs.symlinkSync(outside, path.join(root, 'out'));
    const ws = openWorkspace(root).ws;
    expect(codeOf(() => ws.resolve('out/secret.txt'))).toBe('E_OUTSIDE_ROOT');
    expect(codeOf(() => ws.resolve('out/new/deeper.txt'))).toBe('E_OUTSIDE_ROOT');
  });

  it('refuses a dangling symlink whose target is outside', () => {
    fs.symlinkSync(path.join(outside, 'not-yet.txt'), path.join(root, 'dangling.txt'));
    const ws = openWorkspace(root).ws;
    expect(codeOf(() => ws.resolve('dangling.txt'))).toBe('E_OUTSIDE_ROOT');
  });

  it('follows a symlink that stays inside the root', () => {
    fs.symlinkSync('src', path.join(root, 'alias'));
    fs.symlinkSync('src/a.txt', path.join(root, 'a-link.txt'));
    const ws = openWorkspace(root).ws;
    expect(ws.resolve('alias/a.txt').relative).toBe('src/a.txt');
    expect(ws.resolve('a-link.txt').relative).toBe('src/a.txt');
  });

  it('refuses symlink loops', () => {
    fs.symlinkSync('loop2', path.join(root, 'loop1'));
    fs.symlinkSync('loop1', path.join(root, 'loop2'));
    const ws = openWorkspace(root).ws;
    expect(codeOf(() => ws.resolve('loop1/x'))).toBe('E_OUTSIDE_ROOT');
  });

  it('always denies .git/ and .editwarden/ (E_DENIED_PATH), also through symlinks and nested repos', () => {
    fs.mkdirSync(path.join(root, '.git'));
    fs.mkdirSync(path.join(root, '.editwarden'));
    fs.symlinkSync('.git', path.join(root, 'g'));
    const ws = openWorkspace(root).ws;
    expect(codeOf(() => ws.resolve('.git/config'))).toBe('E_DENIED_PATH');
    expect(codeOf(() => ws.resolve('.editwarden/runs/x/stdout.log'))).toBe('E_DENIED_PATH');
    expect(codeOf(() => ws.resolve('g/config'))).toBe('E_DENIED_PATH');
    expect(codeOf(() => ws.resolve('vendor/lib/.git/HEAD'))).toBe('E_DENIED_PATH');
    expect(codeOf(() => ws.resolve('src/../.git/HEAD'))).toBe('E_DENIED_PATH');
  });
});

describe('random paths never write outside the root (property)', () => {
  it('holds for paths with "..", absolute parts and planted symlinks', () => {
    // Plant symlinks in the tree: some inside, some leading out.
    fs.symlinkSync(outside, path.join(root, 'src', 'escape'));
    fs.symlinkSync('..', path.join(root, 'src', 'up'));
    fs.symlinkSync(base, path.join(root, 'base'));
    fs.symlinkSync('.', path.join(root, 'self'));
    const ws = openWorkspace(root).ws;
    const segment = fc.constantFrom('..', '.', 'src', 'escape', 'up', 'base', 'self', 'outside', 'repo', 'new', 'a.txt', '', root, outside, '/');
    fc.assert(
      fc.property(fc.array(segment, { minLength: 1, maxLength: 7 }), fc.string({ maxLength: 4 }), (parts, leaf) => {
        const requested = path.join(...parts, leaf.replace(/[\0/]/g, '') || 'f.txt');
        let resolved;
        try {
          resolved = ws.resolve(requested);
        } catch (error) {
          expect(error).toBeInstanceOf(EditwardenError);
          return;
        }
        // Whatever resolved must be inside the real root — check by writing through the workspace.
        expect(resolved.absolute === root || resolved.absolute.startsWith(root + path.sep)).toBe(true);
        try {
          ws.transact((tx) => ws.commit(tx, [{ kind: 'write', path: requested, bytes: Buffer.from('x') }]));
        } catch (error) {
          // Writing into an existing folder path or similar may fail; it must still not escape.
          expect(error).toBeDefined();
        }
        expect(fs.readdirSync(outside).sort()).toEqual(['secret.txt']);
        expect(fs.readFileSync(path.join(outside, 'secret.txt'), 'utf8')).toBe('secret\n');
        expect(fs.readdirSync(base).sort()).toEqual(['outside', 'repo']);
      }),
      { numRuns: 300 },
    );
  });
});
