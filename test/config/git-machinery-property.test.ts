/**
 * The one decision inside `.git` (config/git-machinery.ts), hammered: what
 * git runs or reads as configuration is machinery wherever the gitdir is
 * (the root's, a nested repository's, a submodule's under any name in
 * `.git/modules/`, a linked worktree's), whatever the case, whatever a
 * submodule is called; the ref state an undo writes is data; a name the
 * table does not know is machinery; and the sandbox's binds, derived from a
 * real `.git` made by real git, agree with it file by file.
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { gitDataOnly, gitdirEntryKind, gitPathKind, isRefStatePath, todoRunsCommands } from '../../src/config/git-machinery.js';
import { gitDirBinds } from '../../src/sandbox/git-binds.js';
import { tempDir } from '../temp-dirs.js';

const segment = fc.stringMatching(/^[A-Za-z0-9_][A-Za-z0-9_.-]{0,11}$/).filter((s) => s.toLowerCase() !== '.git' && !s.includes('..'));
/** Names a hostile submodule or folder might take: the gitdir's own entry names among them. */
const trickySegment = fc.oneof(segment, fc.constantFrom('objects', 'refs', 'logs', 'HEAD', 'index', 'modules', 'worktrees', 'hooks', 'config', 'info', 'rebase-merge', 'packed-refs'));

/** Where a gitdir can be, root-relative: the root's `.git`, a nested repository's, a submodule's (any name), a worktree's. */
const gitdir = fc.oneof(
  fc.constant('.git'),
  fc.array(segment, { minLength: 1, maxLength: 3 }).map((p) => `${p.join('/')}/.git`),
  fc.array(trickySegment, { minLength: 1, maxLength: 3 }).map((p) => `.git/modules/${p.join('/')}`),
  segment.map((id) => `.git/worktrees/${id}`),
);

/** What git runs or reads as configuration, inside a gitdir. */
const machinery = fc.oneof(
  fc.constantFrom('config', 'config.lock', 'config.worktree', 'commondir', 'gitdir', 'description', 'objects/info/alternates', 'objects/info/http-alternates'),
  fc.tuple(fc.constantFrom('hooks', 'info', 'branches', 'remotes'), fc.array(segment, { maxLength: 2 })).map(([top, rest]) => [top, ...rest].join('/')),
);

const flipCase = (s: string, mask: number): string => [...s].map((c, i) => ((mask >> (i % 30)) & 1 ? c.toUpperCase() : c.toLowerCase())).join('');

describe('the decision inside .git', () => {
  it('what git runs or reads as configuration is machinery in every gitdir, whatever a submodule is called and whatever the case', () => {
    fc.assert(
      fc.property(gitdir, machinery, fc.integer({ min: 0, max: 2 ** 30 - 1 }), (dir, file, mask) => {
        expect(gitPathKind(`${dir}/${file}`)).toBe('machinery');
        expect(gitPathKind(flipCase(`${dir}/${file}`, mask))).toBe('machinery');
      }),
    );
  });

  it('the ref state an undo restores is data in the root gitdir, and every ref-state path is writable data', () => {
    const refName = fc.array(
      segment.filter((s) => !s.startsWith('.') && !s.endsWith('.lock')),
      { minLength: 1, maxLength: 3 },
    );
    const refState = fc.oneof(
      fc.constantFrom('HEAD', 'packed-refs', 'index', 'logs/refs/stash'),
      fc.tuple(fc.constantFrom('heads', 'tags', 'remotes/origin'), refName).map(([kind, name]) => `refs/${kind}/${name.join('/')}`),
    );
    fc.assert(
      fc.property(refState, (p) => {
        expect(isRefStatePath(p)).toBe(true);
        expect(gitPathKind(`.git/${p}`)).toBe('data');
        expect(gitdirEntryKind(p)).toBe('data');
      }),
    );
  });

  it('no machinery path is ref state, and a path that climbs (`..`) is never data', () => {
    fc.assert(
      fc.property(machinery, fc.array(segment, { maxLength: 3 }), (file, tail) => {
        expect(isRefStatePath(file)).toBe(false);
        expect(gitPathKind(`.git/refs/heads/../../${file}`)).toBe('machinery');
        expect(isRefStatePath(`refs/../${file}`)).toBe(false);
        expect(isRefStatePath(['refs', ...tail, '..', 'config'].join('/'))).toBe(false);
      }),
    );
  });

  it('a path with no .git segment has no kind; a name the table does not know is machinery (deny by default)', () => {
    fc.assert(
      fc.property(fc.array(segment, { minLength: 1, maxLength: 4 }), segment, (parts, name) => {
        expect(gitPathKind(parts.join('/'))).toBeNull();
        const known =
          /^(objects|refs|logs|index|head|orig_head|fetch_head|merge_|auto_merge|cherry_pick_head|revert_head|rebase_|commit_editmsg|squash_msg|tag_editmsg|add_edit|notes_merge|packed-refs|shallow|rebase-|sequencer|rr-cache|lfs|gc\.|fsmonitor|sharedindex|index\.stash|next-index|bisect_|modules|worktrees)/i;
        fc.pre(!known.test(name));
        expect(gitdirEntryKind(name)).toBe('machinery');
        expect(gitdirEntryKind(`${name}.lock`)).toBe('machinery');
      }),
    );
  });

  it('a lock file has the kind of the file it locks; a scan may skip data only where no machinery can lie below', () => {
    fc.assert(
      fc.property(fc.constantFrom('index', 'HEAD', 'ORIG_HEAD', 'packed-refs', 'config', 'config.worktree', 'description'), (name) => {
        expect(gitdirEntryKind(`${name}.lock`)).toBe(gitdirEntryKind(name));
      }),
    );
    expect(gitDataOnly('.git/objects')).toBe(false);
    expect(gitDataOnly('.git/objects/info')).toBe(false);
    expect(gitDataOnly('.git/modules/sub/objects/info')).toBe(false);
    expect(gitDataOnly('.git/objects/pack')).toBe(true);
    expect(gitDataOnly('.git/refs')).toBe(true);
    expect(gitDataOnly('.git/hooks')).toBe(false);
  });
});

