/**
 * Claude Code's PostToolUse runs in the background (`"async": true`, issue
 * 44): the tool call waits only for the PreToolUse, which vets and stays
 * blocking. The post hook may then come after the session's next call has
 * begun, or never (`claude -p` ends the hooks still running when it exits).
 * These tests drive the real hooks through the binary in exactly those
 * orders, and the real Claude Code with the settings `init` writes: every
 * edit's record lands, in order, with only its own change, and its undo step
 * restores it (integrations/hook-settle.ts).
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { protectedProjectHere } from './cli-in-process.js';
import { CLAUDE, cleanup, editwarden, project, protectedProject, runClaude, tempDir, toolResults } from './helpers.js';

beforeAll(() => {
  expect(fs.existsSync(CLAUDE), `${CLAUDE} is missing; run npm ci`).toBe(true);
});
afterAll(cleanup);

const SESSION = 'session-async-post';

function hook(event: string, root: string, input: Record<string, unknown>): ReturnType<typeof editwarden> {
  return editwarden(['hook', 'claude', event, '--root', root], { input: JSON.stringify({ session_id: SESSION, cwd: root, ...input }) });
}

function edit(root: string, call: string, oldText: string, newText: string): Record<string, unknown> {
  return { tool_name: 'Edit', tool_use_id: call, tool_input: { file_path: path.join(root, 'a.txt'), old_string: oldText, new_string: newText } };
}

/** The client's own write of an Edit (what its tool does between the hooks). */
function clientWrites(root: string, oldText: string, newText: string): void {
  const file = path.join(root, 'a.txt');
  fs.writeFileSync(file, fs.readFileSync(file, 'utf8').replace(oldText, newText));
}

/** The hooked edits the event log records, in order: the call and the paths of each. */
function records(root: string): Array<{ call: string | undefined; paths: string[] }> {
  const file = path.join(root, '.editwarden', 'events.jsonl');
  if (!fs.existsSync(file)) return [];
  return fs
    .readFileSync(file, 'utf8')
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as { kind: string; call?: string; paths: string[] })
    .filter((e) => e.kind === 'edit')
    .map((e) => ({ call: e.call, paths: e.paths }));
}

/** The diffs of the event log's hooked edits, in order. */
function loggedDiffs(root: string): string[] {
  const file = path.join(root, '.editwarden', 'events.jsonl');
  if (!fs.existsSync(file)) return [];
  return fs
    .readFileSync(file, 'utf8')
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as { kind: string; diff?: string })
    .filter((e) => e.kind === 'edit')
    .map((e) => e.diff ?? '');
}

const read = (root: string): string => fs.readFileSync(path.join(root, 'a.txt'), 'utf8');

