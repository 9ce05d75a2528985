/**
 * The command runner: one command (a shell string or an argv) in its own
 * process group, with a timeout, output streamed to log files and only a
 * bounded tail kept in memory. Success is the exit code — this module never
 * looks at what the output says. It must never leave a process of the group
 * running when it returns, and never buffer unbounded output.
 *
 * Used by the verifier, controlled-edit mode, execute_command and the editor:
 * every command editwarden runs starts here, inside the OS sandbox the caller's
 * policy describes (src/sandbox), with the environment allowlist applied
 * whether a sandbox exists or not. The spawn and the wait are spawn-run.ts
 * (Node's built-ins only, so the guarded shell's thin client runs them too).
 */
import { sandboxedSpawn, witnessedSpawn, type CommandSandbox } from '../sandbox/spawn.js';
import { runSpawned, type CommandRecord, type CommandResult, type OutputEvent, type RunnableSpec } from './spawn-run.js';
import { withCommandNetwork, type NetworkRecord } from './command-network.js';
import { defined } from '../defined.js';

export type { CommandSandbox } from '../sandbox/spawn.js';
export type { CommandRecord, CommandResult, OutputEvent, RunnableSpec } from './spawn-run.js';

export interface RunCommandOptions {
  /** A string runs through `/bin/sh -c`; an array runs that program with those arguments, no shell. */
  command: string | readonly string[];
  cwd: string;
  /** Wall-clock limit; 0 or Infinity for none. */
  timeoutMs: number;
  /** Between SIGTERM and SIGKILL (default 2000 ms). */
  graceMs?: number;
  /**
   * The sandbox policy (src/sandbox commandSandbox), or 'none'. Required, so
   * no caller can forget it: a policy is the default of every real caller.
   */
  sandbox: CommandSandbox;
  /** Set over the allowlisted environment (never the whole process.env); a value of undefined removes the variable. */
  env?: Record<string, string | undefined>;
  /** Folder for stdout.log, stderr.log, combined.log and result.json (created if missing). */
  artifactDir?: string;
  /** Lines kept in memory per stream (default 200). */
  tailLines?: number;
  /** Every chunk as it arrives (for a live status line). Exceptions thrown here are ignored. */
  onOutput?: (event: OutputEvent) => void;
  /** Aborting ends the command like a timeout does. */
  signal?: AbortSignal;
  /**
   * A file for the write witness's log (sandbox/witness.ts): a sandboxed
   * command then runs under it, and `witness` in the result says so. Outside
   * every root the command may write.
   */
  witness?: string;
  /**
   * Where the connections the network proxy refuses are recorded (a policy whose network is a host list):
   * the root's event log, as this route and tool. Without it they are only in the result (`network_refused`).
   */
  networkRecord?: NetworkRecord;
}

/** Whether a run passed: exit code 0, in time. Nothing else counts. */
export function commandPassed(result: CommandRecord): boolean {
  return result.exit_code === 0 && !result.timed_out && !result.aborted;
}

/** The shell spelling of an argv, for logs and reports. */
export function displayCommand(command: string | readonly string[]): string {
  if (typeof command === 'string') return command;
  return command.map((a) => (/^[\w@%+=:,./-]+$/.test(a) ? a : `'${a.replace(/'/g, `'\\''`)}'`)).join(' ');
}

function commandArgv(command: string | readonly string[]): string[] {
  if (typeof command !== 'string') {
    if (command.length === 0) throw new TypeError('runCommand: empty argv');
    return [...command];
  }
  if (process.platform === 'win32') return [process.env.ComSpec ?? 'cmd.exe', '/d', '/s', '/c', command];
  return ['/bin/sh', '-c', command];
}

/**
 * The program, arguments and environment `options` run as: wrapped in its sandbox, and under the write witness when one is asked for and usable.
 * `proxySocket`: the filtering proxy a host-list network reaches (command-network.ts `withCommandNetwork` starts it); without it, no network.
 */
export function commandSpawnSpec(options: Pick<RunCommandOptions, 'command' | 'cwd' | 'sandbox' | 'env' | 'witness'>, proxySocket: string | null = null): RunnableSpec {
  const plain = sandboxedSpawn(commandArgv(options.command), options.cwd, options.sandbox, options.env, undefined, proxySocket);
  const witnessed = options.witness === undefined ? null : witnessedSpawn(plain, options.witness);
  return witnessed === null ? plain : { ...witnessed, witness: 'strace' };
}

export async function runCommand(options: RunCommandOptions): Promise<CommandResult> {
  const display = displayCommand(options.command);
  // A host-list network: the filtering proxy runs for the length of the command (none running: no network at all).
  return withCommandNetwork(options.sandbox, { display, ...defined({ record: options.networkRecord }) }, (proxySocket) =>
    runSpawned(commandSpawnSpec(options, proxySocket), {
      display,
      cwd: options.cwd,
      timeoutMs: options.timeoutMs,
      ...defined({ graceMs: options.graceMs, artifactDir: options.artifactDir, tailLines: options.tailLines, onOutput: options.onOutput, signal: options.signal }),
    }),
  );
}
