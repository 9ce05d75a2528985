/**
 * The shared half of the write tools (edit_file, write_file, apply_patch):
 * plan a call without writing to learn exactly which files and how many
 * lines it would change (the real diff, for the constraint gate), then write
 * it, and turn the outcome into text a model can act on. It writes only
 * through the change pipeline (`apply/pipeline.ts`): the tool's `prepare` is
 * the pipeline's `plan`, kept in the closure of the call's Invocation, and
 * its `run()` is the pipeline's `commit` of exactly that plan (or of a
 * re-plan making the same change, under the lock; else E_STALE) — the
 * result says when it was re-planned.
 */
import { changesOf, commit, type ApplyOutcome, type Plan } from '../apply/pipeline.js';
import type { EditResult } from '../edit/types.js';
import { formatRefusal } from '../errors.js';
import { failure, Invocation, type Preparation, type ToolResult } from './types.js';
import { cutOutput } from './output.js';

/** A write tool's data for a program (its `slim`): each result without its diff, which the result's text carries. */
export function withoutDiffs(data: Record<string, unknown>): Record<string, unknown> {
  const results = Array.isArray(data.results) ? (data.results as Array<Record<string, unknown>>) : [];
  return { ...data, results: results.map(({ diff: _diff, ...r }) => r) };
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

/** A refused plan's answer: the request that failed on its own first, every request's refusal listed, nothing written. */
export function refusedPlan(outcome: ApplyOutcome): ToolResult {
  const error = firstError(outcome.results) ?? { code: 'E_INTERNAL', message: 'The edit was refused.', hint: 'Read the file again and retry.' };
  return { ...failure(error, rejectedText(outcome.results)), data: { results: outcome.results } };
}

function appliedResult(outcome: ApplyOutcome, replanned: string[] = []): ToolResult {
  if (!outcome.ok) return refusedPlan(outcome);
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

/**
 * A write tool's preparation from its plan (the change pipeline's `plan`):
 * a refused plan is answered at once and nothing runs; otherwise the
 * invocation shows the plan's changes and diff to the gate and the approval,
 * and its `run()` is the pipeline's `commit` of exactly that plan.
 */
export async function prepareWrites(planning: Promise<Plan>): Promise<Preparation> {
  const planned = await planning;
  if (!planned.outcome.ok) return { ok: false, result: refusedPlan(planned.outcome) };
  const run = async (): Promise<ToolResult> => {
    const committed = await commit(planned);
    return appliedResult(committed, committed.replanned);
  };
  return { ok: true, invocation: new Invocation(run, { changes: planned.changes, diff: planned.outcome.diff }) };
}
