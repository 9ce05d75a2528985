/**
 * Every shell example in README.md and docs/*.md runs, through the real
 * binary, in a copy of samples/cmake-hello: documentation that shows a
 * command the CLI no longer accepts fails here, not in a user's terminal.
 *
 * A ```sh / ```bash block is an example to run: the whole block is one
 * `bash -e -o pipefail` script (so variables and files carry from line to
 * line) and must exit 0. Synopses (`[--flag X]`, placeholders) belong in
 * ```text blocks and transcripts in ```console blocks; those are not run.
 * Each block starts from the sample as committed, as a reader would: one
 * copy is made for the whole file, and before each block `git reset --hard`
 * and `git clean` put it back — except `build/`, so that CMake configures
 * once rather than once per block (it dominates the run time).
 *
 * A few commands cannot run offline in a test; ALLOWED_UNRUN lists each with
 * its reason, and such a line is replaced by `:` before the block runs. An
 * entry that no longer matches any line fails the suite, so the list cannot rot.
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';

const REPO = path.resolve(__dirname, '../..');
const BIN = path.join(REPO, 'bin', 'editwarden');

interface Unrun {
  match: RegExp;
  reason: string;
}

const ALLOWED_UNRUN: readonly Unrun[] = [
  { match: /^npm ci && npm test\b/, reason: 'the test suite itself (it would recurse); .ci/run runs it on a clean clone' },
  { match: /^npm ci && npm run demo\b/, reason: 'npm ci would replace the node_modules under test; test/cli/demo.test.ts runs the demo on both samples' },
  { match: /^npm install -g editwarden\b/, reason: 'installs globally from the npm registry; test/package/pack-install.test.ts installs the packed tarball into an empty project instead' },
  { match: /^editwarden demo\b/, reason: 'test/cli/demo.test.ts runs the demo on both samples (it takes tens of seconds)' },
  { match: /^editwarden run\b.*--model (openai|anthropic|ollama|openai-compatible):/, reason: 'needs a model provider: an API key or a model server (the agent tests drive the same code against a scripted server)' },
  { match: /^claude mcp add\b/, reason: "needs Claude Code installed and writes the user's Claude Code config" },
  { match: /^claude -p\b/, reason: 'needs a Claude Code login; test/integrations/claude-code.test.ts drives the real client against a scripted model on 127.0.0.1' },
  { match: /^npm ci && npm run build\b/, reason: 'npm ci would replace the node_modules under test; every test runs the built binary' },
];

interface Block {
  doc: string;
  line: number;
  lines: string[];
}

/** The ```sh / ```bash blocks of a markdown text, with their first line numbers. */
function shellBlocks(doc: string, text: string): Block[] {
  const blocks: Block[] = [];
  let current: Block | undefined;
  let inOther = false;
  text.split('\n').forEach((line, index) => {
    if (current) {
      if (line.startsWith('```')) {
        blocks.push(current);
        current = undefined;
      } else current.lines.push(line);
    } else if (inOther) {
      if (line.startsWith('```')) inOther = false;
    } else if (/^```(sh|bash)\s*$/.test(line)) current = { doc, line: index + 2, lines: [] };
    else if (line.startsWith('```')) inOther = true;
  });
  return blocks;
}

/** Joins `\`-continued lines; replaces each allowlisted command with `:`; records which entries matched. */
function scriptOf(block: Block, used: Set<Unrun>): string {
  const logical: string[] = [];
  for (const line of block.lines) {
    const last = logical.length - 1;
    if (last >= 0 && logical[last]!.endsWith('\\')) logical[last] = `${logical[last]!.slice(0, -1)} ${line.trim()}`;
    else logical.push(line);
  }
  return logical
    .map((line) => {
      const entry = ALLOWED_UNRUN.find((e) => e.match.test(line.trim()));
      if (!entry) return line;
      used.add(entry);
      return `: not run: ${entry.reason.replace(/[^\w .,:/-]/g, ' ')}`;
    })
    .join('\n');
}

const docs = [
  'README.md',
  ...fs
    .readdirSync(path.join(REPO, 'docs'))
    .filter((f) => f.endsWith('.md'))
    .map((f) => `docs/${f}`),
].filter((f) => fs.existsSync(path.join(REPO, f)));
const blocksByDoc = docs.map((doc) => ({ doc, blocks: shellBlocks(doc, fs.readFileSync(path.join(REPO, doc), 'utf8')) }));

const tmpRoots: string[] = [];
afterAll(() => {
  for (const dir of tmpRoots) fs.rmSync(dir, { recursive: true, force: true });
});

function freshProject(): { root: string; env: NodeJS.ProcessEnv } {
  const base = fs.mkdtempSync(path.join(os.tmpdir(), 'ew-docs-'));
  tmpRoots.push(base);
  const bin = path.join(base, 'bin');
  fs.mkdirSync(bin);
  // `editwarden` on PATH is the repository's real binary.
  fs.writeFileSync(path.join(bin, 'editwarden'), `#!/bin/sh\nexec "${process.execPath}" "${BIN}" "$@"\n`, { mode: 0o755 });
  const root = path.join(base, 'project');
  fs.cpSync(path.join(REPO, 'samples', 'cmake-hello'), root, { recursive: true });
  const env: NodeJS.ProcessEnv = {
    PATH: `${bin}${path.delimiter}${process.env.PATH ?? ''}`,
    HOME: base,
    TMPDIR: os.tmpdir(),
    NO_COLOR: '1',
    GIT_AUTHOR_NAME: 'docs',
    GIT_AUTHOR_EMAIL: 'docs@editwarden.invalid',
    GIT_COMMITTER_NAME: 'docs',
    GIT_COMMITTER_EMAIL: 'docs@editwarden.invalid',
  };
  for (const args of [
    ['init', '-q'],
    ['add', '-A'],
    ['commit', '-qm', 'sample'],
  ]) {
    const git = spawnSync('git', args, { cwd: root, env });
    if (git.status !== 0) throw new Error(`git ${args.join(' ')}: ${git.stderr}`);
  }
  return { root, env };
}

const used = new Set<Unrun>();
let shared: { root: string; env: NodeJS.ProcessEnv } | undefined;

describe('every shell example in README.md and docs/ runs', () => {
  for (const { doc, blocks } of blocksByDoc) {
    if (blocks.length === 0) continue;
    describe(doc, () => {
      for (const block of blocks) {
        it(`${doc}:${block.line}`, () => {
          shared ??= freshProject();
          const project = shared;
          for (const args of [
            ['reset', '--hard', '-q'],
            ['clean', '-fdxq', '-e', '/build/'],
          ]) {
            const git = spawnSync('git', args, { cwd: project.root, env: project.env, encoding: 'utf8' });
            expect(git.status, git.stderr).toBe(0);
          }
          const script = scriptOf(block, used);
          const run = spawnSync('bash', ['-e', '-o', 'pipefail', '-c', script], {
            cwd: project.root,
            env: project.env,
            encoding: 'utf8',
            timeout: 120_000,
          });
          const report = `${doc}:${block.line} exited ${run.status ?? run.signal}\n--- script\n${script}\n--- stdout\n${run.stdout}\n--- stderr\n${run.stderr}`;
          expect(run.status, report).toBe(0);
        });
      }
    });
  }

  it('every allowlisted command still appears in the docs (the list cannot rot)', () => {
    for (const { blocks } of blocksByDoc) for (const block of blocks) scriptOf(block, used);
    expect(ALLOWED_UNRUN.filter((e) => !used.has(e)).map((e) => String(e.match))).toEqual([]);
  });

  it('finds the blocks it runs (the extractor is not blind)', () => {
    const sample = '# x\n```sh\neditwarden edit a \\\n  --dry-run\n```\n```text\neditwarden edit <path>\n```\n```bash\nnpm ci && npm test\n```\n';
    const found = shellBlocks('x.md', sample);
    expect(found.map((b) => [b.line, b.lines])).toEqual([
      [3, ['editwarden edit a \\', '  --dry-run']],
      [10, ['npm ci && npm test']],
    ]);
    expect(scriptOf(found[0]!, new Set())).toBe('editwarden edit a  --dry-run');
  });
});
