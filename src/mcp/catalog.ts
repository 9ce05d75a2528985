/**
 * The MCP tool catalogue: which runner tools the server offers, under which
 * names, with which input schema (the runner tool's own zod schema, plus
 * the few MCP-only fields: read_file's `offset`/`limit`, the write tools'
 * `dry_run`) and a description that teaches the safe editing rules. It also
 * routes one MCP call to one runner call. It never executes a tool: every
 * call goes to the ToolRunner.
 */
import { z } from 'zod';
import { ErrorCode } from '../errors.js';
import { applyPatchTool } from '../tools/apply-patch.js';
import { dryRunName } from '../tools/dry-run.js';
import { editFileTool } from '../tools/edit-file.js';
import { executeCommandTool } from '../tools/execute-command.js';
import { listFilesTool } from '../tools/list-files.js';
import { readFileTool } from '../tools/read-file.js';
import { searchFilesTool } from '../tools/search-files.js';
import { checkpointCreateTool, checkpointListTool, checkpointRestoreTool, detectTool, verifyTool } from '../tools/service-tools.js';
import { redoTool, undoListTool, undoTool } from '../tools/undo-tools.js';
import { annotationsOf } from '../tools/toolset.js';
import type { AnyTool, ToolAnnotations, ToolError } from '../tools/types.js';
import { writeFileTool } from '../tools/write-file.js';

export interface McpToolEntry {
  name: string;
  tool: AnyTool;
  description: string;
  /** JSON Schema of the arguments as the client sends them. */
  inputSchema: Record<string, unknown>;
  annotations: ToolAnnotations;
  /** The runner call for these arguments, or why they cannot be one. */
  route(args: Record<string, unknown>): Routed;
}

type Routed = { ok: true; tool: string; args: Record<string, unknown>; read?: { lineNumbers: boolean } } | { ok: false; error: ToolError };

const DryRunField = z.boolean().default(false).describe('Show the diff this call would make and write nothing (default false).');

const ReadPagingFields = {
  offset: z.number().int().positive().optional().describe('First line to return, 1-based (same as start_line). Use the next_offset of the previous page to read on.'),
  limit: z.number().int().positive().optional().describe('Number of lines to return from offset (default 2000). A page is also cut at ~60,000 characters; the result says where the next one starts.'),
};

const SAFE_EDITING = [
  'Rules: read the file first and copy old_text exactly; old_text must be unique — add surrounding lines rather than guessing.',
  'To add at the end or start of a file use mode append / prepend (no old_text) instead of quoting the last lines.',
  'mode overwrite replaces the whole file and must be chosen explicitly; a new file is mode create.',
  'Set dry_run: true to see the diff without writing anything. A refused call writes nothing; its error has a code, a message and a hint saying what to send instead.',
].join(' ');

function jsonSchemaOf(schema: z.ZodType): Record<string, unknown> {
  const out = z.toJSONSchema(schema, { io: 'input', unrepresentable: 'any' }) as Record<string, unknown>;
  delete out.$schema;
  return out;
}

function extend(tool: AnyTool, fields: z.ZodRawShape): z.ZodType {
  // Every runner tool's schema is a strict z.object; extending keeps it strict.
  return (tool.schema as z.ZodObject).extend(fields);
}

function parseError(tool: string, message: string, hint: string): Routed {
  return { ok: false, error: { code: ErrorCode.PARSE, message: `${tool} arguments: ${message}.`, hint } };
}

function passThrough(tool: AnyTool): McpToolEntry {
  return {
    name: tool.name,
    tool,
    description: tool.description,
    inputSchema: jsonSchemaOf(tool.schema),
    annotations: annotationsOf(tool),
    route: (args) => ({ ok: true, tool: tool.name, args }),
  };
}

function readFileEntry(): McpToolEntry {
  const Paging = z.object(ReadPagingFields).strict();
  return {
    name: readFileTool.name,
    tool: readFileTool,
    description: `${readFileTool.description} Page through long files with offset and limit; each page stays within the size a client accepts, and next_offset says where to read on.`,
    inputSchema: jsonSchemaOf(extend(readFileTool, ReadPagingFields)),
    annotations: annotationsOf(readFileTool),
    route(args) {
      const { offset, limit, ...rest } = args;
      const paging = Paging.safeParse({ offset, limit });
      if (!paging.success) {
        const issue = paging.error.issues[0];
        return parseError(readFileTool.name, `field "${issue?.path.join('.') ?? 'offset'}": ${issue?.message ?? 'invalid'}`, 'offset and limit are positive whole numbers of lines.');
      }
      const p = paging.data;
      if (p.offset !== undefined && rest.start_line !== undefined && rest.start_line !== p.offset) {
        return parseError(readFileTool.name, 'offset and start_line disagree', 'Give one of offset or start_line.');
      }
      if (p.limit !== undefined && rest.end_line !== undefined) return parseError(readFileTool.name, 'limit and end_line both given', 'Give one of limit or end_line.');
      const start = p.offset ?? (typeof rest.start_line === 'number' ? rest.start_line : undefined);
      const routed: Record<string, unknown> = { ...rest };
      if (start !== undefined) routed.start_line = start;
      if (p.limit !== undefined) routed.end_line = (start ?? 1) + p.limit - 1;
      return { ok: true, tool: readFileTool.name, args: routed, read: { lineNumbers: rest.line_numbers !== false } };
    },
  };
}

function writeEntry(tool: AnyTool, extraDescription: string): McpToolEntry {
  return {
    name: tool.name,
    tool,
    description: `${tool.description} ${extraDescription}`,
    inputSchema: jsonSchemaOf(extend(tool, { dry_run: DryRunField })),
    annotations: annotationsOf(tool),
    route(args) {
      const { dry_run: dryRun, ...rest } = args;
      if (dryRun !== undefined && typeof dryRun !== 'boolean') return parseError(tool.name, 'field "dry_run": expected a boolean', 'Send dry_run: true to preview, or leave it out.');
      return { ok: true, tool: dryRun ? dryRunName(tool.name) : tool.name, args: rest };
    },
  };
}

/**
 * Every tool the server can describe, in the order a model should meet them;
 * which of them a client sees is the toolset's answer (`toolsetFor`, client mcp).
 */
export function buildCatalog(): McpToolEntry[] {
  return [
    readFileEntry(),
    passThrough(listFilesTool),
    passThrough(searchFilesTool),
    writeEntry(editFileTool, SAFE_EDITING),
    writeEntry(writeFileTool, 'Set dry_run: true to see the diff without writing anything.'),
    writeEntry(applyPatchTool, 'Set dry_run: true to check that every hunk applies and see the diff, without writing anything.'),
    passThrough(checkpointCreateTool),
    passThrough(checkpointListTool),
    passThrough(checkpointRestoreTool),
    passThrough(undoListTool),
    passThrough(undoTool),
    passThrough(redoTool),
    passThrough(verifyTool),
    passThrough(detectTool),
    // The guarded shell for clients whose own shell editwarden can only refuse (Codex): sandboxed, its effects charged to the limits.
    passThrough(executeCommandTool),
  ];
}
