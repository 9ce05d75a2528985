/**
 * The CLI's compile cache (src/cli/compile-cache.ts) goes only into this
 * user's private runtime folder: a cache entry is code the process runs, so
 * a folder another user owns, one open to others, or a planted link is never
 * handed to Node. Node's own enabler is replaced by a recorder here (the test
 * runs on every supported Node; Node 20 has none).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import fc from 'fast-check';
import { afterEach, describe, expect, it } from 'vitest';
import { compileCacheDir, enableCompileCache } from '../../src/cli/compile-cache.js';
import { skipUnlessRoot } from '../needs-root.js';

const made: string[] = [];
afterEach(() => {
  for (const dir of made.splice(0)) fs.rmSync(dir, { recursive: true, force: true });
});

/** A runtime folder of its own (as the login session makes XDG_RUNTIME_DIR), and the environment naming it. */
function runtime(): { env: NodeJS.ProcessEnv; cache: string } {
  const dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'ew-cc-')));
  made.push(dir);
  fs.chmodSync(dir, 0o700);
  const uid = typeof process.getuid === 'function' ? process.getuid() : -1;
  return { env: { XDG_RUNTIME_DIR: dir }, cache: path.join(dir, `editwarden-${uid}`, 'compile-cache') };
}

function recorder(): { calls: string[]; enable: (dir: string) => { status: number } } {
  const calls: string[] = [];
  return {
    calls,
    enable: (dir) => {
      calls.push(dir);
      return { status: 0 };
    },
  };
}

describe('compile cache folder', () => {
  it('is made private (0700) in the user’s runtime folder, and handed to Node', () => {
    const { env, cache } = runtime();
    const r = recorder();
    expect(enableCompileCache(env, r.enable)).toBe(cache);
    expect(r.calls).toEqual([cache]);
    expect(fs.statSync(cache).mode & 0o777).toBe(0o700);
  });

  it('is not used on a Node without the cache, when the person set NODE_COMPILE_CACHE, when Node’s is disabled, or when turned off', () => {
    const { env } = runtime();
    // A Node without the cache (Node 20): no enabler. (Passing undefined would call for the default, Node's own, which
    // Node 22 and 24 have — CI's smoke pass on Node 22 caught that.)
    expect(enableCompileCache(env, null)).toBeNull();
    for (const extra of [{ NODE_COMPILE_CACHE: '/somewhere' }, { NODE_DISABLE_COMPILE_CACHE: '1' }, { EDITWARDEN_COMPILE_CACHE: 'off' }]) {
      const r = recorder();
      expect(enableCompileCache({ ...env, ...extra }, r.enable)).toBeNull();
      expect(r.calls).toEqual([]);
    }
  });

  it('is not used without a runtime folder (the temp folder, which a client sandbox may let commands write, is never one)', () => {
    const r = recorder();
    expect(enableCompileCache({ TMPDIR: os.tmpdir() }, r.enable)).toBeNull();
    expect(r.calls).toEqual([]);
    expect(compileCacheDir({ XDG_RUNTIME_DIR: '' })).toBeNull();
  });

  it('is not used when a link was planted in its place (to a folder anyone may write)', () => {
    const { env, cache } = runtime();
    const elsewhere = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'ew-cc-planted-')));
    made.push(elsewhere);
    fs.mkdirSync(path.dirname(cache), { mode: 0o700 });
    fs.symlinkSync(elsewhere, cache);
    const r = recorder();
    expect(enableCompileCache(env, r.enable)).toBeNull();
    expect(r.calls).toEqual([]);
  });

  it('is not used when it, or the folder above it, is open to others (any group or other bit)', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 0o777 }), fc.boolean(), (mode, above) => {
        const { env, cache } = runtime();
        fs.mkdirSync(cache, { recursive: true, mode: 0o700 });
        fs.chmodSync(above ? path.dirname(cache) : cache, mode | 0o700);
        const open = ((mode | 0o700) & 0o077) !== 0;
        expect(compileCacheDir(env)).toBe(open ? null : cache);
        fs.chmodSync(path.dirname(cache), 0o700);
      }),
      { numRuns: 40 },
    );
  });

  it('is not used when another user owns it, or the folder above it', (context) => {
    skipUnlessRoot(context, 'chowns the cache folder to another uid');
    for (const which of ['cache', 'above'] as const) {
      const { env, cache } = runtime();
      fs.mkdirSync(cache, { recursive: true, mode: 0o700 });
      fs.chownSync(which === 'cache' ? cache : path.dirname(cache), 12345, 12345);
      const r = recorder();
      expect(enableCompileCache(env, r.enable), which).toBeNull();
      expect(r.calls).toEqual([]);
    }
  });
});
