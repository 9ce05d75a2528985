/**
 * controlled mode's one tool: `edit_file` backed by the ControlledEditSession
 * (checkpoint → replace → build → rollback on failure → stop) — the same
 * object `editwarden controlled-edit` uses — registered in the ToolRunner so
 * the call still passes the constraint gate (paths, limits) and is recorded
 * like any other. The call is planned once (the change pipeline's `plan`):
 * the gate sees that plan, and the session commits that same plan — or, when
 * it refuses, answers with its own refusal and report — without planning it
 * a second time.
 */
import { plan, type Plan } from '../apply/pipeline.js';
import { ExitCode, formatRefusal } from '../errors.js';
import type { RunOutcome } from '../runs/outcome.js';
import type { AfterCall } from './loop/after-call.js';
import type { ControlledEditOutcome, ControlledEditSession } from './controlled.js';
import { EditFileArgsSchema, editRequestFromArgs } from '../edit/request-json.js';
import { editFileTool } from '../tools/edit-file.js';
import { defineTool, Invocation, type AnyTool, type Preparation, type ToolResult } from '../tools/types.js';

export interface ControlledTool {
  tool: AnyTool;
  /** The session's outcome of the last edit_file call, if there was one. */
  outcome(): ControlledEditOutcome | undefined;
  /** An edit_file call whose arguments are not JSON (or fail the schema): the session answers it, as the design's router does. */
  malformed(rawArguments: string): Promise<{ output: string; outcome: ControlledEditOutcome }>;
  /** Controlled mode in the loop: a malformed edit_file is the attempt; the run stops once the session has ended. */
  afterCall: AfterCall;
}

/** The run's ending once the session is over: design 000's tool exit codes (0 success, 2 build failed and rolled back, else refused). */
function controlledEnding(outcome: ControlledEditOutcome): RunOutcome {
  const code = outcome.tool_exit_code;
  return { status: 'controlled', reason: outcome.message, exit_code: code === 0 ? ExitCode.OK : code === 2 ? ExitCode.VERIFY_FAILED : ExitCode.REJECTED };
}

/** What the model (and the transcript) reads about the edit and its build. */
function describeOutcome(outcome: ControlledEditOutcome): string {
  // The design's message is the first line; its tool exit code the second.
  const lines = [outcome.message, `tool exit code: ${outcome.tool_exit_code}`];
  if (outcome.result?.diff) lines.push(outcome.result.diff.trimEnd());
  const v = outcome.verification;
  if (v) {
    lines.push(`build: ${v.command} → ${v.passed ? 'PASSED' : 'FAILED'} (exit ${v.exit_code ?? 'none'}${v.timed_out ? ', timed out' : ''})`);
    for (const d of v.diagnostics.filter((x) => x.severity === 'error').slice(0, 5)) {
      lines.push(`  ${d.file ?? ''}${d.line ? `:${d.line}` : ''}${d.column ? `:${d.column}` : ''}: ${d.message}`);
    }
  }
  if (outcome.rollback_check) lines.push(`rollback: ${outcome.rollback_check.exact ? 'the file is byte-identical to before the edit' : 'the file DIFFERS from before the edit'}`);
  if (outcome.error) lines.push(formatRefusal(outcome.error));
  if (outcome.ended) lines.push('The controlled session is over: no further edit is accepted.');
  return lines.join('\n');
}

export function controlledEditTool(session: ControlledEditSession): ControlledTool {
  let last: ControlledEditOutcome | undefined;
  const editOnce = async (args: unknown, signal: AbortSignal, planned: Plan | undefined): Promise<ToolResult> => {
    const outcome = await session.editFile(args, signal, planned);
    last = outcome;
    const kept = outcome.tool_exit_code === 0 && outcome.result;
    return {
      ok: outcome.tool_exit_code === 0,
      output: describeOutcome(outcome),
      data: outcome,
      ...(outcome.error ? { error: outcome.error } : {}),
      // A rolled-back edit changed nothing that remains.
      changes: kept && outcome.result ? [{ path: outcome.result.path, added: outcome.result.added, removed: outcome.result.removed }] : [],
      endsRun: outcome.ended,
    };
  };
  const tool = defineTool({
    name: 'edit_file',
    kind: 'write',
    description:
      'Make the ONE edit of this controlled session: {"filename", "old_text", "new_text"} — old_text copied exactly and unique in the file. The project is built right after; a failed build restores the file; the session then ends.',
    schema: EditFileArgsSchema,
    async prepare(args, ctx): Promise<Preparation> {
      // The one plan is shown and gated; the session commits it (or refuses, with its own message and report) — it does not plan again.
      let planned: Plan | undefined;
      try {
        planned = await plan(ctx.ws, [editRequestFromArgs(args, { format: 'tool', index: 0 })], ctx.apply);
      } catch {
        // Arguments the request parser refuses (or a plan that throws): the session refuses them itself, with its own message.
        planned = undefined;
      }
      const shown = planned?.outcome.ok ? { changes: planned.changes, diff: planned.outcome.diff } : {};
      return { ok: true, invocation: new Invocation(() => editOnce(args, ctx.signal, planned), shown) };
    },
  });
  const malformed = async (rawArguments: string): Promise<{ output: string; outcome: ControlledEditOutcome }> => {
    let parsed: unknown;
    let reason: string | null = null;
    try {
      parsed = JSON.parse(rawArguments);
    } catch (error) {
      reason = (error as Error).message;
    }
    // Valid JSON that failed the schema still goes through the session (missing fields, second edit…); the schema refuses it there before anything is written.
    const outcome = reason === null ? await session.editFile(parsed) : session.invalidJson(reason);
    last = outcome;
    return { output: describeOutcome(outcome), outcome };
  };
  return {
    tool,
    outcome: () => last,
    malformed,
    async afterCall(seen) {
      // Controlled Edit Mode v1: the attempt counts whatever its arguments; the session answers it and ends.
      const answer = seen.malformed && seen.call.name === editFileTool.name ? (await malformed(seen.call.arguments)).output : undefined;
      const withAnswer = answer !== undefined ? { answer } : {};
      return last?.ended ? { next: 'stop', ending: controlledEnding(last), ...withAnswer } : { next: 'continue', ...withAnswer };
    },
  };
}
