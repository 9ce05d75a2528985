/**
 * editwarden's own MCP tools as a client's pre-tool hook sees them (Claude
 * Code's PreToolUse receives `mcp__editwarden__write_file` like any tool).
 * The MCP server a client starts is its own process with its own per-run
 * count, so without this a session under `max_files: 1` could change one
 * file natively and another through `write_file`. Here a call that writes
 * project files is a call on the client session's hook Run (hook-run.ts) through the
 * ToolRunner, in the write tool's client-commit form (tools/client-commit.ts):
 * planned by the tool's own `prepare` — the plan the server's runner makes
 * before it writes — and charged by the runner to the client session's
 * ledger (runs/ledger.ts), the one a native edit is charged to, so native tools, the
 * client's shell and editwarden's MCP tools count against one set of limits.
 *
 * It never writes and never runs the invocation it prepared. A call it cannot
 * plan (arguments the server will refuse, an edit whose old_text is not
 * there) writes nothing when the server runs it, so it is let through for
 * the server to refuse with its own message. A preview (`dry_run: true`)
 * and reads are not charged. The charge is made before the server runs the
 * call, as for a native edit: a call the server then refuses still counts.
 *
 * A command's changes are known only after it ran, in the server's process,
 * which does not know the client's session: MCP `execute_command` cannot be
 * charged here. So in a session with a file or line cap it is refused, with
 * the client's own shell named instead — the hook rewrites that one through
 * the guarded shell (sandbox, checkpoint, undo step), which charges the
 * session's ledger. With no caps (an interactive session's default) there is
 * nothing to count and it runs as it is.
 */
import { ErrorCode, toErrorInfo, type ErrorInfo } from '../errors.js';
import { openProjectAt } from '../host/project-at.js';
import type { Project } from '../host/project.js';
import { clientCommitOf } from '../tools/client-commit.js';
import { mcpWriteTool } from '../tools/toolset.js';
import { sessionLimits, violationRefusal, type SessionKey } from '../runs/ledger.js';
import { hookCalls, hookRunner } from './hook-run.js';

/**
 * The refusal when the write of MCP tool `tool` (its name on the server) with `args` would take the session
 * past its limits; null when it fits, writes nothing, or is the server's to refuse.
 */
export async function chargeMcpCall(root: string, tool: string, args: Record<string, unknown>, session: SessionKey, configFile?: string, shellTool?: string, opened?: Project): Promise<ErrorInfo | null> {
  if (tool === 'execute_command') return commandOutsideLedger(root, configFile, shellTool, opened);
  const definition = mcpWriteTool(tool);
  // A read or a service tool: nothing to plan here.
  if (!definition) return null;
  const { dry_run: dryRun, ...rest } = args;
  if (dryRun === true) return null;
  // Arguments the server will refuse: it writes nothing, and says so in its own words.
  if (!definition.schema.safeParse(rest).success) return null;
  let refusal: ErrorInfo;
  try {
    // The call on the session's hook Run, in the write tool's client-commit form: planned by the tool's own prepare, charged to the session's ledger.
    const project = opened ?? openProjectAt(root, { configFile });
    const record = await hookRunner(project, hookCalls(session.client, session), [clientCommitOf(definition, undefined, 'server')]).call({ tool: definition.name, args: rest });
    if (record.ok) return null;
    if (record.violation) return violationRefusal(record.violation);
    refusal = record.error ?? { code: ErrorCode.INTERNAL, message: 'the call could not be planned', hint: 'Retry the call.' };
  } catch (error) {
    refusal = toErrorInfo(error);
  }
  // Fail closed: a call whose effect on the session's limits cannot be judged is refused.
  return { code: refusal.code, message: `editwarden could not count this ${tool} call against the session's limits: ${refusal.message}`, hint: refusal.hint };
}

/** The refusal of MCP execute_command in a session whose limits cap files or lines; null when nothing is capped. */
function commandOutsideLedger(root: string, configFile: string | undefined, shellTool: string | undefined, opened: Project | undefined): ErrorInfo | null {
  try {
    const { constraints } = sessionLimits(opened ?? openProjectAt(root, { configFile }));
    const caps = [
      Number.isFinite(constraints.max_files) ? `constraints.max_files = ${constraints.max_files}` : null,
      Number.isFinite(constraints.max_lines_changed) ? `constraints.max_lines_changed = ${constraints.max_lines_changed}` : null,
    ].filter((cap): cap is string => cap !== null);
    if (caps.length === 0) return null;
    return {
      code: ErrorCode.SESSION_ROUTE,
      message: `This session's limits (${caps.join(', ')}) count every change in one ledger per client session; editwarden's MCP execute_command runs in the MCP server's own run, where this session's changes cannot be counted, so it is refused.`,
      hint: shellTool
        ? `Run the same command with your own shell tool (${shellTool}): editwarden runs it in the same sandbox, takes a checkpoint (one undo step) and counts its changes against this session's limits.`
        : // A client whose own shell is refused (Qwen Code): no command can run in a capped session; the person decides.
          `This client's own shell cannot be guarded either, so no command can run in this session while it is capped. Tell the person: they can lift the cap (${caps.join(', ')}) in their config, or use a client whose shell editwarden guards.`,
    };
  } catch (error) {
    const info = toErrorInfo(error);
    return { code: info.code, message: `editwarden could not read this session's limits for execute_command: ${info.message}`, hint: info.hint };
  }
}
