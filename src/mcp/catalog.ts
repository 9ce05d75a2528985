/**
 * The MCP tool catalogue: which runner tools the server offers, under which
 * names, with which input schema (the runner tool's own zod schema, plus
 * the few MCP-only fields: read_file's `offset`/`limit`, the write tools'
 * `dry_run`) and a description that teaches the safe editing rules. It also
 * routes one MCP call to one runner call. It never executes a tool: every
 * call goes to the ToolRunner.
 */
import { z } from 'zod';
import { DEFAULT_ALLOWED_TOOLS, type Config } from '../config/config.js';
import { ErrorCode } from '../errors.js';
import { applyPatchTool } from '../tools/apply-patch.js';
import { editFileTool } from '../tools/edit-file.js';
import { executeCommandTool } from '../tools/execute-command.js';
import { listFilesTool } from '../tools/list-files.js';
import { readFileTool } from '../tools/read-file.js';
import { searchFilesTool } from '../tools/search-files.js';
import type { AnyTool, ToolError } from '../tools/types.js';
import { writeFileTool } from '../tools/write-file.js';
import { dryRunName, dryRunOf } from '../tools/dry-run.js';
import { EXTRA_TOOLS } from '../tools/service-tools.js';

/** MCP tool annotations (hints a client may use to decide what needs a person's approval). */
export interface ToolAnnotations {
  readOnlyHint: boolean;
  destructiveHint: boolean;
  idempotentHint: boolean;
  openWorldHint: boolean;
}

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

export type Routed = { ok: true; tool: string; args: Record<string, unknown>; read?: { lineNumbers: boolean } } | { ok: false; error: ToolError };

const WRITE_TOOLS: readonly AnyTool[] = [editFileTool, writeFileTool, applyPatchTool];
const DRY_RUN_TOOLS: readonly AnyTool[] = WRITE_TOOLS.map((t) => dryRunOf(t));

/** Every tool the MCP server's runner knows: the built-ins it offers, their dry-run twins, the extra tools. */
export const MCP_RUNNER_TOOLS: readonly AnyTool[] = [readFileTool, listFilesTool, searchFilesTool, ...WRITE_TOOLS, ...DRY_RUN_TOOLS, ...EXTRA_TOOLS];

/** Tools only the MCP server has: allowed by default unless the config lists allowed_tools itself. */
export const MCP_EXTRA_TOOL_NAMES: readonly string[] = EXTRA_TOOLS.map((t) => t.name);

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

const readOnly: ToolAnnotations = { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false };

function passThrough(tool: AnyTool, annotations: ToolAnnotations, extraDescription = ''): McpToolEntry {
  return {
    name: tool.name,
    tool,
    description: extraDescription ? `${tool.description} ${extraDescription}` : tool.description,
    inputSchema: jsonSchemaOf(tool.schema),
    annotations,
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
    annotations: readOnly,
    route(args) {
      const { offset, limit, ...rest } = args;
      const paging = Paging.safeParse({ offset, limit });
      if (!paging.success) {
        const issue = paging.error.issues[0];
        return parseError('read_file', `field "${issue?.path.join('.') ?? 'offset'}": ${issue?.message ?? 'invalid'}`, 'offset and limit are positive whole numbers of lines.');
      }
      const p = paging.data;
      if (p.offset !== undefined && rest.start_line !== undefined && rest.start_line !== p.offset) {
        return parseError('read_file', 'offset and start_line disagree', 'Give one of offset or start_line.');
      }
      if (p.limit !== undefined && rest.end_line !== undefined) return parseError('read_file', 'limit and end_line both given', 'Give one of limit or end_line.');
      const start = p.offset ?? (typeof rest.start_line === 'number' ? rest.start_line : undefined);
      const routed: Record<string, unknown> = { ...rest };
      if (start !== undefined) routed.start_line = start;
      if (p.limit !== undefined) routed.end_line = (start ?? 1) + p.limit - 1;
      return { ok: true, tool: readFileTool.name, args: routed, read: { lineNumbers: rest.line_numbers !== false } };
    },
  };
}

function writeEntry(tool: AnyTool, annotations: ToolAnnotations, extraDescription: string): McpToolEntry {
  return {
    name: tool.name,
    tool,
    description: `${tool.description} ${extraDescription}`,
    inputSchema: jsonSchemaOf(extend(tool, { dry_run: DryRunField })),
    annotations,
    route(args) {
      const { dry_run: dryRun, ...rest } = args;
      if (dryRun !== undefined && typeof dryRun !== 'boolean') return parseError(tool.name, 'field "dry_run": expected a boolean', 'Send dry_run: true to preview, or leave it out.');
      return { ok: true, tool: dryRun ? dryRunName(tool.name) : tool.name, args: rest };
    },
  };
}

const [checkpointCreate, checkpointList, checkpointRestore, verifyTool, detectTool] = EXTRA_TOOLS as [AnyTool, AnyTool, AnyTool, AnyTool, AnyTool];

/** The tools the server offers, in the order a model should meet them. */
export function buildCatalog(): McpToolEntry[] {
  return [
    readFileEntry(),
    passThrough(listFilesTool, readOnly),
    passThrough(searchFilesTool, readOnly),
    writeEntry(editFileTool, { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false }, SAFE_EDITING),
    writeEntry(writeFileTool, { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false }, 'Set dry_run: true to see the diff without writing anything.'),
    writeEntry(applyPatchTool, { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false }, 'Set dry_run: true to check that every hunk applies and see the diff, without writing anything.'),
    passThrough(checkpointCreate, { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false }),
    passThrough(checkpointList, readOnly),
    passThrough(checkpointRestore, { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false }),
    passThrough(verifyTool, { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false }),
    passThrough(detectTool, readOnly),
    // The guarded shell for clients whose own shell editwarden can only refuse (Codex): sandboxed, its effects charged to the limits.
    passThrough(executeCommandTool, { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: true }),
  ];
}

/**
 * The config the MCP runner uses. allowed_tools names runner tools: a
 * config that keeps the default list also allows the MCP-only tools (it
 * never chose against them); a dry run is allowed wherever its write tool
 * is (it writes nothing). An explicit list is otherwise taken as written.
 */
export function mcpConfig(config: Config): Config {
  const allowed = config.constraints.allowed_tools;
  if (allowed.length === 0) return config;
  const isDefault = allowed.length === DEFAULT_ALLOWED_TOOLS.length && DEFAULT_ALLOWED_TOOLS.every((t) => allowed.includes(t));
  const names = new Set(allowed);
  if (isDefault) for (const name of MCP_EXTRA_TOOL_NAMES) names.add(name);
  for (const tool of WRITE_TOOLS) if (names.has(tool.name)) names.add(dryRunName(tool.name));
  return { ...config, constraints: { ...config.constraints, allowed_tools: [...names] } };
}

/** The entries a client should see: those the constraints allow (calling another is still gated, and refused). */
export function offeredTools(catalog: readonly McpToolEntry[], config: Config): McpToolEntry[] {
  const allowed = config.constraints.allowed_tools;
  if (allowed.length === 0) return [...catalog];
  return catalog.filter((entry) => allowed.includes(entry.name));
}
