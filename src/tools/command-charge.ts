/**
 * The runner's capture and charge steps for a command call (tools/runner.ts
 * `execute` and `charge`): the workspace is marked before the command runs
 * (command-effects.ts: the index, the protected set, the ignored files) and
 * measured after it; what it changed is charged to the Run's ledger
 * (runs/ledger.ts), and the protected files it changed — already put back —
 * are its violation.
 *
 * A client's command (the guarded shell on the session's hook Run) is
 * charged to the same ledger — the session's, the one every route of the
 * session charges — after the fact; what the ledger refuses is put back
 * through the one restore primitive (its own undo step: `editwarden undo`
 * right after brings the command's files back), as the hook refuses a
 * native edit before it lands. Its undo step is named by the client and the
 * client's tool. Nothing here runs a command; the put-back's event is
 * written where the put-back is made.
 */
import { ErrorCode, toErrorInfo, type ErrorInfo } from '../errors.js';
import { commandSeen, commandStep, type CommandEffects, type CommandEffectsResult, type EffectsMark } from '../guard/command-effects.js';
import type { CheckSite, FileChange } from '../guard/constraints.js';
import type { Violation } from '../guard/violations.js';
import { recordHookPutBack } from '../runs/hook-records.js';
import { violationRefusal, type Ledger } from '../runs/ledger.js';
import type { ClientRun } from '../runs/run.js';
import { notKeptLine } from '../workspace/checkpoints/ignored.js';
import type { RestoreResult } from '../workspace/checkpoints/types.js';
import type { CommandOrigin } from '../workspace/checkpoints/steps.js';
import type { CommandEffectsRecord } from './calls.js';
import type { ToolResult } from './types.js';
import { defined } from '../defined.js';

/** What the charge step found: the changes charged, the violation (a run's) or refusal (a client's), and the record of its effects. */
export interface CommandCharge {
  changes: FileChange[];
  violation: Violation | null;
  /** A client's refusal (the protected set, the session's ledger): the call is refused, the session goes on. */
  refusal?: ErrorInfo;
  effects: CommandEffectsRecord;
  notKept?: string;
}

/** Whose command this is: the call as the caller names it (a client's `Bash`) and the run it belongs to. */
export interface CommandCall {
  /** The tool's name as the caller knows it (refusals and the undo step name it). */
  tool: string;
  args: unknown;
  runId: string;
  /** The call's index in its run. */
  index: number;
  /** A client's hook Run: whose command it is (absent: editwarden's own run). */
  client?: ClientRun | undefined;
  /** The client's session id (its undo step names it); null: none. */
  session: string | null;
  /** The call has a sink, which reports what it saw of the command's run (tools/command-sink.ts). */
  sunk?: boolean;
}

/** The mark before the command, with its undo step's label and origin: the client and its tool for a client's command, the tool and its call for a run's. */
export function commandMark(effects: CommandEffects, call: CommandCall): EffectsMark {
  const c = call.client;
  const seenElsewhere = call.sunk === true;
  if (!c) return effects.before(`${call.tool} (call ${call.index + 1} of run ${call.runId})`, commandStep(call.args, call.runId), seenElsewhere);
  const origin: Omit<CommandOrigin, 'kind'> = { command: commandStep(call.args, call.runId).command, client: c.client, tool: call.tool, ...defined({ session: call.session ?? undefined }) };
  return effects.before(`${c.client} ${call.tool}`, origin, seenElsewhere);
}

/** A run's command: what it changed; `.git/` and the config are a violation whatever the limits say (already undone). Not recorded in the ledger here. */
export function chargeCommand(effects: CommandEffects, ledger: Ledger, mark: EffectsMark, site: CheckSite, result: ToolResult | undefined): CommandCharge {
  const found = effects.after(mark, commandSeen(result, mark));
  let changes = found.changes;
  let violation = ledger.check(changes, site, false);
  if (found.governing.length > 0) {
    const notReverted = found.governing.filter((g) => !g.reverted).map((g) => g.path);
    violation = ledger.guard.governingChanged(
      found.governing.map((g) => g.path),
      notReverted,
      site,
    );
    changes = [...changes, ...found.governing.map((g) => ({ path: g.path, added: g.change === 'deleted' ? 0 : 1, removed: g.change === 'added' ? 0 : 1 }))];
  }
  return { changes, violation, effects: effectsRecord(found), ...defined({ notKept: notKeptLine(found.ignored.notKept) ?? undefined }) };
}

