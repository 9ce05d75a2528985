/**
 * The nested-repository search (config/nested-repos.ts) runs once before a
 * command, not twice: the command's mark (guard/command-effects.ts) lends
 * its result to the sandbox worked out right after it
 * (Policy.lendNestedGitDirs), and the after-pass searches again (a `.git`
 * the command made is removed). What the sandbox binds is what a fresh
 * search finds at that moment (fast-check, real folders), the lent result is
 * taken once and dropped when the command ends (a repository made later is
 * found again), and through the guarded shell a nested repository that
 * existed before the command is bound read-only (bubblewrap refuses the
 * write) with two searches per command.
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { NestedRepoSearch } from '../../src/config/nested-repos.js';
import { CommandEffects } from '../../src/guard/command-effects.js';
import { runGuardedShell, type ShellIo } from '../../src/integrations/shell.js';
import { commandSandbox } from '../../src/sandbox/for-workspace.js';
import { DEFAULT_SANDBOX_CONFIG } from '../../src/sandbox/policy.js';
import { openWorkspace } from '../../src/workspace/open.js';
import { tempRoot, write } from '../workspace/fixtures/checkpoint-helpers.js';

/** A search that counts its runs (the warm server's kind: one per real root, shared by every opening). */
class CountingSearch extends NestedRepoSearch {
  runs = 0;
  override find(): string[] {
    this.runs++;
    return super.find();
  }
}

function gitInit(dir: string): void {
  fs.mkdirSync(dir, { recursive: true });
  const r = spawnSync('git', ['init', '-q', dir], { encoding: 'utf8' });
  if (r.status !== 0) throw new Error(r.stderr);
}

function opened(root: string): { search: CountingSearch; effects: CommandEffects; ws: ReturnType<typeof openWorkspace>['ws'] } {
  const search = new CountingSearch(fs.realpathSync(root));
  const { ws, transactions } = openWorkspace(root, { policy: { nestedSearch: () => search } });
  return { search, effects: new CommandEffects(transactions.checkpoints), ws };
}

const sandboxOf = (ws: ReturnType<typeof openWorkspace>['ws']) => commandSandbox(ws, { sandbox: DEFAULT_SANDBOX_CONFIG });
/** The nested repositories' gitdirs a sandbox binds (their machinery read-only: sandbox/git-binds.ts), root-relative. */
const nestedBinds = (gitDirs: readonly string[], root: string): string[] =>
  gitDirs
    .map((p) => path.relative(root, p).split(path.sep).join('/'))
    .filter((rel) => rel.endsWith('/.git'))
    .sort();

describe('the nested-repository search runs once before a command', () => {
  it('the sandbox after a mark binds what a fresh search finds, without searching again (fast-check: random nested repositories)', () => {
    fc.assert(
      fc.property(fc.uniqueArray(fc.constantFrom('a', 'b/c', 'b/d/e', 'vendor/lib', 'x/y/z/w'), { maxLength: 4 }), fc.uniqueArray(fc.constantFrom('p', 'q/r', 'vendor/other'), { maxLength: 2 }), (before, later) => {
        const root = tempRoot('ew-nested-once-');
        write(root, 'a.txt', 'a\n');
        for (const rel of before) gitInit(path.join(root, rel));
        const { search, effects, ws } = opened(root);
        const mark = effects.before('cmd');
        expect(search.runs).toBe(1);
        const bound = nestedBinds(sandboxOf(ws).gitDirs, ws.root);
        // The lent search: no second run, and exactly what a fresh search of the same tree finds.
        expect(search.runs).toBe(1);
        expect(bound).toEqual(new NestedRepoSearch(ws.root).find());
        expect(bound).toEqual(before.map((rel) => `${rel}/.git`).sort());
        // Lent once: the next sandbox searches (and sees a repository made since).
        for (const rel of later) gitInit(path.join(root, rel));
        expect(nestedBinds(sandboxOf(ws).gitDirs, ws.root)).toEqual([...before, ...later].map((rel) => `${rel}/.git`).sort());
        expect(search.runs).toBe(2);
        effects.after(mark);
        expect(search.runs).toBe(3);
        fs.rmSync(root, { recursive: true, force: true });
      }),
      { numRuns: 12 },
    );
  });

  it('a lent search not taken by the command is dropped when it ends: a later sandbox searches and finds a repository made since', () => {
    const root = tempRoot('ew-nested-once-');
    write(root, 'a.txt', 'a\n');
    gitInit(path.join(root, 'vendor/lib'));
    const { search, effects, ws } = opened(root);
    effects.after(effects.before('cmd'));
    expect(search.runs).toBe(2);
    gitInit(path.join(root, 'made/later'));
    expect(nestedBinds(sandboxOf(ws).gitDirs, ws.root)).toEqual(['made/later/.git', 'vendor/lib/.git']);
    expect(search.runs).toBe(3);
  });

  it("a mark that works out the sandbox's read-only paths itself (a run's command) and the tool's sandbox share the one search", () => {
    const root = tempRoot('ew-nested-once-');
    write(root, 'a.txt', 'a\n');
    gitInit(path.join(root, 'vendor/lib'));
    const search = new CountingSearch(fs.realpathSync(root));
    const { ws, transactions } = openWorkspace(root, { policy: { nestedSearch: () => search } });
    const effects = new CommandEffects(transactions.checkpoints, { sandbox: DEFAULT_SANDBOX_CONFIG });
    const mark = effects.before('cmd');
    expect((mark.readOnly ?? []).filter((p) => p.startsWith(path.join(ws.root, 'vendor/lib/.git/')))).not.toEqual([]);
    expect(nestedBinds(sandboxOf(ws).gitDirs, ws.root)).toEqual(['vendor/lib/.git']);
    expect(search.runs).toBe(1);
    effects.after(mark);
    expect(search.runs).toBe(2);
  });
});

describe('through the guarded shell', () => {
  it('a nested repository made before the command is bound read-only, with two searches per command; one the command makes is removed', async () => {
    const root = tempRoot('ew-nested-shell-');
    write(root, 'a.txt', 'a\n');
    gitInit(root);
    gitInit(path.join(root, 'vendor/lib'));
    const config = path.join(root, 'vendor/lib/.git/config');
    const was = fs.readFileSync(config, 'utf8');
    const search = new CountingSearch(fs.realpathSync(root));
    const said: string[] = [];
    const io: ShellIo = { stdout: () => undefined, stderr: (chunk) => said.push(chunk.toString()), warm: { nestedSearch: () => search } };
    const shell = (command: string) => runGuardedShell({ root, cwd: root, command, client: 'claude', tool: 'Bash', session: null }, io);
    expect(await shell('true'), said.join('')).toBe(0);
    expect(search.runs).toBe(2);
    // Read-only inside: the write fails in the sandbox (nothing to put back), so the command's own exit code says so.
    expect(await shell("printf '[core]\\n\\tfsmonitor = evil\\n' >> vendor/lib/.git/config")).not.toBe(0);
    expect(said.join('')).toMatch(/Read-only file system/);
    expect(fs.readFileSync(config, 'utf8')).toBe(was);
    expect(search.runs).toBe(4);
    expect(await shell('git init -q made/repo')).toBe(2);
    expect(fs.existsSync(path.join(root, 'made/repo/.git'))).toBe(false);
    expect(search.runs).toBe(6);
  });
});
