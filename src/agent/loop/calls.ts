/**
 * Tool calls as the loop sees them before the runner does: the check that
 * tells a malformed call (bad JSON, unknown tool, arguments that fail the
 * tool's schema) from a call that failed on its merits, and the tracker that
 * stops a model repeating the same failing call. Pure. (How a call is
 * described to people is each tool's own `describe`, tools/call-views.ts.)
 */
import type { z } from 'zod';
import type { AnyTool } from '../../tools/types.js';
import { AgentErrorCode } from '../providers/errors.js';
import type { ErrorInfo } from '../../errors.js';
import { parseToolArguments } from '../providers/arguments.js';
import type { ModelToolCall } from '../providers/types.js';

/** How many identical failing calls in a row end the run. */
export const REPEAT_LIMIT = 3;

export type CheckedCall =
  | { ok: true; args: Record<string, unknown>; tool: AnyTool }
  /** Never reaches a tool; goes back to the model as an error it can fix. */
  | { ok: false; error: ErrorInfo; args?: Record<string, unknown> };

/**
 * Bad JSON and schema failures are caught here. A name no tool has is
 * refused here too; a known tool the constraints do not allow is left to
 * the runner, which records it as the violation it is.
 */
export function checkCall(call: ModelToolCall, registry: { get(name: string): AnyTool | undefined; names(): string[] }, offered: readonly string[]): CheckedCall {
  const parsed = parseToolArguments(call.arguments);
  if (!parsed.ok) {
    return {
      ok: false,
      error: {
        code: AgentErrorCode.MALFORMED_CALL,
        message: `The ${call.name} call could not be run: ${parsed.reason}.`,
        hint: "Send the arguments again as one valid JSON object matching the tool's schema (quote every key and string, escape newlines as \\n).",
      },
    };
  }
  const tool = registry.get(call.name);
  if (!tool) {
    return {
      ok: false,
      args: parsed.value,
      error: {
        code: AgentErrorCode.MALFORMED_CALL,
        message: `There is no tool named ${JSON.stringify(call.name)}.`,
        hint: `Use one of: ${offered.join(', ')}.`,
      },
    };
  }
  const valid = (tool.schema as z.ZodType).safeParse(parsed.value);
  if (!valid.success) {
    const issue = valid.error.issues[0];
    const field = issue?.code === 'unrecognized_keys' ? issue.keys.join(', ') : issue?.path.map(String).join('.') || '(arguments)';
    const what = issue?.code === 'unrecognized_keys' ? `unknown field "${field}"` : `field "${field}": ${issue?.message ?? 'invalid'}`;
    const shape = (tool.schema as { shape?: Record<string, unknown> }).shape;
    return {
      ok: false,
      args: parsed.value,
      error: {
        code: AgentErrorCode.MALFORMED_CALL,
        message: `${tool.name} arguments: ${what}.`,
        hint: shape ? `${tool.name} takes: ${Object.keys(shape).join(', ')}.` : `Check the ${tool.name} argument schema.`,
      },
    };
  }
  return { ok: true, args: parsed.value, tool };
}

/** A stable identity for "the same call": name plus arguments with keys sorted. */
export function callKey(call: ModelToolCall): string {
  const parsed = parseToolArguments(call.arguments);
  return `${call.name}\u0000${parsed.ok ? canonical(parsed.value) : call.arguments.trim()}`;
}

function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (value && typeof value === 'object') {
    return `{${Object.keys(value as Record<string, unknown>)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${canonical((value as Record<string, unknown>)[k])}`)
      .join(',')}}`;
  }
  return JSON.stringify(value);
}

/** Counts identical failing calls in a row; any success or different call starts over. */
export class RepeatTracker {
  private last: string | null = null;
  private count = 0;

  /** Records one call; returns how many times in a row this exact call has now failed. */
  record(key: string, failed: boolean): number {
    if (!failed) {
      this.last = null;
      this.count = 0;
      return 0;
    }
    this.count = key === this.last ? this.count + 1 : 1;
    this.last = key;
    return this.count;
  }
}
