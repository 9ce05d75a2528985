/**
 * The protected set × every layer: for EACH member of the one set
 * (config/protected-set.ts, plus an explicit --config file), every route to a
 * write refuses or reverts it — the runner's write_file and edit_file (the
 * project opened by openProject), every edit format through applyRequests,
 * the CLI `editwarden edit`, MCP edit_file over stdio, the hooks of Claude
 * Code, Gemini CLI, Codex, opencode, Copilot CLI and Qwen Code, a command in the real bubblewrap sandbox, and
 * a checkpoint restore (undo). The members are enumerated from the table, so
 * a member added later is covered by every layer at once.
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { applyReply } from '../../src/apply/apply-reply.js';
import { defaultConfig } from '../../src/config/config.js';
import { PROTECTED_MEMBERS } from '../../src/config/protected-set.js';
import { openProject, type Project } from '../../src/host/project.js';
import { claude } from '../../src/integrations/claude.js';
import { codex } from '../../src/integrations/codex.js';
import { copilot } from '../../src/integrations/copilot.js';
import { gemini } from '../../src/integrations/gemini.js';
import { opencode } from '../../src/integrations/opencode.js';
import { qwen } from '../../src/integrations/qwen.js';
import { vetNativeEdit } from '../../src/integrations/vet.js';
import { ToolRunner } from '../../src/tools/runner.js';
import { call, connect, type Connected } from '../mcp/helpers/server.js';
import { tempDir } from '../temp-dirs.js';

const BIN = path.resolve('bin/editwarden');
const ORIGINAL = 'original\n';
/** An explicit --config inside the root: a member of the set for this project. */
const EXTRA_CONFIG = 'policy/ew.yml';

/** A file each member protects (the member itself, or a file in it). */
function fileOf(member: { path: string; folder: boolean }): string {
  if (!member.folder) return member.path;
  return member.path === '.git' ? '.git/config' : `${member.path}/settings.json`;
}

/** The submodule's gitdir-link file as `git submodule add` writes it: the line an edit would change. */
const SUBMODULE_LINK = 'gitdir: ../../.git/modules/vendor/sub';
/**
 * Nested repositories, made by real git in `gitProject`: a `git init` in a subfolder, the same in a folder the
 * repository ignores (ignore rules are the repository's own: they must not hide one), and a `git submodule add`
 * whose `.git` is a file naming its gitdir in the parent's `.git/modules/`.
 */
const NESTED = [
  { member: 'nested .git', file: 'vendor/lib/.git/config', old: '# original' },
  { member: 'nested .git', file: 'vendor/lib/.git/hooks/pre-commit', old: 'original' },
  { member: 'nested .git (ignored folder)', file: 'ignored/dep/.git/hooks/post-checkout', old: 'original' },
  { member: 'submodule .git file', file: 'vendor/sub/.git', old: SUBMODULE_LINK },
  { member: 'submodule gitdir', file: '.git/modules/vendor/sub/hooks/pre-commit', old: 'original' },
];
/**
 * The event log's own files (issue 38.4): a rotated generation, the rotation index and a cut list's side file —
 * the evidence an agent would rewrite to hide what it did. (The current events.jsonl is left out: every route appends to it.)
 */
const EVENT_LOG = [
  { member: '.editwarden (event log)', file: '.editwarden/events.1.jsonl', old: 'original' },
  { member: '.editwarden (event index)', file: '.editwarden/events-index.jsonl', old: 'original' },
  { member: '.editwarden (list side file)', file: `.editwarden/events-diffs/${'c'.repeat(64)}.list`, old: 'original' },
];
/** Every protected file, by the member that protects it, with a line of it an edit would change. */
const FILES = [...PROTECTED_MEMBERS.map((m) => ({ member: m.path, file: fileOf(m), old: 'original' })), { member: '--config', file: EXTRA_CONFIG, old: 'original' }, ...NESTED, ...EVENT_LOG];
/** The state folder is also unreadable to agents; its files are refused with the same code. */
const REFUSED = /E_DENIED_PATH|E_CONSTRAINT/;

function git(cwd: string, ...args: string[]): void {
  const r = spawnSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@t', '-c', 'init.defaultBranch=main', '-c', 'protocol.file.allow=always', ...args], { cwd, encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`git ${args.join(' ')}: ${r.stderr}`);
}

