import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, test } from 'vitest';
import { commandPassed, displayCommand, runCommand } from '../../src/verify/runner.js';
import { pidRunning } from '../../src/verify/process-group.js';

const temps: string[] = [];
function tempDir(): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ew-runner-'));
  temps.push(dir);
  return dir;
}
afterEach(() => {
  for (const dir of temps.splice(0)) fs.rmSync(dir, { recursive: true, force: true });
});

describe('the verdict is the exit code', () => {
  test('exit 0 passes even when the output says "error:"', async () => {
    const r = await runCommand({ sandbox: 'none', command: 'echo "warning: the word error: appears"; exit 0', cwd: tempDir(), timeoutMs: 10_000 });
    expect(r.exit_code).toBe(0);
    expect(commandPassed(r)).toBe(true);
  });

  test('a non-zero exit fails even when the output is silent', async () => {
    const r = await runCommand({ sandbox: 'none', command: 'exit 7', cwd: tempDir(), timeoutMs: 10_000 });
    expect(r.exit_code).toBe(7);
    expect(r.tail).toBe('');
    expect(commandPassed(r)).toBe(false);
  });

  test('an argv runs without a shell: metacharacters are plain arguments', async () => {
    const r = await runCommand({ sandbox: 'none', command: ['printf', '%s|', 'a b', '$HOME', '; rm -rf /'], cwd: tempDir(), timeoutMs: 10_000 });
    expect(r.exit_code).toBe(0);
    expect(r.stdoutTail).toBe('a b|$HOME|; rm -rf /|');
    expect(r.command).toBe(`printf '%s|' 'a b' '$HOME' '; rm -rf /'`);
  });

  test('a program that does not exist is a failure with the reason, not a crash', async () => {
    const r = await runCommand({ sandbox: 'none', command: ['definitely-not-a-program-ew'], cwd: tempDir(), timeoutMs: 10_000 });
    expect(r.exit_code).toBeNull();
    expect(r.spawn_error).toMatch(/ENOENT/);
    expect(commandPassed(r)).toBe(false);
  });

  test('a missing working folder is named as such', async () => {
    const r = await runCommand({ sandbox: 'none', command: 'true', cwd: path.join(tempDir(), 'gone'), timeoutMs: 10_000 });
    expect(r.spawn_error).toMatch(/does not exist/);
    expect(commandPassed(r)).toBe(false);
  });

  test('env adds and removes variables; stdin is closed', async () => {
    process.env.EW_RUNNER_REMOVE_ME = 'present';
    try {
      const r = await runCommand({ sandbox: 'none', command: 'echo "$EW_ADDED-${EW_RUNNER_REMOVE_ME:-absent}"; cat; echo done', cwd: tempDir(), timeoutMs: 10_000, env: { EW_ADDED: 'yes', EW_RUNNER_REMOVE_ME: undefined } });
      expect(r.stdoutTail).toBe('yes-absent\ndone');
    } finally {
      delete process.env.EW_RUNNER_REMOVE_ME;
    }
  });
});

describe('artifacts', () => {
  test('stdout.log, stderr.log, combined.log and result.json hold the run', async () => {
    const dir = path.join(tempDir(), 'art');
    const r = await runCommand({ sandbox: 'none', command: 'echo out1; echo err1 >&2; echo out2; exit 2', cwd: tempDir(), timeoutMs: 10_000, artifactDir: dir });
    expect(fs.readFileSync(path.join(dir, 'stdout.log'), 'utf8')).toBe('out1\nout2\n');
    expect(fs.readFileSync(path.join(dir, 'stderr.log'), 'utf8')).toBe('err1\n');
    expect(fs.readFileSync(path.join(dir, 'combined.log'), 'utf8').split('\n').sort()).toEqual(['', 'err1', 'out1', 'out2']);
    const record = JSON.parse(fs.readFileSync(path.join(dir, 'result.json'), 'utf8'));
    expect(record).toMatchObject({ command: r.command, cwd: r.cwd, exit_code: 2, signal: null, timed_out: false, started_at: r.started_at });
    expect(typeof record.duration_ms).toBe('number');
    expect(r.artifactDir).toBe(dir);
  });
});