/**
 * A client's command: the protected files it changed (put back) refuse it with E_DENIED_PATH; its changes are
 * charged to the Run's ledger — the session's, or with no session id this call's own — after the fact, and what
 * the ledger refuses is put back.
 */
export function chargeClientCommand(effects: CommandEffects, ledger: Ledger, mark: EffectsMark, call: CommandCall & { client: ClientRun }, result: ToolResult | undefined, root: string): CommandCharge {
  const { tool } = call;
  const found = effects.after(mark, commandSeen(result, mark));
  let refusal: ErrorInfo | undefined;
  if (found.governing.length > 0) {
    const v = ledger.guard.governingChanged(
      found.governing.map((g) => g.path),
      found.governing.filter((g) => !g.reverted).map((g) => g.path),
      { tool },
    );
    refusal = { code: ErrorCode.DENIED_PATH, message: v.message, hint: v.hint };
  }
  // The command already ran: its changes are charged after the fact (put back below when they do not fit).
  const v = found.changes.length === 0 ? null : ledger.charge(found.changes, { tool }, false);
  let putBack: RestoreResult | null = null;
  let failed: string | undefined;
  if (v) {
    const over = violationRefusal(v);
    // Over the session's limits: the command's changes are put back, as a native edit would have been refused before it landed.
    try {
      putBack = putBackCommand(effects, found, call, root);
    } catch (error) {
      failed = toErrorInfo(error).message;
    }
    refusal = { ...over, message: `${over.message} ${putBackSentence(putBack, found)}` };
  }
  const notKept = notKeptLine(found.ignored.notKept) ?? undefined;
  // The guarded shell streams the command's output as it comes, so the not-kept line reaches the person from the record (shell.ts says it on stderr).
  const record: CommandEffectsRecord = { ...effectsRecord(found), ...defined({ reverted: putBack !== null ? true : undefined, put_back_failed: failed, not_kept: notKept }) };
  return { changes: found.changes, violation: null, effects: record, ...defined({ refusal, notKept }) };
}

function effectsRecord(found: CommandEffectsResult): CommandEffectsRecord {
  return { diff: found.diff, put_back: found.governing.filter((g) => g.reverted).map((g) => g.path), step: found.step, changes: found.changes, governing: found.governing };
}

/**
 * Puts back what the command can be shown to have changed, through the one
 * restore primitive: what it overwrites is captured first and is an undo
 * step (`editwarden undo` right after brings the command's files back,
 * byte-exact, a person's write during the command with them). The
 * command's own step stays, under it. Files changed during the command that
 * its processes cannot be shown to have written are left as they are.
 */
function putBackCommand(effects: CommandEffects, found: CommandEffectsResult, call: CommandCall & { client: ClientRun }, root: string): RestoreResult | null {
  const command = commandStep(call.args, call.runId).command;
  const label = `put-back of ${call.client.client} ${call.tool}: ${command.replace(/\s+/g, ' ').trim().slice(0, 160)}`;
  const r = effects.putBack(found, label);
  if (r === null) return null;
  // The record shows it: which files, how many bytes, and the step that takes the put-back back.
  recordHookPutBack(root, call.client.route, label, r, found.unshown);
  return r;
}

function putBackSentence(putBack: RestoreResult | null, found: CommandEffectsResult): string {
  const left = found.unshown.length > 0 ? ` Left as they were (changed during the command, not shown to be its own): ${found.unshown.join(', ')}.` : '';
  if (putBack === null) return found.step === null || found.unshown.length > 0 ? `Nothing of it was put back.${left}` : 'Its changes could NOT be put back; run `editwarden undo`.';
  return `The command's file changes were put back (${putBack.written.length + putBack.removed.length} file(s)); \`editwarden undo\` brings them back.${left}`;
}