/** A real repository with the nested ones of NESTED (a local upstream for the submodule). */
function gitProject(root: string): void {
  const upstream = tempDir('ew-protected-upstream-');
  git(upstream, 'init', '-q');
  fs.writeFileSync(path.join(upstream, 'lib.txt'), 'lib\n');
  git(upstream, 'add', '.');
  git(upstream, 'commit', '-qm', 'lib');
  git(root, 'init', '-q');
  fs.writeFileSync(path.join(root, '.gitignore'), 'ignored/\n');
  git(root, 'submodule', 'add', '-q', upstream, 'vendor/sub');
  for (const nested of ['vendor/lib', 'ignored/dep']) {
    fs.mkdirSync(path.join(root, nested), { recursive: true });
    git(path.join(root, nested), 'init', '-q');
  }
  fs.appendFileSync(path.join(root, 'vendor/lib/.git/config'), '# original\n');
}

function plant(root: string): void {
  gitProject(root);
  for (const { file } of FILES) {
    if (file === 'vendor/sub/.git' || file === 'vendor/lib/.git/config') continue; // real git's own files
    fs.mkdirSync(path.dirname(path.join(root, file)), { recursive: true });
    fs.writeFileSync(path.join(root, file), file === '.editwarden.yml' || file === EXTRA_CONFIG ? 'constraints:\n  max_files: 5\n' : ORIGINAL);
  }
  expect(fs.readFileSync(path.join(root, 'vendor/sub/.git'), 'utf8')).toBe(`${SUBMODULE_LINK}\n`);
}

function contents(root: string): Record<string, string> {
  return Object.fromEntries(FILES.map(({ file }) => [file, fs.readFileSync(path.join(root, file), 'utf8')]));
}

let root: string;
let project: Project;
let before: Record<string, string>;

beforeAll(() => {
  root = tempDir('ew-protected-');
  plant(root);
  project = openProject(root, defaultConfig(), { configFiles: [path.join(root, EXTRA_CONFIG)] });
  before = contents(root);
});
afterAll(() => expect(contents(root)).toEqual(before));

describe('the set is one table with a reason per member', () => {
  it('lists the state folder, .git, the config and every client’s settings and run-on-start files, each with its reason', () => {
    const names = PROTECTED_MEMBERS.map((m) => m.path);
    for (const must of [
      '.editwarden',
      '.git',
      '.editwarden.yml',
      '.claude',
      '.mcp.json',
      '.gemini',
      '.codex',
      '.cursor',
      '.opencode',
      'opencode.json',
      'opencode.jsonc',
      '.github/hooks',
      '.github/copilot',
      '.qwen',
      '.vscode',
      '.devcontainer',
      '.envrc',
      '.husky',
    ])
      expect(names).toContain(must);
    for (const m of PROTECTED_MEMBERS) expect(m.reason.length).toBeGreaterThan(20);
    expect(project.policy.protectedBy(EXTRA_CONFIG)?.reason).toContain('--config');
    expect(project.policy).toBe(project.ws.policy);
  });
});

describe.each(FILES)('$file ($member) is refused by every layer', ({ file, old }) => {
  it('the runner: write_file and edit_file', async () => {
    // A fresh run per call: a refused protected path may end a headless run (a violation), which is not what is measured here.
    const runner = (): ToolRunner => ToolRunner.start({ ws: project.ws, config: project.config, transactions: project.transactions, apply: project.applyOptions, artifacts: false });
    const write = await runner().call({ tool: 'write_file', args: { path: file, content: 'agent\n' } });
    const edit = await runner().call({ tool: 'edit_file', args: { path: file, old_text: old, new_text: 'agent' } });
    expect(write.ok).toBe(false);
    expect(write.error?.code, write.output).toMatch(REFUSED);
    expect(edit.ok).toBe(false);
    expect(edit.error?.code, edit.output).toMatch(REFUSED);
  });

  it('every format through applyRequests (apply_patch update and delete, udiff, SEARCH/REPLACE)', async () => {
    const replies = {
      'apply-patch': `*** Begin Patch\n*** Update File: ${file}\n@@\n-${old}\n+agent\n*** End Patch\n`,
      udiff: `--- a/${file}\n+++ b/${file}\n@@ -1 +1 @@\n-${old}\n+agent\n`,
      'search-replace': `${file}\n<<<<<<< SEARCH\n${old}\n=======\nagent\n>>>>>>> REPLACE\n`,
    } as const;
    for (const [format, text] of Object.entries(replies)) {
      const outcome = await applyReply(project.ws, text, { format: format as keyof typeof replies, ...project.applyOptions });
      expect(outcome.ok, `${format}: ${JSON.stringify(outcome.results)}`).toBe(false);
      expect(JSON.stringify(outcome.results), format).toMatch(REFUSED);
    }
    const del = await applyReply(project.ws, `*** Begin Patch\n*** Delete File: ${file}\n*** End Patch\n`, { format: 'apply-patch' });
    expect(del.ok).toBe(false);
    expect(del.results[0]?.error?.code).toMatch(REFUSED);
  });

  it('a restore (undo) never brings back an older version', () => {
    const service = project.transactions.checkpoints;
    const checkpoint = service.create('before the person edits', 'test', 'workspace');
    const abs = path.join(root, file);
    fs.writeFileSync(abs, 'changed by the person\n');
    try {
      service.restore(checkpoint);
      expect(fs.readFileSync(abs, 'utf8')).toBe('changed by the person\n');
    } finally {
      fs.writeFileSync(abs, before[file] as string);
    }
  });
});

