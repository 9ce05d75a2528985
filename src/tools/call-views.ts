/**
 * A call as a person and a program see it: the one line that says what it
 * does (`describeCall`: the live transcript, an approval prompt) and its data
 * without the bulk the text already carries (`slimCallData`: an MCP result's
 * structuredContent). Each tool says how, in its own definition (`describe`,
 * `slim`, tools/types.ts, with the argument readers of tools/call-args.ts);
 * this module only finds the tool by its name and holds the defaults. Pure.
 *
 * It must never list tool names: a tool that wants another view says so in
 * its own file.
 */
import { toolNamed } from './toolset.js';

/** One line that says what a call will do, for people: its tool's own `describe`, else its name and arguments as JSON (cut at 100 characters). */
export function describeCall(tool: string, args: Record<string, unknown> | undefined): string {
  const a = args ?? {};
  const own = toolNamed(tool)?.describe;
  if (own) return own(a);
  const json = JSON.stringify(a);
  return `${tool} ${json.length > 100 ? `${json.slice(0, 100)}…` : json}`;
}

/** A call's data without the bulky text its content already carries: its tool's own `slim`, else the data whole (undefined when it is no object). */
export function slimCallData(tool: string, data: unknown): Record<string, unknown> | undefined {
  if (typeof data !== 'object' || data === null || Array.isArray(data)) return undefined;
  const d = data as Record<string, unknown>;
  const own = toolNamed(tool)?.slim;
  return own ? own(d) : d;
}
