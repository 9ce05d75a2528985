/**
 * The guarded shell: what a hooked client's shell command (Claude Code's
 * Bash, Gemini CLI's run_shell_command) runs as, once the pre-tool hook has
 * rewritten it to `editwarden shell … -- '<command>'`. The same command
 * runner as `execute_command`: the OS sandbox (root writable, the protected
 * set read-only, secrets out of the environment, network per config), a
 * checkpoint of the workspace before it — kept as ONE undo step named by
 * the command line when the command changed files — its effects charged to
 * the client session's limits after it, changes to the files that govern
 * the agent put back, and one record in the root's event log (runs/hook-records.ts).
 *
 * The command's own stdout and stderr are passed through as they arrive,
 * unchanged; its exit code is this process's. editwarden speaks only on
 * stderr, only when it has something to say (a refusal, a put-back, a
 * note naming the sandbox rule a failure ran into), and always with a code and a hint.
 *
 * It must never run the command outside the sandbox unless the config lets
 * it, and never let effects over the session's limits stay: they are put
 * back (the native-edit hook refuses the same change before it lands).
 */
import fs from 'node:fs';
import { modelKeyEnvNames } from '../config/env-names.js';
import { ErrorCode, toErrorInfo, type ErrorInfo } from '../errors.js';
import { CommandEffects, type CommandEffectsResult } from '../guard/command-effects.js';
import { commandSandbox, outerSandboxLine, sandboxInForce, unsandboxedRefusal } from '../sandbox/for-workspace.js';
import { sandboxFailureNote } from '../sandbox/failure-note.js';
import { commandSpawnSpec, displayCommand } from '../verify/runner.js';
import { runSpawned, type CommandResult, type RunnableSpec, type SpawnedOptions } from '../verify/spawn-run.js';
import { WitnessFile } from '../sandbox/witness.js';
import type { RestoreResult } from '../workspace/checkpoints/types.js';
import { openProjectAt } from '../host/project-at.js';
import type { Project } from '../host/project.js';
import type { PolicyOptions } from '../workspace/policy.js';
import { guardFor, openLedger, sessionLimits, violationRefusal, type RunLimits, type SessionKey } from '../runs/ledger.js';
import { recordHookCommand, recordHookPutBack } from '../runs/hook-records.js';
import { networkNote } from './network-note.js';
import { withCommandNetwork } from '../verify/command-network.js';
import { notKeptLine } from '../workspace/checkpoints/ignored.js';
import type { WatchedTree } from '../workspace/checkpoints/watched-tree.js';
import { defined } from '../defined.js';
import os from 'node:os';
import { CLIENTS } from './index.js';
import { carryShellFolder } from './shell-cwd.js';

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
  /** Told as each stage ends (`opened`, `sandbox`, `before`, `ran`, `after`, `recorded`): where the time goes (bench/guarded-shell.mjs). */
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
    // Refused before it ran: still a line in the event log (a log that cannot be written changes nothing here).
    if (code === SHELL_NOT_RUN) recordHookCommand(req.root, route, req.tool, { command: req.command, exitCode: null, changes: [], checkpoint: null, refusal: error });
    return code;
  };
  let opened: Project;
  let config: Project['config'];
  try {
    // The Project every route opens (host/project.ts): its one protected set is bound read-only in the sandbox and put back after the command.
    opened = openProjectAt(req.root, { configFile: req.configFile, nestedSearch: io.warm?.nestedSearch });
    config = opened.config;
  } catch (error) {
    return refuse(toErrorInfo(error), SHELL_NOT_RUN);
  }
  io.mark?.('opened');
  const ws = opened.ws;
  let sandbox: ReturnType<typeof commandSandbox>;
  try {
    sandbox = commandSandbox(ws, config, { envDeny: modelKeyEnvNames() });
  } catch (error) {
    // The protected set could not be made concrete (a tree past the nested-repository search's bound): not run.
    return refuse(toErrorInfo(error), SHELL_NOT_RUN);
  }
  // Nobody approves each command of a hooked session: without a sandbox it would have the user's full rights.
  const inForce = sandboxInForce(sandbox);
  if (inForce === 'none' && !(config.sandbox?.allow_unsandboxed ?? false)) return refuse(unsandboxedRefusal(sandbox).toJSON(), SHELL_NOT_RUN);
  // Under another sandbox (outer.ts): what held the command, as judged before it ran.
  const outerLine = inForce === 'outer' ? outerSandboxLine(sandbox) : null;
  const cwd = isDirectory(req.cwd) ? req.cwd : ws.root;
  io.mark?.('sandbox');

  // A warm process's watched tree: a command that changes nothing is measured without a walk (watched-tree.ts).
  opened.transactions.checkpoints.tree = io.warm?.tree?.(ws.root) ?? null;
  const effects = new CommandEffects(opened.transactions.checkpoints);
  let mark: ReturnType<CommandEffects['before']>;
  try {
    mark = effects.before(`${req.client} ${req.tool}`, { command: req.command, client: req.client, tool: req.tool, ...defined({ session: req.session ? req.session.session : undefined }) });
  } catch (error) {
    // No checkpoint, no undo: the command is not run (fail closed).
    return refuse(toErrorInfo(error), SHELL_NOT_RUN);
  }
  io.mark?.('before');

  // The write witness sees which files the command's own processes changed (a person's edit in the same window is not its).
  const witness = new WitnessFile();
  // A client whose own shell keeps its folder (`cd sub`, then the next call runs in sub): so does this one (shell-cwd.ts).
  const carried = carryShellFolder(req.command, { ws, stateDir: ws.stateDir, session: req.session, carries: CLIENTS[req.client]?.shell?.carriesCwd === true, tmpDir: os.tmpdir() });
  const start = new Date().toISOString();
  let result: CommandResult;
  let found: CommandEffectsResult;
  try {
    const run = { command: carried.command, cwd, sandbox: carried.capture === null ? sandbox : { ...sandbox, writable: [...sandbox.writable, carried.capture] } };
    const display = displayCommand(carried.command);
    // A host-list network: the filtering proxy runs here while the command runs (in this process or the thin client's);
    // what it refuses goes to the event log as this route's (verify/command-network.ts).
    result = await withCommandNetwork(sandbox, { display, record: { stateDir: ws.stateDir, route, tool: req.tool } }, (proxySocket) => {
      const spec = commandSpawnSpec({ ...run, env: Object.fromEntries(modelKeyEnvNames().map((name) => [name, undefined])), witness: witness.path }, proxySocket);
      return (io.run ?? runSpawned)(spec, {
        display,
        cwd,
        timeoutMs: 0,
        onOutput: (e) => (e.stream === 'stdout' ? io.stdout(e.chunk) : io.stderr(e.chunk)),
        ...defined({ signal: io.signal }),
      });
    });
    io.mark?.('ran');
    const window = { start, end: new Date().toISOString() };
    const seen = { readOnly: result.sandbox === 'none' || result.sandbox === 'outer' ? [] : sandbox.readOnly, witness: result.witness ? witness.read(sandbox.root) : null, window };
    try {
      found = effects.after(mark, seen);
    } catch (error) {
      return refuse(toErrorInfo(error), SHELL_REFUSED, 'editwarden could not count what this command changed');
    }
    const moved = carried.settle(result.exit_code);
    if (moved !== null) say(`[editwarden] ${moved}`);
  } finally {
    witness.dispose();
    carried.dispose();
  }
  io.mark?.('after');
  const exitCode = result.exit_code ?? (result.spawn_error ? 127 : 128 + signalNumber(result.signal));
  // Ignored files it changed that undo cannot bring back (over a cap, a rebuildable folder): said at once, never silently missing.
  const notKept = notKeptLine(found.ignored.notKept);
  if (notKept !== null) say(`[editwarden] ${notKept}`);
  let refusal: ErrorInfo | null = null;
  if (found.governing.length > 0) {
    const v = guardFor({ constraints: config.constraints, guard: {} }).governingChanged(
      found.governing.map((g) => g.path),
      found.governing.filter((g) => !g.reverted).map((g) => g.path),
      { tool: req.tool },
    );
    refusal = { code: ErrorCode.DENIED_PATH, message: v.message, hint: v.hint };
  }
  const limits = chargeLimits(req, sessionLimits(opened), found, opened);
  let putBack: RestoreResult | null = null;
  if (limits) {
    // Over the session's limits: the command's changes are put back, as a native edit would have been refused before it landed.
    try {
      putBack = putBackCommand(opened, effects, found, req);
    } catch (error) {
      say(`editwarden could not put this command's changes back: ${toErrorInfo(error).message}`);
    }
    refusal = { ...limits, message: `${limits.message} ${putBackSentence(putBack, found)}` };
  }
  // The event log (`editwarden log` / `report`): the command, what it changed and the undo step that takes it back.
  const logged = recordHookCommand(ws.root, route, req.tool, {
    command: req.command,
    cwd,
    sandbox: result.sandbox,
    exitCode: result.exit_code,
    changes: found.changes,
    checkpoint: found.step,
    refusal,
    diff: found.diff,
    output: result.tail,
    putBack: found.governing.filter((g) => g.reverted).map((g) => g.path),
    reverted: putBack !== null,
  });
  if (logged) say(`editwarden could not log this command: ${logged.message}`);
  io.mark?.('recorded');
  if (refusal) return refuse(refusal, SHELL_REFUSED, `editwarden: the command ran (exit code ${exitCode}) but its effects were refused`);
  // Which sandbox held it, when it was not editwarden's own (outer.ts): said with every command, never assumed.
  if (result.sandbox === 'outer') say(`[editwarden] ${outerLine ?? 'this command ran under an outer sandbox.'}`);
  // Only the sandbox rule its output shows it ran into (a read-only path, no network), never a guess — of editwarden's own sandbox.
  // What the network proxy refused (a host list), else what the output shows the sandbox stopped.
  const note = networkNote(result.network_refused) ?? (exitCode !== 0 && (result.sandbox === 'bwrap' || result.sandbox === 'sandbox-exec') ? sandboxFailureNote(result.tail, sandbox.networkAccess.mode) : null);
  if (note !== null) say(note);
  return exitCode;
}

