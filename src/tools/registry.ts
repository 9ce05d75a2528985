/**
 * The tools a runner serves, looked up by name or alias, and their export
 * as JSON Schema for model APIs (OpenAI-style `function` tools and
 * Anthropic-style `input_schema` tools). Which tools a run gets is
 * tools/toolset.ts's answer.
 */
import { z } from 'zod';
import { AGENT_TOOLS, toolAliases } from './toolset.js';
import type { AnyTool } from './types.js';

/** The agent's tools (built in tools/toolset.ts, exported by the library under this name). */
export const BUILTIN_TOOLS: readonly AnyTool[] = AGENT_TOOLS;

export class ToolRegistry {
  private readonly byName = new Map<string, AnyTool>();
  private readonly aliases: Record<string, string>;

  constructor(tools: readonly AnyTool[] = BUILTIN_TOOLS) {
    for (const tool of tools) {
      if (this.byName.has(tool.name)) throw new Error(`two tools are named ${tool.name}`);
      this.byName.set(tool.name, tool);
    }
    // The aliases every tool of tools/ declares: a stand-in served under a tool's name (headless task_completion) answers to them too.
    this.aliases = toolAliases();
  }

  /**
   * The tool a call names. The headless ADR's own names (`apply_diff`: our apply_patch, its `aliases`) work as
   * call names too, not only in allowed_tools: a model prompted with the ADR's tool list calls them. An alias
   * is not listed (names(), list()): models are offered one name per tool.
   */
  get(name: string): AnyTool | undefined {
    const own = this.byName.get(name);
    if (own) return own;
    const target = Object.hasOwn(this.aliases, name) ? this.aliases[name] : undefined;
    return target !== undefined ? this.byName.get(target) : undefined;
  }

  names(): string[] {
    return [...this.byName.keys()];
  }

  list(): AnyTool[] {
    return [...this.byName.values()];
  }
}

/** JSON Schema (draft 2020-12) of a tool's arguments, as a model should fill them in. */
export function toolInputSchema(tool: AnyTool): Record<string, unknown> {
  const schema = z.toJSONSchema(tool.schema, { io: 'input', unrepresentable: 'any' }) as Record<string, unknown>;
  delete schema.$schema;
  return schema;
}

export interface ToolSchemaExport {
  name: string;
  description: string;
  parameters: Record<string, unknown>;
}

/** Name, description and argument schema of each tool (optionally only those named). */
export function exportToolSchemas(tools: readonly AnyTool[] = BUILTIN_TOOLS, only?: readonly string[]): ToolSchemaExport[] {
  const wanted = only ? new Set(only) : null;
  return tools.filter((t) => !wanted || wanted.has(t.name)).map((t) => ({ name: t.name, description: t.description, parameters: toolInputSchema(t) }));
}

/** OpenAI chat-completions `tools` array. */
export function openAiTools(tools: readonly AnyTool[] = BUILTIN_TOOLS, only?: readonly string[]): Array<{ type: 'function'; function: ToolSchemaExport }> {
  return exportToolSchemas(tools, only).map((f) => ({ type: 'function', function: f }));
}

/** Anthropic messages `tools` array. */
export function anthropicTools(tools: readonly AnyTool[] = BUILTIN_TOOLS, only?: readonly string[]): Array<{ name: string; description: string; input_schema: Record<string, unknown> }> {
  return exportToolSchemas(tools, only).map((f) => ({ name: f.name, description: f.description, input_schema: f.parameters }));
}