// The hook learns an explicit --config from its command line (`editwarden init <client> --config F` writes it there).
describe.each(FILES)('$file ($member)', ({ file, old }) => {
  it('is refused by the hooks of Claude Code, Gemini CLI, Codex, opencode (write, edit, apply_patch), Copilot CLI (create, edit) and Qwen Code (write_file, edit)', async () => {
    const abs = path.join(root, file);
    const patch = `*** Begin Patch\n*** Add File: ${file}.new\n+x\n*** Update File: ${file}\n@@\n-${old}\n+agent\n*** End Patch\n`;
    const inputs = [
      opencode.nativeEdit({ tool_name: 'write', tool_input: { filePath: file, content: 'agent\n' }, cwd: root }),
      opencode.nativeEdit({ tool_name: 'edit', tool_input: { filePath: abs, oldString: old, newString: 'agent' }, cwd: root }),
      opencode.nativeEdit({ tool_name: 'apply_patch', tool_input: { patchText: patch }, cwd: root }),
      copilot.nativeEdit(copilot.hookInput?.({ toolName: 'create', toolArgs: { path: file, file_text: 'agent\n' }, cwd: root }) ?? {}),
      copilot.nativeEdit(copilot.hookInput?.({ toolName: 'edit', toolArgs: JSON.stringify({ path: abs, old_str: old, new_str: 'agent' }), cwd: root }) ?? {}),
      qwen.nativeEdit({ tool_name: 'write_file', tool_input: { file_path: abs, content: 'agent\n' } }),
      qwen.nativeEdit({ tool_name: 'edit', tool_input: { file_path: abs, old_string: old, new_string: 'agent' } }),
      claude.nativeEdit({ tool_name: 'Write', tool_input: { file_path: abs, content: 'agent\n' } }),
      gemini.nativeEdit({ tool_name: 'write_file', tool_input: { file_path: abs, content: 'agent\n' } }),
      codex.nativeEdit({ tool_name: 'apply_patch', tool_input: { command: `*** Begin Patch\n*** Add File: ${file}.new\n+x\n*** Update File: ${file}\n@@\n-${old}\n+agent\n*** End Patch\n` } }),
    ];
    for (const edit of inputs) {
      if (edit === null) throw new Error('not an edit');
      const verdict = await vetNativeEdit(root, edit, path.join(root, EXTRA_CONFIG));
      expect(verdict.allow, `${edit.client}: ${JSON.stringify(verdict)}`).toBe(false);
    }
  });
});

