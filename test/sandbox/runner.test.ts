/** The runner and the sandbox together, in process: what every caller gets from runCommand with a workspace policy. */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, test } from 'vitest';
import { commandSandbox } from '../../src/sandbox/index.js';
import { runCommand, type RunCommandOptions } from '../../src/verify/runner.js';

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) fs.rmSync(d, { recursive: true, force: true });
});

function root(): string {
  const dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'ew-sbx-run-')));
  dirs.push(dir);
  return dir;
}

describe('runCommand in the sandbox', () => {
  test('a policy is required: a plain-JS caller that leaves it out gets an error, not an unsandboxed command', async () => {
    const dir = root();
    const options = { command: 'echo ran > ran.txt', cwd: dir, timeoutMs: 5000 } as unknown as RunCommandOptions;
    await expect(runCommand(options)).rejects.toThrow(/sandbox is required/);
    expect(fs.existsSync(path.join(dir, 'ran.txt'))).toBe(false);
  });

  test('a .editwarden/ that does not exist yet cannot be planted by a command (it is empty and read-only inside)', async () => {
    const dir = root();
    const sandbox = commandSandbox({ root: dir, stateDir: path.join(dir, '.editwarden') }, {});
    const r = await runCommand({ command: 'mkdir -p .editwarden/checkpoints && echo forged > .editwarden/journal.jsonl', cwd: dir, sandbox, timeoutMs: 10_000 });
    expect(r.exit_code).not.toBe(0);
    expect(r.tail).toContain('Read-only file system');
    // bwrap's mount point may stay behind, empty.
    expect(fs.existsSync(path.join(dir, '.editwarden')) ? fs.readdirSync(path.join(dir, '.editwarden')) : []).toEqual([]);
  });

  test('the record says bwrap; the tree is gone when the command ends (pid namespace), setsid or not', async () => {
    const dir = root();
    const sandbox = commandSandbox({ root: dir, stateDir: path.join(dir, '.editwarden') }, {});
    const r = await runCommand({ command: '(setsid sh -c "sleep 0.8; echo late > late.txt" &); echo done', cwd: dir, sandbox, timeoutMs: 10_000 });
    expect(r).toMatchObject({ exit_code: 0, sandbox: 'bwrap', leftovers: 'empty' });
    await new Promise((resolve) => setTimeout(resolve, 1500));
    expect(fs.existsSync(path.join(dir, 'late.txt'))).toBe(false);
  });

  test('a timeout kills the sandboxed tree', async () => {
    const dir = root();
    const sandbox = commandSandbox({ root: dir, stateDir: path.join(dir, '.editwarden') }, {});
    const t0 = Date.now();
    const r = await runCommand({ command: 'trap "" TERM; sleep 20; echo late > late.txt', cwd: dir, sandbox, timeoutMs: 500, graceMs: 300 });
    expect(r.timed_out).toBe(true);
    expect(Date.now() - t0).toBeLessThan(8000);
    expect(fs.existsSync(path.join(dir, 'late.txt'))).toBe(false);
  });
});
