/**
 * The shared half of the write tools (edit_file, write_file, apply_patch):
 * plan a call without writing to learn exactly which files and how many
 * lines it would change (the real diff, for the constraint gate), then write
 * it, and turn the outcome into text a model can act on. It never writes
 * except through the edit pipeline → ws.commit.
 *
 * Planning runs the whole pipeline once, against a planning view of the
 * workspace that records what the pipeline saw (every path it resolved,
 * every file it read) and keeps the writes it would commit. The write then
 * commits exactly those writes — without reading, matching and diffing a
 * second time — but only if everything the plan saw is still so, byte for
 * byte; otherwise (a file changed while the call waited for approval) the
 * pipeline runs again against the disk as it is now.
 */
import type { ApplyOutcome } from '../apply/apply-requests.js';
import type { EditResult } from '../edit/types.js';
import type { FileChange } from '../guard/constraints.js';
import type { ResolvedPath } from '../workspace/paths.js';
import type { FileSnapshot, FileWrite, Workspace } from '../workspace/workspace.js';
import { ErrorCode } from '../errors.js';
import { failure, type ChangePlan, type ToolContext, type ToolResult } from './types.js';

/**
 * Runs the edit pipeline for real (not as a dry run) against `ws`: the
 * workspace itself, or a planning view whose commit only keeps the writes.
 */
export type WorkspacePipeline = (ws: Workspace) => Promise<ApplyOutcome>;

/** Longest diff text returned to a model in one result. */
const MAX_DIFF_CHARS = 20_000;

export function changesOf(outcome: ApplyOutcome): FileChange[] {
  const byPath = new Map<string, FileChange>();
  const touch = (path: string): FileChange => {
    let c = byPath.get(path);
    if (!c) {
      c = { path, added: 0, removed: 0 };
      byPath.set(path, c);
    }
    return c;
  };
  for (const r of outcome.results) {
    if (r.status !== 'applied' && r.status !== 'dry-run') continue;
    const c = touch(r.movedTo ?? r.path);
    c.added += r.added;
    c.removed += r.removed;
  }
  // A move also changes its source (deleted); a delete has no result lines of its own.
  for (const f of outcome.files) touch(f);
  return [...byPath.values()];
}

function rejectedText(results: EditResult[]): string {
  const lines = ['Nothing was written.'];
  results.forEach((r, i) => {
    if (!r.error) return;
    lines.push(`#${i + 1} ${r.path || '(no file)'}: ${r.error.code} ${r.error.message}`, `  hint: ${r.error.hint}`);
  });
  return lines.join('\n');
}

function firstError(results: EditResult[]): EditResult['error'] {
  // The request that failed on its own explains more than the ones aborted with it.
  return results.find((r) => r.error && r.error.code !== 'E_ABORTED')?.error ?? results.find((r) => r.error)?.error;
}

function refused(outcome: ApplyOutcome): ToolResult {
  const error = firstError(outcome.results) ?? { code: 'E_INTERNAL', message: 'The edit was refused.', hint: 'Read the file again and retry.' };
  return { ...failure(error, rejectedText(outcome.results)), data: { results: outcome.results } };
}

function planOf(outcome: ApplyOutcome): ChangePlan {
  if (!outcome.ok) return { ok: false, result: refused(outcome) };
  return { ok: true, changes: changesOf(outcome), diff: outcome.diff };
}

function appliedResult(outcome: ApplyOutcome): ToolResult {
  if (!outcome.ok) return refused(outcome);
  const lines: string[] = [];
  for (const r of outcome.results) {
    const how = r.strategy && r.strategy !== 'exact' && r.strategy !== 'whole-file' ? ` (matched by ${r.strategy})` : '';
    lines.push(`${r.status} ${r.action} ${r.movedTo ? `${r.path} → ${r.movedTo}` : r.path} +${r.added} -${r.removed}${how}`);
    for (const note of r.notes ?? []) lines.push(`  note: ${note}`);
  }
  if (outcome.diff) {
    lines.push(outcome.diff.length > MAX_DIFF_CHARS ? `${outcome.diff.slice(0, MAX_DIFF_CHARS)}\n…[diff cut at ${MAX_DIFF_CHARS} chars]` : outcome.diff.trimEnd());
  }
  return { ok: true, output: lines.join('\n'), data: { results: outcome.results, files: outcome.files }, changes: changesOf(outcome) };
}

/** What the planning run saw: a path's resolution, or a file's bytes (null: no file). */
type Observation =
  | { kind: 'resolve'; requested: string; resolved: ResolvedPath }
  | { kind: 'read'; requested: string; snapshot: FileSnapshot | null };

