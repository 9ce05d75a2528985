/**
 * editwarden's own MCP tools as a client's pre-tool hook sees them (Claude
 * Code's PreToolUse receives `mcp__editwarden__write_file` like any tool).
 * The MCP server a client starts is its own process with its own per-run
 * count, so without this a session under `max_files: 1` could change one
 * file natively and another through `write_file`. Here a call that writes
 * project files is planned by the tool's own `prepare` — the plan the
 * server's runner makes before it writes — and its changes are charged to
 * the client session's ledger (session-ledger.ts), so native tools, the
 * client's shell and editwarden's MCP tools count against one set of limits.
 *
 * It never writes and never runs the invocation it prepared. A call it cannot
 * plan (arguments the server will refuse, an edit whose old_text is not
 * there) writes nothing when the server runs it, so it is let through for
 * the server to refuse with its own message. A preview (`dry_run: true`)
 * and reads are not charged. The charge is made before the server runs the
 * call, as for a native edit: a call the server then refuses still counts.
 */
import { toErrorInfo, type ErrorInfo } from '../errors.js';
import { openProjectAt } from '../host/project.js';
import { mcpWriteTool } from '../tools/toolset.js';
import type { ToolContext } from '../tools/types.js';
import { SessionLedger, sessionLimits, type SessionKey } from './session-ledger.js';

/**
 * The refusal when the write of MCP tool `tool` (its name on the server) with `args` would take the session
 * past its limits; null when it fits, writes nothing, or is the server's to refuse.
 */
export async function chargeMcpCall(root: string, tool: string, args: Record<string, unknown>, session: SessionKey, configFile?: string): Promise<ErrorInfo | null> {
  const definition = mcpWriteTool(tool);
  // A read, a command (charged by the server's runner after it ran), a service tool: nothing to plan here.
  if (!definition) return null;
  const { dry_run: dryRun, ...rest } = args;
  if (dryRun === true) return null;
  const parsed = definition.schema.safeParse(rest);
  if (!parsed.success) return null;
  try {
    const project = openProjectAt(root, { configFile });
    const limits = sessionLimits(project);
    const ctx: ToolContext = {
      ws: project.ws,
      config: project.config,
      mode: 'interactive',
      call: 0,
      signal: new AbortController().signal,
      remainingMs: () => Number.POSITIVE_INFINITY,
      runDir: null,
      apply: project.applyOptions,
    };
    const prepared = await definition.prepare(parsed.data, ctx);
    if (!prepared.ok) return null;
    const changes = prepared.invocation.changes;
    return new SessionLedger(project.ws.stateDir, project.transactions.checkpoints.lock, session).charge(limits, changes, `mcp ${definition.name}`);
  } catch (error) {
    // Fail closed: a call whose effect on the session's limits cannot be judged is refused.
    const info = toErrorInfo(error);
    return { code: info.code, message: `editwarden could not count this ${tool} call against the session's limits: ${info.message}`, hint: info.hint };
  }
}
