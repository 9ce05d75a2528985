/**
 * What a tool is: a name, a zod schema for its arguments, a description that
 * teaches a model to use it safely, a kind, and one function that does the
 * work. A tool holds no constraint, approval or accounting logic: the
 * ToolRunner owns the life-cycle (validate → constraints → approval →
 * execute → record). Tools that write also say, without writing, what they
 * would change (`plan`), so the runner can refuse before the write.
 */
import { ErrorCode } from '../errors.js';
import type { z } from 'zod';
import type { ApplyOptions } from '../apply/apply-requests.js';
import type { Config } from '../config/config.js';
import type { FileChange, RunMode } from '../guard/constraints.js';
import type { Workspace } from '../workspace/workspace.js';

/**
 * read: looks only. write: changes files through the workspace (planned
 * first). command: runs a process whose effects are unknown until it ends.
 * interactive: needs a person. control: talks to the run itself.
 */
export type ToolKind = 'read' | 'write' | 'command' | 'interactive' | 'control';

/** Error codes of the tool layer, beside the engine's ErrorCode (proposed for errors.ts). */
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

export interface ToolError {
  code: string;
  message: string;
  hint: string;
  path?: string;
  line?: number;
}

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
}

/** What a write would change, computed without writing anything. */
export type ChangePlan =
  | { ok: true; changes: FileChange[]; diff: string }
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

export class CallStop extends Error {
  constructor(readonly stop: StopCause) {
    super(stop === 'deadline' ? "the run's deadline" : stop === 'run-cancelled' ? 'the run was cancelled' : 'the call was cancelled');
    this.name = 'CallStop';
  }
}

/** What stopped this signal, or null when it has not aborted (or was aborted by something else). */
export function stopCause(signal: AbortSignal): StopCause | null {
  return signal.aborted && signal.reason instanceof CallStop ? signal.reason.stop : null;
}

export interface ToolContext {
  ws: Workspace;
  config: Config;
  mode: RunMode;
  /** 0-based index of this call in the run. */
  call: number;
  /** Aborts at the run's deadline, or when the run or this call is cancelled: long work must stop (a command is killed). Its reason is a CallStop. */
  signal: AbortSignal;
  /** Milliseconds left before the run's deadline. */
  remainingMs(): number;
  /** Folder for this run's artifacts (command logs); null when the run keeps none. */
  runDir: string | null;
  /** Edit options and language hooks for applyRequests. */
  apply: Pick<ApplyOptions, 'edit' | 'hooks' | 'prepareHooks'>;
  interaction?: Interaction;
}

// The schema's own type parameter flows into plan/execute; `any` here would lose it.
export interface ToolDefinition<S extends z.ZodType = z.ZodType> {
  name: string;
  description: string;
  kind: ToolKind;
  schema: S;
  /** Required for kind 'write'. */
  plan?: (args: z.output<S>, ctx: ToolContext) => Promise<ChangePlan>;
  execute: (args: z.output<S>, ctx: ToolContext) => Promise<ToolResult>;
}

/** Keeps each tool's argument type while storing tools in one list. */
export function defineTool<S extends z.ZodType>(tool: ToolDefinition<S>): ToolDefinition<S> {
  return tool;
}

/** A tool of any schema, as the registry holds it. */
// biome-ignore lint/suspicious/noExplicitAny: the registry is heterogeneous; each tool checks its own arguments with its schema.
export type AnyTool = ToolDefinition<any>;

export function failure(error: ToolError, output?: string): ToolResult {
  return { ok: false, output: output ?? `${error.code}: ${error.message}\nhint: ${error.hint}`, error };
}
