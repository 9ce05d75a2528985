/**
 * The guarded shell: what a hooked client's shell command (Claude Code's
 * Bash, Gemini CLI's run_shell_command) runs as, once the pre-tool hook has
 * rewritten it to `editwarden shell … -- '<command>'`. It is one call of the
 * same runner as every tool call: `execute_command` on the client session's
 * hook Run (hook-run.ts), with a streaming sink. The runner gates it, marks
 * the workspace before it (the checkpoint that becomes ONE undo step named
 * by the command line when the command changed files), has the tool prepare
 * it (the OS sandbox: root writable, the protected set read-only, secrets
 * out of the environment, network per config), measures and charges its
 * effects to the session's ledger after it — putting back the files that
 * govern the agent, and what the ledger refuses — and records it (its one
 * event in the root's log, runs/hook-records.ts, written by this module's
 * `recordCommand` from the runner's record step). This module only
 * translates: the client's request into the call, the sink that runs the
 * command the client's way, and the runner's answer into words and an exit code.
 *
 * The sink: the command's own stdout and stderr are passed through as they
 * arrive, unchanged; it runs in the client's folder under the write witness
 * (carrying the folder to the next call as the client's own shell does,
 * shell-cwd.ts) — in this process, or in the thin client's (the warm
 * server's route, cli/hook-shell.ts: `io.run`); its exit code is this
 * process's. editwarden speaks only on stderr, only when it has something to
 * say (a refusal, a put-back, a note naming the sandbox rule a failure ran
 * into), and always with a code and a hint.
 *
 * It must never run the command outside the sandbox unless the config lets
 * it, and never let effects over the session's limits stay: they are put
 * back (the native-edit hook refuses the same change before it lands).
 */
import fs from 'node:fs';
import os from 'node:os';
import { ErrorCode, toErrorInfo, type ErrorInfo } from '../errors.js';
import { outerSandboxLine, sandboxInForce } from '../sandbox/for-workspace.js';
import { sandboxFailureNote } from '../sandbox/failure-note.js';
import type { SandboxPolicy } from '../sandbox/policy.js';
import { WitnessFile } from '../sandbox/witness.js';
import { commandSpawnSpec, displayCommand } from '../verify/runner.js';
import { runSpawned, type CommandResult, type RunnableSpec, type SpawnedOptions } from '../verify/spawn-run.js';
import { withCommandNetwork } from '../verify/command-network.js';
import type { EventRoute } from '../runs/events.js';
import { openProjectAt } from '../host/project-at.js';
import type { Project } from '../host/project.js';
import type { CommandSink } from '../tools/command-sink.js';
import { executeCommandTool } from '../tools/execute-command.js';
import type { CallRecord } from '../tools/runner.js';
import type { WatchedTree } from '../workspace/checkpoints/watched-tree.js';
import type { PolicyOptions } from '../workspace/policy.js';
import type { SessionKey } from '../runs/ledger.js';
import { hookRunner } from './hook-run.js';
import { recordHookCommand } from '../runs/hook-records.js';
import { networkNote } from './network-note.js';
import { CLIENTS } from './index.js';
import { carryShellFolder } from './shell-cwd.js';
import { defined } from '../defined.js';
import { appendAll } from '../arrays.js';

export interface ShellRequest {
  root: string;
  /** The client's working folder for this command (the hook input's cwd). */
  cwd: string;
  command: string;
  client: string;
  /** The client's tool (Bash, run_shell_command), for the undo label and the record. */
  tool: string;
  session: SessionKey | null;
  /** An explicit config file (`--config`, absolute): loaded instead of .editwarden.yml and protected with it. */
  configFile?: string;
}

export interface ShellIo {
  stdout(chunk: Buffer): void;
  stderr(chunk: Buffer): void;
  /** Aborted when the client stops the command (its timeout, Ctrl-C): the whole sandboxed tree is ended. */
  signal?: AbortSignal;
  /**
   * Where the prepared command (its sandbox's argument vector, environment and witness) runs and is waited for:
   * here by default (spawn-run.ts). The warm server's route hands it to the thin client that asked
   * (cli/hook-shell.ts), which runs it in the client's own process with this same function and hands the end back.
   */
  run?: (spec: RunnableSpec, options: SpawnedOptions) => Promise<CommandResult>;
  /** What a warm process keeps for the project between commands (cli/hook-projects.ts); absent: nothing is kept. */
  warm?: { nestedSearch: NonNullable<PolicyOptions['nestedSearch']>; tree?: (realRoot: string) => WatchedTree | null };
  /** Told as each stage ends (`opened`; `before`: the runner's mark and the tool's sandbox, the command about to start; `ran`; `after`: the runner's capture and charge; `recorded`): where the time goes (bench/guarded-shell.mjs). */
  mark?: (stage: string) => void;
}

