/**
 * What the agent loop needs from a model, whatever speaks for it: a
 * provider-neutral conversation (system text, user text, assistant turns
 * with tool calls, tool results), the tools offered, and one turn back —
 * text, tool calls with their arguments as the model wrote them (raw JSON
 * text, so a malformed call reaches the loop as it was and can be returned
 * to the model as a fixable error), usage and why the turn stopped.
 *
 * Providers translate to their wire protocol and back; they never run a
 * tool, never decide about budgets and never retry on their own.
 */

/** One tool call as the model wrote it. */
export interface ModelToolCall {
  /** The provider's call id (tool results refer to it). */
  id: string;
  name: string;
  /** The argument object as JSON text, exactly as the model produced it (may be invalid JSON). */
  arguments: string;
}

export interface TokenUsage {
  input: number;
  output: number;
  /** True when the server reported no usage and the numbers are estimates (characters / 4). */
  estimated?: boolean;
}

/** Why a turn ended, in the loop's words. */
export type StopReason = 'tool_calls' | 'end' | 'length' | 'other';

export interface ModelTurn {
  text: string;
  toolCalls: ModelToolCall[];
  usage: TokenUsage;
  stopReason: StopReason;
}

/** One tool result sent back to the model. */
export interface ToolResultMessage {
  callId: string;
  name: string;
  content: string;
  isError: boolean;
}

export type ChatMessage =
  | { role: 'user'; content: string }
  | { role: 'assistant'; text: string; toolCalls: ModelToolCall[] }
  /** Results of the previous assistant turn's calls, and optional text for the model (active-edit results, notes). */
  | { role: 'tool'; results: ToolResultMessage[]; text?: string };

/** A tool as offered to a model: name, description and JSON Schema of its arguments. */
export interface ToolSpec {
  name: string;
  description: string;
  parameters: Record<string, unknown>;
}

export interface ModelRequest {
  system: string;
  messages: readonly ChatMessage[];
  tools: readonly ToolSpec[];
  /** Upper bound on output tokens for this turn (Anthropic requires one). */
  maxOutputTokens?: number;
}

/** Streamed pieces of a turn, for a live transcript. */
type ModelStreamEvent = { type: 'text'; delta: string } | { type: 'tool-call'; index: number; name: string };

export interface CompleteOptions {
  signal?: AbortSignal;
  onEvent?: (event: ModelStreamEvent) => void;
}

export interface ModelProvider {
  /** `provider:model`, as the user named it. */
  readonly id: string;
  /** Whether turns stream (text arrives in pieces). */
  readonly streaming: boolean;
  complete(request: ModelRequest, options?: CompleteOptions): Promise<ModelTurn>;
}

/** Rough token estimate for servers that report no usage: ~4 characters a token. */
export function estimateTokens(text: string): number {
  return Math.ceil(text.length / 4);
}
