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
import { findNestedGitDirs } from '../../src/config/nested-repos.js';
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

describe('the search is bounded', () => {
  it('refuses with E_TREE_TOO_LARGE past its bound of folders, rather than answer with a list that may miss one', () => {
    const root = tempDir('ew-nested-bound-');
    for (let i = 0; i < 5; i++) fs.mkdirSync(path.join(root, `d${i}`));
    expect(findNestedGitDirs(root, 6)).toEqual([]);
    expect(codeOf(() => findNestedGitDirs(root, 5))).toBe('E_TREE_TOO_LARGE');
  });
});
