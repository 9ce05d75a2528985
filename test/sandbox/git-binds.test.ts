/**
 * git works inside the sandbox, and the repository's machinery does not
 * move: real git, real bubblewrap, a real attempt for each way a file bound
 * read-only in a writable folder could still be changed (a rename over it —
 * how git itself writes its config —, an unlink, a hard link, the folder
 * renamed away and made again, a new hook file), for the root's `.git`, a
 * submodule's gitdir in `.git/modules/` and a nested repository.
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { defaultConfig } from '../../src/config/config.js';
import { openProject } from '../../src/host/project.js';
import { commandSandbox } from '../../src/sandbox/for-workspace.js';
import { ToolRunner } from '../../src/tools/runner.js';
import { runCommand } from '../../src/verify/runner.js';
import { tempDir } from '../temp-dirs.js';

function git(cwd: string, ...args: string[]): string {
  const r = spawnSync('git', ['-c', 'protocol.file.allow=always', ...args], { cwd, encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`git ${args.join(' ')}: ${r.stderr}`);
  return r.stdout;
}

/**
 * The repository every test starts from, made once for the file (the same commits, hook and submodule in each test's
 * copy; a test changes only its copy). Its upstream stays where the submodule's URL names it until the file ends.
 */
let template: string | undefined;

function templateRepository(): string {
  if (template) return template;
  const root = tempDir('ew-git-binds-');
  const upstream = tempDir('ew-git-binds-up-');
  for (const dir of [upstream, root]) {
    git(dir, 'init', '-q', '-b', 'main');
    git(dir, 'config', 'user.name', 'Agent');
    git(dir, 'config', 'user.email', 'agent@example.test');
    fs.writeFileSync(path.join(dir, 'a.txt'), 'one\n');
    git(dir, 'add', '-A');
    git(dir, 'commit', '-qm', 'first');
  }
  git(root, 'submodule', 'add', '-q', upstream, 'vendor/sub');
  git(root, 'commit', '-qm', 'submodule');
  fs.writeFileSync(path.join(root, '.git/hooks/pre-commit'), '#!/bin/sh\nexit 0\n', { mode: 0o755 });
  template = root;
  return root;
}

/**
 * A repository with one commit, its identity in its own config (the sandbox's HOME is empty), a hook and a submodule:
 * a copy of the file's template (the submodule's gitdir link and worktree are relative, so the copy is a repository of
 * its own).
 */
function repository(): string {
  const source = templateRepository();
  const root = tempDir('ew-git-binds-');
  fs.cpSync(source, root, { recursive: true });
  return root;
}

async function run(root: string, command: string): Promise<{ output: string; exit: unknown }> {
  const opened = openProject(root, defaultConfig());
  const runner = ToolRunner.start({ ws: opened.ws, config: opened.config, transactions: opened.transactions, apply: opened.applyOptions, artifacts: false });
  const record = await runner.call({ tool: 'execute_command', args: { command } });
  expect(record.data, record.output).toMatchObject({ sandbox: 'bwrap' });
  return { output: record.output, exit: (record.data as { exit_code?: unknown }).exit_code };
}

// Made outside any test, so removed when the file's tests end (test/temp-dirs.ts).
beforeAll(templateRepository);

const MACHINERY = ['.git/config', '.git/hooks/pre-commit', '.git/description', '.git/modules/vendor/sub/config', 'vendor/sub/.git'];

function bytesOf(root: string, files: readonly string[]): Record<string, string> {
  return Object.fromEntries(files.map((f) => [f, fs.readFileSync(path.join(root, f), 'base64')]));
}

