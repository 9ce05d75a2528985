/**
 * The protected set inside `.git`, through every route: the file routes —
 * the library (applyReply, every format), the agent tools (the runner's
 * write_file and edit_file), the CLI `editwarden edit`, MCP over stdio and
 * over Streamable HTTP, the hooks of Claude Code, Gemini CLI and Codex —
 * refuse every file of every `.git` (machinery and data alike: an agent's
 * git goes through a command, never a file edit); the guarded shell (what a
 * client's Bash runs as) lets git write its data and keeps the machinery
 * byte-identical. Real git makes the repositories (a submodule, a nested
 * repository), real bubblewrap runs the shell.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { applyReply } from '../../src/apply/apply-reply.js';
import { defaultConfig } from '../../src/config/config.js';
import { gitPathKind } from '../../src/config/git-machinery.js';
import { openProject, type Project } from '../../src/host/project.js';
import { claude } from '../../src/integrations/claude.js';
import { codex } from '../../src/integrations/codex.js';
import { gemini } from '../../src/integrations/gemini.js';
import { vetNativeEdit } from '../../src/integrations/vet.js';
import { ToolRunner } from '../../src/tools/runner.js';
import { call, connect, mcpProgram, REPO } from '../mcp/helpers/server.js';
import { tempDir } from '../temp-dirs.js';

const BIN = path.resolve('bin/editwarden');
const REFUSED = /E_DENIED_PATH|E_CONSTRAINT/;

/** Files of every kind of gitdir: the root's, a submodule's (in .git/modules), a nested repository's, a submodule's link file. */
const GIT_FILES = [
  '.git/config',
  '.git/hooks/pre-commit',
  '.git/info/exclude',
  '.git/description',
  '.git/HEAD',
  '.git/refs/heads/main',
  '.git/packed-refs',
  '.git/logs/HEAD',
  '.git/modules/vendor/sub/config',
  '.git/modules/vendor/sub/hooks/pre-commit',
  '.git/modules/vendor/sub/HEAD',
  'vendor/lib/.git/config',
  'vendor/lib/.git/hooks/post-checkout',
  'vendor/sub/.git',
];

function git(cwd: string, ...args: string[]): void {
  const r = spawnSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@t', '-c', 'protocol.file.allow=always', ...args], { cwd, encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`git ${args.join(' ')}: ${r.stderr}`);
}

function plant(root: string): void {
  const up = tempDir('ew-protected-git-up-');
  git(up, 'init', '-q');
  git(up, 'commit', '-q', '--allow-empty', '-m', 'up');
  git(root, 'init', '-q', '-b', 'main');
  git(root, 'config', 'user.name', 'Agent');
  git(root, 'config', 'user.email', 'agent@example.test');
  fs.writeFileSync(path.join(root, 'a.txt'), 'a\n');
  git(root, 'add', '-A');
  git(root, 'commit', '-qm', 'a');
  git(root, 'submodule', 'add', '-q', up, 'vendor/sub');
  git(root, 'commit', '-qm', 'sub');
  git(root, 'pack-refs', '--all');
  git(root, 'commit', '-q', '--allow-empty', '-m', 'c'); // a loose main beside packed-refs
  fs.mkdirSync(path.join(root, 'vendor/lib'), { recursive: true });
  git(path.join(root, 'vendor/lib'), 'init', '-q');
  for (const hook of ['.git/hooks/pre-commit', '.git/modules/vendor/sub/hooks/pre-commit', 'vendor/lib/.git/hooks/post-checkout']) fs.writeFileSync(path.join(root, hook), '#!/bin/sh\nexit 0\n', { mode: 0o755 });
  for (const f of GIT_FILES) expect(fs.existsSync(path.join(root, f)), f).toBe(true);
}

const bytes = (root: string): Record<string, string> => Object.fromEntries(GIT_FILES.map((f) => [f, fs.readFileSync(path.join(root, f), 'base64')]));
const firstLine = (root: string, f: string): string => fs.readFileSync(path.join(root, f), 'utf8').split('\n')[0] as string;

let root: string;
let project: Project;
let before: Record<string, string>;

beforeAll(() => {
  root = tempDir('ew-protected-git-');
  plant(root);
  project = openProject(root, defaultConfig());
  before = bytes(root);
});
afterAll(() => expect(bytes(root)).toEqual(before));