describe('a post hook that comes late, or never', () => {
  it('the next PreToolUse records the previous call before it checkpoints: each record holds its own change, the late post adds nothing, both undo steps restore in order', () => {
    const root = project({ 'a.txt': 'one\ntwo\n' });
    expect(hook('pre-tool-use', root, edit(root, 't1', 'one', 'ONE')).stdout).toBe('');
    clientWrites(root, 'one', 'ONE');
    // The model's next call comes before the first call's post hook has run.
    expect(hook('pre-tool-use', root, edit(root, 't2', 'two', 'TWO')).stdout).toBe('');
    clientWrites(root, 'two', 'TWO');
    expect(hook('post-tool-use', root, edit(root, 't1', 'one', 'ONE')).code).toBe(0);
    expect(hook('post-tool-use', root, edit(root, 't2', 'two', 'TWO')).code).toBe(0);

    expect(records(root).map((r) => [r.call, r.paths])).toEqual([
      ['t1', ['a.txt']],
      ['t2', ['a.txt']],
    ]);
    const diffs = loggedDiffs(root);
    expect(diffs).toHaveLength(2);
    expect(diffs[0]).toContain('+ONE');
    expect(diffs[0]).not.toContain('TWO');
    expect(diffs[1]).toContain('+TWO');
    expect(diffs[1]).not.toContain('+ONE');

    expect(editwarden(['undo', '--root', root]).code).toBe(0);
    expect(read(root)).toBe('ONE\ntwo\n');
    const second = editwarden(['undo', '--root', root]);
    expect(second.code, second.stderr).toBe(0);
    expect(read(root)).toBe('one\ntwo\n');
  });

  it('the Stop hook records a call whose post hook never came (the client exited first); a post that comes after it records nothing again', () => {
    const root = project({ 'a.txt': 'one\ntwo\n' });
    expect(hook('pre-tool-use', root, edit(root, 't1', 'one', 'ONE')).stdout).toBe('');
    clientWrites(root, 'one', 'ONE');
    const stop = hook('stop', root, { hook_event_name: 'Stop', stop_hook_active: false });
    expect(stop.code, stop.stderr).toBe(0);
    expect(stop.stdout).toBe('');
    expect(records(root).map((r) => r.call)).toEqual(['t1']);
    expect(hook('post-tool-use', root, edit(root, 't1', 'one', 'ONE')).code).toBe(0);
    expect(records(root).map((r) => r.call)).toEqual(['t1']);
    expect(loggedDiffs(root)).toHaveLength(1);
    expect(editwarden(['undo', '--root', root]).code).toBe(0);
    expect(read(root)).toBe('one\ntwo\n');
  });

  it('a call the client never ran (declined) is not recorded when the person then changes the file otherwise: its planned bytes are not on disk', () => {
    const root = project({ 'a.txt': 'one\ntwo\n' });
    expect(hook('pre-tool-use', root, edit(root, 't1', 'one', 'ONE')).stdout).toBe('');
    // Declined: the person edits by hand instead.
    clientWrites(root, 'one', 'uno');
    expect(hook('stop', root, { hook_event_name: 'Stop' }).code).toBe(0);
    expect(hook('pre-tool-use', root, edit(root, 't2', 'two', 'TWO')).stdout).toBe('');
    expect(records(root)).toEqual([]);
    // Nothing of the agent's to undo: the person's edit stays.
    editwarden(['undo', '--root', root]);
    expect(read(root)).toBe('uno\ntwo\n');
  });

  it('another session’s pending call is left to its own hooks', () => {
    const root = project({ 'a.txt': 'one\ntwo\n' });
    expect(hook('pre-tool-use', root, edit(root, 't1', 'one', 'ONE')).stdout).toBe('');
    clientWrites(root, 'one', 'ONE');
    const other = editwarden(['hook', 'claude', 'stop', '--root', root], { input: JSON.stringify({ session_id: 'another-session', cwd: root }) });
    expect(other.code).toBe(0);
    expect(records(root)).toEqual([]);
  });
});

describe('the settings init writes', () => {
  it('PostToolUse is async, PreToolUse blocks; the Stop hook settles, and fails as a non-blocking error (exit 1, never 2) when editwarden is missing', () => {
    const root = protectedProject({ 'a.txt': 'x\n' });
    const settings = JSON.parse(fs.readFileSync(path.join(root, '.claude', 'settings.json'), 'utf8')) as {
      hooks: Record<string, Array<{ matcher?: string; hooks: Array<{ command: string; async?: boolean }> }>>;
    };
    expect(settings.hooks.PreToolUse?.[0]?.hooks[0]?.async).toBeUndefined();
    expect(settings.hooks.PostToolUse?.[0]?.hooks[0]?.async).toBe(true);
    const stop = settings.hooks.Stop?.[0]?.hooks[0]?.command ?? '';
    expect(stop).toContain(' hook claude stop');
    const missing = spawnSync('sh', ['-c', stop], { cwd: root, input: '{}', encoding: 'utf8', env: { PATH: '/usr/bin:/bin', HOME: root, CLAUDE_PROJECT_DIR: root } });
    expect(missing.status).toBe(1);
    expect(missing.stderr).toContain('E_GUARD_UNAVAILABLE');
    // The pre hook, the same way, still blocks.
    const pre = settings.hooks.PreToolUse?.[0]?.hooks[0]?.command ?? '';
    expect(spawnSync('sh', ['-c', pre], { cwd: root, input: '{}', encoding: 'utf8', env: { PATH: '/usr/bin:/bin', HOME: root, CLAUDE_PROJECT_DIR: root } }).status).toBe(2);
    // --remove takes the Stop hook out with the others.
    expect(editwarden(['init', 'claude', '--remove', '--root', root]).code).toBe(0);
    const after = fs.existsSync(path.join(root, '.claude', 'settings.json')) ? fs.readFileSync(path.join(root, '.claude', 'settings.json'), 'utf8') : '';
    expect(after).not.toContain('hook claude');
  });
});

