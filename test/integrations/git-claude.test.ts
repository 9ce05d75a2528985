/**
 * git inside the guarded shell, with the real Claude Code (scripted model on
 * 127.0.0.1, a temp project): `git add -A && git commit`, `git checkout -b`
 * and `git stash` through Bash succeed; `.git/config` and
 * `.git/hooks/pre-commit` written through Bash stay byte-identical; and
 * `editwarden undo` gives back HEAD, the branch list, the index, the stash
 * list and the files byte-exact. And a person's `git gc` — a real process
 * outside the sandbox, running while the agent's command runs — does not
 * break the agent's next git command.
 */
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { editwardenHere } from './cli-in-process.js';
import { CLAUDE, cleanup, editwarden, project, runClaude, toolResults } from './helpers.js';

beforeAll(() => expect(fs.existsSync(CLAUDE), `${CLAUDE} is missing; run npm ci`).toBe(true));
afterAll(cleanup);

function git(root: string, ...args: string[]): string {
  const r = spawnSync('git', args, { cwd: root, encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`git ${args.join(' ')}: ${r.stderr}`);
  return r.stdout;
}

/** A repository with one commit and its identity in its own config (the sandbox's HOME is empty), a hook of the person's, set up for Claude Code. */
async function repository(): Promise<string> {
  const root = project({ 'a.txt': 'one\n' });
  git(root, 'config', 'user.name', 'Agent');
  git(root, 'config', 'user.email', 'agent@example.test');
  git(root, 'checkout', '-qb', 'main');
  git(root, 'add', '-A');
  git(root, 'commit', '-qm', 'first');
  fs.writeFileSync(path.join(root, '.git/hooks/pre-commit'), '#!/bin/sh\n# the person’s own hook\nexit 0\n', { mode: 0o755 });
  expect((await editwardenHere(['init', 'claude', '--root', root])).code).toBe(0);
  return root;
}

/** What undo must give back byte-exact. */
function state(root: string): Record<string, string> {
  const read = (p: string): string => (fs.existsSync(path.join(root, p)) ? fs.readFileSync(path.join(root, p), 'base64') : '(none)');
  return {
    head: read('.git/HEAD'),
    branches: git(root, 'for-each-ref', '--format=%(refname) %(objectname)'),
    index: read('.git/index'),
    stash: git(root, 'stash', 'list'),
    a: read('a.txt'),
  };
}

const bash = (command: string) => ({ name: 'Bash', args: { command, description: 'git' } });

describe('git through the guarded Bash of the real Claude Code', () => {
  it('commit, checkout -b and stash succeed; the machinery written through Bash stays byte-identical; undo restores HEAD, branches, index, stash list and files byte-exact', async () => {
    const root = await repository();
    fs.appendFileSync(path.join(root, 'a.txt'), 'two, by the person\n');
    // The person's own git refreshes the index first: what is compared is the state the agent's steps start from.
    git(root, 'status', '--porcelain');
    const before = state(root);
    const machinery = ['.git/config', '.git/hooks/pre-commit'].map((p) => fs.readFileSync(path.join(root, p), 'base64'));
    const run = await runClaude(
      root,
      [
        bash('git add -A && git commit -qm x && echo COMMITTED'),
        bash('git checkout -qb topic && echo BRANCHED'),
        bash('echo dirty >> a.txt && git stash -q && git stash list'),
        bash("printf '[core]\\n\\thooksPath = /tmp/evil\\n' >> .git/config; echo 'touch /tmp/pwned' > .git/hooks/pre-commit; git config core.fsmonitor /tmp/evil; echo TRIED"),
      ],
      ['--allowedTools', 'Bash'],
      150_000,
    );
    expect(run.code, run.stderr).toBe(0);
    const results = toolResults(run.requests);
    expect(results).toHaveLength(4);
    expect(results[0]).toContain('COMMITTED');
    expect(results[1]).toContain('BRANCHED');
    expect(results[2]).toMatch(/stash@\{0\}: WIP on topic/);
    expect(results[3]).toContain('TRIED');
    expect(results[3]).toContain('Read-only file system');
    expect(results.join('\n')).not.toContain('without network access');
    expect(['.git/config', '.git/hooks/pre-commit'].map((p) => fs.readFileSync(path.join(root, p), 'base64'))).toEqual(machinery);
    expect(git(root, 'symbolic-ref', 'HEAD')).toBe('refs/heads/topic\n');
    expect(git(root, 'log', '--format=%s', '-1', 'main')).toBe('x\n');

    // Three steps (stash, branch, commit), newest first: each undo gives one back.
    const list = editwarden(['undo', '--list', '--root', root]);
    expect(list.stdout).toContain('.git/refs/stash');
    for (let i = 0; i < 3; i++) {
      const undo = editwarden(['undo', '--root', root]);
      expect(undo.code, undo.stderr + undo.stdout).toBe(0);
    }
    expect(state(root)).toEqual(before);
    expect(['.git/config', '.git/hooks/pre-commit'].map((p) => fs.readFileSync(path.join(root, p), 'base64'))).toEqual(machinery);
  }, 200_000);

  it("a person's git gc, a real process outside the sandbox running during the agent's command, does not break the agent's next git command", async () => {
    const root = await repository();
    // The person's gc starts once the agent's command has begun (marker.txt) and runs beside it.
    const marker = path.join(root, 'marker.txt');
    const gc = spawn('sh', ['-c', `while [ ! -e '${marker}' ]; do sleep 0.05; done; git gc --quiet --prune=now`], { cwd: root, stdio: 'ignore' });
    const gcDone = new Promise<number | null>((resolve) => gc.once('exit', resolve));
    const run = await runClaude(
      root,
      [
        bash('echo go > marker.txt; for i in 1 2 3 4 5; do git commit -q --allow-empty -m "agent $i"; sleep 0.3; done; echo FIRST-OK'),
        bash('git checkout -qb after-gc && git commit -q --allow-empty -m next && git log --oneline | wc -l && echo NEXT-OK'),
      ],
      ['--allowedTools', 'Bash'],
      150_000,
    );
    expect(await gcDone).toBe(0);
    expect(run.code, run.stderr).toBe(0);
    const results = toolResults(run.requests);
    expect(results[0]).toContain('FIRST-OK');
    expect(results[1]).toContain('NEXT-OK');
    expect(results.join('\n')).not.toMatch(/E_DENIED_PATH|E_CONSTRAINT|fatal:/);
    expect(fs.existsSync(path.join(root, '.git/packed-refs'))).toBe(true);
    expect(git(root, 'log', '--format=%s', '-1', 'after-gc')).toBe('next\n');
    // And the agent's steps still undo: the newest takes the branch and its commit back.
    const undo = editwarden(['undo', '--root', root]);
    expect(undo.code, undo.stderr + undo.stdout).toBe(0);
    expect(git(root, 'branch', '--format=%(refname:short)')).not.toContain('after-gc');
  }, 200_000);
});
