/**
 * The shell line around an apply_patch envelope (Codex's models send
 * `cd DIR && apply_patch <<'EOF'` through a shell tool): a cd into a folder of
 * the root is honoured, and nothing else that could move the paths is taken.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseApplyPatch } from '../../src/formats/apply-patch.js';
import { folderInRoot, readPatchWrapper } from '../../src/formats/shell-wrapper.js';

const envelope = (wrapper: string): string => `${wrapper}\n*** Begin Patch\n*** Add File: notes.txt\n+hi\n*** Update File: lib/a.py\n*** Move to: lib/b.py\n@@\n-x\n+y\n*** End Patch\nEOF\n`;

describe('a cd in the wrapper is honoured', () => {
  it.each([
    ["cd 'foo bar' && apply_patch <<'PATCH'", 'foo bar'],
    ['cd src/app && apply_patch <<"EOF"', 'src/app'],
    ["bash -lc \"cd pkg && apply_patch <<'EOF'", 'pkg'],
    ['$ cd ./pkg/ && applypatch <<EOF', 'pkg'],
    ["apply_patch <<'EOF'", ''],
  ])('%s → paths under %j', (wrapper, dir) => {
    const parsed = parseApplyPatch(envelope(wrapper));
    expect(parsed.errors).toEqual([]);
    const under = (p: string): string => (dir === '' ? p : `${dir}/${p}`);
    expect(parsed.requests.map((r) => r.path)).toEqual([under('notes.txt'), under('lib/a.py')]);
    expect(parsed.requests[1]).toMatchObject({ moveTo: under('lib/b.py') });
  });

  it.each([
    ["cd .. && apply_patch <<'EOF'", 'E_OUTSIDE_ROOT'],
    ["cd /etc && apply_patch <<'EOF'", 'E_OUTSIDE_ROOT'],
    ["cd ~ && apply_patch <<'EOF'", 'E_OUTSIDE_ROOT'],
    ["cd a/../.. && apply_patch <<'EOF'", 'E_OUTSIDE_ROOT'],
    ["cd a && cd b && apply_patch <<'EOF'", 'E_PARSE'],
    ["cd $HOME && apply_patch <<'EOF'", 'E_PARSE'],
    ["cd a; apply_patch <<'EOF'", 'E_PARSE'],
    ["git stash && apply_patch <<'EOF'", 'E_PARSE'],
    ["true || apply_patch <<'EOF'", 'E_PARSE'],
    ["cd a | apply_patch <<'EOF'", 'E_PARSE'],
    ['cd "$(mktemp -d)" && apply_patch <<\'EOF\'', 'E_PARSE'],
  ])('%s → every operation refused with %s, none applied elsewhere', (wrapper, code) => {
    const parsed = parseApplyPatch(envelope(wrapper));
    expect(parsed.requests).toEqual([]);
    expect(parsed.errors.map((e) => e.error.code)).toEqual([code, code]);
    expect(parsed.errors[0]?.error.hint).toMatch(/one cd into a folder inside the root/);
  });

  it.each(['Here is the patch:', 'Here is the apply_patch call:', 'I will use apply_patch to add notes.txt.'])('a line that does not run apply_patch is prose, as before: %s', (line) => {
    const parsed = parseApplyPatch(envelope(line));
    expect(parsed.errors).toEqual([]);
    expect(parsed.requests.map((r) => r.path)).toEqual(['notes.txt', 'lib/a.py']);
  });
});

const segment = fc.oneof(fc.constantFrom('.', '..', ''), fc.stringMatching(/^[a-z][a-z0-9_-]{0,6}$/));

describe('properties of the cd rule', () => {
  it('a folder is taken exactly when walking its segments never climbs above the root, and the result has no dot segments', () => {
    fc.assert(
      fc.property(fc.array(segment, { maxLength: 8 }), (parts) => {
        const dir = parts.join('/');
        let depth = 0;
        let escapes = dir === '' || dir.startsWith('/'); // empty, or absolute (a leading empty segment)
        for (const p of parts) {
          if (p === '..') depth--;
          else if (p !== '.' && p !== '') depth++;
          if (depth < 0) escapes = true;
        }
        const got = folderInRoot(dir);
        if (escapes) expect(got).toBeNull();
        else {
          expect(got).not.toBeNull();
          expect((got as string).split('/').filter((s) => s === '.' || s === '..')).toEqual([]);
          expect((got as string).startsWith('/')).toBe(false);
        }
      }),
      { numRuns: 2000 },
    );
  });

  it('whatever follows or precedes the invocation, a wrapper is honoured only in the modelled shape, and never outside the root', () => {
    const noise = fc.constantFrom('', ' ; rm -rf x', ' && echo hi', ' | tee log', ' $(id)', ' `id`', ' > out', ' &');
    fc.assert(
      fc.property(fc.array(segment, { maxLength: 4 }), noise, noise, fc.boolean(), (parts, before, after, shell) => {
        const dir = parts.join('/') || '.';
        const command = `cd ${dir}${before} && apply_patch <<'EOF'${after}`;
        const got = readPatchWrapper(shell ? `bash -lc "${command}` : command, 1);
        if (got.kind === 'apply_patch') {
          expect(before + after).toBe('');
          expect(got.dir).toBe(folderInRoot(dir));
        } else expect(got.kind).toBe('refused');
      }),
      { numRuns: 2000 },
    );
  });
});