/** What the process exits with: the command's own code, or 1 (not run) / 2 (effects refused) with the refusal on stderr. */
const SHELL_NOT_RUN = 1;
const SHELL_REFUSED = 2;

export async function runGuardedShell(req: ShellRequest, io: ShellIo): Promise<number> {
  const say = (text: string): void => io.stderr(Buffer.from(text.endsWith('\n') ? text : `${text}\n`));
  const route = { via: 'shell', client: req.client, ...defined({ session: req.session ? req.session.session : undefined }) };
  const refuse = (error: ErrorInfo, code: number, what = 'editwarden refused this command'): number => {
    say(`${what}: ${error.code}: ${error.message}\nhint: ${error.hint}`);
    return code;
  };
  let opened: Project;
  try {
    // The Project every route opens (host/project.ts): its one protected set is bound read-only in the sandbox and put back after the command.
    opened = openProjectAt(req.root, { configFile: req.configFile, nestedSearch: io.warm?.nestedSearch });
  } catch (error) {
    // Refused before it ran: still a line in the event log (a log that cannot be written changes nothing here).
    const info = toErrorInfo(error);
    recordHookCommand(req.root, route, req.tool, { command: req.command, exitCode: null, changes: [], checkpoint: null, refusal: info });
    return refuse(info, SHELL_NOT_RUN);
  }
  io.mark?.('opened');
  const ws = opened.ws;
  // A warm process's watched tree: a command that changes nothing is measured without a walk (watched-tree.ts).
  opened.transactions.checkpoints.tree = io.warm?.tree?.(ws.root) ?? null;
  const cwd = isDirectory(req.cwd) ? req.cwd : ws.root;
  // A client whose own shell keeps its folder (`cd sub`, then the next call runs in sub): so does this one (shell-cwd.ts).
  const carried = carryShellFolder(req.command, { ws, stateDir: ws.stateDir, session: req.session, carries: CLIENTS[req.client]?.shell?.carriesCwd === true, tmpDir: os.tmpdir() });
  // The write witness sees which files the command's own processes changed (a person's edit in the same window is not its).
  const witness = new WitnessFile();
  const said: string[] = [];
  let ran: Ran | null = null;
  let record: CallRecord;
  try {
    const sink: CommandSink = {
      // Nobody approves each command of a hooked session: without a sandbox it would have the user's full rights.
      unattended: true,
      run: async ({ sandbox, env, signal }) => {
        io.mark?.('before');
        // Under another sandbox (outer.ts): what held the command, as judged before it ran.
        const outerLine = sandboxInForce(sandbox) === 'outer' ? outerSandboxLine(sandbox) : null;
        const run = { command: carried.command, cwd, sandbox: carried.capture === null ? sandbox : { ...sandbox, writable: [...sandbox.writable, carried.capture] } };
        const display = displayCommand(carried.command);
        const start = new Date().toISOString();
        // A host-list network: the filtering proxy runs here while the command runs (in this process or the thin client's);
        // what it refuses goes to the event log as this route's (verify/command-network.ts).
        const result = await withCommandNetwork(sandbox, { display, record: { stateDir: ws.stateDir, route, tool: req.tool } }, (proxySocket) => {
          const spec = commandSpawnSpec({ ...run, env, witness: witness.path }, proxySocket);
          return (io.run ?? runSpawned)(spec, { display, cwd, timeoutMs: 0, onOutput: (e) => (e.stream === 'stdout' ? io.stdout(e.chunk) : io.stderr(e.chunk)), signal });
        });
        io.mark?.('ran');
        ran = { result, sandbox, outerLine };
        const window = { start, end: new Date().toISOString() };
        return { result, seen: { readOnly: result.sandbox === 'none' || result.sandbox === 'outer' ? [] : sandbox.readOnly, witness: result.witness ? witness.read(sandbox.root) : null, window } };
      },
    };
    const runner = hookRunner(
      opened,
      {
        route,
        client: req.client,
        session: req.session,
        record: (done) => {
          io.mark?.('after');
          appendAll(said, recordCommand(opened, req, { route, cwd, ran, record: done }));
        },
      },
      [executeCommandTool],
    );
    record = await runner.call({ tool: 'execute_command', args: { command: req.command }, sink, shownAs: req.tool, ...defined({ signal: io.signal }) });
  } finally {
    witness.dispose();
  }
  const end = ran as Ran | null;
  if (end === null) {
    carried.dispose();
    // Not run (no sandbox where one is required, no checkpoint, the protected set not concrete): refused, recorded by the runner.
    return refuse(record.error ?? { code: ErrorCode.INTERNAL, message: 'the command did not run.', hint: 'Run it again.' }, SHELL_NOT_RUN);
  }
  const fx = record.effects;
  if (fx === undefined) {
    carried.dispose();
    return refuse(record.error ?? { code: ErrorCode.INTERNAL, message: 'its effects were not measured.', hint: 'Look at git status.' }, SHELL_REFUSED, 'editwarden could not count what this command changed');
  }
  const { result, sandbox, outerLine } = end;
  try {
    const moved = carried.settle(result.exit_code);
    if (moved !== null) say(`[editwarden] ${moved}`);
  } finally {
    carried.dispose();
  }
  const exitCode = result.exit_code ?? (result.spawn_error ? 127 : 128 + signalNumber(result.signal));
  // Ignored files it changed that undo cannot bring back (over a cap, a rebuildable folder): said at once, never silently missing.
  if (fx.not_kept !== undefined) say(`[editwarden] ${fx.not_kept}`);
  if (fx.put_back_failed !== undefined) say(`editwarden could not put this command's changes back: ${fx.put_back_failed}`);
  for (const line of said) say(line);
  io.mark?.('recorded');
  if (record.status === 'refused' && record.error) return refuse(record.error, SHELL_REFUSED, `editwarden: the command ran (exit code ${exitCode}) but its effects were refused`);
  // Which sandbox held it, when it was not editwarden's own (outer.ts): said with every command, never assumed.
  if (result.sandbox === 'outer') say(`[editwarden] ${outerLine ?? 'this command ran under an outer sandbox.'}`);
  // Only the sandbox rule its output shows it ran into (a read-only path, no network), never a guess — of editwarden's own sandbox.
  // What the network proxy refused (a host list), else what the output shows the sandbox stopped.
  const note = networkNote(result.network_refused) ?? (exitCode !== 0 && (result.sandbox === 'bwrap' || result.sandbox === 'sandbox-exec') ? sandboxFailureNote(result.tail, sandbox.networkAccess.mode) : null);
  if (note !== null) say(note);
  return exitCode;
}

