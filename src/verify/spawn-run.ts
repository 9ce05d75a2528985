/**
 * Running one prepared command (the program, its arguments and its
 * environment as the sandbox wraps them: runner.ts `commandSpawnSpec`) in
 * its own process group, with a timeout, output streamed to log files and
 * only a bounded tail kept in memory. The runner's second half, on its own
 * and on Node's built-ins only: the guarded shell's thin client
 * (cli/shell-client.ts) runs here the argument vector the warm server
 * prepared, exactly as an in-process command runs it. It must never leave
 * a process of the group running when it returns, and never buffer
 * unbounded output.
 */
import fs from 'node:fs';
import path from 'node:path';
import { childProcess } from '../builtins.js';
import { LineTail, DEFAULT_TAIL_LINES } from './tail.js';
import { reapGroup, signalGroup } from './process-group.js';
import type { SandboxKind } from '../sandbox/detect.js';
import type { NetworkRefusals } from '../runs/network-events.js';

export interface OutputEvent {
  stream: 'stdout' | 'stderr';
  chunk: Buffer;
}

/** What result.json holds: the facts of the run, no output. */
export interface CommandRecord {
  command: string;
  cwd: string;
  /** null when the process ended by a signal or never started. */
  exit_code: number | null;
  signal: string | null;
  timed_out: boolean;
  aborted: boolean;
  duration_ms: number;
  /** ISO 8601. */
  started_at: string;
  stdout_bytes: number;
  stderr_bytes: number;
  /** Why the command could not start (missing program, missing folder). */
  spawn_error?: string;
  /** What was left of the process group after the command ended. */
  leftovers: 'empty' | 'terminated' | 'killed' | 'survivors';
  /** The OS sandbox the command ran in ("none": it had the user's full rights). */
  sandbox: SandboxKind;
  /** The write witness the command ran under (absent: none; every change in its window counts as its own). */
  witness?: 'strace';
  /** The connections the filtering proxy refused (a host-list network, verify/command-network.ts; absent when none was). */
  network_refused?: NetworkRefusals;
}

export interface CommandResult extends CommandRecord {
  /** Last lines of stdout and stderr in arrival order. */
  tail: string;
  stdoutTail: string;
  stderrTail: string;
  /** Where the logs are, or null when no artifactDir was given. */
  artifactDir: string | null;
}

/** What to run: the program (bwrap, strace, or the command itself), its arguments and environment, and what wraps it. */
export interface RunnableSpec {
  file: string;
  args: string[];
  env: Record<string, string>;
  /** The OS sandbox the spec starts (for the record). */
  sandbox: SandboxKind;
  /** The write witness the spec runs under (absent: none). */
  witness?: 'strace';
}

export interface SpawnedOptions {
  /** The command as logs and reports spell it. */
  display: string;
  cwd: string;
  /** Wall-clock limit; 0 or Infinity for none. */
  timeoutMs: number;
  /** Between SIGTERM and SIGKILL (default 2000 ms). */
  graceMs?: number;
  /** Folder for stdout.log, stderr.log, combined.log and result.json (created if missing). */
  artifactDir?: string;
  /** Lines kept in memory per stream (default 200). */
  tailLines?: number;
  /** Every chunk as it arrives. Exceptions thrown here are ignored. */
  onOutput?: (event: OutputEvent) => void;
  /** Aborting ends the command like a timeout does. */
  signal?: AbortSignal;
}

const DEFAULT_GRACE_MS = 2000;

/**
 * The abort reason that ends a command at once (SIGKILL to its group, no grace): for a caller that can no longer
 * count what the command does (the guarded shell's client whose server died). A SIGTERM first can be swallowed:
 * strace, the write witness, detaches as it ends, and the signal pending for its tracee (bubblewrap) can be lost
 * with it, so the tree would run on for the whole grace.
 */
export const END_AT_ONCE = 'end-at-once';

/** Log files written with writeSync: no stream buffers to grow when the disk is slower than the command. */
class Logs {
  private fds: { stdout: number; stderr: number; combined: number } | null = null;

  constructor(readonly dir: string | null) {
    if (!dir) return;
    fs.mkdirSync(dir, { recursive: true });
    this.fds = {
      stdout: fs.openSync(path.join(dir, 'stdout.log'), 'w'),
      stderr: fs.openSync(path.join(dir, 'stderr.log'), 'w'),
      combined: fs.openSync(path.join(dir, 'combined.log'), 'w'),
    };
  }

  write(stream: 'stdout' | 'stderr', chunk: Buffer): void {
    if (!this.fds) return;
    writeAll(this.fds[stream], chunk);
    writeAll(this.fds.combined, chunk);
  }

  close(record: CommandRecord): void {
    if (!this.fds || !this.dir) return;
    for (const fd of Object.values(this.fds)) fs.closeSync(fd);
    this.fds = null;
    fs.writeFileSync(path.join(this.dir, 'result.json'), `${JSON.stringify(record, null, 2)}\n`);
  }
}

function writeAll(fd: number, chunk: Buffer): void {
  let offset = 0;
  while (offset < chunk.length) offset += fs.writeSync(fd, chunk, offset, chunk.length - offset);
}

/**
 * Process groups started and not yet reaped. Commands run in groups of their
 * own (detached), so a terminal's Ctrl-C does not reach them: when this
 * process exits anyway (a second Ctrl-C, process.exit), the exit handler
 * kills what is left. Process-wide by nature, like the process it guards.
 */
const liveGroups = new Set<number>();
let exitHookInstalled = false;

