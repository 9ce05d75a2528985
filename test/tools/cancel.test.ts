import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { defaultConfig, withOverrides, type Config } from '../../src/config/config.js';
import { openWorkspace } from '../../src/workspace/open.js';
import { runProfile } from '../../src/runs/profile.js';
import { Run } from '../../src/runs/run.js';
import { ToolRunner, type ToolRunnerOptions } from '../../src/tools/runner.js';
import { pidRunning } from '../../src/verify/process-group.js';

let root: string;
let outside: string;
beforeEach(() => {
  root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'ew-cancel-')));
  // Pid files live outside the workspace, so writing them is no change of the run.
  outside = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'ew-cancel-pids-')));
});
afterEach(() => {
  fs.rmSync(root, { recursive: true, force: true });
  fs.rmSync(outside, { recursive: true, force: true });
});

function runner(over: Partial<ToolRunnerOptions> & { signal?: AbortSignal } = {}, base: Config = defaultConfig()): ToolRunner {
  const { ws, transactions } = openWorkspace(root);
  // The commands write their pid files outside the workspace: the sandbox must let them (sandbox.writable).
  const config = withOverrides(base, { sandbox: { writable: [outside] } });
  const { signal, ...rest } = over;
  // The run's signal cancels it (runs/run.ts).
  const run = new Run({ profile: runProfile('headless', { config }), ...(signal ? { signal } : {}) });
  return ToolRunner.start({ ws, config, transactions, run, ...rest });
}

/**
 * `sleep 30.N` with a background grandchild `sleep 31.N`; a start marker is written first. Pids written inside the
 * sandbox are those of its pid namespace, so survivors are found by their unique command lines in this one's /proc.
 */
function sleeper(): { command: string; survivors: () => number[] } {
  const pgidFile = path.join(outside, 'pgid');
  const tag = String(Math.floor(Math.random() * 1e6)).padStart(6, '0');
  return {
    command: `sleep 31.${tag} & echo $$ > ${pgidFile}; sleep 30.${tag}`,
    survivors: () =>
      fs
        .readdirSync('/proc')
        .filter((p) => /^\d+$/.test(p))
        .map(Number)
        .filter((pid) => {
          try {
            return new RegExp(`^sleep\u0000(30|31)\\.${tag}\u0000$`).test(fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8')) && pidRunning(pid);
          } catch {
            return false;
          }
        }),
  };
}

/** Aborts once the command has written its group id (it is running then), or after ~300 ms. */
function abortWhenStarted(controller: AbortController, file: string): void {
  const started = Date.now();
  const poll = setInterval(() => {
    if ((fs.existsSync(file) && fs.statSync(file).size > 0 && Date.now() - started >= 300) || Date.now() - started > 5000) {
      clearInterval(poll);
      controller.abort();
    }
  }, 20);
}

describe('cancelling the run (its signal)', () => {
  it('kills a running execute_command and its whole process group, returns E_RUN_ENDED, and refuses later calls', async () => {
    const controller = new AbortController();
    const run = runner({ signal: controller.signal });
    const s = sleeper();
    abortWhenStarted(controller, path.join(outside, 'pgid'));
    // Without the cancellation this call would take 30 s and the test would time out.
    const r = await run.call({ tool: 'execute_command', args: { command: s.command } });
    expect(r.status).toBe('refused');
    expect(r.ok).toBe(false);
    expect(r.error?.code).toBe('E_RUN_ENDED');
    expect(r.error?.message).toContain('cancelled');
    expect(r.output).toContain('stopped: the run was cancelled');
    expect(r.data).toMatchObject({ aborted: true, timed_out: false });
    expect(s.survivors()).toEqual([]);
    expect(run.state).toBe('cancelled');

    fs.writeFileSync(path.join(root, 'a.txt'), 'one\n');
    const next = await run.call({ tool: 'read_file', args: { path: 'a.txt' } });
    expect(next.status).toBe('refused');
    expect(next.error?.code).toBe('E_RUN_ENDED');
    expect(next.error?.message).toContain('cancelled');

    const summary = run.finish();
    expect(summary.violation).toBeNull();
    expect(summary.metrics.outcome).toBe('kept');
  });

  it('keeps the partial work even under on_violation: rollback (a cancel is no violation)', async () => {
    fs.writeFileSync(path.join(root, 'a.txt'), 'Hello\n');
    const controller = new AbortController();
    const run = runner({ signal: controller.signal }, withOverrides(defaultConfig(), { constraints: { on_violation: 'rollback' } }));
    expect((await run.call({ tool: 'edit_file', args: { path: 'a.txt', old_text: 'Hello', new_text: 'Hi' } })).ok).toBe(true);
    const s = sleeper();
    abortWhenStarted(controller, path.join(outside, 'pgid'));
    const r = await run.call({ tool: 'execute_command', args: { command: `echo made > made.txt; ${s.command}` } });
    expect(r.error?.code).toBe('E_RUN_ENDED');
    // What the command changed before it was killed is charged like any command's changes.
    expect(r.files).toEqual(['made.txt']);
    const summary = run.finish();
    expect(summary.metrics.outcome).toBe('kept');
    expect(summary.rollback).toBeNull();
    expect(fs.readFileSync(path.join(root, 'a.txt'), 'utf8')).toBe('Hi\n');
    expect(fs.readFileSync(path.join(root, 'made.txt'), 'utf8')).toBe('made\n');
  });

  it('a run cancelled before a call runs nothing', async () => {
    const controller = new AbortController();
    controller.abort();
    const run = runner({ signal: controller.signal });
    const r = await run.call({ tool: 'execute_command', args: { command: 'echo x > made.txt' } });
    expect(r.status).toBe('refused');
    expect(r.error?.code).toBe('E_RUN_ENDED');
    expect(fs.existsSync(path.join(root, 'made.txt'))).toBe(false);
  });
});

describe('cancelling one call (call.signal)', () => {
  it('stops that call and its process group with E_CANCELLED; the run goes on', async () => {
    const run = runner();
    const controller = new AbortController();
    const s = sleeper();
    abortWhenStarted(controller, path.join(outside, 'pgid'));
    const r = await run.call({ tool: 'execute_command', args: { command: s.command }, signal: controller.signal });
    expect(r.status).toBe('failed');
    expect(r.error?.code).toBe('E_CANCELLED');
    expect(r.output).toContain('stopped: the call was cancelled');
    expect(s.survivors()).toEqual([]);
    expect(run.state).toBe('running');

    const next = await run.call({ tool: 'execute_command', args: { command: 'echo still here' } });
    expect(next.ok).toBe(true);
    expect(next.output).toContain('still here');
    expect(run.finish().violation).toBeNull();
  });

  it('a call whose signal aborted before it started does not run', async () => {
    const run = runner();
    const controller = new AbortController();
    controller.abort();
    const r = await run.call({ tool: 'execute_command', args: { command: 'echo x > made.txt' }, signal: controller.signal });
    expect(r.error?.code).toBe('E_CANCELLED');
    expect(fs.existsSync(path.join(root, 'made.txt'))).toBe(false);
    expect(run.state).toBe('running');
  });
});
