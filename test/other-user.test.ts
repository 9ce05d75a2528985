/**
 * test/other-user.ts decides from modes alone whether another OS user can
 * reach a path (and so whether this Node must be copied for it): every folder
 * above searchable by others, the path itself allowing what is asked. Pinned
 * here on made-up chains of folders inside a shared folder, as any user (the
 * owner keeps rwx, so the walk itself never needs root); the tests that run a
 * second user (test/mcp/http-second-user.test.ts) prove the rest as root,
 * and .ci/run runs them from a clone in a 0700 folder.
 */
import fs from 'node:fs';
import path from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { othersMayReach, sharedFolder } from './other-user.js';

describe('another user reaches a path only through folders it may search', () => {
  // Outside the run's TMPDIR (a 0700 mkdtemp: nothing in it is reachable), so removed here.
  let shared = '';
  beforeAll(() => {
    shared = sharedFolder('editwarden-other-user-test-');
  });
  afterAll(() => fs.rmSync(shared, { recursive: true, force: true }));

  it('the shared folder is open to every user; a 0700 folder anywhere above a file closes it; the run’s TMPDIR is closed', () => {
    expect(othersMayReach(shared, 0o005)).toBe(true);
    const file = path.join(shared, 'a', 'b', 'node');
    fs.mkdirSync(path.dirname(file), { recursive: true });
    fs.writeFileSync(file, '');
    for (const p of [path.join(shared, 'a'), path.dirname(file), file]) fs.chmodSync(p, 0o755);
    expect(othersMayReach(file, 0o005)).toBe(true);
    fs.chmodSync(path.join(shared, 'a'), 0o700);
    expect(othersMayReach(file, 0o005)).toBe(false);
    expect(othersMayReach(path.join(shared, 'missing'), 0o001)).toBe(false);
    expect(othersMayReach(process.env.TMPDIR as string, 0o001)).toBe(false);
  });

  it('is reachable exactly when every folder above has o+x and the path has the bits asked for', () => {
    let n = 0;
    fc.assert(
      fc.property(fc.array(fc.integer({ min: 0, max: 7 }), { minLength: 1, maxLength: 4 }), fc.integer({ min: 0, max: 7 }), fc.constantFrom(0o001, 0o004, 0o005), (folders, fileOthers, bits) => {
        // The owner keeps rwx everywhere, so this process walks what it made whoever runs it.
        let dir = path.join(shared, `c${n++}`);
        fs.mkdirSync(dir);
        fs.chmodSync(dir, 0o755);
        for (const others of folders) {
          dir = path.join(dir, 'd');
          fs.mkdirSync(dir);
          fs.chmodSync(dir, 0o700 | others);
        }
        const file = path.join(dir, 'f');
        fs.writeFileSync(file, '');
        fs.chmodSync(file, 0o700 | fileOthers);
        expect(othersMayReach(file, bits)).toBe(folders.every((others) => (others & 0o001) !== 0) && (fileOthers & bits) === bits);
      }),
      { numRuns: 60 },
    );
  });
});
