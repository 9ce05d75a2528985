/**
 * `editwarden undo` over what commands did, from any folder of the project,
 * never taking back a person's own change under the agent's name; `--list`
 * and `--dry-run` — every undo, redo and hook through the real binary, real
 * files, real commands in the real sandbox. The `exec` runs that make the
 * history are setup, run in this process (the same CLI bundle as the binary:
 * ../integrations/cli-in-process.ts); `exec` itself is pinned through the binary
 * in test/agent and test/sandbox.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { cleanup as cleanupScripts, script } from '../agent/helpers/bin.js';
import { editwardenHere } from '../integrations/cli-in-process.js';
import { cleanup, editwarden, project } from '../integrations/helpers.js';
import { trustRepoConfig } from '../trust-config.js';

afterAll(() => {
  cleanup();
  cleanupScripts();
});

const read = (root: string, file: string): string => fs.readFileSync(path.join(root, file), 'utf8');

/** Runs recorded calls with `exec` (a setup step, in this process) and returns the run id its summary names. */
async function exec(root: string, calls: Array<{ tool: string; args: Record<string, unknown> }>): Promise<string> {
  const run = await editwardenHere(['exec', '-', '--root', root], { input: calls.map((c) => JSON.stringify(c)).join('\n') });
  expect(run.code, run.stdout + run.stderr).toBe(0);
  const id = /undo this run: editwarden undo --run (\S+)/.exec(run.stdout)?.[1];
  expect(id, run.stdout).toBeDefined();
  return id as string;
}

const command = (line: string) => ({ tool: 'execute_command', args: { command: line } });

/** Every file under `dir` (outside .git and .editwarden): bytes and permission bits. */
function tree(dir: string): Record<string, { bytes: string; mode: number }> {
  const out: Record<string, { bytes: string; mode: number }> = {};
  const walk = (rel: string): void => {
    for (const d of fs.readdirSync(path.join(dir, rel), { withFileTypes: true })) {
      if (d.name === '.git' || d.name === '.editwarden') continue;
      const r = rel === '' ? d.name : `${rel}/${d.name}`;
      if (d.isDirectory()) walk(r);
      else out[r] = { bytes: fs.readFileSync(path.join(dir, r)).toString('base64'), mode: fs.statSync(path.join(dir, r)).mode & 0o7777 };
    }
  };
  walk('');
  return out;
}

function hook(client: string, event: string, root: string, input: unknown): ReturnType<typeof editwarden> {
  return editwarden(['hook', client, event, '--root', root], { input: JSON.stringify(input) });
}

describe('undo steps back over what a command did', () => {
  it('exec `rm -rf src`, then `undo --run <id>` puts every file back byte-exact, modes included', async () => {
    const root = project({ 'src/a.ts': 'export const a = 1;\n', 'src/deep/bin.dat': '\u0000\u0001binary\u00ff', 'src/deep/run.sh': '#!/bin/sh\necho hi\n', 'README.md': 'keep\n' });
    fs.chmodSync(path.join(root, 'src/deep/run.sh'), 0o750);
    fs.chmodSync(path.join(root, 'src/a.ts'), 0o600);
    const before = tree(root);
    const run = await exec(root, [command('rm -rf src')]);
    expect(fs.existsSync(path.join(root, 'src'))).toBe(false);
    const undo = editwarden(['undo', '--run', run, '--root', root]);
    expect(undo.code, undo.stderr).toBe(0);
    expect(undo.stdout).toContain('undid rm -rf src');
    expect(tree(root)).toEqual(before);
  });

  it('each command is one step named by its command line; undo takes back the newest, redo re-applies it', async () => {
    const root = project({ 'a.txt': 'one\n', 'b.txt': 'two\n' });
    await exec(root, [command('echo changed > a.txt'), command('rm b.txt && echo new > c.txt')]);
    const first = editwarden(['undo', '--root', root]);
    expect(first.stdout).toContain('undid rm b.txt && echo new > c.txt');
    expect(read(root, 'b.txt')).toBe('two\n');
    expect(fs.existsSync(path.join(root, 'c.txt'))).toBe(false);
    expect(read(root, 'a.txt')).toBe('changed\n');
    editwarden(['undo', '--root', root]);
    expect(read(root, 'a.txt')).toBe('one\n');
    editwarden(['redo', '--root', root]);
    expect(read(root, 'a.txt')).toBe('changed\n');
    editwarden(['redo', '--root', root]);
    expect(read(root, 'c.txt')).toBe('new\n');
    expect(fs.existsSync(path.join(root, 'b.txt'))).toBe(false);
  });

  it('the agent loop (`run`): a command of the model is one step, and `undo --run <id>` of the run restores it', () => {
    const root = project({ '.editwarden.yml': 'verify:\n  on_completion: false\n', 'src/a.ts': 'export const a = 1;\n' });
    trustRepoConfig(root); // verify.on_completion: false switches a guard off: the person trusts it.
    const turns = [{ tool_calls: [{ name: 'execute_command', arguments: { command: 'rm -rf src' } }] }, { tool_calls: [{ name: 'task_completion', arguments: { summary: 'Done.', status: 'done' } }] }];
    const r = editwarden(['run', '--task', 'clean up', '--model', script(root, turns), '--root', root]);
    expect(fs.existsSync(path.join(root, 'src'))).toBe(false);
    const id = /undo this run: editwarden undo --run (\S+)/.exec(r.stdout)?.[1];
    expect(id, r.stdout + r.stderr).toBeDefined();
    expect(editwarden(['undo', '--run', id as string, '--root', root]).code).toBe(0);
    expect(read(root, 'src/a.ts')).toBe('export const a = 1;\n');
  });

  it('a command that changed nothing leaves no step', async () => {
    const root = project({ 'a.txt': 'one\n' });
    await exec(root, [command('true')]);
    expect(editwarden(['undo', '--list', '--root', root]).stdout).toBe('no steps recorded\n');
  });
});