describe('git works in a sandboxed command', () => {
  it('add, commit, checkout -b, switch, tag, stash, merge and rebase succeed, and write the repository', async () => {
    const root = repository();
    const script = [
      'set -e',
      'echo two >> a.txt && git add -A && git commit -qm second',
      'git checkout -qb topic && echo t > t.txt && git add t.txt && git commit -qm topic',
      'git switch -q main && echo m > m.txt && git add m.txt && git commit -qm main-side',
      'git tag v1',
      'echo dirty >> a.txt && git stash -q && git stash list | wc -l',
      'git merge -q --no-edit topic',
      'git checkout -qb later HEAD~1 && git rebase -q main && git switch -q main',
      'echo DONE',
    ].join('\n');
    const { output, exit } = await run(root, script);
    expect(exit, output).toBe(0);
    expect(output).toContain('DONE');
    expect(git(root, 'branch', '--format=%(refname:short)').split('\n').filter(Boolean).sort()).toEqual(['later', 'main', 'topic']);
    expect(git(root, 'tag')).toBe('v1\n');
    expect(git(root, 'stash', 'list')).toMatch(/^stash@\{0\}/);
    expect(git(root, 'log', '--format=%s', '-1', 'main')).toMatch(/Merge branch 'topic'/);
  });

  it('a commit inside a submodule and inside a nested repository succeeds too', async () => {
    const root = repository();
    fs.mkdirSync(path.join(root, 'tools/lib'), { recursive: true });
    git(path.join(root, 'tools/lib'), 'init', '-q', '-b', 'main');
    const { output, exit } = await run(
      root,
      'set -e; cd vendor/sub && git -c user.name=a -c user.email=a@a commit -q --allow-empty -m in-sub && cd ../../tools/lib && git -c user.name=a -c user.email=a@a commit -q --allow-empty -m in-nested && echo DONE',
    );
    expect(exit, output).toBe(0);
    expect(git(path.join(root, 'vendor/sub'), 'log', '--format=%s', '-1')).toBe('in-sub\n');
    expect(git(path.join(root, 'tools/lib'), 'log', '--format=%s', '-1')).toBe('in-nested\n');
  });
});

