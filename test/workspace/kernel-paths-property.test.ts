/**
 * Paths as the kernel sees them: for generated link graphs ("." and ".."
 * targets, chains, loops, absolute targets, links to the outside) in a real
 * temp folder, editwarden's verdict on a path is compared with where the
 * kernel's own realpath(3) lands. Accepted ⇒ the same place; the kernel
 * outside the root ⇒ refused.
 */
import fs from 'node:fs';
import path from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { EditwardenError } from '../../src/errors.js';
import { openWorkspace } from '../../src/workspace/open.js';
import { resolveInRoot } from '../../src/workspace/paths.js';
import { Resolver } from '../../src/workspace/resolver.js';
import { tempDir } from '../temp-dirs.js';

/** Where the kernel lands for `raw` (a write: a missing last component is created in its real parent); null when it cannot say. */
function kernelTarget(raw: string): string | null {
  try {
    return fs.realpathSync.native(raw);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') return null;
  }
  const slash = raw.lastIndexOf('/');
  const name = raw.slice(slash + 1);
  if (name === '.' || name === '..' || name === '') return null;
  try {
    // A dangling link as the last component: open(O_CREAT) would create its target; not modelled here.
    if (fs.lstatSync(raw).isSymbolicLink()) return null;
  } catch {
    // absent: created in the parent
  }
  try {
    return path.join(fs.realpathSync.native(raw.slice(0, slash)), name);
  } catch {
    return null;
  }
}

function inside(root: string, p: string): boolean {
  return p === root || p.startsWith(`${root}/`);
}

const LINK_NAMES = ['a', 'b', 'up', 'd/l', 'd/deep/m'] as const;
const TARGETS = ['.', '..', '../..', 'a', 'a/..', 'b/..', 'd', 'd/..', 'd/deep', 'deep/..', '../outside', 'up', 'b', 'l/..', 'm/../..', 'ABS_ROOT/d', 'ABS_ROOT/d/..', 'ABS_OUT', 'missing/..'] as const;
const STEPS = ['a', 'b', 'up', 'd', 'deep', 'l', 'm', '..', '.', 'f.txt', 'new'] as const;

const graph = fc.uniqueArray(fc.tuple(fc.constantFrom(...LINK_NAMES), fc.constantFrom(...TARGETS)), { minLength: 1, maxLength: 5, selector: ([name]) => name });
const request = fc.array(fc.constantFrom(...STEPS), { minLength: 1, maxLength: 5 }).map((steps) => steps.join('/'));

describe('path decisions match the kernel on generated link graphs (property)', () => {
  it('never accepts a path the kernel sends outside, and accepts only where the kernel lands', () => {
    let agreed = 0;
    let outsideRefused = 0;
    fc.assert(
      fc.property(graph, fc.array(request, { minLength: 1, maxLength: 6 }), (links, requests) => {
        const base = tempDir('ew-kernel-');
        const root = path.join(base, 'repo');
        fs.mkdirSync(path.join(root, 'd', 'deep'), { recursive: true });
        fs.mkdirSync(path.join(base, 'outside'));
        fs.writeFileSync(path.join(root, 'f.txt'), 'root f\n');
        fs.writeFileSync(path.join(root, 'd', 'f.txt'), 'd f\n');
        for (const [name, target] of links) {
          const spelled = target.replace('ABS_ROOT', root).replace('ABS_OUT', path.join(base, 'outside'));
          fs.symlinkSync(spelled, path.join(root, name));
        }
        const resolver = new Resolver(root);
        for (const requested of requests) {
          const kernel = kernelTarget(`${root}/${requested}`);
          let verdict: string | EditwardenError;
          try {
            verdict = resolveInRoot(root, requested, resolver).absolute;
          } catch (error) {
            if (!(error instanceof EditwardenError)) throw error;
            verdict = error;
          }
          if (kernel !== null && !inside(root, kernel)) {
            expect(verdict, `${requested} with ${JSON.stringify(links)}: the kernel lands at ${kernel}`).toBeInstanceOf(EditwardenError);
            outsideRefused++;
          } else if (kernel !== null && typeof verdict === 'string') {
            expect(verdict, `${requested} with ${JSON.stringify(links)}`).toBe(kernel);
            agreed++;
          }
        }
        fs.rmSync(base, { recursive: true, force: true });
      }),
      { numRuns: 200 },
    );
    // The property has teeth: both kinds of case came up.
    expect(agreed).toBeGreaterThan(50);
    expect(outsideRefused).toBeGreaterThan(20);
  }, 60_000);
});

describe('the link-graph attack (a -> ., up -> a/.., cfgdir -> deep/X/..)', () => {
  it('refuses up/x (the kernel: the root’s parent) and cfgdir/.editwarden.yml (the kernel: the root’s config)', () => {
    const base = tempDir('ew-kernel-attack-');
    const root = path.join(base, 'repo');
    fs.mkdirSync(path.join(root, 'deep'), { recursive: true });
    fs.mkdirSync(path.join(root, 'sub'));
    // X's real folder is sub/, so X/.. is the root for the kernel, while the text says deep/.
    fs.symlinkSync('../sub', path.join(root, 'deep', 'X'));
    fs.writeFileSync(path.join(root, '.editwarden.yml'), 'constraints:\n  max_files: 1\n');
    fs.symlinkSync('.', path.join(root, 'a'));
    fs.symlinkSync('a/..', path.join(root, 'up'));
    fs.symlinkSync('deep/X/..', path.join(root, 'cfgdir'));
    const ws = openWorkspace(root).ws;
    expect(() => ws.resolve('up/x')).toThrow(/outside the workspace root/);
    expect(() => ws.resolve(`${root}/up/x`)).toThrow(/outside the workspace root/);
    expect(fs.realpathSync.native(path.join(root, 'cfgdir'))).toBe(root);
    expect(ws.resolve('cfgdir/.editwarden.yml').relative).toBe('.editwarden.yml');
    expect(() => ws.transact((tx) => ws.commit(tx, [{ kind: 'write', path: 'cfgdir/.editwarden.yml', bytes: Buffer.from('constraints: {}\n') }]))).toThrow(/configuration/);
    expect(() => ws.transact((tx) => ws.commit(tx, [{ kind: 'write', path: 'up/x', bytes: Buffer.from('x') }]))).toThrow(/outside the workspace root/);
    expect(fs.existsSync(path.join(base, 'x'))).toBe(false);
  });
});