describe('the CLI and MCP over stdio refuse every member', () => {
  it('editwarden edit (the CLI) refuses each, with --config naming the extra file', () => {
    const cli = (args: string[], input?: string) => spawnSync(process.execPath, [BIN, 'edit', ...args, '--root', root, '--config', path.join(root, EXTRA_CONFIG), '--json'], { cwd: root, encoding: 'utf8', input });
    // The flags, as a person types them: one member (the explicit --config file, which only the flag names).
    const one = cli([EXTRA_CONFIG, '--mode', 'overwrite', '--new', 'agent\n']);
    expect(one.status, `${EXTRA_CONFIG}: ${one.stdout}${one.stderr}`).toBe(1);
    expect(one.stdout).toMatch(REFUSED);
    // Every member in one process: a JSON request per file (the same mapping as the flags), each refused on its own.
    const requests = FILES.map(({ file }) => ({ path: file, mode: 'overwrite', new_text: 'agent\n' }));
    const all = cli(['--request', '-'], JSON.stringify(requests));
    expect(all.status, `${all.stdout}${all.stderr}`).toBe(1);
    const results = (JSON.parse(all.stdout) as { results: Array<{ path: string; status: string; error?: { code: string } }> }).results;
    expect(results.map((r) => r.path)).toEqual(FILES.map(({ file }) => file));
    for (const r of results) {
      expect(r.status, `${r.path}: ${JSON.stringify(r)}`).toBe('rejected');
      expect(r.error?.code, `${r.path}: ${JSON.stringify(r)}`).toMatch(REFUSED);
    }
  });

  it('MCP edit_file and write_file refuse each', async () => {
    let server: Connected | null = null;
    try {
      server = await connect(['--root', root, '--config', path.join(root, EXTRA_CONFIG)]);
      for (const { file, old } of FILES) {
        const write = await call(server.client, 'write_file', { path: file, content: 'agent\n' });
        const edit = await call(server.client, 'edit_file', { path: file, old_text: old, new_text: 'agent' });
        expect(write.isError, `${file}: ${write.text}`).toBe(true);
        expect(write.text).toMatch(REFUSED);
        expect(edit.isError, `${file}: ${edit.text}`).toBe(true);
      }
    } finally {
      await server?.close();
    }
  });
});

describe('a command in the real sandbox cannot change or create a member', () => {
  it('writes to existing members fail read-only; members it creates are removed again', async () => {
    const fresh = tempDir('ew-protected-sandbox-');
    plant(fresh);
    // Absent members: the command may try to create them.
    fs.rmSync(path.join(fresh, '.envrc'));
    fs.rmSync(path.join(fresh, '.vscode'), { recursive: true });
    fs.rmSync(path.join(fresh, 'opencode.json'));
    fs.rmSync(path.join(fresh, '.github'), { recursive: true });
    const opened = openProject(fresh, defaultConfig(), { configFiles: [path.join(fresh, EXTRA_CONFIG)] });
    const runner = ToolRunner.start({ ws: opened.ws, config: opened.config, transactions: opened.transactions, apply: opened.applyOptions, artifacts: false });
    const writes = FILES.map(({ file }) => `(mkdir -p "$(dirname '${file}')" 2>/dev/null; printf 'agent\\n' > '${file}') 2>/dev/null`).join('; ');
    const record = await runner.call({ tool: 'execute_command', args: { command: `${writes}; true` } });
    expect(record.data, record.output).toMatchObject({ sandbox: 'bwrap' });
    for (const { file } of FILES) {
      const abs = path.join(fresh, file);
      if (file === '.envrc' || file === 'opencode.json' || file.startsWith('.vscode/') || file.startsWith('.github/')) expect(fs.existsSync(abs), file).toBe(false);
      else expect(fs.readFileSync(abs, 'utf8'), file).not.toBe('agent\n');
    }
    expect(fs.existsSync(path.join(fresh, '.vscode'))).toBe(false);
    expect(fs.existsSync(path.join(fresh, '.github/hooks'))).toBe(false);
  });
});

