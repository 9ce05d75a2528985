/**
 * The shared hook engine: decides a client's native edit exactly as
 * `edit_file` would decide the same change — the same sandbox resolver, the
 * same denied paths, the same engine and guards (large deletion, size,
 * binary, syntax), the same constraints — by the change pipeline's `plan`
 * (`apply/pipeline.ts`), whose commit the client performs: nothing is
 * written here. An allowed change gets a checkpoint of every file
 * it will touch (so `editwarden undo` restores them); after the client
 * wrote, `recordNativeEdit` finds what really changed (runs/hook-records.ts logs it).
 *
 * It never writes a project file: the client writes, editwarden only plans
 * and checkpoints. It fails closed: anything it cannot vet is refused.
 */
import { plan } from '../apply/pipeline.js';
import { ErrorCode, toErrorInfo, type ErrorInfo } from '../errors.js';
import type { FileChange } from '../guard/constraints.js';
import { StepRecords } from '../workspace/checkpoints/steps.js';
import { deferDurable, syncGroup } from '../workspace/durable.js';
import { openProjectAt } from '../host/project-at.js';
import type { Project } from '../host/project.js';
import { isSettled, plannedAfter } from './hook-settle.js';
import { protectedRefusal } from '../workspace/policy.js';
import type { NativeEdit } from './native-edit.js';
import { openLedger, sessionLimits, violationRefusal } from '../runs/ledger.js';

export type Verdict = { allow: true; changes: FileChange[]; diff: string; checkpoint: string | null } | { allow: false; error: ErrorInfo };

/** Plans the native edit against the workspace at `root`; on allow, checkpoints the files it touches. `configFile`: an explicit `--config` (absolute), loaded and protected. */
export async function vetNativeEdit(root: string, edit: NativeEdit, configFile?: string): Promise<Verdict> {
  try {
    // The Project every route opens (host/project.ts): the one loader, the protected set (an explicit config is a member),
    // the edit options and the language hooks — the same values the file tools, the CLI and the sandbox read.
    const project = openProjectAt(root, { configFile });
    const { ws } = project;
    // A client session's limits: the interactive profile's (only the caps a layer of the config set), and where each was set.
    const limits = sessionLimits(project);
    // The session's ledger (runs/ledger.ts): what this client session already changed, in the state folder; without a session id, this call alone.
    const ledger = openLedger(limits, edit.session ? { key: edit.session, stateDir: ws.stateDir, lock: project.transactions.checkpoints.lock } : null);
    const guard = ledger.guard;
    // The editwarden tool the client's record maps its tool to (writing whole files, editing parts, a patch).
    const tool = edit.as;
    // A client's own edit tool is judged as editwarden's file tool: it needs no person.
    const restricted = guard.checkTool(tool, { tool }, false);
    if (restricted) return deny(violationRefusal(restricted));

    // 1. Paths: the one resolver, on the path the kernel will walk (outside the root, .git/, .editwarden/, symlink escapes), then the protected set.
    // Attack: a prompt-injected agent rewrites the config or the client's hook settings to switch editwarden off.
    // The requests' paths are the plan's to check (below); a path the client names without content (pathsOnly) has no request, so it is checked here.
    const relative: string[] = edit.requests.map((r) => ws.resolve(r.path).relative);
    for (const p of edit.pathsOnly) {
      const resolved = ws.resolve(p);
      if (resolved.protectedBy) throw protectedRefusal(p, resolved.protectedBy);
      relative.push(resolved.relative);
    }

    // A client's "write" replaces a file or creates it: the engine's overwrite needs the file, create needs its absence.
    const requests = edit.requests.map((r) => (r.action === 'overwrite' && !ws.exists(r.path) ? { ...r, action: 'create' as const } : r));

    // 2. Content: the change pipeline's plan, as edit_file makes it (the protected set is checked there on every planned write too); the client commits it.
    let changes: FileChange[] = edit.pathsOnly.map((p) => ({ path: ws.resolve(p).relative, added: 0, removed: 0 }));
    let diff = '';
    let after: Record<string, string> | undefined;
    if (requests.length > 0) {
      const made = await plan(ws, requests, project.applyOptions);
      const outcome = made.outcome;
      if (!outcome.ok) {
        const first = outcome.results.find((r) => r.error && r.error.code !== ErrorCode.ABORTED)?.error ?? outcome.results.find((r) => r.error)?.error;
        return deny(first ?? { code: ErrorCode.INTERNAL, message: 'The edit was refused.', hint: 'Read the file again and retry.' });
      }
      changes = [...made.changes, ...changes];
      relative.push(...outcome.files);
      diff = outcome.diff;
      // What the client's tool will leave: the call can be settled without its post hook once that is on disk (hook-settle.ts).
      if (edit.pathsOnly.length === 0) after = plannedAfter(ws, made.writes);
    }

    // 3. Constraints: patterns and limits, on the real diff and on top of what this client session already changed (each hook call is its own process).
    const violation = ledger.charge(changes, { tool });
    if (violation) return deny(violationRefusal(violation));

    // 4. Allowed: checkpoint what the client is about to write.
    const unique = [...new Set(relative)];
    if (unique.length === 0) return { allow: true, changes, diff, checkpoint: null };
    const unsynced: string[] = [];
    const manifest = project.transactions.checkpoints.createFiles(
      unique,
      `${edit.client} ${edit.tool}`,
      `before ${edit.client} ${edit.tool} ${summarize(unique)}`,
      {
        kind: 'hook',
        client: edit.client,
        tool: edit.tool,
        ...(edit.call !== undefined ? { call: edit.call } : {}),
        // The client's session: `undo --session <id>` and `undo --list` group its steps by it.
        ...(edit.session ? { session: edit.session.session } : {}),
        ...(after !== undefined ? { plannedAfter: after } : {}),
      },
      false,
      unsynced,
    );
    // Durable before the client may write (one group), or — in the warm hook server, checkpoints.durability: deferred — right after the answer.
    if (project.transactions.durability === 'deferred') deferDurable(unsynced);
    else syncGroup(unsynced);
    return { allow: true, changes, diff, checkpoint: manifest.id };
  } catch (error) {
    return deny(toErrorInfo(error));
  }
}

