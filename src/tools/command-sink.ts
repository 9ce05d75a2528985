/**
 * A command call's sink: how the command that `execute_command` prepared
 * (its folder, its sandbox, its environment) is run when the caller runs it
 * its own way. The guarded shell (integrations/shell.ts) is one: the
 * client's command streams its stdout and stderr through as they arrive,
 * unchanged, runs in the client's folder under the write witness — in the
 * warm server's route, in the thin client's own process — and keeps its exit
 * code. The sink only runs the command: the gate before it, the checkpoint
 * around it, the charge, put-back and record after it are the runner's, as
 * for every call. Without a sink, execute_command runs the command here
 * (verify/runner.ts) with its timeout and keeps its logs as artifacts.
 */
import type { CommandSeen } from '../guard/command-effects.js';
import type { SandboxPolicy } from '../sandbox/policy.js';
import type { CommandResult } from '../verify/spawn-run.js';

/** The command as execute_command prepared it: what runs, where, in which sandbox, with which environment changes. */
interface PreparedCommand {
  command: string;
  /** The folder the tool resolved from its `cwd` argument (absolute, inside the root). */
  cwd: string;
  sandbox: SandboxPolicy;
  /** Set over the allowlisted environment; undefined removes a variable (the model's API keys). */
  env: Record<string, string | undefined>;
  /** The call's stop: its deadline, the run's or the call's cancellation. */
  signal: AbortSignal;
}

export interface CommandSink {
  /** Runs the prepared command; how it ended, and what was seen of its run for the charge step (its witness, its window). */
  run(prepared: PreparedCommand): Promise<{ result: CommandResult; seen?: CommandSeen }>;
  /**
   * Nobody approves each command (a hooked client's session): a command with no sandbox, which would have the user's
   * full rights, is refused in any mode unless the config allows it — as a headless run refuses it.
   */
  unattended?: boolean;
}
