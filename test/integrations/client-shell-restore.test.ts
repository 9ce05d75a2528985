/**
 * The person beside the agent (issue 37): nothing of theirs is lost by
 * editwarden's own writes, with the real Claude Code and Gemini CLI
 * (scripted model on 127.0.0.1, a temp project). A second real process —
 * standing for the person's editor or their `git gc --auto` — writes while
 * the guarded command waits; it waits for the command's first write
 * (`marker.txt`), and the command waits for its write (waitFor), so it
 * lands inside the command's run window.
 *
 * - a command over the session's limits is put back; `editwarden undo` of
 *   the put-back gives the person's text back byte-exact;
 * - a command's undo refuses (E_CHANGED_SINCE) a file the person edited
 *   during it; --force reverts it, and a further undo gives it back;
 * - a write to a path read-only inside the sandbox (`.git/gc.log.lock`) is
 *   not the command's: neither refused, nor charged, nor put back.
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { editwardenHere } from './cli-in-process.js';
import { CLAUDE, GEMINI, cleanup, editwarden, functionResponses, project, runClaude, runGemini, toolResults } from './helpers.js';

beforeAll(() => {
  expect(fs.existsSync(CLAUDE), `${CLAUDE} is missing; run npm ci`).toBe(true);
  expect(fs.existsSync(GEMINI), `${GEMINI} is missing; run npm ci`).toBe(true);
});
afterAll(cleanup);

/** A real process outside the sandbox that writes `text` to `file` once `marker` exists (the command has started); resolves when it has written. */
function personWrites(marker: string, file: string, text: string): Promise<number | null> {
  const script = `const fs=require('fs');const t=setInterval(()=>{if(fs.existsSync(${JSON.stringify(marker)})){fs.writeFileSync(${JSON.stringify(file)},${JSON.stringify(text)});process.exit(0);}},10);setTimeout(()=>process.exit(3),60000);`;
  const child = spawn(process.execPath, ['-e', script], { stdio: 'ignore' });
  // Its exit code is checked where it is awaited (0: it wrote; 3: the command never started).
  return new Promise((resolve) => child.once('exit', (code) => resolve(code)));
}

/**
 * The agent's command waits until `test` (a shell test, builtins only) holds — the person's write has landed — at most
 * 10 s, instead of sleeping a fixed time the person's write may or may not fall in.
 */
function waitFor(test: string): string {
  // Counted by a string's length: no `$(`, which Gemini CLI's shell tool refuses as command substitution.
  return `n=; until ${test} || [ \${#n} -ge 100 ]; do sleep 0.1; n=x$n; done`;
}

function events(root: string): Array<Record<string, unknown>> {
  return fs
    .readFileSync(path.join(root, '.editwarden/events.jsonl'), 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as Record<string, unknown>);
}

describe("a put-back never takes the person's text: it is an undo step (real Claude Code)", () => {
  it('a command over the limits is put back while another process writes notes.md; `editwarden undo` of the put-back gives the text back byte-exact', async () => {
    const root = project({ '.editwarden.yml': 'constraints:\n  max_files: 1\n', 'notes.md': 'original\n' });
    expect((await editwardenHere(['init', 'claude', '--root', root])).code).toBe(0);
    const notes = path.join(root, 'notes.md');
    const person = personWrites(path.join(root, 'marker.txt'), notes, 'person text, typed during the command\n');
    const run = await runClaude(
      root,
      [{ name: 'Bash', args: { command: `echo go > marker.txt; ${waitFor('{ read -r l < notes.md && [ "$l" != original ]; }')}; echo "agent line" >> notes.md; echo gen > gen.txt`, description: 'over the limits' } }],
      ['--allowedTools', 'Bash'],
    );
    expect(await person).toBe(0);
    expect(run.code, run.stderr).toBe(0);
    const [result] = toolResults(run.requests);
    expect(result).toContain('E_CONSTRAINT');
    expect(result).toContain('put back');
    // Put back: the command's files are gone, notes.md is as before the command — the person's text is in no file now …
    expect(fs.existsSync(path.join(root, 'gen.txt'))).toBe(false);
    expect(fs.existsSync(path.join(root, 'marker.txt'))).toBe(false);
    expect(fs.readFileSync(notes, 'utf8')).toBe('original\n');
    const putBack = events(root).find((e) => e.action === 'put-back');
    expect(putBack).toMatchObject({ kind: 'undo', written: ['notes.md'], removed: ['gen.txt', 'marker.txt'] });
    expect(putBack?.bytes).toBe('original\n'.length);
    expect(putBack?.step).toEqual(expect.any(String));

    // … but the put-back was an undo step: undoing it gives back what it overwrote, byte-exact.
    const undo = editwarden(['undo', '--root', root]);
    expect(undo.code, undo.stderr).toBe(0);
    expect(undo.stdout).toContain('put-back of claude Bash');
    expect(fs.readFileSync(notes, 'utf8')).toBe('person text, typed during the command\nagent line\n');
    expect(fs.readFileSync(path.join(root, 'gen.txt'), 'utf8')).toBe('gen\n');
    expect(events(root).at(-1)).toMatchObject({ kind: 'undo', action: 'undo', written: expect.arrayContaining(['notes.md', 'gen.txt']) });
  }, 150_000);
});

