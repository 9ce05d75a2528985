/**
 * What a run is offered, built in one place: `toolsetFor(profile, config)`.
 * Every entry point — the agent session (headless, interactive, controlled),
 * the Editor and the MCP session — asks it which tools its runner serves,
 * which names the model or client is offered, and the config the guard
 * reads (allowed_tools with what the profile allows without a listing).
 *
 * No name list is kept here or anywhere else: every set is read from the
 * tools' own metadata (`kind`, `implicit`, `aliases`, `annotations`, see
 * tools/types.ts). "Interactive tools" are the tools whose kind is
 * interactive; "the file tools" are the read and write kinds; the defaults
 * are every tool that needs no person and no opt-in; the MCP-only tools are
 * the service tools. The config floor, which parses a file before any tool
 * exists, keeps its own copy of the names; test/tools/toolset.test.ts pins
 * that copy equal to what this module derives.
 */
import type { Config } from '../config/config.js';
import type { RunProfile } from '../runs/profile.js';
import { applyPatchTool } from './apply-patch.js';
import { activeEditTool, askQuestionTool, converseTool, taskCompletionTool } from './control.js';
import { dryRunName, dryRunOf } from './dry-run.js';
import { editFileTool } from './edit-file.js';
import { executeCommandTool } from './execute-command.js';
import { listFilesTool } from './list-files.js';
import { readFileTool } from './read-file.js';
import { searchFilesTool } from './search-files.js';
import { SERVICE_TOOLS } from './service-tools.js';
import type { AnyTool, ImplicitGrant, ToolAnnotations, ToolKind } from './types.js';
import { writeFileTool } from './write-file.js';

/** A write tool of any schema (AnyTool's write half). */
type AnyWriteTool = Extract<AnyTool, { kind: 'write' }>;

/** The agent's tools, in the order a model should meet them (the library exports them as BUILTIN_TOOLS). */
export const AGENT_TOOLS: readonly AnyTool[] = [readFileTool, listFilesTool, searchFilesTool, editFileTool, writeFileTool, applyPatchTool, executeCommandTool, taskCompletionTool, askQuestionTool, converseTool, activeEditTool];

const isFileTool = (t: AnyTool): boolean => t.kind === 'read' || t.kind === 'write';
const FILE_TOOLS = AGENT_TOOLS.filter(isFileTool);
const WRITE_TOOLS = FILE_TOOLS.filter((t) => t.kind === 'write');

/**
 * Every tool the MCP server's runner knows: the file tools, the dry-run twin of each write tool, the service
 * tools, and the guarded shell (for a client whose own shell editwarden can only refuse, Codex: sandboxed,
 * its effects charged to the limits, one undo step).
 */
const MCP_TOOLS: readonly AnyTool[] = [...FILE_TOOLS, ...WRITE_TOOLS.map((t) => dryRunOf(t)), ...SERVICE_TOOLS, executeCommandTool];

const names = (tools: readonly AnyTool[]): string[] => tools.map((t) => t.name);
const granted = (tools: readonly AnyTool[], grant: ImplicitGrant): string[] => names(tools.filter((t) => t.implicit === grant));

/** The tools a run may use when the config names none: every agent tool that needs no person and no opt-in. */
export function defaultAllowedTools(): string[] {
  return names(AGENT_TOOLS.filter((t) => t.kind !== 'interactive' && t.implicit !== 'active-edit'));
}

/** Tools allowed whatever allowed_tools lists (the ADR's loop-breaking tools). */
export function alwaysAllowedTools(): string[] {
  return granted(AGENT_TOOLS, 'always');
}

/** The other names a call or allowed_tools may use for a tool (the headless ADR's names), alias → tool. */
export function toolAliases(tools: readonly AnyTool[] = [...AGENT_TOOLS, ...MCP_TOOLS]): Record<string, string> {
  const out: Record<string, string> = {};
  for (const tool of tools) for (const alias of tool.aliases ?? []) out[alias] = tool.name;
  return out;
}

/**
 * The MCP server's tool named `name` (or an alias of it) when it writes project files (kind write): what a
 * client's hook charges to the session's limits before the server runs it (integrations/mcp-call.ts).
 */
export function mcpWriteTool(name: string): AnyWriteTool | undefined {
  const canonical = toolAliases()[name] ?? name;
  return MCP_TOOLS.find((t): t is AnyWriteTool => t.name === canonical && t.kind === 'write');
}

const BY_NAME: ReadonlyMap<string, AnyTool> = new Map([...AGENT_TOOLS, ...MCP_TOOLS].map((t) => [t.name, t]));

/** The tool of tools/ named exactly `name` (no alias): whose own `describe` and `slim` say how its calls are shown (tools/call-views.ts). */
export function toolNamed(name: string): AnyTool | undefined {
  return BY_NAME.get(name);
}

