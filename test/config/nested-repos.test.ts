/**
 * The search for nested repositories (config/nested-repos.ts): every `.git`
 * below the root but the top one, whatever the repository ignores, never
 * through a link, never inside the state folder or a found `.git`; and a
 * tree past its bound is refused, never half-searched.
 */
import fs from 'node:fs';
import path from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { findNestedGitDirs, NestedRepoSearch } from '../../src/config/nested-repos.js';
import { codeOf } from '../error-code.js';
import { tempDir } from '../temp-dirs.js';

/** A generated tree: folders (some named `.git`, as folder or file), files, links to folders. */
type TreeNode = { name: string; kind: 'dir'; children: TreeNode[] } | { name: string; kind: 'file' } | { name: string; kind: 'link' };

const NAMES = ['a', 'b', 'vendor', '.git', '.editwarden', 'node_modules'];
const tree: fc.Memo<TreeNode[]> = fc.memo((depth) =>
  fc.uniqueArray(
    fc.oneof(
      { depthSize: 'small' },
      fc.record({ name: fc.constantFrom(...NAMES), kind: fc.constant('file' as const) }),
      fc.record({ name: fc.constantFrom(...NAMES), kind: fc.constant('link' as const) }),
      depth <= 1 ? fc.record({ name: fc.constantFrom(...NAMES), kind: fc.constant('file' as const) }) : fc.record({ name: fc.constantFrom(...NAMES), kind: fc.constant('dir' as const), children: tree(depth - 1) }),
    ),
    { selector: (n) => n.name, maxLength: 4 },
  ),
);

function build(dir: string, nodes: TreeNode[]): void {
  for (const n of nodes) {
    const abs = path.join(dir, n.name);
    if (n.kind === 'file') fs.writeFileSync(abs, 'x');
    // A link to the root: followed, the search would loop or find the same `.git` under a second name.
    else if (n.kind === 'link') fs.symlinkSync('/', abs);
    else {
      fs.mkdirSync(abs);
      build(abs, n.children);
    }
  }
}

/** What the search must find: every `.git` entry (folder or file, not a link) below the top, not inside a `.git` or the root's state folder. */
function expected(nodes: TreeNode[], prefix: string): string[] {
  const out: string[] = [];
  for (const n of nodes) {
    const rel = prefix === '' ? n.name : `${prefix}/${n.name}`;
    if (n.name === '.git') {
      if (prefix !== '') out.push(rel);
      continue;
    }
    if (prefix === '' && n.name === '.editwarden') continue;
    if (n.kind === 'dir') out.push(...expected(n.children, rel));
  }
  return out;
}

describe('every nested repository is found, and only those', () => {
  it('matches the generated tree: ignored folders searched, links not followed, the state folder and found .git not entered', () => {
    fc.assert(
      fc.property(tree(4), (nodes) => {
        const root = tempDir('ew-nested-prop-');
        // The repository ignores everything: its own rules must not hide a nested repository.
        fs.writeFileSync(path.join(root, '.gitignore'), '*\n');
        build(root, nodes);
        expect(findNestedGitDirs(root)).toEqual(expected(nodes, '').sort());
      }),
      { numRuns: 60 },
    );
  });

  it('finds a submodule’s gitdir-link file and a .git that is a link', () => {
    const root = tempDir('ew-nested-kinds-');
    fs.mkdirSync(path.join(root, 'sub'));
    fs.writeFileSync(path.join(root, 'sub', '.git'), 'gitdir: ../.git/modules/sub\n');
    fs.mkdirSync(path.join(root, 'linked'));
    fs.symlinkSync('../elsewhere', path.join(root, 'linked', '.git'));
    expect(findNestedGitDirs(root)).toEqual(['linked/.git', 'sub/.git']);
  });
});

/** A change a command could make between two searches, at a folder of the tree (or the root). */
type Mutation = { at: number; kind: 'init' | 'gitfile' | 'remove-git' | 'new-folder-with-git' | 'swap-for-link' | 'backdate' };

function folders(root: string): string[] {
  const out: string[] = [''];
  for (let i = 0; i < out.length; i++) {
    const rel = out[i] as string;
    for (const e of fs.readdirSync(path.join(root, rel), { withFileTypes: true })) if (e.isDirectory() && e.name !== '.git' && !(rel === '' && e.name === '.editwarden')) out.push(rel === '' ? e.name : `${rel}/${e.name}`);
  }
  return out;
}

function mutate(root: string, m: Mutation): void {
  const all = folders(root);
  const rel = all[m.at % all.length] as string;
  const dir = path.join(root, rel);
  const then = fs.statSync(dir);
  switch (m.kind) {
    case 'init':
      fs.rmSync(path.join(dir, '.git'), { recursive: true, force: true });
      fs.mkdirSync(path.join(dir, '.git', 'hooks'), { recursive: true });
      break;
    case 'gitfile':
      fs.rmSync(path.join(dir, '.git'), { recursive: true, force: true });
      fs.writeFileSync(path.join(dir, '.git'), 'gitdir: ../evil\n');
      break;
    case 'remove-git':
      fs.rmSync(path.join(dir, '.git'), { recursive: true, force: true });
      break;
    case 'new-folder-with-git':
      if (fs.existsSync(path.join(dir, 'fresh'))) return;
      fs.mkdirSync(path.join(dir, 'fresh', 'deeper', '.git'), { recursive: true });
      break;
    case 'swap-for-link':
      if (rel === '') return;
      fs.rmSync(dir, { recursive: true });
      fs.symlinkSync('/', dir);
      return;
    case 'backdate':
      // Planted, then the folder's mtime set back as it was: only its ctime tells.
      if (fs.existsSync(path.join(dir, 'hidden'))) return;
      fs.mkdirSync(path.join(dir, 'hidden', '.git'), { recursive: true });
      break;
  }
  fs.utimesSync(dir, then.atime, then.mtime);
}

describe('kept warm, the search answers as a cold one', () => {
  it('after any sequence of changes between searches (new, removed and replaced .git, folders swapped for links, mtimes set back)', async () => {
    await fc.assert(
      fc.asyncProperty(
        tree(3),
        fc.array(fc.array(fc.record({ at: fc.nat(50), kind: fc.constantFrom('init', 'gitfile', 'remove-git', 'new-folder-with-git', 'swap-for-link', 'backdate') }), { maxLength: 3 }), { minLength: 1, maxLength: 3 }),
        async (nodes, rounds) => {
          const root = tempDir('ew-nested-warm-');
          build(root, nodes);
          // Every listing is reused when unchanged (no racy window), the case a stale cache would show.
          const warm = new NestedRepoSearch(root, { racyMs: 0 });
          expect(warm.find()).toEqual(findNestedGitDirs(root));
          for (const round of rounds) {
            // Past the file system's timestamp tick: a change now moves the ctime the last listing saw.
            await new Promise((resolve) => setTimeout(resolve, 15));
            for (const m of round) mutate(root, m as Mutation);
            expect(warm.find()).toEqual(findNestedGitDirs(root));
          }
        },
      ),
      { numRuns: 25 },
    );
  });
});

describe('the search is bounded', () => {
  it('refuses with E_TREE_TOO_LARGE past its bound of folders, rather than answer with a list that may miss one', () => {
    const root = tempDir('ew-nested-bound-');
    for (let i = 0; i < 5; i++) fs.mkdirSync(path.join(root, `d${i}`));
    expect(findNestedGitDirs(root, 6)).toEqual([]);
    expect(codeOf(() => findNestedGitDirs(root, 5))).toBe('E_TREE_TOO_LARGE');
  });
});
