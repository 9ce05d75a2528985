/**
 * The tools, as one plain list, and their export as JSON Schema for model
 * APIs (OpenAI-style `function` tools and Anthropic-style `input_schema`
 * tools). Adding a tool is adding it to the list.
 */
import { z } from 'zod';
import { TOOL_ALIASES } from '../config/config.js';
import { applyPatchTool } from './apply-patch.js';
import { activeEditTool, askQuestionTool, converseTool, taskCompletionTool } from './control.js';
import { editFileTool } from './edit-file.js';
import { executeCommandTool } from './execute-command.js';
import { listFilesTool } from './list-files.js';
import { readFileTool } from './read-file.js';
import { searchFilesTool } from './search-files.js';
import type { AnyTool } from './types.js';
import { writeFileTool } from './write-file.js';

export const BUILTIN_TOOLS: readonly AnyTool[] = [readFileTool, listFilesTool, searchFilesTool, editFileTool, writeFileTool, applyPatchTool, executeCommandTool, taskCompletionTool, askQuestionTool, converseTool, activeEditTool];

export class ToolRegistry {
  private readonly byName = new Map<string, AnyTool>();

  constructor(tools: readonly AnyTool[] = BUILTIN_TOOLS) {
    for (const tool of tools) {
      if (this.byName.has(tool.name)) throw new Error(`two tools are named ${tool.name}`);
      this.byName.set(tool.name, tool);
    }
  }

  /**
   * The tool a call names. The headless ADR's own names (`apply_diff`: our apply_patch, TOOL_ALIASES) work as
   * call names too, not only in allowed_tools: a model prompted with the ADR's tool list calls them. An alias
   * is not listed (names(), list()): models are offered one name per tool.
   */
  get(name: string): AnyTool | undefined {
    const own = this.byName.get(name);
    if (own) return own;
    const target = Object.hasOwn(TOOL_ALIASES, name) ? TOOL_ALIASES[name] : undefined;
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
