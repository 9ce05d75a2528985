/**
 * The agent loop: messages → model → tool calls → ToolRunner (constraints,
 * approvals, record) → results back to the model → … until task_completion,
 * a violation, a stop condition or a budget. Reported usage is charged to
 * the runner's token budget after every turn, before the turn's calls run.
 *
 * What the loop owns: the conversation, malformed calls (bad JSON, unknown
 * tool, bad arguments — returned to the model as errors it can fix, and
 * counted), the stop on 3 identical failing calls in a row, active-edit
 * directives (parsed while the text streams, applied through the runner),
 * and the transcript of the turns. What it never does: run a tool itself,
 * check a constraint itself, write a project file (the runner and the
 * workspace do), or know which mode it serves: a mode speaks through one
 * extension point, `afterCall` (loop/after-call.ts), and the run's closer —
 * not the loop — writes the transcript's end line from the final outcome.
 */
import { ExitCode, type ErrorInfo, formatRefusal } from '../errors.js';
import type { Violation } from '../guard/violations.js';
import { exportToolSchemas } from '../tools/registry.js';
import type { CallRecord, ToolRunner } from '../tools/runner.js';
import type { RunOutcome, RunStatus } from '../runs/outcome.js';
import type { AfterCall } from './loop/after-call.js';
import { DIRECTIVE_TOOL, DirectiveCollector, type Directive } from './loop/active-edits.js';
import { callKey, checkCall, REPEAT_LIMIT, RepeatTracker } from './loop/calls.js';
import { describeCall } from '../tools/call-views.js';
import { AgentError, AgentErrorCode } from './providers/errors.js';
import type { ChatMessage, ModelProvider, ModelToolCall, ModelTurn, ToolResultMessage, ToolSpec } from './providers/types.js';
import type { TranscriptSink } from './transcript.js';
import { taskCompletionTool } from '../tools/control.js';

/** How the loop itself ends a run (an `afterCall` stop names its own status: runs/outcome.ts has every one). */
export type AgentStatus = Extract<RunStatus, 'completed' | 'violation' | 'stuck' | 'no-completion' | 'turn-limit' | 'interrupted' | 'quit' | 'provider-error'>;

/** The exit code of a run per how it ended (DESIGN.md); the numbers are errors.ts's ExitCode, the one table. */
export function exitCodeForStatus(status: AgentStatus, detail: { completion?: string } = {}): ExitCode {
  switch (status) {
    case 'completed':
      return detail.completion === undefined || detail.completion === 'done' ? ExitCode.OK : ExitCode.REJECTED;
    case 'violation':
      return ExitCode.CONSTRAINT;
    case 'stuck':
    case 'turn-limit':
      return ExitCode.HARD_STOP;
    case 'no-completion':
    case 'quit':
    case 'provider-error':
      return ExitCode.REJECTED;
    case 'interrupted':
      return ExitCode.INTERRUPTED;
    default: {
      const never: never = status;
      return never;
    }
  }
}

/** Everything the loop reports while it runs, for a live transcript. */
export type AgentEvent =
  | { type: 'turn-start'; turn: number }
  | { type: 'text'; delta: string }
  | { type: 'tool-call-streaming'; name: string }
  | { type: 'turn-end'; turn: number; text: string; toolCalls: ModelToolCall[]; usage: ModelTurn['usage'] }
  | { type: 'directive'; directive: Directive }
  | { type: 'call-start'; tool: string; description: string; source: 'tool-call' | 'active-edit' }
  | { type: 'call-end'; tool: string; description: string; status: string; output: string; error?: ErrorInfo; record?: CallRecord }
  | { type: 'violation'; violation: Violation }
  /** How the run ended, as every record names it (the Editor sends its own status here). */
  | { type: 'stop'; status: string; reason: string };

export interface AgentRunOptions {
  provider: ModelProvider;
  /** The run's runner: every call goes through it, and its workspace is what active edits are parsed against. */
  runner: ToolRunner;
  task: string;
  system: string;
  /** Tool names offered to the model (their schemas come from the runner's registry). */
  tools: readonly string[];
  activeEdit: boolean;
  transcript: TranscriptSink;
  signal?: AbortSignal;
  onEvent?: (event: AgentEvent) => void;
  limits?: LoopLimits;
  /** The one extension point: how a mode reads each call and ends the run (loop/after-call.ts). Default: continue. */
  afterCall?: AfterCall;
  /** A person at the other end (interactive mode). */
  person?: LoopPerson;
}

export interface LoopLimits {
  /** Model requests before the run stops (default 50). */
  maxTurns?: number;
  maxOutputTokens?: number;
}

export interface LoopPerson {
  /** Asked when the model replies without a tool call; null or "" ends the run. */
  followUp?: (text: string) => Promise<string | null>;
  /** Set when the person chose "quit" at an approval prompt. */
  quitRequested?: () => boolean;
}