describe("a process outside the sandbox is not the command's (real Claude Code)", () => {
  it('`.git/gc.log.lock` written during a command (the person’s git gc --auto) is neither refused, charged nor put back', async () => {
    const root = project({ '.editwarden.yml': 'constraints:\n  max_files: 1\n' });
    expect((await editwardenHere(['init', 'claude', '--root', root])).code).toBe(0);
    const lock = path.join(root, '.git/gc.log.lock');
    const person = personWrites(path.join(root, 'marker.txt'), lock, 'gc: 12 loose objects\n');
    const run = await runClaude(root, [{ name: 'Bash', args: { command: `echo go > marker.txt; ${waitFor('[ -e .git/gc.log.lock ]')}; echo finished`, description: 'one file' } }], ['--allowedTools', 'Bash']);
    expect(await person).toBe(0);
    expect(run.code, run.stderr).toBe(0);
    const [result] = toolResults(run.requests);
    expect(result).toContain('finished');
    expect(result).not.toContain('E_DENIED_PATH');
    expect(result).not.toContain('E_CONSTRAINT');
    // The person's git file stays, and the command is charged for its one file only.
    expect(fs.readFileSync(lock, 'utf8')).toBe('gc: 12 loose objects\n');
    const command = events(root).find((e) => e.kind === 'command');
    expect(command).toMatchObject({ paths: ['marker.txt'] });
    expect(command?.put_back ?? []).toEqual([]);
    expect(events(root).some((e) => e.action === 'put-back')).toBe(false);
  }, 150_000);
});

describe("undo refuses the person's concurrent edit; a forced undo loses nothing (real Gemini CLI)", () => {
  it('a long command runs while another process edits other.md: undo is E_CHANGED_SINCE naming it; --force reverts it; a further undo gives it back', async () => {
    const root = project({ '.editwarden.yml': 'constraints:\n  max_files: 9\n', 'other.md': 'before\n' });
    expect((await editwardenHere(['init', 'gemini', '--root', root])).code).toBe(0);
    const other = path.join(root, 'other.md');
    const person = personWrites(path.join(root, 'marker.txt'), other, 'the person’s notes\n');
    const run = await runGemini(root, [{ name: 'run_shell_command', args: { command: `echo go > marker.txt; ${waitFor('{ read -r l < other.md && [ "$l" != before ]; }')}; echo result > out.txt`, description: 'long' } }], 150_000, {
      approval: 'yolo',
    });
    expect(functionResponses(run.requests), `${run.stdout}\n${run.stderr}`).toHaveLength(1);
    expect(await person).toBe(0);
    expect(fs.readFileSync(path.join(root, 'out.txt'), 'utf8')).toBe('result\n');

    const refused = editwarden(['undo', '--root', root]);
    expect(refused.code).not.toBe(0);
    expect(refused.stderr + refused.stdout).toContain('E_CHANGED_SINCE');
    expect(refused.stderr + refused.stdout).toContain('other.md');
    expect(refused.stderr + refused.stdout).not.toMatch(/: (marker|out)\.txt/);
    // Nothing was written by the refusal.
    expect(fs.readFileSync(other, 'utf8')).toBe('the person’s notes\n');
    expect(fs.existsSync(path.join(root, 'out.txt'))).toBe(true);

    const forced = editwarden(['undo', '--force', '--root', root]);
    expect(forced.code, forced.stderr).toBe(0);
    expect(fs.existsSync(path.join(root, 'out.txt'))).toBe(false);
    expect(fs.readFileSync(other, 'utf8')).toBe('before\n');

    const back = editwarden(['undo', '--root', root]);
    expect(back.code, back.stderr).toBe(0);
    expect(back.stdout).toContain('forced undo');
    expect(fs.readFileSync(other, 'utf8')).toBe('the person’s notes\n');
    // The command stays undone.
    expect(fs.existsSync(path.join(root, 'out.txt'))).toBe(false);
  }, 200_000);
});