describe('undo finds the root from any subfolder', () => {
  it('undoes from src/deep without creating a state folder there', async () => {
    const root = project({ 'src/deep/x.txt': 'x\n', 'a.txt': 'one\n' });
    await exec(root, [command('echo two > a.txt')]);
    const r = editwarden(['undo'], { cwd: path.join(root, 'src/deep') });
    expect(r.code, r.stderr).toBe(0);
    expect(read(root, 'a.txt')).toBe('one\n');
    expect(fs.existsSync(path.join(root, 'src/deep/.editwarden'))).toBe(false);
    expect(fs.existsSync(path.join(root, 'src/.editwarden'))).toBe(false);
  });

  it('passes over a stray state folder without history, and refuses with E_NO_ROOT where there is no project at all', async () => {
    const root = project({ 'src/x.txt': 'x\n', 'a.txt': 'one\n' });
    await exec(root, [command('echo two > a.txt')]);
    fs.mkdirSync(path.join(root, 'src/.editwarden'));
    fs.writeFileSync(path.join(root, 'src/.editwarden/undo.json'), '{}');
    expect(editwarden(['undo'], { cwd: path.join(root, 'src') }).code).toBe(0);
    expect(read(root, 'a.txt')).toBe('one\n');
    const bare = project({});
    fs.rmSync(path.join(bare, '.git'), { recursive: true });
    const none = editwarden(['undo', '--json'], { cwd: bare });
    expect(none.code).toBe(64);
    expect(JSON.parse(none.stdout)).toMatchObject({ ok: false, error: { code: 'E_NO_ROOT' } });
    expect(fs.existsSync(path.join(bare, '.editwarden'))).toBe(false);
  });
});

