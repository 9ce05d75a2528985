/**
 * Limits by mode, with the real Claude Code (devDependency, scripted model
 * on 127.0.0.1) after `editwarden init claude`, in temp projects: a client
 * session is watched by a person and covered by undo, so it has no file,
 * line, token or time caps unless a layer of the config sets them, while a
 * headless `exec` keeps the design's limits. A repository's file still
 * tightens (the refusal names the key and the file); the person's own
 * config is their word over it, with no `trust`; and editwarden's own MCP
 * tools count against the same session ledger as the native tools.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { protectedProjectHere } from './cli-in-process.js';
import { CLAUDE, cleanup, editwarden, runClaude, tempDir, toolResults, type ScriptedCall } from './helpers.js';

beforeAll(() => {
  expect(fs.existsSync(CLAUDE), `${CLAUDE} is missing; run npm ci`).toBe(true);
});
afterAll(cleanup);

const lines = (n: number): string => Array.from({ length: n }, (_, i) => `line ${i + 1}`).join('\n') + '\n';

function writes(root: string, names: string[]): ScriptedCall[] {
  return names.map((name) => ({ name: 'Write', args: { file_path: path.join(root, name), content: `${name}\n` } }));
}

describe('an interactive Claude Code session has no caps unless the config sets them; a headless run keeps the design’s', () => {
  it('with no config, 12 native Writes, a 600-line Write and a Bash `seq 1 1000 > nums.txt` all land; `exec` over its default 10 files still exits 2', async () => {
    const root = await protectedProjectHere({});
    const names = Array.from({ length: 12 }, (_, i) => `f${i + 1}.txt`);
    const run = await runClaude(
      root,
      [...writes(root, names), { name: 'Write', args: { file_path: path.join(root, 'long.txt'), content: lines(600) } }, { name: 'Bash', args: { command: 'seq 1 1000 > nums.txt && echo wrote', description: 'numbers' } }],
      ['--allowedTools', 'Bash'],
    );
    expect(run.code, run.stderr).toBe(0);
    const results = toolResults(run.requests);
    expect(results, run.stdout).toHaveLength(14);
    for (const r of results) expect(r).not.toContain('E_CONSTRAINT');
    for (const name of names) expect(fs.readFileSync(path.join(root, name), 'utf8')).toBe(`${name}\n`);
    expect(fs.readFileSync(path.join(root, 'long.txt'), 'utf8')).toBe(lines(600));
    expect(results[13]).toContain('wrote');
    expect(fs.readFileSync(path.join(root, 'nums.txt'), 'utf8').split('\n')).toHaveLength(1001);

    // The same project, headless: the design's max_files 10 holds.
    const calls = Array.from({ length: 11 }, (_, i) => JSON.stringify({ tool: 'write_file', args: { path: `h${i}.txt`, content: 'x\n' } })).join('\n');
    const exec = editwarden(['exec', '-', '--root', root], { input: calls });
    expect(exec.code, exec.stderr).toBe(2);
    expect(`${exec.stdout}${exec.stderr}`).toContain('constraints.max_files');
    expect(fs.existsSync(path.join(root, 'h10.txt'))).toBe(false);
  }, 240_000);

  it("a repository's .editwarden.yml with max_files: 2 refuses the third file, naming the key and the file to change", async () => {
    const root = await protectedProjectHere({ '.editwarden.yml': 'constraints:\n  max_files: 2\n' });
    const run = await runClaude(root, writes(root, ['a.txt', 'b.txt', 'c.txt']));
    expect(run.code, run.stderr).toBe(0);
    const results = toolResults(run.requests);
    expect(results).toHaveLength(3);
    expect(results[2]).toContain('E_CONSTRAINT');
    expect(results[2]).toContain(`constraints.max_files, set in ${path.join(root, '.editwarden.yml')}`);
    // The way out names the person's own file: theirs wins for them, no trust needed.
    expect(results[2]).toMatch(/raise constraints\.max_files in your own config \S+config\.yml/);
    expect(fs.existsSync(path.join(root, 'b.txt'))).toBe(true);
    expect(fs.existsSync(path.join(root, 'c.txt'))).toBe(false);
  }, 150_000);

  it("the person's own max_files: 5 lets five through with no `trust`, over the repository's 2, and the sixth is refused naming the person's file", async () => {
    const home = tempDir('ew-home-');
    const own = path.join(home, '.config', 'editwarden', 'config.yml');
    fs.mkdirSync(path.dirname(own), { recursive: true });
    fs.writeFileSync(own, 'constraints:\n  max_files: 5\n');
    const root = await protectedProjectHere({ '.editwarden.yml': 'constraints:\n  max_files: 2\n' });
    const names = ['1.txt', '2.txt', '3.txt', '4.txt', '5.txt', '6.txt'];
    const run = await runClaude(root, writes(root, names), [], 150_000, { home });
    expect(run.code, run.stderr).toBe(0);
    const results = toolResults(run.requests);
    expect(results).toHaveLength(6);
    for (const name of names.slice(0, 5)) expect(fs.readFileSync(path.join(root, name), 'utf8')).toBe(`${name}\n`);
    expect(results[5]).toContain('E_CONSTRAINT');
    expect(results[5]).toContain(`constraints.max_files, set in ${own}`);
    expect(fs.existsSync(path.join(root, '6.txt'))).toBe(false);
    // doctor says whose value applies: its limits check (the whole doctor, which also loads every grammar, runs in
    // test/cli/doctor.test.ts).
    const doctor = editwarden(['doctor', '--root', root, '--only', 'limits'], { env: { ...process.env, HOME: home, XDG_CONFIG_HOME: '' } });
    expect(doctor.stdout).toContain('Your own config sets constraints.max_files: 5; ');
    expect(doctor.stdout).toContain('sets 2: yours applies to you');
  }, 200_000);

  it('under max_files: 1, a native Write and then mcp__editwarden__write_file in one session: the second is refused (one ledger per session)', async () => {
    const root = await protectedProjectHere({ '.editwarden.yml': 'constraints:\n  max_files: 1\n', 'seen.txt': 'read me\n' });
    const run = await runClaude(
      root,
      [
        { name: 'Write', args: { file_path: path.join(root, 'native.txt'), content: 'native\n' } },
        // Read while Claude's MCP servers connect (runClaude repeats it until the MCP tool is offered).
        { name: 'Read', args: { file_path: path.join(root, 'seen.txt') } },
        { name: 'mcp__editwarden__write_file', args: { path: 'mcp.txt', content: 'mcp\n' } },
      ],
      ['--allowedTools', 'mcp__editwarden__*'],
    );
    expect(run.code, run.stderr).toBe(0);
    const results = toolResults(run.requests);
    expect(fs.readFileSync(path.join(root, 'native.txt'), 'utf8')).toBe('native\n');
    expect(results.at(-1)).toContain('E_CONSTRAINT');
    expect(results.at(-1)).toContain('native.txt');
    expect(fs.existsSync(path.join(root, 'mcp.txt'))).toBe(false);
  }, 150_000);
});
