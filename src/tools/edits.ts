/**
 * The shared half of the write tools (edit_file, write_file, apply_patch):
 * plan a call without writing to learn exactly which files and how many
 * lines it would change (the real diff, for the constraint gate), then write
 * it, and turn the outcome into text a model can act on. It never writes
 * except through the edit pipeline → ws.commit.
 *
 * Planning runs the whole pipeline once, against a planning view of the
 * workspace that records what the pipeline saw (every path it resolved,
 * every file it read) and keeps the writes it would commit, in the closure of
 * the call's Invocation. Its run() then commits exactly those writes — without reading, matching and diffing a
 * second time — but only if everything the plan saw is still so, byte for
 * byte, checked and committed under the root lock in one critical section.
 * Otherwise (another writer changed a file while the call was gated or
 * waited for approval) the same requests are planned again on the current
 * text, under the lock, and written only if they make the same change the
 * gate and the approval saw (same lines removed and added in the same
 * files; a concurrent edit elsewhere in the file only moves it) — the
 * result says it was re-planned. A re-plan that would change anything else
 * is refused with E_STALE. It never writes a plan over bytes it did not see.
 */
import type { ApplyOptions, ApplyOutcome } from '../apply/apply-requests.js';
import type { EditResult } from '../edit/types.js';
import type { FileChange } from '../guard/constraints.js';
import { OverlayView, type Observation } from '../workspace/overlay.js';
import type { FileView } from '../workspace/view.js';
import { EditwardenError, ErrorCode, formatRefusal } from '../errors.js';
import { failure, Invocation, type Preparation, type ToolContext, type ToolResult } from './types.js';
import { cutOutput } from './output.js';
import { defined } from '../defined.js';

/**
 * Runs the edit pipeline for real (not as a dry run) against `ws`: the
 * workspace itself, or a planning view whose commit only keeps the writes.
 */
export type WorkspacePipeline = (ws: FileView, extra?: PipelineExtra) => Promise<ApplyOutcome>;

/** What an invocation's run adds to a re-plan: the admit hook that compares it with the checked plan. */
type PipelineExtra = Pick<ApplyOptions, 'admit'>;

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
    lines.push(`#${i + 1} ${formatRefusal({ ...r.error, path: r.path || '(no file)' })}`);
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

function appliedResult(outcome: ApplyOutcome, replanned: string[] = []): ToolResult {
  if (!outcome.ok) return refused(outcome);
  const lines: string[] = [];
  if (replanned.length > 0) {
    lines.push(`re-planned: ${replanned.join(', ')} changed after this call was planned (another writer); the same change was applied to the current text.`);
  }
  for (const r of outcome.results) {
    const how = r.strategy && r.strategy !== 'exact' && r.strategy !== 'whole-file' ? ` (matched by ${r.strategy})` : '';
    lines.push(`${r.status} ${r.action} ${r.movedTo ? `${r.path} → ${r.movedTo}` : r.path} +${r.added} -${r.removed}${how}`);
    for (const note of r.notes ?? []) lines.push(`  note: ${note}`);
  }
  if (outcome.diff) {
    lines.push(cutOutput(outcome.diff.trimEnd(), 'diff'));
  }
  const data = replanned.length > 0 ? { results: outcome.results, files: outcome.files, replanned } : { results: outcome.results, files: outcome.files };
  return { ok: true, output: lines.join('\n'), data, changes: changesOf(outcome) };
}

/** The first path whose location, bytes or mode differ from what the plan saw; null when all are the same. */
function changedSincePlan(ws: FileView, observed: readonly Observation[]): string | null {
  for (const o of observed) {
    try {
      if (o.kind === 'resolve') {
        const now = ws.resolve(o.requested);
        if (now.absolute !== o.resolved.absolute || now.relative !== o.resolved.relative || now.exists !== o.resolved.exists) return o.resolved.relative || o.requested;
        continue;
      }
      const now = ws.read(o.requested);
      if (now === null || o.snapshot === null) {
        if (now !== o.snapshot) return o.snapshot?.path ?? now?.path ?? o.requested;
        continue;
      }
      // A full comparison, not mtime and size: a change within the file system's timestamp granularity must not slip through.
      if (now.absolute !== o.snapshot.absolute || now.mode !== o.snapshot.mode || !now.bytes.equals(o.snapshot.bytes)) return o.snapshot.path;
    } catch {
      // The path no longer resolves or reads: the re-plan reports it properly.
      return o.requested;
    }
  }
  return null;
}

/** The lines a diff removes and adds, in order, without headers, context or line numbers: "the change" a request makes. */
function changeLines(diff: string): string {
  const out: string[] = [];
  let inHunk = false;
  for (const line of diff.split('\n')) {
    if (line.startsWith('@@')) {
      inHunk = true;
      continue;
    }
    if (line.startsWith('diff --git ') || line.startsWith('Index: ')) inHunk = false;
    if (inHunk && (line.startsWith('+') || line.startsWith('-') || line.startsWith('\\'))) out.push(line);
  }
  return out.join('\n');
}

/** Whether a re-plan makes exactly the change of the plan: same requests, same files, same lines out and in. */
function sameChange(planned: ApplyOutcome, now: ApplyOutcome): boolean {
  if (planned.results.length !== now.results.length) return false;
  if (planned.files.join('\0') !== now.files.join('\0')) return false;
  return planned.results.every((p, i) => {
    const r = now.results[i];
    return r !== undefined && r.status === p.status && r.path === p.path && r.movedTo === p.movedTo && r.added === p.added && r.removed === p.removed && changeLines(r.diff) === changeLines(p.diff);
  });
}

function staleReplan(paths: string[]): EditwardenError {
  return new EditwardenError({
    code: ErrorCode.STALE,
    message: `${paths.join(', ')} changed after the call was planned and checked, and on the current text the same request makes a different change; nothing was written.`,
    hint: 'Read the file again and repeat the call against its current content.',
    ...defined({ path: paths.length === 1 && paths[0] ? paths[0] : undefined }),
  });
}

/**
 * Prepares a write tool's call: the pipeline runs once, for real, against a
 * planning view, so the invocation carries the exact writes in its closure
 * and its `run()` commits them — under the root lock, when the workspace is
 * still as the plan saw it; otherwise it re-plans the same requests on the
 * current text (also under the lock) and commits only a re-plan that makes
 * the checked change. A refused plan is answered at once; nothing runs.
 */
export async function prepareWrites(pipeline: WorkspacePipeline, ctx: ToolContext): Promise<Preparation> {
  const observed: Observation[] = [];
  // The planning view: an overlay of the call's workspace that records what the plan saw and keeps its writes in memory.
  const view = new OverlayView(ctx.ws, { observe: (o) => observed.push(o) });
  const planned = await pipeline(view);
  if (!planned.ok) return { ok: false, result: refused(planned) };
  const writes = view.written();
  const run = async (): Promise<ToolResult> => {
    // Compare and commit in one critical section: nobody writes between the check and the write.
    const changed = ctx.ws.transact((tx) => {
      const first = changedSincePlan(ctx.ws, observed);
      if (first === null && writes.length > 0) ctx.ws.commit(tx, writes);
      return first;
    });
    if (changed === null) return appliedResult(planned);
    // The limits and the approval saw `planned`: a re-plan is written only if it makes that same change.
    const outcome = await pipeline(ctx.ws, { admit: (now) => (sameChange(planned, now) ? null : staleReplan([changed])) });
    return appliedResult(outcome, [changed]);
  };
  return { ok: true, invocation: new Invocation(run, { changes: changesOf(planned), diff: planned.diff }) };
}