/**
 * Puts back what the command can be shown to have changed, through the one
 * restore primitive: what it overwrites is captured first and is an undo
 * step (`editwarden undo` right after brings the command's files back,
 * byte-exact, a person's write during the command with them). The
 * command's own step stays, under it. Files changed during the command that
 * its processes cannot be shown to have written are left as they are.
 */
function putBackCommand(opened: Project, effects: CommandEffects, found: CommandEffectsResult, req: ShellRequest): RestoreResult | null {
  const label = `put-back of ${req.client} ${req.tool}: ${req.command.replace(/\s+/g, ' ').trim().slice(0, 160)}`;
  const r = effects.putBack(found, label);
  if (r === null) return null;
  // The record shows it: which files, how many bytes, and the step that takes the put-back back.
  const route = { via: 'shell', client: req.client, ...defined({ session: req.session ? req.session.session : undefined }) };
  recordHookPutBack(opened.ws.root, route, label, r, found.unshown);
  return r;
}

function putBackSentence(putBack: RestoreResult | null, found: CommandEffectsResult): string {
  const left = found.unshown.length > 0 ? ` Left as they were (changed during the command, not shown to be its own): ${found.unshown.join(', ')}.` : '';
  if (putBack === null) return found.step === null || found.unshown.length > 0 ? `Nothing of it was put back.${left}` : 'Its changes could NOT be put back; run `editwarden undo`.';
  return `The command's file changes were put back (${putBack.written.length + putBack.removed.length} file(s)); \`editwarden undo\` brings them back.${left}`;
}

/** The command's effects against the session's limits (or this call's alone, without a session id); null when they fit. */
function chargeLimits(req: ShellRequest, limits: RunLimits, found: CommandEffectsResult, opened: Project): ErrorInfo | null {
  if (found.changes.length === 0) return null;
  const store = req.session ? { key: req.session, stateDir: opened.ws.stateDir, lock: opened.transactions.checkpoints.lock } : null;
  // The command already ran: its changes are charged after the fact (put back by the caller when they do not fit).
  const v = openLedger(limits, store).charge(found.changes, { tool: req.tool }, false);
  return v ? violationRefusal(v) : null;
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
