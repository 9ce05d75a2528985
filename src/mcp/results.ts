/**
 * The runner's call records as MCP tool results: the text the model reads
 * in `content`, `isError` with the stable code, message and hint on every
 * refusal, and `structuredContent` for programs — metadata only, so file
 * text, diffs and command output travel once (in `content`), never twice
 * (each tool's own `slim` says what it drops, tools/call-views.ts).
 * Pure; it never decides whether a call succeeded, the runner did.
 */
import { ErrorCode, formatRefusal, refusalEnvelope, type ErrorInfo } from '../errors.js';
import type { CallRecord } from '../tools/runner.js';
import type { ToolError } from '../tools/types.js';
import { cutOutput, OUTPUT_LIMITS } from '../tools/output.js';
import { slimCallData } from '../tools/call-views.js';
import { isReadData, pageOf } from './paging.js';
import { defined } from '../defined.js';

/** The CallToolResult shape of the MCP spec, as this server fills it. */
export interface McpToolResult {
  [key: string]: unknown;
  content: Array<{ type: 'text'; text: string }>;
  isError?: boolean;
  structuredContent?: Record<string, unknown>;
}

export function textResult(text: string, structured: Record<string, unknown> | undefined, isError: boolean): McpToolResult {
  return {
    content: [{ type: 'text', text: cutOutput(text, 'result') }],
    ...defined({ isError: isError ? true : undefined }),
    ...defined({ structuredContent: structured }),
  };
}

/** A refusal that never reached the runner (unknown tool, MCP-only argument, no workspace): errors.ts's one text and one envelope. */
export function errorResult(error: ToolError | ErrorInfo): McpToolResult {
  return textResult(formatRefusal(error), refusalEnvelope(error), true);
}

export interface ResultOptions {
  /** Set for read_file: page the text for the client. */
  read?: { lineNumbers: boolean };
  pageChars?: number;
}

export function recordResult(record: CallRecord, options: ResultOptions = {}): McpToolResult {
  const base = { ok: record.ok, status: record.status };
  if (!record.ok) {
    const error: ErrorInfo = record.error ?? { code: ErrorCode.INTERNAL, message: 'The call failed without an error.', hint: 'Report it.' };
    const v = record.violation;
    // A violation reads like every refusal (errors.ts's one text), naming which constraint it broke.
    const text = v ? formatRefusal({ code: error.code, message: `${v.type} violation of constraints.${v.constraint}: ${v.message}`, hint: v.hint }) : record.output;
    const structured: Record<string, unknown> = refusalEnvelope(error, { status: record.status });
    if (v) structured.violation = v;
    const data = slimCallData(record.tool, record.data);
    if (data) structured.data = data;
    return textResult(text, structured, true);
  }
  if (options.read && isReadData(record.data)) {
    const page = pageOf(record.output, record.data, options.read.lineNumbers, options.pageChars ?? OUTPUT_LIMITS.page);
    return textResult(page.text, { ...base, ...page.structured }, false);
  }
  const data = slimCallData(record.tool, record.data);
  return textResult(record.output, { ...base, ...(data ?? {}), ...(record.files.length > 0 ? { files_changed: record.files, lines_added: record.lines_added, lines_removed: record.lines_removed } : {}) }, false);
}