/** How the command ran, as the sink saw it. */
interface Ran {
  result: CommandResult;
  sandbox: SandboxPolicy;
  outerLine: string | null;
}

/**
 * The runner's record of one guarded command (its record step calls this, the session's record): its one event
 * (`editwarden log` / `report`: the command, its folder and sandbox, what it changed and the undo step that takes it
 * back; runs/hook-view.ts reads it back as the hooks' record). A command that did not run is an event with no exit code; one whose effects
 * could not be counted is not recorded. Returns what could not be written, to be said.
 */
function recordCommand(opened: Project, req: ShellRequest, call: { route: EventRoute; cwd: string; ran: Ran | null; record: CallRecord }): string[] {
  const { route, ran, record } = call;
  const ws = opened.ws;
  if (ran === null) {
    recordHookCommand(ws.root, route, req.tool, { command: req.command, exitCode: null, changes: [], checkpoint: null, refusal: record.error ?? null });
    return [];
  }
  const fx = record.effects;
  if (fx === undefined) return [];
  const { result } = ran;
  const refusal = record.status === 'refused' ? (record.error ?? null) : null;
  const failures: string[] = [];
  const logged = recordHookCommand(ws.root, route, req.tool, {
    command: req.command,
    cwd: call.cwd,
    sandbox: result.sandbox,
    exitCode: result.exit_code,
    changes: fx.changes ?? [],
    checkpoint: fx.step,
    refusal,
    diff: fx.diff,
    output: result.tail,
    putBack: fx.put_back,
    reverted: fx.reverted === true,
  });
  if (logged) failures.push(`editwarden could not log this command: ${logged.message}`);
  return failures;
}

function isDirectory(p: string): boolean {
  try {
    return fs.statSync(p).isDirectory();
  } catch {
    return false;
  }
}

const SIGNALS: Record<string, number> = { SIGHUP: 1, SIGINT: 2, SIGQUIT: 3, SIGKILL: 9, SIGTERM: 15, SIGPIPE: 13 };
function signalNumber(signal: string | null): number {
  return signal ? (SIGNALS[signal] ?? 1) : 1;
}