/** Every name of tools/ that allowed_tools may list: each tool of every client, and the aliases. */
export function toolVocabulary(): string[] {
  return [...new Set([...names(AGENT_TOOLS), ...names(MCP_TOOLS), ...Object.keys(toolAliases())])];
}

/** A tool's MCP annotations: its kind's defaults, with the tool's own overrides. */
export function annotationsOf(tool: AnyTool): ToolAnnotations {
  return { ...KIND_ANNOTATIONS[tool.kind], ...tool.annotations };
}

const KIND_ANNOTATIONS: Record<ToolKind, ToolAnnotations> = {
  read: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  // A planned, checkpointed edit: undoable, and the same call twice is not the same change.
  write: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
  // A process in the sandbox: its effects are known only after it ran.
  command: { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: false },
  interactive: { readOnlyHint: true, destructiveHint: false, idempotentHint: false, openWorldHint: false },
  control: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
};

/** Which client the run serves: the agent loop (ours) or an MCP client. */
type ToolClient = 'agent' | 'mcp';

export interface ToolsetChoice {
  /** Default: agent. */
  client?: ToolClient;
  /** Active edit is on (agent headless or interactive): active_edit is offered and allowed. */
  activeEdit?: boolean;
  /** The names of the tools the profile brings itself (the Editor's, controlled mode's edit_file): always allowed, offered after the rest. */
  own?: readonly string[];
}

export interface Toolset {
  /** The config the run's guard reads: allowed_tools plus what this profile allows without a listing. */
  readonly config: Config;
  /** The tools of tools/ the runner serves (the profile's own tools come beside them). A served tool that is not allowed is refused by the guard. */
  readonly tools: readonly AnyTool[];
  /** The names the model or client is offered, in the order it should meet them. */
  readonly offered: readonly string[];
}

/** The one builder of a toolset: what `profile` under `config` serves, offers and allows. */
export function toolsetFor(profile: RunProfile, config: Config, choice: ToolsetChoice = {}): Toolset {
  const own = choice.own ?? [];
  if ((choice.client ?? 'agent') === 'mcp') return mcpToolset(config);
  switch (profile.mode) {
    case 'controlled':
      // Exactly one edit, through the mode's own edit_file.
      return { config, tools: [], offered: [...own] };
    case 'editor': {
      const ruled = allowing(config, own);
      // Reading and writing, no commands (only the Verifier's run), nobody to ask.
      const tools = FILE_TOOLS.filter((t) => allows(ruled, t.name));
      return { config: ruled, tools, offered: [...names(tools), ...own] };
    }
    default: {
      const person = profile.approval === 'person';
      const activeEdit = choice.activeEdit === true;
      const ruled = allowing(config, [...(person ? granted(AGENT_TOOLS, 'person') : []), ...(activeEdit ? granted(AGENT_TOOLS, 'active-edit') : [])]);
      const offered = AGENT_TOOLS.filter((t) => {
        // The design's parameterless active_edit tool: present when active edit is on, absent when off.
        if (t.implicit === 'active-edit') return activeEdit;
        if (!allows(ruled, t.name)) return false;
        return person || t.kind !== 'interactive';
      });
      return { config: ruled, tools: AGENT_TOOLS, offered: [...names(offered), ...own] };
    }
  }
}

/**
 * The MCP runner's toolset. A config that keeps the default allowed_tools
 * also allows the service tools (it never chose against them); a dry run is
 * allowed wherever its write tool is (it writes nothing). An explicit list
 * is otherwise taken as written. The dry-run twins are served, never offered
 * (a write tool's `dry_run: true` reaches them).
 */
function mcpToolset(config: Config): Toolset {
  const allowed = config.constraints.allowed_tools;
  const defaults = defaultAllowedTools();
  const isDefault = allowed.length === defaults.length && defaults.every((t) => allowed.includes(t));
  const listed = new Set(allowed);
  const extra = [...(isDefault ? names(SERVICE_TOOLS) : []), ...names(WRITE_TOOLS.filter((t) => listed.has(t.name))).map(dryRunName)];
  const ruled = allowing(config, extra);
  const twins = new Set(names(WRITE_TOOLS).map(dryRunName));
  const offered = names(MCP_TOOLS.filter((t) => !twins.has(t.name) && allows(ruled, t.name)));
  return { config: ruled, tools: MCP_TOOLS, offered };
}

/** An empty allowed_tools allows everything; otherwise `extra` joins the list (once each, after it). */
function allowing(config: Config, extra: readonly string[]): Config {
  const allowed = config.constraints.allowed_tools;
  if (allowed.length === 0) return config;
  const added = extra.filter((name, i) => !allowed.includes(name) && extra.indexOf(name) === i);
  if (added.length === 0) return config;
  return { ...config, constraints: { ...config.constraints, allowed_tools: [...allowed, ...added] } };
}

function allows(config: Config, name: string): boolean {
  const allowed = config.constraints.allowed_tools;
  return allowed.length === 0 || allowed.includes(name);
}
