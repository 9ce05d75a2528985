/**
 * The real Qwen Code (npm @qwen-code/qwen-code, pinned devDependency)
 * protected by `editwarden init qwen`, driven by the scripted model on
 * 127.0.0.1 as an OpenAI endpoint. Qwen ignores a hook's rewritten input,
 * so its shell is refused with the way through MCP execute_command. No skips.
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readEvents } from '../../src/runs/events-read.js';
import { type ChatRun, QWEN, runQwen } from './chat-clients.js';
import { cleanup, editwarden, hookSessionIds, project, removableGuard, type ScriptedCall, tempDir } from './helpers.js';

beforeAll(() => {
  expect(fs.existsSync(QWEN), `${QWEN} is missing; run npm ci`).toBe(true);
});
afterAll(cleanup);

/** How many calls the three-edits check makes: they open the shared session, the refusals check's six follow. */
const THREE_EDITS = 5;
/** The refusals check's calls, after the three-edits check's; then the no-editwarden check's two. */
const REFUSALS = 6;

interface SharedQwen {
  root: string;
  run: ChatRun;
  config: string;
  settings: string;
  gitConfig: string;
  outside: { write: string; shell: string };
}

let shared: Promise<SharedQwen> | undefined;

/** What the files held when the session ended, and after each of its four undos (newest step first). */
interface SessionUndos {
  atEnd: { notes: string; a: string };
  undos: Array<{ code: number | null; stderr: string; notes: string; a: string }>;
}

let undone: Promise<SessionUndos> | undefined;

/**
 * The shared session's four steps taken back in order, once, whichever check asks first (so each check also runs
 * alone): the refusals check's edit of notes.txt (the session's last step), then the three edits of a.txt. The files
 * are read before the first undo, so each check asserts on what the session left, not on what the other undid.
 */
function sessionUndos(): Promise<SessionUndos> {
  undone ??= (async () => {
    const { root } = await sharedSession();
    const read = () => ({ notes: fs.readFileSync(path.join(root, 'notes.txt'), 'utf8'), a: fs.readFileSync(path.join(root, 'a.txt'), 'utf8') });
    const atEnd = read();
    const undos: SessionUndos['undos'] = [];
    for (let i = 0; i < 4; i++) {
      const undo = editwarden(['undo', '--root', root]);
      undos.push({ code: undo.code, stderr: undo.stderr, ...read() });
    }
    return { atEnd, undos };
  })();
  return undone;
}

/**
 * One real Qwen session serves three checks (its start is most of each check's cost): in one project `init qwen`
 * protected, the three-edits check's calls on a.txt, then the refusals check's calls, then the no-editwarden check's:
 * editwarden taken off this machine (the link on the client's PATH removed: the committed hooks look for editwarden
 * at every call, as on a machine that never had it) for one write, and put back for a last read, so the session ends
 * (its Stop hook) as before. Each check asserts on its own calls' results; the refusals check, first in the file,
 * undoes the session's last step.
 */
function sharedSession(): Promise<SharedQwen> {
  shared ??= (async () => {
    const config = 'constraints:\n  max_files: 5\n';
    const root = project({ 'notes.txt': 'alpha\nbeta\n', 'a.txt': 'one\ntwo\nthree\n', '.editwarden.yml': config });
    const init = editwarden(['init', 'qwen', '--root', root]);
    expect(init.code, init.stderr).toBe(0);
    const settings = fs.readFileSync(path.join(root, '.qwen', 'settings.json'), 'utf8');
    const gitConfig = fs.readFileSync(path.join(root, '.git', 'config'), 'utf8');
    const outside = { write: path.join(tempDir('ew-outside-'), 'escape.txt'), shell: path.join(tempDir('ew-outside-'), 'escape.txt') };
    const file = path.join(root, 'a.txt');
    const threeEdits: ScriptedCall[] = [
      { name: 'read_file', args: { file_path: file } },
      { name: 'edit', args: { file_path: file, old_string: 'one', new_string: 'ONE' } },
      { name: 'edit', args: { file_path: file, old_string: 'two', new_string: 'TWO' } },
      { name: 'write_file', args: { file_path: outside.write, content: 'out\n' } },
      { name: 'edit', args: { file_path: file, old_string: 'three', new_string: 'THREE' } },
    ];
    const refusals: ScriptedCall[] = [
      { name: 'write_file', args: { file_path: path.join(root, '.git', 'config'), content: '[core]\n\thooksPath = /tmp\n' } },
      { name: 'write_file', args: { file_path: path.join(root, '.editwarden.yml'), content: 'constraints: {}\n' } },
      { name: 'write_file', args: { file_path: path.join(root, '.qwen', 'settings.json'), content: '{}\n' } },
      // Qwen edits only a file read in the session.
      { name: 'read_file', args: { file_path: path.join(root, 'notes.txt') } },
      { name: 'edit', args: { file_path: path.join(root, 'notes.txt'), old_string: 'beta', new_string: 'BETA' } },
      { name: 'run_shell_command', args: { command: `echo out > ${outside.shell}`, description: 'write outside' } },
    ];
    expect(threeEdits).toHaveLength(THREE_EDITS);
    expect(refusals).toHaveLength(REFUSALS);
    const guard = removableGuard();
    const withoutEditwarden: ScriptedCall[] = [
      { name: 'write_file', args: { file_path: path.join(root, 'new.txt'), content: 'x\n' }, before: guard.uninstall },
      { name: 'read_file', args: { file_path: path.join(root, 'notes.txt') }, before: guard.reinstall },
    ];
    const run = await runQwen(root, [...threeEdits, ...refusals, ...withoutEditwarden], { path: guard.path });
    return { root, run, config, settings, gitConfig, outside };
  })();
  return shared;
}