/**
 * How the run ended, as the loop saw it. `status`, `reason` and `exitCode` are the loop's own verdict, or the
 * ending an `afterCall` stop gave; the run's closer may still judge the run differently (the Editor does), and
 * writes the transcript's end line from whatever it settles on (`endTranscript`).
 */
export interface AgentOutcome {
  status: RunStatus;
  reason: string;
  exitCode: number;
  turns: number;
  usage: { input: number; output: number; estimated: boolean };
  toolCalls: number;
  malformedCalls: number;
  activeEdits: { applied: number; failed: number };
  completion?: { summary: string; status: string };
  violation?: Violation;
  error?: ErrorInfo;
}

/** The transcript's end line and the stop event, from the run's final outcome: written once, by whoever closes the run. */
export function endTranscript(transcript: TranscriptSink, outcome: RunOutcome, onEvent?: (event: AgentEvent) => void): void {
  transcript.write({ type: 'end', status: outcome.status, reason: outcome.reason, exit_code: outcome.exit_code });
  try {
    onEvent?.({ type: 'stop', status: outcome.status, reason: outcome.reason });
  } catch {
    // A display must not break the run it displays.
  }
}

/** Text-only replies in a row (headless) before the run stops without completion. */
const MAX_SILENT_TURNS = 2;

const NUDGE = 'You replied without calling a tool. Continue the task with tool calls, or call task_completion if it is done (or cannot be done).';