describe('timeouts and process trees', () => {
  test('a command past its timeout is ended with SIGTERM and marked timed out', async () => {
    const r = await runCommand({ sandbox: 'none', command: ['sleep', '30'], cwd: tempDir(), timeoutMs: 300, graceMs: 500 });
    expect(r.timed_out).toBe(true);
    expect(r.signal).toBe('SIGTERM');
    expect(commandPassed(r)).toBe(false);
  });

  test('a command that ignores SIGTERM is killed after the grace period', async () => {
    // Stopped once it says its trap is set (an abort ends it as a timeout does): a timer could fire before the
    // shell has read its first line on a loaded machine, and the shell would then die of the SIGTERM itself.
    const controller = new AbortController();
    const r = await runCommand({
      sandbox: 'none',
      command: `trap '' TERM; echo ready; while :; do sleep 0.05; done`,
      cwd: tempDir(),
      timeoutMs: 0,
      graceMs: 300,
      signal: controller.signal,
      onOutput: (event) => {
        if (event.chunk.toString('utf8').includes('ready')) controller.abort();
      },
    });
    expect(r.aborted).toBe(true);
    expect(r.signal).toBe('SIGKILL');
  });

  test('a sleeping grandchild is killed with its parent on timeout', async () => {
    const dir = tempDir();
    // The timeout leaves the shell room to start its grandchild and write its pid on a loaded machine too.
    const r = await runCommand({ sandbox: 'none', command: 'sleep 60 & echo $! > grandchild.pid; wait', cwd: dir, timeoutMs: 3000, graceMs: 500 });
    expect(r.timed_out).toBe(true);
    const pid = Number(fs.readFileSync(path.join(dir, 'grandchild.pid'), 'utf8'));
    expect(pid).toBeGreaterThan(0);
    expect(pidRunning(pid)).toBe(false);
  });

  test('a background grandchild left behind by a command that exited is ended too', async () => {
    const dir = tempDir();
    // The grandchild does not even hold the pipes: only the process group finds it.
    const r = await runCommand({ sandbox: 'none', command: 'sleep 60 >/dev/null 2>&1 & echo $! > grandchild.pid; exit 0', cwd: dir, timeoutMs: 10_000, graceMs: 500 });
    expect(r.exit_code).toBe(0);
    expect(r.leftovers).toBe('terminated');
    const pid = Number(fs.readFileSync(path.join(dir, 'grandchild.pid'), 'utf8'));
    expect(pidRunning(pid)).toBe(false);
  });

  test('a grandchild holding stdout open does not make the runner hang', async () => {
    const dir = tempDir();
    const r = await runCommand({ sandbox: 'none', command: 'sleep 60 & echo $! > grandchild.pid; echo bye', cwd: dir, timeoutMs: 10_000, graceMs: 500 });
    expect(r.exit_code).toBe(0);
    expect(r.stdoutTail).toBe('bye');
    expect(pidRunning(Number(fs.readFileSync(path.join(dir, 'grandchild.pid'), 'utf8')))).toBe(false);
  });

  test('an abort signal ends the command like a timeout', async () => {
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 200);
    const r = await runCommand({ sandbox: 'none', command: ['sleep', '30'], cwd: tempDir(), timeoutMs: 0, graceMs: 500, signal: controller.signal });
    expect(r.aborted).toBe(true);
    expect(r.timed_out).toBe(false);
    expect(commandPassed(r)).toBe(false);
  });
});

describe('output', () => {
  test('100 MB of output: all of it in the log, memory bounded by the tail', async () => {
    const dir = tempDir();
    const artifactDir = path.join(dir, 'art');
    const size = 100 * 1024 * 1024;
    let peak = 0;
    let chunks = 0;
    const before = process.memoryUsage();
    const r = await runCommand({
      sandbox: 'none',
      command: `yes 'a line of build output that repeats' | head -c ${size}`,
      cwd: dir,
      timeoutMs: 60_000,
      artifactDir,
      onOutput: () => {
        if (++chunks % 64 === 0) {
          const m = process.memoryUsage();
          peak = Math.max(peak, m.heapUsed + m.arrayBuffers - before.heapUsed - before.arrayBuffers);
        }
      },
    });
    expect(r.exit_code).toBe(0);
    expect(r.stdout_bytes).toBe(size);
    expect(fs.statSync(path.join(artifactDir, 'stdout.log')).size).toBe(size);
    expect(fs.statSync(path.join(artifactDir, 'combined.log')).size).toBe(size);
    expect(r.stdoutTail.split('\n')).toHaveLength(200);
    expect(r.tail.length).toBeLessThan(200 * 4200);
    // Buffering the output would need > 100 MB; the tail needs < 1 MB, the rest is GC slack.
    expect(peak).toBeLessThan(64 * 1024 * 1024);
  });

  test('one endless line is cut, not kept whole', async () => {
    const r = await runCommand({ sandbox: 'none', command: `head -c 5000000 /dev/zero | tr '\\0' 'x'`, cwd: tempDir(), timeoutMs: 30_000 });
    expect(r.stdout_bytes).toBe(5_000_000);
    expect(r.stdoutTail.length).toBeLessThan(5000);
    expect(r.stdoutTail).toMatch(/\[4995904 bytes cut\]$/);
  });

  test('non-UTF-8 output keeps its bytes in the logs and decodes leniently in the tail', async () => {
    const dir = tempDir();
    const artifactDir = path.join(dir, 'art');
    const r = await runCommand({ sandbox: 'none', command: `printf 'caf\\351 \\377\\376 ok \\303\\050\\n'`, cwd: dir, timeoutMs: 10_000, artifactDir });
    expect(r.exit_code).toBe(0);
    expect([...fs.readFileSync(path.join(artifactDir, 'stdout.log'))]).toEqual([...Buffer.from([0x63, 0x61, 0x66, 0xe9, 0x20, 0xff, 0xfe, 0x20, 0x6f, 0x6b, 0x20, 0xc3, 0x28, 0x0a])]);
    expect(r.stdoutTail).toBe('caf\uFFFD \uFFFD\uFFFD ok \uFFFD(');
  });

  test('onOutput sees every chunk; a throwing callback does not break the run', async () => {
    const seen: string[] = [];
    const r = await runCommand({
      sandbox: 'none',
      command: 'echo one; echo two >&2',
      cwd: tempDir(),
      timeoutMs: 10_000,
      onOutput: (e) => {
        seen.push(`${e.stream}:${e.chunk.toString().trim()}`);
        throw new Error('display broke');
      },
    });
    expect(r.exit_code).toBe(0);
    expect(seen.sort()).toEqual(['stderr:two', 'stdout:one']);
  });
});

describe('displayCommand', () => {
  test('quotes what a shell would split or expand', () => {
    expect(displayCommand(['make', '-C', 'my dir', "it's"])).toBe(`make -C 'my dir' 'it'\\''s'`);
    expect(displayCommand('make test')).toBe('make test');
  });
});