describe('every file route refuses every file of every .git (machinery and data)', () => {
  it('the decision names each: machinery for config, hooks, info, description and a link file; data for HEAD, refs, packed-refs, logs', () => {
    expect(GIT_FILES.filter((f) => gitPathKind(f) === 'data').sort()).toEqual(['.git/HEAD', '.git/logs/HEAD', '.git/modules/vendor/sub/HEAD', '.git/packed-refs', '.git/refs/heads/main']);
  });

  it.each(GIT_FILES)('%s: the agent tools (write_file, edit_file) and the library (every format)', async (file) => {
    const runner = (): ToolRunner => ToolRunner.start({ ws: project.ws, config: project.config, transactions: project.transactions, apply: project.applyOptions, artifacts: false });
    const old = firstLine(root, file);
    for (const r of [await runner().call({ tool: 'write_file', args: { path: file, content: 'agent\n' } }), await runner().call({ tool: 'edit_file', args: { path: file, old_text: old, new_text: 'agent' } })]) {
      expect(r.ok).toBe(false);
      expect(r.error?.code, r.output).toMatch(REFUSED);
    }
    const replies = {
      'apply-patch': `*** Begin Patch\n*** Update File: ${file}\n@@\n-${old}\n+agent\n*** End Patch\n`,
      udiff: `--- a/${file}\n+++ b/${file}\n@@ -1 +1 @@\n-${old}\n+agent\n`,
      'search-replace': `${file}\n<<<<<<< SEARCH\n${old}\n=======\nagent\n>>>>>>> REPLACE\n`,
    } as const;
    for (const [format, text] of Object.entries(replies)) {
      const outcome = await applyReply(project.ws, text, { format: format as keyof typeof replies, ...project.applyOptions });
      expect(outcome.ok, format).toBe(false);
      expect(JSON.stringify(outcome.results), format).toMatch(REFUSED);
    }
  });

  it.each(GIT_FILES)('%s: the hooks of Claude Code, Gemini CLI and Codex', async (file) => {
    const abs = path.join(root, file);
    const old = firstLine(root, file);
    const edits = [
      claude.nativeEdit({ tool_name: 'Write', tool_input: { file_path: abs, content: 'agent\n' } }),
      gemini.nativeEdit({ tool_name: 'write_file', tool_input: { file_path: abs, content: 'agent\n' } }),
      codex.nativeEdit({ tool_name: 'apply_patch', tool_input: { command: `*** Begin Patch\n*** Update File: ${file}\n@@\n-${old}\n+agent\n*** End Patch\n` } }),
    ];
    for (const edit of edits) {
      if (edit === null) throw new Error('not an edit');
      expect((await vetNativeEdit(root, edit)).allow, edit.client).toBe(false);
    }
  });

  it('the CLI (`editwarden edit --request -`)', () => {
    const r = spawnSync(process.execPath, [BIN, 'edit', '--request', '-', '--root', root, '--json'], { cwd: root, encoding: 'utf8', input: JSON.stringify(GIT_FILES.map((f) => ({ path: f, mode: 'overwrite', new_text: 'agent\n' }))) });
    expect(r.status, r.stderr).toBe(1);
    const results = (JSON.parse(r.stdout) as { results: Array<{ path: string; status: string; error?: { code: string } }> }).results;
    expect(results.map((x) => x.path)).toEqual(GIT_FILES);
    for (const x of results) expect(x.error?.code, x.path).toMatch(REFUSED);
  });

  it('MCP over stdio and over Streamable HTTP (write_file and edit_file)', async () => {
    const stdio = await connect(['--root', root]);
    let server: ChildProcess | null = null;
    const http = new Client({ name: 'protected-git', version: '0' });
    try {
      const runtime = tempDir('ew-protected-git-runtime-');
      server = spawn(process.execPath, [mcpProgram(), 'mcp', '--root', root, '--http', '0'], { cwd: REPO, stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, XDG_RUNTIME_DIR: runtime } });
      const child = server;
      const { url, token } = await new Promise<{ url: URL; token: string }>((resolve, reject) => {
        let err = '';
        child.stderr?.on('data', (chunk: Buffer) => {
          err += chunk.toString('utf8');
          const m = /listening on (http:\/\/127\.0\.0\.1:\d+\/mcp)/.exec(err);
          const t = /token ([0-9a-f]{64}) \(in /.exec(err);
          if (m && t) resolve({ url: new URL(m[1] as string), token: t[1] as string });
        });
        child.once('exit', (code) => reject(new Error(`server exited (${code}): ${err}`)));
      });
      await http.connect(new StreamableHTTPClientTransport(url, { requestInit: { headers: { Authorization: `Bearer ${token}` } } }));
      for (const client of [stdio.client, http]) {
        for (const file of GIT_FILES) {
          const write = await call(client, 'write_file', { path: file, content: 'agent\n' });
          const edit = await call(client, 'edit_file', { path: file, old_text: firstLine(root, file), new_text: 'agent' });
          expect(write.isError, `${file}: ${write.text}`).toBe(true);
          expect(write.text).toMatch(REFUSED);
          expect(edit.isError, `${file}: ${edit.text}`).toBe(true);
        }
      }
    } finally {
      await http.close();
      await stdio.close();
      server?.kill('SIGTERM');
    }
  });
});

describe('the guarded shell: git writes its data, the machinery stays byte-identical', () => {
  it('a commit, a branch and a stash through `editwarden shell` succeed; every machinery file written through it is unchanged after', () => {
    const fresh = tempDir('ew-protected-git-shell-');
    plant(fresh);
    const machinery = GIT_FILES.filter((f) => gitPathKind(f) === 'machinery');
    const then = Object.fromEntries(machinery.map((f) => [f, fs.readFileSync(path.join(fresh, f), 'base64')]));
    const shell = (command: string) => spawnSync(process.execPath, [BIN, 'shell', '--client', 'claude', '--tool', 'Bash', '--root', fresh, '--', command], { cwd: fresh, encoding: 'utf8' });
    const work = shell('echo b >> a.txt && git add a.txt && git commit -qm b && git checkout -qb topic && echo c >> a.txt && git stash -q && echo WORKED');
    expect(work.stdout, work.stderr).toContain('WORKED');
    const attack = shell(machinery.map((f) => `(echo agent >> '${f}') 2>/dev/null`).join('; ') + '; true');
    expect(attack.status, attack.stderr).toBe(0);
    for (const f of machinery) expect(fs.readFileSync(path.join(fresh, f), 'base64'), f).toBe(then[f]);
    expect(spawnSync('git', ['stash', 'list'], { cwd: fresh, encoding: 'utf8' }).stdout).toMatch(/^stash@\{0\}/);
  });
});