/** After the client's tool ran: what changed since the hook's checkpoint (the caller records it: runs/hook-records.ts), its undo step confirmed. */
export function recordNativeEdit(root: string, client: string, tool: string, call: string | undefined, configFile?: string): HookRecord {
  const project = openProjectAt(root, { configFile });
  const service = project.transactions.checkpoints;
  const ids = service.manifests.ids();
  let checkpoint: string | null = null;
  // The newest checkpoint this call's PreToolUse took (bounded look-back: hooks checkpoint right before the tool runs).
  for (let i = ids.length - 1; i >= 0 && i >= ids.length - 50; i--) {
    const m = service.get((ids[i] as { id: string }).id);
    if (m.origin.kind === 'hook' && m.origin.client === client && m.origin.tool === tool && (call === undefined || m.origin.call === call)) {
      checkpoint = m.id;
      break;
    }
  }
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

/** Hook call `checkpoint` as its post hook finds it: the diff since it (the caller records it), the undo step confirmed when it changed something. */
export function recordHookCall(project: Project, checkpoint: string | null): HookRecord;
/** `ifChanged`: nothing is confirmed when nothing changed (null) — a call settled before its post hook (hook-settle.ts). */
export function recordHookCall(project: Project, checkpoint: string, ifChanged: true): HookRecord | null;
export function recordHookCall(project: Project, checkpoint: string | null, ifChanged = false): HookRecord | null {
  const service = project.transactions.checkpoints;
  // With the patch: the event log shows the change's diff.
  const changes = checkpoint ? service.diff(checkpoint).map((c) => ({ path: c.path, change: c.change, ...(c.patch !== undefined ? { patch: c.patch } : {}) })) : [];
  if (ifChanged && changes.length === 0) return null;
  // The edit happened: only now is the pre-hook checkpoint an undo step, with the state it left recorded (steps.ts).
  if (checkpoint && changes.length > 0)
    new StepRecords(service).confirm(
      checkpoint,
      service.get(checkpoint).entries.map((e) => e.path),
    );
  return { checkpoint, changes };
}

function deny(error: ErrorInfo): Verdict {
  return { allow: false, error };
}

function summarize(paths: string[]): string {
  return paths.length <= 3 ? paths.join(', ') : `${paths.slice(0, 3).join(', ')} and ${paths.length - 3} more`;
}
