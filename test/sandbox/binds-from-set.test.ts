/**
 * The sandbox's read-only binds are the protected set's members, taken from
 * the one value (config/protected-set.ts, made concrete by the project's
 * Policy): every existing member is bound, and nothing else is — the sandbox
 * re-adds no name of its own (`.git`, the state folder, the config).
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { PROTECTED_MEMBERS } from '../../src/config/protected-set.js';
import { commandSandbox, DEFAULT_SANDBOX_CONFIG, sandboxPolicy } from '../../src/sandbox/index.js';
import { openWorkspace } from '../../src/workspace/open.js';
import { tempDir } from '../temp-dirs.js';

/** A root holding every fixed member (a folder member with a file inside), a `.git` with machinery, and project files. */
function everyMember(): string {
  const root = tempDir('ew-binds-');
  for (const m of PROTECTED_MEMBERS) {
    const abs = path.join(root, ...m.path.split('/'));
    if (m.folder) {
      fs.mkdirSync(abs, { recursive: true });
      fs.writeFileSync(path.join(abs, 'inside.txt'), 'x\n');
    } else {
      fs.mkdirSync(path.dirname(abs), { recursive: true });
      fs.writeFileSync(abs, 'x\n');
    }
  }
  fs.mkdirSync(path.join(root, '.git/hooks'), { recursive: true });
  fs.writeFileSync(path.join(root, '.git/config'), '[core]\n');
  fs.mkdirSync(path.join(root, 'src'));
  fs.writeFileSync(path.join(root, 'src/a.ts'), 'x\n');
  fs.writeFileSync(path.join(root, '.npmrc.example'), 'x\n');
  return root;
}

const inGit = (root: string, p: string): boolean => p === path.join(root, '.git') || p.startsWith(path.join(root, '.git') + path.sep);

describe("the sandbox's read-only binds are the protected set", () => {
  it('a bare root (no project Policy): every fixed member that exists is bound read-only, .git by its machinery', () => {
    const root = everyMember();
    const p = sandboxPolicy({ root, stateDir: path.join(root, '.editwarden'), config: DEFAULT_SANDBOX_CONFIG });
    const expected = PROTECTED_MEMBERS.filter((m) => m.path !== '.git').map((m) => path.join(root, ...m.path.split('/')));
    expect(p.readOnly.filter((r) => !inGit(root, r)).sort()).toEqual(expected.sort());
    expect(p.gitDirs).toEqual([path.join(root, '.git')]);
    expect(p.readOnly).toEqual(expect.arrayContaining([path.join(root, '.git/config'), path.join(root, '.git/hooks')]));
  });

  it("with the project's Policy: exactly its existing members (and the state folder), nothing the sandbox adds of its own", () => {
    const root = everyMember();
    fs.writeFileSync(path.join(root, 'custom.yml'), 'constraints: {}\n');
    const { ws } = openWorkspace(root, { policy: { configFiles: ['custom.yml'] } });
    const p = commandSandbox(ws, { sandbox: DEFAULT_SANDBOX_CONFIG });
    const members = ws.policy.existingProtectedPaths().map((m) => fs.realpathSync(m));
    const bound = p.readOnly.filter((r) => !inGit(root, r));
    expect(bound.sort()).toEqual([...new Set([ws.stateDir, ...members.filter((m) => !inGit(root, m))])].sort());
    // The --config file is a member through the Policy, and a file that is no member is not bound.
    expect(bound).toContain(path.join(root, 'custom.yml'));
    expect(bound).not.toContain(path.join(root, '.npmrc.example'));
    expect(bound.some((b) => b.startsWith(path.join(root, 'src')))).toBe(false);
  });
});
