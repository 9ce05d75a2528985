/**
 * An agent's commit, branch or stash is part of its command's step: real
 * git in the real sandbox (execute_command), then `undo` puts back HEAD,
 * the branch list, the index and the stash list byte-exact (the objects
 * stay) and `redo` makes them again — through the one restore primitive,
 * with the same E_CHANGED_SINCE rule for a ref the person moved since, and
 * no refusal when the person's `git gc` only repacked the refs.
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { defaultConfig } from '../../src/config/config.js';
import { openProject, type Project } from '../../src/host/project.js';
import { ToolRunner } from '../../src/tools/runner.js';
import { UndoHistory } from '../../src/workspace/checkpoints/history.js';
import { codeOf } from '../error-code.js';
import { tempDir } from '../temp-dirs.js';

function git(cwd: string, ...args: string[]): string {
  const r = spawnSync('git', args, { cwd, encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`git ${args.join(' ')}: ${r.stderr}`);
  return r.stdout;
}

function repository(): { root: string; project: Project } {
  const root = tempDir('ew-git-refs-');
  git(root, 'init', '-q', '-b', 'main');
  git(root, 'config', 'user.name', 'Agent');
  git(root, 'config', 'user.email', 'agent@example.test');
  fs.writeFileSync(path.join(root, 'a.txt'), 'one\n');
  git(root, 'add', '-A');
  git(root, 'commit', '-qm', 'first');
  return { root, project: openProject(root, defaultConfig()) };
}

/** What undo must give back byte-exact: HEAD, every branch and tag, the index, the stash list, and the files. */
function state(root: string): Record<string, string> {
  const read = (p: string): string => (fs.existsSync(path.join(root, p)) ? fs.readFileSync(path.join(root, p), 'base64') : '(none)');
  return {
    head: read('.git/HEAD'),
    refs: git(root, 'for-each-ref', '--format=%(refname) %(objectname)'),
    index: read('.git/index'),
    stash: git(root, 'stash', 'list'),
    stashLog: read('.git/logs/refs/stash'),
    a: read('a.txt'),
  };
}

async function agent(project: Project, command: string): Promise<void> {
  const runner = ToolRunner.start({ ws: project.ws, config: project.config, transactions: project.transactions, apply: project.applyOptions, artifacts: false });
  const record = await runner.call({ tool: 'execute_command', args: { command } });
  expect(record.data, record.output).toMatchObject({ sandbox: 'bwrap', exit_code: 0 });
}

describe("an agent's git work is part of its command's step", () => {
  it.each([
    ['git add -A && git commit -m x (the file was changed by the person before)', (root: string) => fs.appendFileSync(path.join(root, 'a.txt'), 'two\n'), 'git add -A && git commit -qm x'],
    ['git checkout -b topic', () => {}, 'git checkout -qb topic'],
    ['git stash', (root: string) => fs.appendFileSync(path.join(root, 'a.txt'), 'dirty\n'), 'git stash -q'],
    [
      'git tag and a second stash on top of one',
      (root: string) => {
        fs.appendFileSync(path.join(root, 'a.txt'), 'first stash\n');
        git(root, 'stash', '-q');
        fs.appendFileSync(path.join(root, 'a.txt'), 'second\n');
      },
      'git tag v1 && git stash -q',
    ],
  ])('%s: undo restores HEAD, the branches, the index, the stash list and the files byte-exact; redo makes them again', async (_what, prepare, command) => {
    const { root, project } = repository();
    prepare(root);
    const before = state(root);
    await agent(project, command);
    const after = state(root);
    expect(after).not.toEqual(before);
    const history = new UndoHistory(project.transactions.checkpoints);
    const undone = history.undo();
    expect(undone.change?.kind).toBe('command');
    expect(state(root)).toEqual(before);
    history.redo();
    expect(state(root)).toEqual(after);
  });

  it('`undo --list` names the refs the command changed, not every ref it holds', async () => {
    const { root, project } = repository();
    for (const t of ['t1', 't2', 't3']) git(root, 'tag', t);
    await agent(project, 'git checkout -qb topic');
    const [step] = new UndoHistory(project.transactions.checkpoints).list();
    expect(step?.files).toEqual(expect.arrayContaining(['.git/HEAD', '.git/refs/heads/topic']));
    expect(step?.files.some((f) => f.includes('tags'))).toBe(false);
  });

  it("a person's `git gc` (refs packed) between the step and its undo is no change: the branch the agent made is gone after undo", async () => {
    const { root, project } = repository();
    const before = git(root, 'for-each-ref', '--format=%(refname) %(objectname)');
    await agent(project, 'git checkout -qb topic && git commit -q --allow-empty -m on-topic');
    git(root, 'gc', '-q');
    expect(fs.existsSync(path.join(root, '.git/refs/heads/topic'))).toBe(false); // packed
    new UndoHistory(project.transactions.checkpoints).undo();
    expect(git(root, 'for-each-ref', '--format=%(refname) %(objectname)')).toBe(before);
    expect(git(root, 'symbolic-ref', 'HEAD')).toBe('refs/heads/main\n');
    expect(git(root, 'status', '--porcelain')).toBe('');
  });

  it('a branch the person moved since the step refuses the undo (E_CHANGED_SINCE, naming it); forced, it is captured and the next undo gives it back', async () => {
    const { root, project } = repository();
    await agent(project, 'git commit -q --allow-empty -m by-agent');
    git(root, 'commit', '-q', '--allow-empty', '-m', 'by-person');
    const person = git(root, 'rev-parse', 'HEAD');
    const history = new UndoHistory(project.transactions.checkpoints);
    expect(codeOf(() => history.undo())).toBe('E_CHANGED_SINCE');
    expect(() => history.undo()).toThrow(/\.git\/refs\/heads\/main/);
    expect(git(root, 'rev-parse', 'HEAD')).toBe(person);
    history.undo({ force: true });
    expect(git(root, 'log', '--format=%s', '-1')).toBe('first\n');
    history.redo();
    expect(git(root, 'rev-parse', 'HEAD')).toBe(person);
  });

  it('a restore never writes git machinery, whatever a manifest names (a forged ref part is refused before anything is written)', async () => {
    const { root, project } = repository();
    await agent(project, 'git checkout -qb topic');
    const service = project.transactions.checkpoints;
    const [step] = new UndoHistory(service).list();
    const id = service.list().find((c) => c.origin.kind === 'command')?.id as string;
    expect(step).toBeDefined();
    const manifest = service.get(id);
    const forged = { ...manifest, git: { entries: [{ path: 'config', type: 'file' as const, blob: 'x', size: 4, mode: 0o644, inline: Buffer.from('evil').toString('base64') }] } };
    service.manifests.write(forged);
    const config = fs.readFileSync(path.join(root, '.git/config'), 'utf8');
    expect(() => service.restore(id)).toThrow(/not ref state/);
    expect(fs.readFileSync(path.join(root, '.git/config'), 'utf8')).toBe(config);
  });
});