describe('Qwen Code goes through editwarden', () => {
  it('refuses its native write of .git/config, .editwarden.yml and .qwen/settings.json with the code the model reads, lets a valid edit land that undo restores byte-exact, and refuses its shell with the pointer to execute_command', async () => {
    const { root, run, config, settings, gitConfig, outside } = await sharedSession();
    const said = `${run.stderr.slice(-2000)}\n${JSON.stringify(run.results)}`;
    // This check's six calls come after the three-edits check's (sharedSession).
    const results = run.results.slice(THREE_EDITS, THREE_EDITS + REFUSALS);
    // The hook read the real client's session id where its record says the client sends it: every hooked event carries it.
    expect(hookSessionIds(root), said).toEqual([expect.stringMatching(/\S/)]);
    expect(results, said).toHaveLength(6);
    for (const i of [0, 1, 2]) expect(results[i], said).toContain('E_DENIED_PATH');
    expect(results[5], said).toContain('E_SHELL_NOT_GUARDED');
    expect(results[5], said).toContain('execute_command');
    // The way the refusal points to is there: init registered editwarden's MCP server, whose tools Qwen offers.
    expect(run.tools, said).toContain('mcp__editwarden__execute_command');
    expect(fs.readFileSync(path.join(root, '.git', 'config'), 'utf8')).toBe(gitConfig);
    expect(fs.readFileSync(path.join(root, '.editwarden.yml'), 'utf8')).toBe(config);
    expect(fs.readFileSync(path.join(root, '.qwen', 'settings.json'), 'utf8')).toBe(settings);
    expect(fs.existsSync(outside.shell)).toBe(false);
    const { atEnd, undos } = await sessionUndos();
    expect(atEnd.notes, results[4]).toBe('alpha\nBETA\n');

    // The session's last step: undo takes it back first.
    const [undo] = undos;
    expect(undo?.code, undo?.stderr).toBe(0);
    expect(undo?.notes).toBe('alpha\nbeta\n');
  }, 400_000);

  it('on a machine without editwarden the committed hooks block (Qwen runs a tool when a hook exits 1 or 127: the command exits 2), and the model reads E_GUARD_UNAVAILABLE', async () => {
    const { root, run } = await sharedSession();
    const said = `${run.stderr.slice(-2000)}\n${JSON.stringify(run.results)}`;
    // This check's write comes after the other checks' calls (sharedSession), with editwarden taken off the machine.
    const results = run.results.slice(THREE_EDITS + REFUSALS, THREE_EDITS + REFUSALS + 1);
    expect(results, said).toHaveLength(1);
    expect(results[0], said).toContain('E_GUARD_UNAVAILABLE');
    expect(fs.existsSync(path.join(root, 'new.txt'))).toBe(false);
  }, 400_000);
});

/** The upper-case lines each hooked edit of `file` (every file when absent) adds in its logged diff, in the event log's order: one entry per record. */
function addedWords(root: string, file?: string): string[] {
  return readEvents(path.join(root, '.editwarden'))
    .events.filter((e) => e.kind === 'edit' && e.route.via === 'hook' && (file === undefined || e.paths.includes(file)))
    .map((e) => ((e.kind === 'edit' ? (e.diff ?? '') : '').match(/^\+[A-Z]+$/gm) ?? []).join(','));
}

