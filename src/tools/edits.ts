/**
 * The shared half of the write tools (edit_file, write_file, apply_patch):
 * run the edit pipeline once as a dry run to learn exactly which files and
 * how many lines a call would change (the real diff, for the constraint
 * gate), then for real, and turn the outcome into text a model can act on.
 * It never writes except through applyRequests → ws.commit.
 */
import type { ApplyOutcome } from '../apply/apply-requests.js';
import type { EditResult } from '../edit/types.js';
import type { FileChange } from '../guard/constraints.js';
import { failure, type ChangePlan, type ToolContext, type ToolResult } from './types.js';

/** Runs the edit pipeline; `dryRun` plans only. */
export type EditPipeline = (dryRun: boolean) => Promise<ApplyOutcome>;

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

export async function planEdits(pipeline: EditPipeline): Promise<ChangePlan> {
  const outcome = await pipeline(true);
  if (!outcome.ok) {
    const error = firstError(outcome.results) ?? { code: 'E_INTERNAL', message: 'The edit was refused.', hint: 'Read the file again and retry.' };
    return { ok: false, result: { ...failure(error, rejectedText(outcome.results)), data: { results: outcome.results } } };
  }
  return { ok: true, changes: changesOf(outcome), diff: outcome.diff };
}

export async function applyEdits(pipeline: EditPipeline): Promise<ToolResult> {
  const outcome = await pipeline(false);
  if (!outcome.ok) {
    const error = firstError(outcome.results) ?? { code: 'E_INTERNAL', message: 'The edit was refused.', hint: 'Read the file again and retry.' };
    return { ...failure(error, rejectedText(outcome.results)), data: { results: outcome.results } };
  }
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

/** applyRequests options from the tool context. */
export function applyOptionsOf(ctx: ToolContext): ToolContext['apply'] {
  return ctx.apply;
}