export async function runAgent(options: AgentRunOptions): Promise<AgentOutcome> {
  const { provider, runner, transcript } = options;
  const emit = (event: AgentEvent): void => {
    try {
      options.onEvent?.(event);
    } catch {
      // A display must not break the run it displays.
    }
  };
  const specs: ToolSpec[] = exportToolSchemas(runner.registry.list(), options.tools);
  const messages: ChatMessage[] = [{ role: 'user', content: options.task }];
  transcript.write({ type: 'user', content: options.task });
  const repeats = new RepeatTracker();
  const maxTurns = options.limits?.maxTurns ?? 50;
  const maxOutputTokens = options.limits?.maxOutputTokens;
  const afterCall: AfterCall = options.afterCall ?? (() => ({ next: 'continue' }));
  const stats = { turns: 0, toolCalls: 0, malformed: 0, input: 0, output: 0, estimated: false, aeApplied: 0, aeFailed: 0 };
  let silentTurns = 0;

  /** The outcome of the loop's own ending (its exit code from exitCodeForStatus), or of the ending an afterCall stop gave. */
  const finish = (stop: Stop, extra: Partial<AgentOutcome> = {}): AgentOutcome => {
    const completion = completionOf(runner);
    const ending: RunOutcome = 'ending' in stop ? stop.ending : { status: stop.status, reason: stop.reason, exit_code: exitCodeForStatus(stop.status, completion ? { completion: completion.status } : {}) };
    return {
      status: ending.status,
      reason: ending.reason,
      exitCode: ending.exit_code,
      turns: stats.turns,
      usage: { input: stats.input, output: stats.output, estimated: stats.estimated },
      toolCalls: stats.toolCalls,
      malformedCalls: stats.malformed,
      activeEdits: { applied: stats.aeApplied, failed: stats.aeFailed },
      ...(completion ? { completion } : {}),
      ...(runner.violation ? { violation: runner.violation } : {}),
      ...extra,
    };
  };
  const violationStop = (v: Violation): AgentOutcome => {
    emit({ type: 'violation', violation: v });
    return finish(own('violation', v.message));
  };
  const interrupted = (): AgentOutcome => finish(own('interrupted', 'Interrupted (Ctrl-C): stopped before the next step; the work so far is kept.'));

  for (;;) {
    if (options.signal?.aborted) return interrupted();
    if (stats.turns >= maxTurns) return finish(own('turn-limit', `The run reached ${maxTurns} model turns without finishing (--max-turns).`));
    const turnNo = ++stats.turns;
    emit({ type: 'turn-start', turn: turnNo });

    // 1. One model turn, streamed; active-edit directives are recognised as the text arrives.
    const collector = options.activeEdit ? new DirectiveCollector(runner.ws, (d) => emit({ type: 'directive', directive: d })) : null;
    let turn: ModelTurn;
    try {
      turn = await provider.complete(
        { system: options.system, messages, tools: specs, ...(maxOutputTokens !== undefined ? { maxOutputTokens } : {}) },
        {
          ...(options.signal ? { signal: options.signal } : {}),
          onEvent: (e) => {
            if (e.type === 'text') {
              // Text first: a directive completed by this piece is shown after the text that completes it.
              emit({ type: 'text', delta: e.delta });
              collector?.push(e.delta);
            } else {
              emit({ type: 'tool-call-streaming', name: e.name });
            }
          },
        },
      );
    } catch (error) {
      if (options.signal?.aborted) return interrupted();
      const info: ErrorInfo =
        error instanceof AgentError ? error.toJSON() : { code: AgentErrorCode.PROVIDER, message: `The model provider ${provider.id} failed: ${(error as Error)?.message ?? String(error)}`, hint: 'Check the provider and run again.' };
      transcript.write({ type: 'note', text: `${info.code}: ${info.message}` });
      return finish(own('provider-error', info.message), { error: info });
    }
    const directives = collector ? collector.end() : [];
    stats.input += turn.usage.input;
    stats.output += turn.usage.output;
    if (turn.usage.estimated) stats.estimated = true;
    transcript.write({ type: 'assistant', turn: turnNo, text: turn.text, tool_calls: turn.toolCalls, usage: turn.usage, stop_reason: turn.stopReason });
    emit({ type: 'turn-end', turn: turnNo, text: turn.text, toolCalls: turn.toolCalls, usage: turn.usage });
    messages.push({ role: 'assistant', text: turn.text, toolCalls: turn.toolCalls });

    // 2. Usage first: the turn that crosses the budget runs none of its calls.
    const overBudget = runner.recordUsage({ input: turn.usage.input, output: turn.usage.output });
    if (overBudget) {
      for (const call of turn.toolCalls) skipped(transcript, turnNo, call, 'not run: the token budget was exceeded by this turn');
      return violationStop(overBudget);
    }

    // 3. Active-edit directives, in reply order, through the runner as edit_file calls.
    const notes: string[] = [];
    if (directives.length > 0) {
      const report: string[] = ['Active edit results:'];
      for (const d of directives) {
        if (options.signal?.aborted || runner.state !== 'running') {
          report.push(`#${d.index + 1} ${d.path ?? ''}: not applied (the run stopped).`);
          continue;
        }
        if ('error' in d) {
          stats.aeFailed++;
          const output = formatRefusal(d.error);
          report.push(`#${d.index + 1}${d.path ? ` ${d.path}` : ''}${d.line ? ` (line ${d.line})` : ''}: rejected — ${output}`);
          transcript.write({ type: 'active_edit', turn: turnNo, index: d.index, ...(d.path ? { path: d.path } : {}), status: 'malformed', output });
          emit({ type: 'call-end', tool: 'active edit', description: `directive #${d.index + 1}${d.path ? ` ${d.path}` : ''}`, status: 'malformed', output, error: d.error });
          continue;
        }
        const description = `active edit #${d.index + 1}: ${describeCall(DIRECTIVE_TOOL, d.args)}`;
        emit({ type: 'call-start', tool: DIRECTIVE_TOOL, description, source: 'active-edit' });
        const record = await runner.call({ tool: DIRECTIVE_TOOL, args: d.args });
        stats.toolCalls++;
        if (record.ok) stats.aeApplied++;
        else stats.aeFailed++;
        report.push(`#${d.index + 1} ${d.path}: ${record.status}\n${record.output}`);
        transcript.write({ type: 'active_edit', turn: turnNo, index: d.index, path: d.path, status: record.status, output: record.output });
        emit({ type: 'call-end', tool: DIRECTIVE_TOOL, description, status: record.status, output: record.output, ...(record.error ? { error: record.error } : {}), record });
        if (record.violation) {
          for (const call of turn.toolCalls) skipped(transcript, turnNo, call, 'not run: a constraint was violated');
          return violationStop(record.violation);
        }
        // A directive is an edit_file call like any other: the mode sees it too.
        const verdict = await afterCall({ call: { id: `active-edit-${d.index + 1}`, name: DIRECTIVE_TOOL, arguments: JSON.stringify(d.args) }, record, malformed: null });
        if (verdict.next === 'stop') {
          for (const call of turn.toolCalls) skipped(transcript, turnNo, call, 'not run: the run is over');
          return finish({ ending: verdict.ending });
        }
      }
      notes.push(report.join('\n'));
    }

    // 4. Tool calls, in order.
    const results: ToolResultMessage[] = [];
    let stop: Stop | null = null;
    for (const call of turn.toolCalls) {
      if (stop || options.signal?.aborted) {
        const why = stop ? 'not run: the run is over' : 'not run: interrupted';
        skipped(transcript, turnNo, call, why);
        results.push({ callId: call.id, name: call.name, content: why, isError: true });
        continue;
      }
      const checked = checkCall(call, runner.registry, options.tools);
      const description = checked.args ? describeCall(call.name, checked.args) : `${call.name} (arguments not valid JSON)`;
      emit({ type: 'call-start', tool: call.name, description, source: 'tool-call' });
      stats.toolCalls++;
      let failed: boolean;
      if (!checked.ok) {
        failed = true;
        const verdict = await afterCall({ call, record: null, malformed: checked.error });
        // A malformed call the mode answered is an attempt that failed on its merits (controlled mode: it is the one edit), not a malformed call.
        const answered = verdict.answer !== undefined;
        if (!answered) stats.malformed++;
        const content = verdict.answer ?? formatRefusal(checked.error);
        const status = answered ? 'failed' : 'malformed';
        transcript.write({ type: 'tool_result', turn: turnNo, call_id: call.id, tool: call.name, status, output: content, ...(answered ? {} : { error: checked.error }) });
        emit({ type: 'call-end', tool: call.name, description, status, output: content, ...(answered ? {} : { error: checked.error }) });
        results.push({ callId: call.id, name: call.name, content, isError: true });
        if (verdict.next === 'stop') stop = { ending: verdict.ending };
      } else {
        const record = await runner.call({ tool: call.name, args: checked.args });
        failed = !record.ok;
        transcript.write({
          type: 'tool_result',
          turn: turnNo,
          call_id: call.id,
          tool: call.name,
          status: record.status,
          output: record.output,
          ...(record.error ? { error: { code: record.error.code, message: record.error.message, hint: record.error.hint } } : {}),
          ...(record.files.length > 0 ? { files: record.files } : {}),
        });
        emit({ type: 'call-end', tool: call.name, description, status: record.status, output: record.output, ...(record.error ? { error: record.error } : {}), record });
        results.push({ callId: call.id, name: call.name, content: record.output, isError: !record.ok });
        if (record.violation) {
          for (const rest of turn.toolCalls.slice(turn.toolCalls.indexOf(call) + 1)) skipped(transcript, turnNo, rest, 'not run: a constraint was violated');
          return violationStop(record.violation);
        }
        const verdict = await afterCall({ call, record, malformed: null });
        if (verdict.next === 'stop') stop = { ending: verdict.ending };
        else if (runner.state === 'completed') stop = own('completed', `Task marked ${completionOf(runner)?.status ?? 'done'} by the agent.`);
        else if (record.status === 'declined' && options.person?.quitRequested?.()) stop = own('quit', 'The person chose to quit; the work so far is kept.');
      }
      if (!stop && repeats.record(callKey(call), failed) >= REPEAT_LIMIT) {
        stop = own('stuck', `The same failing ${call.name} call was made ${REPEAT_LIMIT} times in a row; the run stops instead of looping.`);
      }
    }
    if (stop) return finish(stop);
    if (options.signal?.aborted) return interrupted();

    // 5. Back to the model: results (and directive reports), or a nudge / the person's reply when it made no call.
    if (results.length > 0) {
      silentTurns = 0;
      messages.push({ role: 'tool', results, ...(notes.length > 0 ? { text: notes.join('\n\n') } : {}) });
      continue;
    }
    if (notes.length > 0) {
      silentTurns = 0;
      const content = notes.join('\n\n');
      messages.push({ role: 'user', content });
      transcript.write({ type: 'user', content });
      continue;
    }
    const followUp = options.person?.followUp;
    if (followUp) {
      const reply = await followUp(turn.text);
      if (options.signal?.aborted) return interrupted();
      if (reply === null || reply.trim() === '') return finish(own('no-completion', 'The person ended the conversation without task_completion.'));
      messages.push({ role: 'user', content: reply });
      transcript.write({ type: 'user', content: reply });
      continue;
    }
    silentTurns++;
    if (silentTurns >= MAX_SILENT_TURNS) {
      return finish(own('no-completion', `The model replied ${MAX_SILENT_TURNS} times in a row without a tool call and never called task_completion.`));
    }
    messages.push({ role: 'user', content: NUDGE });
    transcript.write({ type: 'user', content: NUDGE });
  }
}

/** Why the turn's calls stop: the loop's own ending (its exit code from exitCodeForStatus), or the one an afterCall stop gave. */
type Stop = { status: AgentStatus; reason: string } | { ending: RunOutcome };

function own(status: AgentStatus, reason: string): Stop {
  return { status, reason };
}

function skipped(transcript: TranscriptSink, turn: number, call: ModelToolCall, why: string): void {
  transcript.write({ type: 'tool_result', turn, call_id: call.id, tool: call.name, status: 'skipped', output: why });
}

/** The task_completion call's summary and status, if the agent made one that succeeded. */
function completionOf(runner: ToolRunner): { summary: string; status: string } | undefined {
  const record = runner.calls.find((c) => c.tool === taskCompletionTool.name && c.ok);
  const data = record?.data as { summary?: string; status?: string } | undefined;
  return data?.summary !== undefined ? { summary: data.summary, status: data.status ?? 'done' } : undefined;
}