describe("Qwen Code's PostToolUse runs in the background (async), the Stop hook settles (integrations/hook-settle.ts)", () => {
  it('init qwen writes the PostToolUse async and a Stop hook that fails as a non-blocking error (exit 1, never 2) when editwarden is missing; the PreToolUse still blocks; --remove takes the Stop hook out', () => {
    const root = project({ 'a.txt': 'x\n' });
    expect(editwarden(['init', 'qwen', '--root', root]).code).toBe(0);
    const settingsFile = path.join(root, '.qwen', 'settings.json');
    const settings = JSON.parse(fs.readFileSync(settingsFile, 'utf8')) as { hooks: Record<string, Array<{ hooks: Array<{ command: string; async?: boolean }> }>> };
    expect(settings.hooks.PreToolUse?.[0]?.hooks[0]?.async).toBeUndefined();
    expect(settings.hooks.PostToolUse?.[0]?.hooks[0]?.async).toBe(true);
    const stop = settings.hooks.Stop?.[0]?.hooks[0]?.command ?? '';
    expect(stop).toContain(' hook qwen stop');
    const env = { PATH: '/usr/bin:/bin', HOME: root, QWEN_PROJECT_DIR: root };
    const missing = spawnSync('sh', ['-c', stop], { cwd: root, input: '{}', encoding: 'utf8', env });
    expect(missing.status).toBe(1);
    expect(missing.stderr).toContain('E_GUARD_UNAVAILABLE');
    const pre = settings.hooks.PreToolUse?.[0]?.hooks[0]?.command ?? '';
    expect(spawnSync('sh', ['-c', pre], { cwd: root, input: '{}', encoding: 'utf8', env }).status).toBe(2);
    expect(editwarden(['init', 'qwen', '--remove', '--root', root]).code).toBe(0);
    expect(fs.existsSync(settingsFile) ? fs.readFileSync(settingsFile, 'utf8') : '').not.toContain('hook qwen');
  });

  it('the real Qwen Code: three edits of one file back to back, a refused write among them: every record lands in order with its own change by the time qwen exits, the refusal still blocks, and three undos restore the file', async () => {
    const { root, run, outside } = await sharedSession();
    const said = `${run.stderr.slice(-2000)}\n${JSON.stringify(run.results)}`;
    // This check's five calls open the shared session (sharedSession); the other checks' six and two follow.
    expect(run.results, said).toHaveLength(THREE_EDITS + REFUSALS + 2);
    const results = run.results.slice(0, THREE_EDITS);
    expect(results[3], said).toContain('E_OUTSIDE_ROOT');
    expect(fs.existsSync(outside.write)).toBe(false);
    const { atEnd, undos } = await sessionUndos();
    expect(atEnd.a, said).toBe('ONE\nTWO\nTHREE\n');
    expect(addedWords(root, 'a.txt'), said).toEqual(['+ONE', '+TWO', '+THREE']);
    // The first undo took back the session's last step, the other check's edit of notes.txt; the next three are these.
    expect(undos.slice(1).map((u) => ({ code: u.code, a: u.a }))).toEqual(['ONE\nTWO\nthree\n', 'ONE\ntwo\nthree\n', 'one\ntwo\nthree\n'].map((a) => ({ code: 0, a })));
  }, 400_000);

  it('the real Qwen Code with no post hook at all (each gone before it reached editwarden): the next PreToolUse and the Stop hook record every edit in order', async () => {
    const root = project({ 'a.txt': 'one\ntwo\n' });
    expect(editwarden(['init', 'qwen', '--root', root]).code).toBe(0);
    const settingsFile = path.join(root, '.qwen', 'settings.json');
    const settings = JSON.parse(fs.readFileSync(settingsFile, 'utf8')) as { hooks: Record<string, unknown> };
    delete settings.hooks.PostToolUse;
    fs.writeFileSync(settingsFile, JSON.stringify(settings, null, 2));
    const file = path.join(root, 'a.txt');
    const run = await runQwen(root, [
      { name: 'read_file', args: { file_path: file } },
      { name: 'edit', args: { file_path: file, old_string: 'one', new_string: 'ONE' } },
      { name: 'edit', args: { file_path: file, old_string: 'two', new_string: 'TWO' } },
    ]);
    const said = `${run.stderr.slice(-2000)}\n${JSON.stringify(run.results)}`;
    expect(fs.readFileSync(file, 'utf8'), said).toBe('ONE\nTWO\n');
    expect(addedWords(root), said).toEqual(['+ONE', '+TWO']);
    for (const expected of ['ONE\ntwo\n', 'one\ntwo\n']) {
      const undo = editwarden(['undo', '--root', root]);
      expect(undo.code, undo.stderr).toBe(0);
      expect(fs.readFileSync(file, 'utf8')).toBe(expected);
    }
  }, 400_000);
});
