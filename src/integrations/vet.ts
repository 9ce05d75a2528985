/**
 * The shared hook engine: a client's native edit is a call on the client
 * session's hook Run (hook-run.ts) through the ToolRunner — the gate every
 * tool call passes (allowed tools, limits), the change pipeline's plan as
 * `edit_file` makes it (the same resolver, denied paths, engine and guards),
 * and the charge to the session's ledger — in the client-commit form of the
 * write tools (tools/client-commit.ts): the client writes, so the call's run
 * step checkpoints the planned files (so `editwarden undo` restores them),
 * keeping what the plan leaves at each path (hook-settle.ts settles the call
 * once that is on disk). After the client wrote, `recordNativeEdit` is the
 * runner's confirm step: what really changed, its undo step confirmed
 * (hook.ts records it).
 *
 * This module only translates: the client's edit into that call, the
 * runner's record back into the hook's verdict. It never writes a project
 * file, and it fails closed: anything it cannot vet is refused.
 */
import { ErrorCode, toErrorInfo, type ErrorInfo } from '../errors.js';
import type { FileChange } from '../guard/constraints.js';
import { openProjectAt } from '../host/project-at.js';
import type { Project } from '../host/project.js';
import { violationRefusal } from '../runs/ledger.js';
import { checkpointPlanned, clientCheckpoint, nativeEditTool } from '../tools/client-commit.js';
import type { CallRecord } from '../tools/runner.js';
import { isSettled, plannedAfter } from './hook-settle.js';
import type { NativeEdit } from './native-edit.js';
import { hookCalls, hookRunner } from './hook-run.js';

export type Verdict = { allow: true; changes: FileChange[]; diff: string; checkpoint: string | null } | { allow: false; error: ErrorInfo };

/**
 * Vets the native edit against the workspace at `root`; on allow, its files are checkpointed. `configFile`: an
 * explicit `--config` (absolute), loaded and protected. `opened`: the project this hook call opened already (to
 * settle the session's pending calls first), so one decision opens it once.
 */
export async function vetNativeEdit(root: string, edit: NativeEdit, configFile?: string, opened?: Project): Promise<Verdict> {
  try {
    // The Project every route opens (host/project.ts): the one loader, the protected set (an explicit config is a member),
    // the edit options and the language hooks — the same values the file tools, the CLI and the sandbox read.
    const project = opened ?? openProjectAt(root, { configFile });
    const origin = { client: edit.client, tool: edit.tool, call: edit.call, session: edit.session?.session };
    // The editwarden tool the client's record maps its tool to (writing whole files, editing parts, a patch).
    const tool = nativeEditTool(
      edit.as,
      checkpointPlanned(project.transactions, origin, (writes) => plannedAfter(project.ws, writes)),
    );
    const record = await hookRunner(project, hookCalls(edit.client, edit.session ?? null), [tool]).call({ tool: edit.as, args: { requests: edit.requests, paths_only: edit.pathsOnly } });
    return verdictOf(record);
  } catch (error) {
    return deny(toErrorInfo(error));
  }
}

/** The runner's record as the hook's verdict: allowed with its changes, diff and checkpoint, or the refusal (a limit's with its path). */
function verdictOf(record: CallRecord): Verdict {
  if (!record.ok) return deny(record.violation ? violationRefusal(record.violation) : (record.error ?? { code: ErrorCode.INTERNAL, message: 'The edit was refused.', hint: 'Read the file again and retry.' }));
  const data = record.data as { diff: string; checkpoint: string | null; changes: FileChange[] };
  return { allow: true, changes: data.changes, diff: data.diff, checkpoint: data.checkpoint };
}

/** After the client's tool ran: what changed since the hook's checkpoint (the caller records it: runs/hook-records.ts), its undo step confirmed. */
export function recordNativeEdit(root: string, client: string, tool: string, call: string | undefined, configFile?: string): HookRecord {
  const project = openProjectAt(root, { configFile });
  const checkpoint = clientCheckpoint(project.transactions.checkpoints, { client, tool, call });
  // Settled already (the session's next hook or its Stop hook found the planned bytes on disk: hook-settle.ts): recorded then.
  if (checkpoint !== null && isSettled(project, checkpoint)) return { checkpoint, changes: [], settledBefore: true };
  return recordHookCall(project, checkpoint);
}

/** What a hook call's record says: its checkpoint and what changed since (with each file's patch, for the event log). */
export interface HookRecord {
  checkpoint: string | null;
  changes: Array<{ path: string; change: string; patch?: string }>;
  /** The call was recorded before its post hook came (hook-settle.ts): nothing was written now. */
  settledBefore?: boolean;
}

/** Hook call `checkpoint` as its post hook finds it: the runner's confirm step (the diff since it, the undo step confirmed when it changed something); the caller records it. */
export function recordHookCall(project: Project, checkpoint: string | null): HookRecord;
/** `ifChanged`: nothing is confirmed when nothing changed (null) — a call settled before its post hook (hook-settle.ts). */
export function recordHookCall(project: Project, checkpoint: string, ifChanged: true): HookRecord | null;
export function recordHookCall(project: Project, checkpoint: string | null, ifChanged = false): HookRecord | null {
  const confirmed = checkpoint ? hookRunner(project, null, []).confirm(checkpoint) : [];
  if (ifChanged && confirmed.length === 0) return null;
  // With the patch: the event log shows the change's diff.
  return { checkpoint, changes: confirmed.map((c) => ({ path: c.path, change: c.change, ...(c.patch !== undefined ? { patch: c.patch } : {}) })) };
}

function deny(error: ErrorInfo): Verdict {
  return { allow: false, error };
}