describe('nested repositories a command makes or may write', () => {
  const runnerOf = (dir: string, gitWritable = false): ToolRunner => {
    const config = defaultConfig();
    config.sandbox.git_writable = gitWritable;
    const opened = openProject(dir, config);
    return ToolRunner.start({ ws: opened.ws, config: opened.config, transactions: opened.transactions, apply: opened.applyOptions, artifacts: false });
  };

  it('every existing nested .git (a plain one, one in an ignored folder, a submodule’s link file) is bound read-only: the write itself fails', async () => {
    const fresh = tempDir('ew-protected-nested-ro-');
    gitProject(fresh);
    const targets = ['vendor/lib/.git/hooks/post-checkout', 'ignored/dep/.git/config', 'vendor/sub/.git'];
    const record = await runnerOf(fresh).call({ tool: 'execute_command', args: { command: targets.map((t) => `(printf 'agent\\n' > ${t}) 2>&1`).join('; ') } });
    expect(record.data, record.output).toMatchObject({ sandbox: 'bwrap' });
    expect(record.output.match(/Read-only file system/g)?.length, record.output).toBe(targets.length);
  });

  it('a repository the command creates (git init, then a hook planted) is gone after it; its other files stay and are counted', async () => {
    const fresh = tempDir('ew-protected-new-repo-');
    gitProject(fresh);
    const record = await runnerOf(fresh).call({
      tool: 'execute_command',
      args: { command: "mkdir -p made/repo && printf 'x\\n' > made/repo/file.txt && git init -q made/repo && printf '#!/bin/sh\\ntouch /tmp/pwned\\n' > made/repo/.git/hooks/post-checkout && printf 'gitdir: ../evil\\n' > made/.git" },
    });
    expect(record.data, record.output).toMatchObject({ sandbox: 'bwrap' });
    expect(fs.existsSync(path.join(fresh, 'made/repo/.git'))).toBe(false);
    expect(fs.existsSync(path.join(fresh, 'made/.git'))).toBe(false);
    expect(fs.readFileSync(path.join(fresh, 'made/repo/file.txt'), 'utf8')).toBe('x\n');
  });

  it('the client’s shell through `editwarden shell` (what the hooks rewrite Bash to): the nested hook write fails, a new repository is removed', () => {
    const fresh = tempDir('ew-protected-nested-shell-');
    gitProject(fresh);
    const hook = 'vendor/lib/.git/hooks/post-checkout';
    const r = spawnSync(process.execPath, [BIN, 'shell', '--client', 'claude', '--tool', 'Bash', '--root', fresh, '--', `(printf 'agent\\n' > ${hook}) 2>&1; git init -q made && echo made`], { cwd: fresh, encoding: 'utf8' });
    expect(r.stdout + r.stderr).toContain('Read-only file system');
    expect(r.stdout).toContain('made');
    expect(fs.existsSync(path.join(fresh, hook))).toBe(false);
    expect(fs.existsSync(path.join(fresh, 'made/.git'))).toBe(false);
  });

  it('with sandbox.git_writable a command may write nested repositories too', async () => {
    const fresh = tempDir('ew-protected-git-writable-');
    gitProject(fresh);
    const hook = 'vendor/lib/.git/hooks/post-checkout';
    const record = await runnerOf(fresh, true).call({ tool: 'execute_command', args: { command: `printf 'mine\\n' > ${hook} && git init -q made` } });
    expect(record.data, record.output).toMatchObject({ sandbox: 'bwrap' });
    expect(fs.readFileSync(path.join(fresh, hook), 'utf8')).toBe('mine\n');
    expect(fs.existsSync(path.join(fresh, 'made/.git/HEAD'))).toBe(true);
  });
});

describe('a governing file is protected by its real target as well as its name', () => {
  it('.editwarden.yml -> tools/editwarden.yml and .claude/settings.json -> ../config/claude.json: the targets are refused to edit_file and to the hook', async () => {
    const dir = tempDir('ew-protected-linked-');
    fs.mkdirSync(path.join(dir, 'tools'));
    fs.mkdirSync(path.join(dir, 'config'));
    fs.mkdirSync(path.join(dir, '.claude'));
    fs.writeFileSync(path.join(dir, 'tools', 'editwarden.yml'), 'constraints:\n  max_files: 1\n');
    fs.writeFileSync(path.join(dir, 'config', 'claude.json'), '{}\n');
    fs.symlinkSync('tools/editwarden.yml', path.join(dir, '.editwarden.yml'));
    fs.symlinkSync('../config/claude.json', path.join(dir, '.claude', 'settings.json'));
    const opened = openProject(dir, defaultConfig());
    for (const target of ['tools/editwarden.yml', 'config/claude.json']) {
      const runner = ToolRunner.start({ ws: opened.ws, config: opened.config, transactions: opened.transactions, apply: opened.applyOptions, artifacts: false });
      const record = await runner.call({ tool: 'write_file', args: { path: target, content: 'agent\n', overwrite: true } });
      expect(record.error?.code, record.output).toBe('E_DENIED_PATH');
      expect(record.output).toContain('the real target of');
      const edit = claude.nativeEdit({ tool_name: 'Write', tool_input: { file_path: path.join(dir, target), content: 'agent\n' } });
      if (edit === null) throw new Error('not an edit');
      const verdict = await vetNativeEdit(dir, edit);
      expect(verdict.allow).toBe(false);
    }
    expect(fs.readFileSync(path.join(dir, 'tools', 'editwarden.yml'), 'utf8')).toContain('max_files: 1');
    expect(fs.readFileSync(path.join(dir, 'config', 'claude.json'), 'utf8')).toBe('{}\n');
  });
});