describe('the real Claude Code with the async post hook', () => {
  it('three Edits of one file back to back, a refused Write among them: every record lands in order with its own change (the last by the Stop hook), the refusal still blocks, and three undos restore the file', async () => {
    const root = await protectedProjectHere({ 'a.txt': 'one\ntwo\nthree\n' });
    const file = path.join(root, 'a.txt');
    const outside = path.join(tempDir('ew-outside-'), 'escape.txt');
    const run = await runClaude(root, [
      { name: 'Read', args: { file_path: file } },
      { name: 'Edit', args: { file_path: file, old_string: 'one', new_string: 'ONE' } },
      { name: 'Edit', args: { file_path: file, old_string: 'two', new_string: 'TWO' } },
      { name: 'Write', args: { file_path: outside, content: 'out\n' } },
      { name: 'Edit', args: { file_path: file, old_string: 'three', new_string: 'THREE' } },
    ]);
    expect(run.code, run.stderr).toBe(0);
    const results = toolResults(run.requests);
    expect(results[3]).toContain('E_OUTSIDE_ROOT');
    expect(fs.existsSync(outside)).toBe(false);
    expect(fs.readFileSync(file, 'utf8')).toBe('ONE\nTWO\nTHREE\n');
    // Every record is on disk by the time `claude -p` has exited.
    const diffs = loggedDiffs(root);
    expect(diffs).toHaveLength(3);
    expect(diffs.map((d) => (d.match(/^\+[A-Z]+$/gm) ?? []).join(','))).toEqual(['+ONE', '+TWO', '+THREE']);
    for (const expected of ['ONE\nTWO\nthree\n', 'ONE\ntwo\nthree\n', 'one\ntwo\nthree\n']) {
      const undo = editwarden(['undo', '--root', root]);
      expect(undo.code, undo.stderr).toBe(0);
      expect(fs.readFileSync(file, 'utf8')).toBe(expected);
    }
  }, 180_000);

  it('with no post hook at all (each killed before it reached editwarden, as `claude -p` does to the ones still running when it exits), the next PreToolUse and the Stop hook record every Edit in order', async () => {
    const root = await protectedProjectHere({ 'a.txt': 'one\ntwo\n' });
    const settingsFile = path.join(root, '.claude', 'settings.json');
    const settings = JSON.parse(fs.readFileSync(settingsFile, 'utf8')) as { hooks: Record<string, unknown> };
    delete settings.hooks.PostToolUse;
    fs.writeFileSync(settingsFile, JSON.stringify(settings, null, 2));
    const file = path.join(root, 'a.txt');
    const run = await runClaude(root, [
      { name: 'Read', args: { file_path: file } },
      { name: 'Edit', args: { file_path: file, old_string: 'one', new_string: 'ONE' } },
      { name: 'Edit', args: { file_path: file, old_string: 'two', new_string: 'TWO' } },
    ]);
    expect(run.code, run.stderr).toBe(0);
    expect(fs.readFileSync(file, 'utf8')).toBe('ONE\nTWO\n');
    expect(loggedDiffs(root).map((d) => (d.match(/^\+[A-Z]+$/gm) ?? []).join(','))).toEqual(['+ONE', '+TWO']);
    for (const expected of ['ONE\ntwo\n', 'one\ntwo\n']) {
      const undo = editwarden(['undo', '--root', root]);
      expect(undo.code, undo.stderr).toBe(0);
      expect(fs.readFileSync(file, 'utf8')).toBe(expected);
    }
  }, 180_000);
});
