/**
 * What a tool is: a name, a zod schema for its arguments, a description that
 * teaches a model to use it safely, a kind, and one function that does the
 * work. A tool holds no constraint, approval or accounting logic: the
 * ToolRunner owns the life-cycle (validate → prepare → gate → approve → run
 * → charge → record).
 *
 * A write tool has no `execute`: its one function is `prepare`, which plans
 * the call without writing and returns an `Invocation` — the changes and the
 * diff the gate and the approval see, and the `run()` that commits exactly
 * that plan (the plan lives in the invocation's closure, never in a side
 * channel). A write cannot be reached without its plan: it does not
 * type-check, and an invocation runs at most once.
 */
import { EditwardenError, ErrorCode, formatRefusal, toErrorInfo, type ErrorInfo } from '../errors.js';
import type { z } from 'zod';
import type { ApplyOptions } from '../apply/pipeline.js';
import type { Config } from '../config/config.js';
import type { Attendance } from '../config/modes.js';
import type { FileChange } from '../guard/constraints.js';
import type { FileView } from '../workspace/view.js';
import type { CommandSeen } from '../guard/command-effects.js';
import type { CommandSink } from './command-sink.js';

/**
 * read: looks only. write: changes files through the workspace (planned
 * first). command: runs a process whose effects are unknown until it ends.
 * interactive: needs a person. control: talks to the run itself.
 */
export type ToolKind = 'read' | 'write' | 'command' | 'interactive' | 'control';

/** The tool layer's own refusals; the codes live with every other code in src/errors.ts. */
export const ToolErrorCode = {
  UNKNOWN_TOOL: ErrorCode.UNKNOWN_TOOL,
  DECLINED: ErrorCode.DECLINED,
  COMMAND_FAILED: ErrorCode.COMMAND_FAILED,
  TIMEOUT: ErrorCode.TIMEOUT,
  RUN_ENDED: ErrorCode.RUN_ENDED,
  NO_INTERACTION: ErrorCode.NO_INTERACTION,
} as const;
export type ToolErrorCode = (typeof ToolErrorCode)[keyof typeof ToolErrorCode];

/** A tool's refusal: the one public error shape, with a code from src/errors.ts. */
export type ToolError = ErrorInfo;

/** A tool's answer: text for the model, structured data for programs. */
export interface ToolResult<D = unknown> {
  ok: boolean;
  /** What the model reads. */
  output: string;
  data?: D;
  error?: ToolError;
  /** Files this call changed, with lines from the real diff (write tools); the runner records them. */
  changes?: FileChange[];
  /** The agent declared the task finished: the runner takes no more calls. */
  endsRun?: boolean;
  /** A command tool: what was seen of the command's run (its witness, its window), for the runner's charge step. */
  seen?: CommandSeen;
}

/**
 * One prepared call of a tool (gemini-cli's `build(params) → ToolInvocation`):
 * what it would change, found without changing anything, and the one way to
 * do it. `run()` does the work at most once — a second call throws
 * E_INVOCATION_SPENT — so a plan that was gated and approved is committed
 * once or not at all. Built only through this class (its private state
 * cannot be forged by an object literal).
 */
export class Invocation {
  /** Write tools: every file the call would change, with lines from the real diff. Empty for tools that only look or act. */
  readonly changes: readonly FileChange[];
  /** The unified diff of those changes ('' when there is none). */
  readonly diff: string;
  /**
   * Who writes the plan: editwarden (`run()` commits it), or the client after editwarden answers (a hooked native
   * edit, an MCP write seen by the client's hook: `run()` only checkpoints or notes it; tools/client-commit.ts).
   */
  readonly committer: 'editwarden' | 'client';
  #work: (() => Promise<ToolResult>) | null;

  constructor(work: () => Promise<ToolResult>, plan: { changes?: readonly FileChange[]; diff?: string; committer?: 'client' } = {}) {
    this.#work = work;
    this.changes = plan.changes ?? [];
    this.diff = plan.diff ?? '';
    this.committer = plan.committer ?? 'editwarden';
  }

  /** Whether run() has been called. */
  get spent(): boolean {
    return this.#work === null;
  }

  run(): Promise<ToolResult> {
    const work = this.#work;
    if (!work) {
      // A plan is gated and approved once: running it again would write what nobody checked against the current state.
      return Promise.reject(
        new EditwardenError({
          code: ErrorCode.INVOCATION_SPENT,
          message: 'This tool invocation has already run; an invocation commits its plan at most once.',
          hint: 'Prepare the call again (a new invocation plans it against the current files).',
        }),
      );
    }
    this.#work = null;
    return work();
  }
}

/** What `prepare` answers: an invocation to gate, approve and run, or the request refused before anything ran. */
export type Preparation =
  | { ok: true; invocation: Invocation }
  /** The request itself is refused (text not found, stale…): this result goes back to the model; nothing is written. */
  | { ok: false; result: ToolResult };

/** How interactive tools reach a person (interactive mode, MCP elicitation later). */
export interface Interaction {
  ask(question: string, options?: { choices?: string[] }): Promise<string>;
  converse(message: string): Promise<string>;
}

/**
 * Why a call's signal aborted: the run's deadline, the run was cancelled
 * (Ctrl-C), or only this call was cancelled (an MCP client's request
 * cancellation). The runner aborts with a CallStop as the reason, so a tool
 * can say in its output which one stopped it.
 */
export type StopCause = 'deadline' | 'run-cancelled' | 'call-cancelled';

/** An abort reason, and an EditwardenError (E_TIMEOUT at the deadline, else E_CANCELLED) wherever it surfaces as a thrown error. */
export class CallStop extends EditwardenError {
  readonly stop: StopCause;