describe("an undo never takes back a person's own change under the agent's name", () => {
  const claudeEdit = (root: string, id: string) => ({ tool_name: 'Edit', tool_use_id: id, tool_input: { file_path: path.join(root, 'a.txt'), old_string: 'one', new_string: 'uno' } });

  it('a pre-hook checkpoint whose edit never happened (no post hook) is no undo step', () => {
    const root = project({ 'a.txt': 'one\n' });
    expect(hook('claude', 'pre-tool-use', root, claudeEdit(root, 'toolu_1')).code).toBe(0);
    // The client never applied it; the person edits by hand.
    fs.writeFileSync(path.join(root, 'a.txt'), 'by hand\n');
    expect(editwarden(['undo', '--root', root]).stdout).toContain('nothing to undo');
    expect(read(root, 'a.txt')).toBe('by hand\n');
  });

  it('a confirmed edit is a step; a later hand edit of its file makes the undo refuse (E_CHANGED_SINCE) naming it, until --force', () => {
    const root = project({ 'a.txt': 'one\n' });
    hook('claude', 'pre-tool-use', root, claudeEdit(root, 'toolu_2'));
    fs.writeFileSync(path.join(root, 'a.txt'), 'uno\n');
    expect(hook('claude', 'post-tool-use', root, claudeEdit(root, 'toolu_2')).code).toBe(0);
    fs.writeFileSync(path.join(root, 'a.txt'), 'uno and mine\n');
    const refused = editwarden(['undo', '--root', root, '--json']);
    expect(refused.code).toBe(1);
    expect(JSON.parse(refused.stdout)).toMatchObject({ ok: false, error: { code: 'E_CHANGED_SINCE', path: 'a.txt' } });
    expect(read(root, 'a.txt')).toBe('uno and mine\n');
    expect(editwarden(['undo', '--root', root, '--force']).code).toBe(0);
    expect(read(root, 'a.txt')).toBe('one\n');
    editwarden(['redo', '--root', root]);
    expect(read(root, 'a.txt')).toBe('uno and mine\n');
  });

  it('a command step refuses too when a file it changed was changed again by hand', async () => {
    const root = project({ 'a.txt': 'one\n' });
    const run = await exec(root, [command('echo two > a.txt')]);
    fs.writeFileSync(path.join(root, 'a.txt'), 'three by hand\n');
    const r = editwarden(['undo', '--run', run, '--root', root]);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('E_CHANGED_SINCE');
    expect(r.stderr).toContain('a.txt');
    expect(read(root, 'a.txt')).toBe('three by hand\n');
  });

  it('undo --run passes a file two steps of the run changed in turn (the later undo puts it back first)', async () => {
    const root = project({ 'a.txt': 'one\n' });
    const run = await exec(root, [command('echo two > a.txt'), command('echo three > a.txt')]);
    expect(editwarden(['undo', '--run', run, '--root', root]).code).toBe(0);
    expect(read(root, 'a.txt')).toBe('one\n');
  });
});

describe('undo --list and --dry-run', () => {
  it('--list shows each step newest first with its kind, label, time and files; --dry-run shows the diff and writes nothing', async () => {
    const root = project({ 'a.txt': 'one\n', 'b.txt': 'bee\n' });
    const run = await exec(root, [{ tool: 'edit_file', args: { path: 'b.txt', old_text: 'bee', new_text: 'BEE' } }, command('echo two > a.txt')]);
    const listed = JSON.parse(editwarden(['undo', '--list', '--json', '--root', root]).stdout) as { steps: Array<{ kind: string; label: string; files: string[]; run?: string; createdAt: string }> };
    expect(listed.steps.map((s) => [s.kind, s.files])).toEqual([
      ['command', ['a.txt']],
      ['edit', ['b.txt']],
    ]);
    expect(listed.steps[0]).toMatchObject({ label: 'echo two > a.txt', run });
    const text = editwarden(['undo', '--list', '--root', root]).stdout;
    // Grouped: the run's heading (with the command that undoes it all), then its steps with the id `undo --to` takes.
    const lines = text.split('\n');
    expect(lines[0]).toBe(`editwarden run ${run} — undo it all: editwarden undo --run ${run}`);
    expect(lines[1]).toMatch(/^ {2}\S+Z {2}command {2}\d{8}-\d{6}-\d{3}-[0-9a-f]{4} {2}echo two > a\.txt {2}\[1 file\(s\): a\.txt\]$/);
    expect(lines[2]).toMatch(/^ {2}\S+Z {2}edit {5}\S+ {2}.* {2}\[editwarden; 1 file\(s\): b\.txt\]$/);

    const dry = editwarden(['undo', '--dry-run', '--root', root]);
    expect(dry.code).toBe(0);
    expect(dry.stdout).toContain('--- a/a.txt\n+++ b/a.txt');
    expect(dry.stdout).toContain('-two\n+one');
    expect(read(root, 'a.txt')).toBe('two\n');
    editwarden(['undo', '--root', root]);
    expect(JSON.parse(editwarden(['undo', '--list', '--json', '--root', root]).stdout).steps[0].undone).toBe(true);
  });
});
