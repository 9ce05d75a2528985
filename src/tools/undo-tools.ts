/**
 * The undo history over MCP, as the CLI offers it (`editwarden undo
 * --list`, `undo --session <id>|last`, `undo --to <step>`, `redo`): the
 * steps grouped by client session, and an undo or redo of a session, back to
 * a step, or of the newest step — as ONE step, chosen by the one selection
 * layer (workspace/checkpoints/undo-select.ts) and done by the one history
 * (history.ts). An undo or redo rewrites project files, so it is a write
 * tool: planned first (which checkpoints it restores, and the change from
 * the disk now to what they hold), gated and charged like any edit, then
 * done. Nothing here restores a file itself.
 */
import { z } from 'zod';
import { EditwardenError, ErrorCode, toErrorInfo } from '../errors.js';
import { sidesOf, toFileChange } from '../guard/command-effects.js';
import type { FileChange } from '../guard/constraints.js';
import type { CheckpointService } from '../workspace/checkpoints/service.js';
import { UndoHistory, type StepResult } from '../workspace/checkpoints/history.js';
import { groupSteps, redoSelected, selectRedo, selectUndo, undoSelected, type UndoSelection } from '../workspace/checkpoints/undo-select.js';
import { checkpointsOf } from './checkpoint-access.js';
import { undoListDescription } from './descriptions/undo_list.js';
import { undoDescription } from './descriptions/undo_steps.js';
import { redoDescription } from './descriptions/redo_steps.js';
import { defineTool, failure, guarded, Invocation, type Preparation, type ToolResult } from './types.js';

const Selection = {
  session: z.string().min(1).max(200).optional().describe('A client session id (as undo_list shows it), or "last" for the latest session: every step of it, as one step.'),
  to: z.string().min(1).max(200).optional().describe('A step id (as undo_list shows it): that step and every later one, as one step.'),
};

const UndoArgs = z
  .object({
    ...Selection,
    force: z.boolean().default(false).describe('Undo even files changed since the step (what they held is kept as a step of its own, so nothing is lost).'),
  })
  .strict();
const RedoArgs = z.object(Selection).strict();
const ListArgs = z.object({ limit: z.number().int().positive().max(1000).default(50).describe('Newest steps to show (default 50).') }).strict();

function selectionOf(args: { session?: string | undefined; to?: string | undefined }): UndoSelection {
  if (args.session !== undefined && args.to !== undefined)
    throw new EditwardenError({ code: ErrorCode.USAGE, message: 'session and to each choose the steps; pass one of them.', hint: 'Call undo_list to see the session and step ids, then pass session or to.' });
  if (args.session !== undefined) return { kind: 'session', session: args.session };
  if (args.to !== undefined) return { kind: 'to', step: args.to };
  return { kind: 'newest' };
}

/** The net change of restoring `ids` in this order (a later restore of a path wins), from the disk now. */
function planOf(service: CheckpointService, ids: readonly string[]): { changes: FileChange[]; diff: string } {
  const byPath = new Map<string, { change: FileChange; patch: string }>();
  for (const id of ids) {
    const sides = sidesOf(service, service.get(id));
    for (const c of service.diff(id, { reverse: true })) byPath.set(c.path, { change: toFileChange(c, sides), patch: c.patch ?? `${c.change} ${c.path}\n` });
  }
  const sorted = [...byPath.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return { changes: sorted.map(([, v]) => v.change), diff: sorted.map(([, v]) => v.patch).join('') };
}

/** The checkpoints an undo of `selection` restores, in order: each change newest first, its checkpoints newest first. */
function undoCheckpoints(service: CheckpointService, history: UndoHistory, selection: UndoSelection): string[] {
  const changes = history.changes();
  const undone = new Set(
    history
      .list()
      .filter((s) => s.undone)
      .map((s) => s.key),
  );
  if (selection.kind === 'newest') {
    // As `undo` does: the newest change whose undo would change something.
    const open = [...changes].reverse().filter((c) => !undone.has(c.key));
    const next = open.find((c) => c.checkpoints.some((id) => service.diff(id, { patch: false }).length > 0));
    return next ? [...next.checkpoints].reverse() : [];
  }
  return selectUndo(changes, undone, selection).flatMap((c) => [...c.checkpoints].reverse());
}

function summary(verb: 'undid' | 'redid', results: readonly StepResult[]): ToolResult {
  if (results.length === 0) return { ok: true, output: `nothing to ${verb === 'undid' ? 'undo' : 'redo'}`, data: { steps: [] } };
  const lines = results.map((r) => `${verb} ${r.change?.label} (${r.change?.createdAt}): ${r.written.length} file(s) written, ${r.removed.length} removed`);
  lines.push(verb === 'undid' ? 'Put it back with redo_steps (one call takes back this whole undo).' : 'Take it back again with undo_steps.');
  return { ok: true, output: lines.join('\n'), data: { steps: results } };
}

function prepared(plan: { changes: FileChange[]; diff: string }, run: () => ToolResult): Preparation {
  return { ok: true, invocation: new Invocation(() => guarded(run), plan) };
}

export const undoListTool = defineTool({
  name: 'undo_list',
  kind: 'read',
  description: undoListDescription,
  schema: ListArgs,
  execute: (args, ctx) =>
    guarded(() => {
      const steps = new UndoHistory(checkpointsOf(ctx)).list().slice(0, args.limit);
      const groups = groupSteps(steps);
      const lines = groups.flatMap((g) => [
        g.session !== undefined ? `${g.by} session ${g.session}` : g.run !== undefined ? `${g.by} run ${g.run}` : g.by,
        ...g.steps.map((s) => `  ${s.createdAt}  ${s.kind}  ${s.key.slice(s.key.indexOf(':') + 1)}  ${s.label}  [${s.files.length} file(s): ${s.files.slice(0, 3).join(', ')}]${s.undone ? '  (undone)' : ''}`),
      ]);
      return { ok: true, output: steps.length === 0 ? 'No steps recorded.' : lines.join('\n'), data: { steps, sessions: groups.map((g) => ({ by: g.by, session: g.session, run: g.run, steps: g.steps.map((s) => s.key) })) } };
    }),
});

export const undoTool = defineTool({
  name: 'undo_steps',
  // It rewrites project files to a recorded state: planned and gated like any edit.
  kind: 'write',
  annotations: { destructiveHint: true, idempotentHint: false },
  description: undoDescription,
  schema: UndoArgs,
  async prepare(args, ctx): Promise<Preparation> {
    try {
      const service = checkpointsOf(ctx);
      const history = new UndoHistory(service);
      const selection = selectionOf(args);
      return prepared(planOf(service, undoCheckpoints(service, history, selection)), () => summary('undid', undoSelected(history, selection, { force: args.force })));
    } catch (error) {
      return { ok: false, result: failure(toErrorInfo(error)) };
    }
  },
});

export const redoTool = defineTool({
  name: 'redo_steps',
  kind: 'write',
  annotations: { destructiveHint: true, idempotentHint: false },
  description: redoDescription,
  schema: RedoArgs,
  async prepare(args, ctx): Promise<Preparation> {
    try {
      const service = checkpointsOf(ctx);
      const history = new UndoHistory(service);
      const selection = selectionOf(args);
      const ids = history.redoPlan(selection.kind === 'newest' ? undefined : (changes, stack) => selectRedo(changes, stack, selection));
      return prepared(planOf(service, ids), () => summary('redid', redoSelected(history, selection)));
    } catch (error) {
      return { ok: false, result: failure(toErrorInfo(error)) };
    }
  },
});