  constructor(stop: StopCause) {
    super({
      code: stop === 'deadline' ? ErrorCode.TIMEOUT : ErrorCode.CANCELLED,
      message: stop === 'deadline' ? "the run's deadline" : stop === 'run-cancelled' ? 'the run was cancelled' : 'the call was cancelled',
      hint: stop === 'deadline' ? 'The run is out of time: finish with what is done, or ask for a longer timeout.' : 'Nothing to fix in the request: it was stopped from outside.',
    });
    this.name = 'CallStop';
    this.stop = stop;
  }
}

/** What stopped this signal, or null when it has not aborted (or was aborted by something else). */
export function stopCause(signal: AbortSignal): StopCause | null {
  return signal.aborted && signal.reason instanceof CallStop ? signal.reason.stop : null;
}

export interface ToolContext {
  ws: FileView;
  config: Config;
  mode: Attendance;
  /** 0-based index of this call in the run. */
  call: number;
  /** Aborts at the run's deadline, or when the run or this call is cancelled: long work must stop (a command is killed). Its reason is a CallStop. */
  signal: AbortSignal;
  /** Milliseconds left before the run's deadline. */
  remainingMs(): number;
  /** Folder for this run's artifacts (command logs); null when the run keeps none. */
  runDir: string | null;
  /** Edit options and language hooks for the change pipeline's plan. */
  apply: Pick<ApplyOptions, 'edit' | 'hooks' | 'prepareHooks'>;
  interaction?: Interaction;
  /** A command call's sink (tools/command-sink.ts): the command is run the caller's way; absent: here, by the verification runner. */
  sink?: CommandSink;
}

/**
 * MCP tool annotations (hints a client may use to decide what needs a
 * person's approval). A tool states only where it differs from its kind's
 * defaults (`tools/toolset.ts` `annotationsOf`).
 */
export interface ToolAnnotations {
  readOnlyHint: boolean;
  destructiveHint: boolean;
  idempotentHint: boolean;
  openWorldHint: boolean;
}

/**
 * When a tool is allowed without being listed in allowed_tools: `always` (the
 * ADR's loop-breaking task_completion), `person` (a run with a person may be
 * asked: ask_question), `active-edit` (offered, and allowed, only while active
 * edit is on). `tools/toolset.ts` reads it; no other module lists such names.
 */
export type ImplicitGrant = 'always' | 'person' | 'active-edit';

interface ToolBase<S extends z.ZodType> {
  name: string;
  description: string;
  schema: S;
  /** Overrides of the kind's default MCP annotations. */
  annotations?: Partial<ToolAnnotations>;
  /** Other names a call (and allowed_tools) may use for this tool: the headless ADR's own names (apply_diff). Never offered. */
  aliases?: readonly string[];
  implicit?: ImplicitGrant;
  /**
   * One line saying what a call does, for a person (the live transcript, an approval prompt), from its
   * arguments as the model sent them (not yet checked by the schema). Without it: the name and the arguments
   * as JSON (tools/call-views.ts).
   */
  describe?: (args: Record<string, unknown>) => string;
  /**
   * The call's data for a program (an MCP result's structuredContent) without the bulky text the result's
   * text already carries (file text, diffs, matched lines), so it travels once. Without it: the data whole.
   */
  slim?: (data: Record<string, unknown>) => Record<string, unknown>;
}

/** A tool that only looks, runs a command, asks a person or talks to the run: nothing to plan, so it is one function. */
export interface ActingTool<S extends z.ZodType = z.ZodType> extends ToolBase<S> {
  kind: Exclude<ToolKind, 'write'>;
  execute: (args: z.output<S>, ctx: ToolContext) => Promise<ToolResult>;
}

/** A tool that changes files: planned first, so it has `prepare` and no `execute` to reach without a plan. */
export interface WriteTool<S extends z.ZodType = z.ZodType> extends ToolBase<S> {
  kind: 'write';
  prepare: (args: z.output<S>, ctx: ToolContext) => Promise<Preparation>;
}

// The schema's own type parameter flows into prepare/execute; `any` here would lose it.
export type ToolDefinition<S extends z.ZodType = z.ZodType> = ActingTool<S> | WriteTool<S>;

/** Keeps each tool's argument type (and its kind's shape) while storing tools in one list. */
export function defineTool<S extends z.ZodType>(tool: WriteTool<S>): WriteTool<S>;
export function defineTool<S extends z.ZodType>(tool: ActingTool<S>): ActingTool<S>;
export function defineTool<S extends z.ZodType>(tool: ToolDefinition<S>): ToolDefinition<S> {
  return tool;
}

/** A tool of any schema, as the registry holds it. */
// biome-ignore lint/suspicious/noExplicitAny: the registry is heterogeneous; each tool checks its own arguments with its schema.
export type AnyTool = ToolDefinition<any>;

/**
 * The one way any tool's call is begun: a write tool plans it (its own
 * `prepare`); any other tool's invocation simply runs its `execute`.
 */
export async function prepareCall(tool: AnyTool, args: unknown, ctx: ToolContext): Promise<Preparation> {
  if (tool.kind === 'write') return tool.prepare(args, ctx);
  return { ok: true, invocation: new Invocation(() => tool.execute(args, ctx)) };
}

/** Runs a tool's work and answers a thrown error as the tool's failure (the model reads it; the run goes on). `path`: the file the error is about. */
export function guarded(work: () => Promise<ToolResult> | ToolResult, path?: string): Promise<ToolResult> {
  return Promise.resolve()
    .then(work)
    .catch((error: unknown) => failure(toErrorInfo(error, path)));
}

export function failure(error: ToolError, output?: string): ToolResult {
  return { ok: false, output: output ?? formatRefusal(error), error };
}
