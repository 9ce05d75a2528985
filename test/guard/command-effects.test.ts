/** Files changed by execute_command are charged to the limits (the ADR counts only the file tools). */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { defaultConfig } from '../../src/config/config.js';
import { openWorkspace } from '../../src/workspace/open.js';
import { ToolRunner } from '../../src/tools/runner.js';

let root: string;
beforeEach(() => {
  root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'ew-effects-')));
  fs.writeFileSync(path.join(root, 'a.txt'), 'one\ntwo\nthree\n');
  fs.writeFileSync(path.join(root, 'gone.txt'), 'x\ny\n');
});
afterEach(() => fs.rmSync(root, { recursive: true, force: true }));

function start(mutate: (c: ReturnType<typeof defaultConfig>) => void = () => {}): ToolRunner {
  const config = defaultConfig();
  mutate(config);
  const { ws, transactions } = openWorkspace(root);
  return ToolRunner.start({ ws, config, transactions });
}

describe('command side effects', () => {
  it('counts files added, modified and deleted by a command, with lines from the real diff', async () => {
    const run = start();
    const r = await run.call({ tool: 'execute_command', args: { command: "sed -i 's/two/2/' a.txt && printf 'n1\\nn2\\nn3\\n' > new.txt && rm gone.txt" } });
    expect(r.status).toBe('ok');
    expect(r.files.sort()).toEqual(['a.txt', 'gone.txt', 'new.txt']);
    expect(r.lines_added).toBe(1 + 3);
    expect(r.lines_removed).toBe(1 + 2);
    expect(run.totals()).toMatchObject({ files_modified: 3, lines_added: 4, lines_removed: 3 });
  });

  it('does not charge files git ignores (build output)', async () => {
    fs.writeFileSync(path.join(root, '.gitignore'), 'build/\n');
    const run = start();
    const r = await run.call({ tool: 'execute_command', args: { command: 'mkdir -p build && seq 1 1000 > build/out.txt' } });
    expect(r.files).toEqual([]);
    expect(run.totals().files_modified).toBe(0);
  });

  it('a command that pushes the run over max_files is a FileModification violation (detected after the fact)', async () => {
    const run = start((c) => (c.constraints.max_files = 2));
    const r = await run.call({ tool: 'execute_command', args: { command: 'touch x1 x2 x3' } });
    expect(r.status).toBe('refused');
    expect(r.violation).toMatchObject({ type: 'FileModification', constraint: 'max_files', actual: 3, prevented: false });
    expect(run.state).toBe('aborted');
  });

  it('a command that writes a denied path is a Pattern violation', async () => {
    const run = start();
    const r = await run.call({ tool: 'execute_command', args: { command: 'mkdir -p vendor && echo x > vendor/lib.go' } });
    expect(r.violation).toMatchObject({ type: 'Pattern', constraint: 'denied_patterns', path: 'vendor/lib.go', prevented: false });
  });

  it('edits and command changes to one file count it once', async () => {
    const run = start();
    await run.call({ tool: 'edit_file', args: { path: 'a.txt', old_text: 'one', new_text: '1' } });
    await run.call({ tool: 'execute_command', args: { command: 'echo four >> a.txt' } });
    expect(run.totals()).toMatchObject({ files_modified: 1, lines_added: 2, lines_removed: 1 });
    const metrics = run.finish().metrics;
    expect(metrics.files).toEqual([{ path: 'a.txt', added: 2, removed: 1, by: ['edit_file', 'execute_command'] }]);
  });

  it("under on_violation: rollback a command's changes are undone with the rest of the run", async () => {
    const run = start((c) => {
      c.constraints.on_violation = 'rollback';
      c.constraints.max_files = 1;
    });
    await run.call({ tool: 'edit_file', args: { path: 'a.txt', old_text: 'one', new_text: '1' } });
    const r = await run.call({ tool: 'execute_command', args: { command: 'rm gone.txt && echo hi > made.txt' } });
    expect(r.status).toBe('refused');
    const summary = run.finish();
    expect(summary.metrics.outcome).toBe('rolled-back');
    expect(fs.readFileSync(path.join(root, 'a.txt'), 'utf8')).toBe('one\ntwo\nthree\n');
    expect(fs.readFileSync(path.join(root, 'gone.txt'), 'utf8')).toBe('x\ny\n');
    expect(fs.existsSync(path.join(root, 'made.txt'))).toBe(false);
  });
});

describe("what is not the command's is not charged to it (execute_command in the sandbox)", () => {
  it('a write to .git/ by a process outside the sandbox while the command runs (git gc --auto) is neither refused nor reverted', async () => {
    fs.mkdirSync(path.join(root, '.git'));
    fs.writeFileSync(path.join(root, '.git/HEAD'), 'ref: refs/heads/main\n');
    const run = start((c) => (c.constraints.max_files = 1));
    const lock = path.join(root, '.git/gc.log.lock');
    // The person's git, outside the sandbox, while the command sleeps.
    const person = setTimeout(() => fs.writeFileSync(lock, 'gc\n'), 300);
    const r = await run.call({ tool: 'execute_command', args: { command: 'sleep 1 && echo ok > made.txt' } });
    clearTimeout(person);
    // In the sandbox (bwrap is part of this suite's machine): without one nothing is read-only and the rule does not apply.
    expect((r.data as { sandbox?: string } | undefined)?.sandbox).toBe('bwrap');
    expect(r.ok, JSON.stringify(r)).toBe(true);
    expect(r.violation).toBeUndefined();
    expect(r.files).toEqual(['made.txt']);
    expect(fs.readFileSync(lock, 'utf8')).toBe('gc\n');
  });
});