describe("a paused rebase's todo", () => {
  const sha = fc.stringMatching(/^[0-9a-f]{7,40}$/);
  const quiet = fc.oneof(
    fc.tuple(fc.constantFrom('pick', 'p', 'reword', 'r', 'edit', 'e', 'squash', 's', 'fixup', 'f', 'drop', 'd'), sha, fc.string()).map(([c, h, m]) => `${c} ${h} ${m.replace(/\n/g, ' ')}`),
    fc.constantFrom('break', 'b', 'noop', '', '# exec rm -rf ~ (a comment)', 'label onto', 'reset onto', 'update-ref refs/heads/x'),
  );
  it('runs commands exactly when one line is an `exec` (or `x`) line, wherever it stands', () => {
    fc.assert(
      fc.property(fc.array(quiet, { maxLength: 8 }), fc.nat(), fc.constantFrom('exec', 'x', '  exec', 'x\t'), fc.string(), (lines, at, verb, cmd) => {
        expect(todoRunsCommands(lines.join('\n'))).toBe(false);
        const withExec = [...lines];
        withExec.splice(at % (lines.length + 1), 0, `${verb} ${cmd.replace(/\n/g, ' ')}`);
        expect(todoRunsCommands(withExec.join('\n'))).toBe(true);
      }),
    );
  });
});

function git(cwd: string, ...args: string[]): void {
  const r = spawnSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@t', '-c', 'protocol.file.allow=always', ...args], { cwd, encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`git ${args.join(' ')}: ${r.stderr}`);
}

function filesBelow(dir: string, rel = ''): string[] {
  return fs.readdirSync(path.join(dir, rel), { withFileTypes: true }).flatMap((e) => {
    const child = rel === '' ? e.name : `${rel}/${e.name}`;
    return e.isDirectory() ? filesBelow(dir, child) : [child];
  });
}

describe("the sandbox's binds agree with the decision on a real .git", () => {
  it('every file of a real .git (a commit, a tag, a stash, a submodule, a linked worktree) is read-only in the sandbox exactly when it is machinery', () => {
    const up = tempDir('ew-machinery-up-');
    git(up, 'init', '-q');
    git(up, 'commit', '-q', '--allow-empty', '-m', 'up');
    const root = tempDir('ew-machinery-');
    git(root, 'init', '-q');
    fs.writeFileSync(path.join(root, 'a.txt'), 'a\n');
    git(root, 'add', '-A');
    git(root, 'commit', '-qm', 'a');
    git(root, 'tag', 'v1');
    git(root, 'submodule', 'add', '-q', up, 'vendor/sub');
    fs.appendFileSync(path.join(root, 'a.txt'), 'b\n');
    git(root, 'stash', '-q');
    git(root, 'worktree', 'add', '-q', path.join(tempDir('ew-machinery-wt-'), 'wt'));
    const gitdir = path.join(root, '.git');
    const binds = gitDirBinds(gitdir);
    expect(binds.self).toEqual(expect.arrayContaining([gitdir, path.join(gitdir, 'modules/vendor/sub')]));
    expect(binds.self.some((s) => s.includes('/worktrees/'))).toBe(true);
    const readOnly = (file: string): boolean => binds.readOnly.some((r) => file === r || file.startsWith(`${r}/`));
    const files = filesBelow(gitdir);
    expect(files.length).toBeGreaterThan(30);
    for (const rel of files) {
      const abs = path.join(gitdir, rel);
      // Judged from the gitdir that holds it (the deepest one bound on itself), as the binds and the machinery scan judge it.
      const own = binds.self.filter((g) => abs.startsWith(`${g}/`)).sort((a, b) => b.length - a.length)[0] as string;
      const kind = gitdirEntryKind(abs.slice(own.length + 1));
      expect(readOnly(abs), rel).toBe(kind === 'machinery');
      // The root-relative decision, which cannot see where a submodule's gitdir starts, is never less strict.
      if (kind === 'machinery') expect(gitPathKind(`.git/${rel}`), rel).toBe('machinery');
    }
  });
});