describe("the repository's machinery cannot be changed from a sandboxed command", () => {
  it.each([
    ['git config (config.lock renamed over config)', 'git config core.hooksPath /tmp/evil'],
    ['a rename over .git/config from inside .git', 'cp .git/config .git/c2 && echo "[core] hooksPath = /tmp" >> .git/c2 && mv -f .git/c2 .git/config'],
    ['a rename over .git/config from another folder', 'echo evil > x.cfg && mv -f x.cfg .git/config'],
    ['an unlink of .git/config', 'rm -f .git/config'],
    ['a hard link to .git/config, written through', 'ln .git/config cfg && echo evil >> cfg'],
    ['a rewrite of the existing hook', 'echo "touch /tmp/pwned" >> .git/hooks/pre-commit'],
    ['a new hook file', 'printf "#!/bin/sh\\ntouch /tmp/pwned\\n" > .git/hooks/post-checkout && chmod +x .git/hooks/post-checkout'],
    ['the hooks folder renamed away and made again', 'mv .git/hooks .git/h2 && mkdir .git/hooks && echo evil > .git/hooks/pre-commit'],
    ['.git renamed away and made again', 'mv .git .git-old && cp -r .git-old .git && echo evil >> .git/config'],
    ['info/ written (exclude, attributes)', 'mkdir -p .git/info && echo "* filter=evil" > .git/info/attributes'],
    ["a submodule gitdir's config and hooks", 'echo evil >> .git/modules/vendor/sub/config; echo evil > .git/modules/vendor/sub/hooks/pre-commit'],
    ["a submodule's gitdir link file", 'echo "gitdir: ../../evil" > vendor/sub/.git'],
    ['the description (a name git does not write: machinery by default)', 'echo evil > .git/description'],
  ])('%s: fails, and every machinery file is byte-identical after', async (_what, attack) => {
    const root = repository();
    const before = bytesOf(root, MACHINERY);
    const hooks = fs.readdirSync(path.join(root, '.git/hooks')).sort();
    const { output } = await run(root, `(${attack}) 2>&1; echo "rc=$?"`);
    expect(output, output).not.toContain('rc=0');
    expect(bytesOf(root, MACHINERY)).toEqual(before);
    expect(fs.readdirSync(path.join(root, '.git/hooks')).sort()).toEqual(hooks);
    for (const planted of ['.git/objects/info/alternates', '.git/info/attributes', '.git-old', '.git/h2', 'cfg']) expect(fs.existsSync(path.join(root, planted)), planted).toBe(false);
    expect(spawnSync('git', ['config', '--get', 'core.hooksPath'], { cwd: root, encoding: 'utf8' }).stdout).toBe('');
  });

  it('machinery that did not exist (no hooks folder, no alternates file) can be made in the sandbox, and is removed after the command', async () => {
    const root = repository();
    fs.rmSync(path.join(root, '.git/hooks'), { recursive: true });
    const { output } = await run(root, 'mkdir -p .git/hooks && printf "#!/bin/sh\\ntouch /tmp/pwned\\n" > .git/hooks/pre-commit && echo /tmp > .git/objects/info/alternates && echo PLANTED');
    expect(output).toContain('PLANTED');
    expect(fs.existsSync(path.join(root, '.git/hooks'))).toBe(false);
    expect(fs.existsSync(path.join(root, '.git/objects/info/alternates'))).toBe(false);
    expect(fs.existsSync(path.join(root, '.git/objects/info'))).toBe(true);
  });

  it("a rebase todo with `exec` lines (run by the person's `git rebase --continue`) is removed after the command; one without stays", async () => {
    const root = repository();
    const { output } = await run(root, "mkdir -p .git/rebase-merge && printf 'pick 0000000 x\\nexec touch /tmp/pwned\\n' > .git/rebase-merge/git-rebase-todo && echo PLANTED-$((1+1))");
    expect(output).toContain('PLANTED-2');
    expect(fs.existsSync(path.join(root, '.git/rebase-merge'))).toBe(false);
    expect(git(root, 'status')).not.toContain('rebase');
    // A rebase paused on a conflict (its todo runs nothing) is the agent's to continue in its next command.
    git(root, 'checkout', '-qb', 'side');
    fs.writeFileSync(path.join(root, 'a.txt'), 'side\n');
    git(root, 'commit', '-qam', 'side');
    git(root, 'checkout', '-q', 'main');
    fs.writeFileSync(path.join(root, 'a.txt'), 'main\n');
    git(root, 'commit', '-qam', 'main');
    git(root, 'checkout', '-q', 'side');
    const paused = await run(root, 'git rebase main >/dev/null 2>&1; test -d .git/rebase-merge && echo PAUSED-$((1+1))');
    expect(paused.output).toContain('PAUSED-2');
    expect(fs.existsSync(path.join(root, '.git/rebase-merge'))).toBe(true);
    const resolved = await run(root, 'echo resolved > a.txt && git add a.txt && GIT_EDITOR=true git rebase --continue && echo CONTINUED-$((1+1))');
    expect(resolved.exit, resolved.output).toBe(0);
    expect(resolved.output).toContain('CONTINUED-2');
    expect(fs.readFileSync(path.join(root, 'a.txt'), 'utf8')).toBe('resolved\n');
  });
});

describe("the person's git beside the agent's command", () => {
  it('a machinery file the person’s git removes between the policy and the sandbox’s start (config.lock renamed over config) does not make the command fail', async () => {
    const root = repository();
    fs.writeFileSync(path.join(root, '.git/config.lock'), '[core]\n');
    fs.mkdirSync(path.join(root, '.git/worktrees/gone'), { recursive: true });
    fs.writeFileSync(path.join(root, '.git/worktrees/gone/HEAD'), 'ref: refs/heads/main\n');
    const project = openProject(root, defaultConfig());
    const policy = commandSandbox(project.ws, project.config);
    expect(policy.readOnly).toContain(path.join(root, '.git/config.lock'));
    expect(policy.gitDirs).toContain(path.join(root, '.git/worktrees/gone'));
    // The person's `git config` finishes, `git worktree prune` runs: both gone before the sandbox starts.
    fs.renameSync(path.join(root, '.git/config.lock'), path.join(root, '.git/config.person'));
    fs.rmSync(path.join(root, '.git/worktrees'), { recursive: true });
    const r = await runCommand({ command: 'git commit -q --allow-empty -m beside && echo OK-$((1+1))', cwd: root, sandbox: policy, timeoutMs: 60_000 });
    expect(r.exit_code, r.tail).toBe(0);
    expect(r.tail).toContain('OK-2');
    expect(r.sandbox).toBe('bwrap');
  });
});
