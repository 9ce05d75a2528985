/**
 * The path decision in two parts (property): the resolver (workspace/paths.ts)
 * judges only a path's SHAPE — escapes by text or by link, loops, NUL bytes —
 * and never refuses one for what it names; the project's Policy
 * (workspace/policy.ts, from the protected set) judges what it NAMES. A
 * workspace's verdict is exactly the two together: refused with
 * E_DENIED_PATH where the path as spelled, or (its shape accepted) as the
 * kernel reaches it, is in a sealed member of the set (every `.git`, the
 * state folder); otherwise the resolver's own verdict.
 */
import fs from 'node:fs';
import path from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { sealedEntry, sealedMemberOf } from '../../src/config/protected-set.js';
import { EditwardenError } from '../../src/errors.js';
import { openWorkspace } from '../../src/workspace/open.js';
import { lexicalParts, resolveInRoot } from '../../src/workspace/paths.js';
import { walkFiles } from '../../src/workspace/file-walk.js';
import { walkWorkspace } from '../../src/workspace/checkpoints/walk.js';
import { tempDir } from '../temp-dirs.js';

type Verdict = { relative: string } | { code: string };

function verdictOf(decide: () => { relative: string }): Verdict {
  try {
    return { relative: decide().relative };
  } catch (error) {
    if (!(error instanceof EditwardenError)) throw error;
    return { code: error.code };
  }
}

const STEPS = ['.git', '.GIT', '.editwarden', 'vendor', 'lib', 'src', 'g', 'e', 'out', 'up', '..', '.', 'config', 'HEAD', 'a.txt'] as const;
const request = fc.array(fc.constantFrom(...STEPS), { minLength: 1, maxLength: 5 }).map((steps) => steps.join('/'));

describe('shape (the resolver) and protection (the Policy) are split (property)', () => {
  it("the resolver never refuses a path for what it names; the workspace's verdict is the resolver's plus the Policy's sealed members", () => {
    const base = tempDir('ew-split-');
    const root = path.join(base, 'repo');
    for (const dir of ['.git', '.editwarden', 'vendor/lib/.git', 'src']) fs.mkdirSync(path.join(root, dir), { recursive: true });
    fs.mkdirSync(path.join(base, 'outside'));
    fs.writeFileSync(path.join(root, '.git/config'), '[core]\n');
    fs.writeFileSync(path.join(root, 'src/a.txt'), 'a\n');
    // Links that lead into a sealed member (g, e), out of the root (out), and up to the root (up).
    fs.symlinkSync('.git', path.join(root, 'g'));
    fs.symlinkSync('.editwarden', path.join(root, 'e'));
    fs.symlinkSync('../outside', path.join(root, 'out'));
    fs.symlinkSync('..', path.join(root, 'src/up'));
    const { ws } = openWorkspace(root);
    const seen = { shapeRefused: 0, sealedRefused: 0, accepted: 0 };
    fc.assert(
      fc.property(request, (requested) => {
        const shape = verdictOf(() => resolveInRoot(ws.root, requested, ws.resolver));
        const whole = verdictOf(() => ws.resolve(requested));
        // The resolver alone refuses only for shape.
        if ('code' in shape) expect(shape.code, requested).toBe('E_OUTSIDE_ROOT');
        let lexical: string | null = null;
        try {
          lexical = lexicalParts(ws.root, requested).lexicalRelative;
        } catch {
          // refused by its text: the resolver's verdict stands
        }
        const sealedAsSpelled = lexical !== null && sealedMemberOf(lexical) !== null;
        const sealedAsReached = 'relative' in shape && sealedMemberOf(shape.relative) !== null;
        if (sealedAsSpelled || sealedAsReached) {
          expect(whole, requested).toEqual({ code: 'E_DENIED_PATH' });
          seen.sealedRefused++;
        } else {
          expect(whole, requested).toEqual(shape);
          if ('code' in shape) seen.shapeRefused++;
          else seen.accepted++;
        }
      }),
      { numRuns: 400 },
    );
    // The property has teeth: every kind of verdict came up.
    expect(seen.shapeRefused).toBeGreaterThan(10);
    expect(seen.sealedRefused).toBeGreaterThan(50);
    expect(seen.accepted).toBeGreaterThan(10);
  });
});

describe('the walks leave out exactly what the Policy seals (property)', () => {
  const folder = fc.array(fc.constantFrom('src', 'vendor', 'lib', 'a'), { maxLength: 3 }).map((parts) => parts.join('/'));
  const name = fc.constantFrom('.git', '.GIT', '.Git', '.editwarden', '.EDITWARDEN', '.gitignore', '.editwarden.yml', 'x.git', 'git', 'src', '.claude');

  it('an entry of a folder the walk entered is skipped iff its path is in a sealed member', () => {
    fc.assert(
      fc.property(folder, name, (dirRel, entry) => {
        expect(sealedEntry(dirRel, entry), `${dirRel}/${entry}`).toBe(sealedMemberOf(dirRel === '' ? entry : `${dirRel}/${entry}`) !== null);
      }),
    );
  });

  it("list_files and a checkpoint walk offer nothing the Policy refuses: `.GIT/` is git's folder on a case-folding disk, so it is sealed on every disk", () => {
    const root = tempDir('ew-sealed-walk-');
    for (const file of ['.GIT/config', 'vendor/.Git/HEAD', '.Editwarden/x', 'sub/.editwarden/kept.txt', 'src/a.ts']) {
      fs.mkdirSync(path.dirname(path.join(root, file)), { recursive: true });
      fs.writeFileSync(path.join(root, file), 'x\n');
    }
    const listed: string[] = [];
    walkFiles(root, (rel, type) => {
      if (type === 'file') listed.push(rel);
    });
    expect(listed.sort()).toEqual(['src/a.ts', 'sub/.editwarden/kept.txt']);
    expect(
      walkWorkspace(root)
        .entries.map((e) => e.path)
        .sort(),
    ).toEqual(['src/a.ts', 'sub/.editwarden/kept.txt']);
    const { ws } = openWorkspace(root);
    for (const p of listed) expect(() => ws.resolve(p), p).not.toThrow();
    for (const p of ['.GIT/config', 'vendor/.Git/HEAD', '.Editwarden/x']) expect(() => ws.resolve(p), p).toThrow(/never read or write/);
  });
});