interface PlannedWrite {
  args: unknown;
  outcome: ApplyOutcome;
  writes: FileWrite[];
  observed: Observation[];
}

/**
 * Plans of this call, waiting for its write. Keyed by the call's context
 * (the runner passes one context to plan() and execute()) so a plan never
 * outlives its call or reaches another one; a WeakMap, so a plan that is
 * never written (refused, declined, a dry run) goes with its context.
 */
const plannedByCall = new WeakMap<ToolContext, PlannedWrite>();

/**
 * A view of `ws` for planning: resolves and reads through the workspace
 * (same sandbox, same errors) and records what it saw; its commit keeps the
 * writes instead of writing them. Anything else that could write throws.
 */
function planningView(ws: Workspace, observed: Observation[], keep: (writes: FileWrite[]) => void): Workspace {
  const view = Object.create(ws) as Workspace;
  const noWrites = (): never => {
    throw new Error('a planning view of the workspace does not write');
  };
  // Own properties shadow the workspace's methods; fields (root, limits) are read through the prototype.
  // defineProperties, not assignment: `ws` may itself be such a view (the Editor's overlay) with read-only methods.
  Object.defineProperties(view, {
    resolve: {
      value: (requested: string): ResolvedPath => {
        const resolved = ws.resolve(requested);
        observed.push({ kind: 'resolve', requested, resolved });
        return resolved;
      },
    },
    exists: { value: (requested: string): boolean => view.resolve(requested).exists },
    read: {
      value: (requested: string): FileSnapshot | null => {
        const snapshot = ws.read(requested);
        observed.push({ kind: 'read', requested, snapshot });
        return snapshot;
      },
    },
    commit: { value: (writes: FileWrite[]): void => keep(writes) },
    writeAll: { value: noWrites },
    setCommitter: { value: noWrites },
  });
  return view;
}

/** Whether the workspace still looks exactly as the plan saw it: same locations, same bytes and modes. */
function stillAsPlanned(ws: Workspace, observed: readonly Observation[]): boolean {
  try {
    for (const o of observed) {
      if (o.kind === 'resolve') {
        const now = ws.resolve(o.requested);
        if (now.absolute !== o.resolved.absolute || now.relative !== o.resolved.relative || now.exists !== o.resolved.exists) return false;
        continue;
      }
      const now = ws.read(o.requested);
      if (now === null || o.snapshot === null) {
        if (now !== o.snapshot) return false;
        continue;
      }
      // A full comparison, not mtime and size: a change within the file system's timestamp granularity must not slip through.
      if (now.absolute !== o.snapshot.absolute || now.mode !== o.snapshot.mode || !now.bytes.equals(o.snapshot.bytes)) return false;
    }
    return true;
  } catch {
    // The path no longer resolves or reads: let the pipeline run again and report it properly.
    return false;
  }
}

/**
 * Plans a write tool's call: the pipeline runs once, for real, against a
 * planning view, so the plan carries the exact writes. `applyPlanned` with
 * the same context and arguments commits them.
 */
export async function planWrites(pipeline: WorkspacePipeline, ctx: ToolContext, args: unknown): Promise<ChangePlan> {
  plannedByCall.delete(ctx);
  const observed: Observation[] = [];
  let writes: FileWrite[] = [];
  const outcome = await pipeline(planningView(ctx.ws, observed, (w) => (writes = w)));
  if (outcome.ok) plannedByCall.set(ctx, { args, outcome, writes, observed });
  return planOf(outcome);
}

/**
 * Writes a call planned by `planWrites`: commits the planned writes when the
 * workspace is still as the plan saw it; otherwise (or when this call was
 * not planned) runs the pipeline against the workspace itself.
 */
export async function applyPlanned(pipeline: WorkspacePipeline, ctx: ToolContext, args: unknown): Promise<ToolResult> {
  const planned = plannedByCall.get(ctx);
  plannedByCall.delete(ctx);
  if (planned && planned.args === args) {
    // The limits were checked against this plan: a workspace that changed meanwhile is
    // refused rather than re-planned, so nothing is written that the gate has not seen.
    if (!stillAsPlanned(ctx.ws, planned.observed)) {
      const paths = [...new Set(planned.observed.map((o) => o.requested))].join(', ');
      return failure({
        code: ErrorCode.STALE,
        message: `${paths || 'The files'} changed after the call was planned and checked; nothing was written.`,
        hint: 'Read the file again and repeat the call.',
      });
    }
    if (planned.writes.length > 0) ctx.ws.commit(planned.writes);
    return appliedResult(planned.outcome);
  }
  // A call that was never planned (callers without a plan step) runs the pipeline itself.
  return appliedResult(await pipeline(ctx.ws));
}