function trackGroup(pgid: number): void {
  liveGroups.add(pgid);
  if (exitHookInstalled) return;
  exitHookInstalled = true;
  process.on('exit', killLiveGroups);
}

/** Kills every command group this process started and has not reaped (synchronous: safe in an exit handler). */
function killLiveGroups(): void {
  for (const pgid of liveGroups) signalGroup(pgid, 'SIGKILL');
  liveGroups.clear();
}

export async function runSpawned(spec: RunnableSpec, options: SpawnedOptions): Promise<CommandResult> {
  const graceMs = options.graceMs ?? DEFAULT_GRACE_MS;
  const tailOptions = { maxLines: options.tailLines ?? DEFAULT_TAIL_LINES };
  const tails = { stdout: new LineTail(tailOptions), stderr: new LineTail(tailOptions), combined: new LineTail(tailOptions) };
  const startedAt = new Date();
  const t0 = performance.now();
  const logs = new Logs(options.artifactDir ?? null);

  const record: CommandRecord = {
    command: options.display,
    cwd: options.cwd,
    exit_code: null,
    signal: null,
    timed_out: false,
    aborted: false,
    duration_ms: 0,
    started_at: startedAt.toISOString(),
    stdout_bytes: 0,
    stderr_bytes: 0,
    leftovers: 'empty',
    sandbox: 'none',
  };

  const finish = (): CommandResult => {
    record.duration_ms = Math.round((performance.now() - t0) * 1000) / 1000;
    record.stdout_bytes = tails.stdout.bytes;
    record.stderr_bytes = tails.stderr.bytes;
    logs.close(record);
    return {
      ...record,
      tail: tails.combined.text(),
      stdoutTail: tails.stdout.text(),
      stderrTail: tails.stderr.text(),
      artifactDir: options.artifactDir ?? null,
    };
  };

  // A missing folder would surface as "spawn /bin/sh ENOENT", which blames the wrong thing.
  if (!isDirectory(options.cwd)) {
    record.spawn_error = `working folder ${options.cwd} does not exist`;
    return finish();
  }
  if (options.signal?.aborted) {
    record.aborted = true;
    return finish();
  }

  record.sandbox = spec.sandbox;
  if (spec.witness !== undefined) record.witness = spec.witness;
  const child = childProcess().spawn(spec.file, spec.args, {
    cwd: options.cwd,
    env: spec.env,
    // Its own process group: the whole tree can be signalled with kill(-pid). Under bwrap the group is
    // bwrap's; the command's tree lives in bwrap's pid namespace and dies with it (setsid cannot escape that).
    detached: true,
    // No stdin: a build that asks a question must fail, not hang.
    stdio: ['ignore', 'pipe', 'pipe'],
    windowsHide: true,
  });

  if (child.pid !== undefined) trackGroup(child.pid);

  const onData = (stream: 'stdout' | 'stderr') => (chunk: Buffer) => {
    logs.write(stream, chunk);
    tails[stream].push(chunk);
    tails.combined.push(chunk);
    if (options.onOutput) {
      try {
        options.onOutput({ stream, chunk });
      } catch {
        // A display callback must not break the run it displays.
      }
    }
  };
  child.stdout.on('data', onData('stdout'));
  child.stderr.on('data', onData('stderr'));

  const closed = new Promise<void>((resolve) => child.once('close', () => resolve()));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null } | { error: Error }>((resolve) => {
    child.once('exit', (code, signal) => resolve({ code, signal }));
    child.once('error', (error) => resolve({ error }));
  });

  let killTimer: NodeJS.Timeout | undefined;
  const terminate = () => {
    if (child.pid === undefined || killTimer) return;
    signalGroup(child.pid, 'SIGTERM');
    killTimer = setTimeout(() => child.pid !== undefined && signalGroup(child.pid, 'SIGKILL'), graceMs);
  };
  const timer =
    Number.isFinite(options.timeoutMs) && options.timeoutMs > 0
      ? setTimeout(() => {
          record.timed_out = true;
          terminate();
        }, options.timeoutMs)
      : undefined;
  const onAbort = () => {
    record.aborted = true;
    if (options.signal?.reason === END_AT_ONCE && child.pid !== undefined) signalGroup(child.pid, 'SIGKILL');
    else terminate();
  };
  options.signal?.addEventListener('abort', onAbort, { once: true });

  try {
    const outcome = await exited;
    if ('error' in outcome) {
      record.spawn_error = outcome.error.message;
    } else {
      record.exit_code = outcome.code;
      record.signal = outcome.signal;
    }
    if (child.pid !== undefined) {
      // The leader is gone; grandchildren (`sleep &`, a compiler server) may not be. End them too.
      record.leftovers = await reapGroup(child.pid, graceMs);
      liveGroups.delete(child.pid);
    }
    // Output still in the pipes arrives before 'close'; a descendant that escaped the group could hold them open.
    await settleWithin(closed, graceMs);
    child.stdout.destroy();
    child.stderr.destroy();
  } finally {
    clearTimeout(timer);
    clearTimeout(killTimer);
    options.signal?.removeEventListener('abort', onAbort);
  }
  return finish();
}

async function settleWithin(promise: Promise<void>, ms: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  await Promise.race([promise, new Promise<void>((resolve) => (timer = setTimeout(resolve, ms)))]);
  clearTimeout(timer);
}

function isDirectory(dir: string): boolean {
  try {
    return fs.statSync(dir).isDirectory();
  } catch {
    return false;
  }
}
