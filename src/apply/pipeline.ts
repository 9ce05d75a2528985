/**
 * The one change pipeline: every route to a write — the runner's write tools,
 * controlled mode, the CLI's `edit` and `apply`, the library, the demo and
 * the hooks — goes `plan(view, requests) → Plan` then `commit(plan)`, or,
 * where nothing waits between the two, `applyRequests` (both in one critical
 * section). No
 * route assembles safety rules of its own: the protected set, the resolver,
 * the engine's guards (large deletion, size, binary, syntax) and the stale
 * check all run here, in `runRequests` (`apply-requests.ts`, which only this
 * module calls).
 *
 * `plan` is pure with respect to the disk: it runs the whole pipeline against
 * a planning view of `view` (an `OverlayView` that records every path it
 * resolved and every file it read, and keeps the writes it would commit in
 * memory). The protected set of `view.policy` is checked on every request
 * path, every move target and every planned write. The plan carries the
 * outcome (results, combined diff, files), the changes for the constraint
 * gate and the exact writes.
 *
 * `commit(plan)` writes exactly those writes in one transaction under the
 * root lock — if everything the plan saw is still so, byte for byte, checked
 * and written in one critical section. Otherwise (another writer changed a
 * file since the plan, e.g. while a person looked at it) the same requests
 * are planned again on the current text, under the lock, and written only if
 * they make the same change (same lines out and in, same files; a concurrent
 * edit elsewhere in the file only moves it); anything else is E_STALE. It
 * never writes a plan over bytes it did not see. A hook's plan is never
 * committed here: the client performs its commit.
 */
import { EditwardenError, ErrorCode } from '../errors.js';
import type { EditRequest } from '../edit/types.js';
import type { FileChange } from '../guard/constraints.js';
import { OverlayView, type Observation } from '../workspace/overlay.js';
import type { FileView } from '../workspace/view.js';
import type { FileWrite } from '../workspace/workspace.js';
import { runRequests, type ApplyOptions, type ApplyOutcome } from './apply-requests.js';

export type { ApplyOptions, ApplyOutcome } from './apply-requests.js';

/** What a plan takes: the edit options, the language hooks, partial or all-or-nothing, a dry run, parse errors to merge. */
export type PlanOptions = Omit<ApplyOptions, 'admit'>;

/** One planned change: what it would do, checked, and the exact writes that do it. */
export interface Plan {
  /** The outcome as it will be once committed (a dry run's: as it would be); refusals are its rejected results. */
  readonly outcome: ApplyOutcome;
  /** Per file, the lines the plan adds and removes: what the constraint gate and an approval see. */
  readonly changes: FileChange[];
  /** The view the plan was made on and that `commit` writes to. */
  readonly view: FileView;
  /** The planned writes, in order; empty for a refused plan or a dry run. */
  readonly writes: readonly FileWrite[];
  /** Everything the planning saw: `commit` compares it with the view under the lock. */
  readonly observed: readonly Observation[];
  readonly requests: readonly EditRequest[];
  readonly options: PlanOptions;
}

/** A committed plan's outcome; `replanned` names the files that had moved and were re-planned to the same change. */
export interface Committed extends ApplyOutcome {
  replanned: string[];
}

/**
 * The plans `plan` made and nobody has committed yet. A plan is a plain
 * object a caller could build or alter by hand; `commit` writes only one of
 * these, once — so what it writes is what the pipeline planned and checked.
 */
const uncommitted = new WeakSet<Plan>();

/** Plans `requests` on `view` without writing anything to it. */
export async function plan(view: FileView, requests: readonly EditRequest[], options: PlanOptions = {}): Promise<Plan> {
  const observed: Observation[] = [];
  // The planning view: what the plan saw is recorded, what it would write stays in memory (and passes the protected set there).
  const planning = new OverlayView(view, { observe: (o) => observed.push(o) });
  const outcome = await runRequests(planning, [...requests], options);
  const made: Plan = Object.freeze({ outcome, changes: changesOf(outcome), view, writes: Object.freeze(planning.written()), observed: Object.freeze(observed), requests: Object.freeze([...requests]), options });
  uncommitted.add(made);
  return made;
}

/** Commits exactly `planned` (see the module comment); a dry-run plan or one with nothing to write returns its outcome. */
export async function commit(planned: Plan): Promise<Committed> {
  if (!uncommitted.delete(planned)) {
    throw new EditwardenError({
      code: ErrorCode.PLAN_NOT_COMMITTABLE,
      message: 'This plan was not made by plan(), or it was committed already; nothing was written.',
      hint: 'Make a new plan with plan(view, requests) and commit it once.',
    });
  }
  if (planned.options.dryRun === true || planned.writes.length === 0) return { ...planned.outcome, replanned: [] };
  const { view } = planned;
  // Compare and commit in one critical section: nobody writes between the check and the write.
  const moved = view.transact((tx) => {
    const first = changedSincePlan(view, planned.observed);
    if (first === null) view.commit(tx, [...planned.writes]);
    return first;
  });
  if (moved === null) return { ...planned.outcome, replanned: [] };
  // The gate and any approval saw `planned`: a re-plan is written only if it makes that same change.
  const outcome = await runRequests(view, [...planned.requests], { ...planned.options, admit: (now) => (sameChange(planned.outcome, now) ? null : staleReplan([moved])) });
  return { ...outcome, replanned: [moved] };
}

/**
 * Plan and commit in one step, for a caller with nothing between the two (no
 * gate, no person: the CLI's `edit` and `apply`, the library, the demo): the
 * plan is made under the root lock, on the very bytes its commit writes over,
 * and committed in that same critical section (`runRequests` inside
 * `view.transact`) — the same rules as `commit(await plan(…))`, but a plan
 * that cannot go stale needs no second read of every file (on a 100k-line
 * file that read and compare cost a quarter of the edit). A dry run only plans.
 */
export async function applyRequests(view: FileView, requests: readonly EditRequest[], options: PlanOptions = {}): Promise<ApplyOutcome> {
  return runRequests(view, [...requests], options);
}

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
export function changeLines(diff: string): string {
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
    ...(paths.length === 1 && paths[0] ? { path: paths[0] } : {}),
  });
}
