/**
 * The client-commit form of the write tools, beside `dry-run.ts`: a write
 * that the agent's client performs itself after editwarden answered — a
 * hooked native edit (Claude Code's Edit, Gemini CLI's write_file…), or an
 * editwarden MCP write seen by the client's pre-tool hook. It goes through
 * the ToolRunner like any call, under the same gate (allowed tools, limits)
 * and the same plan (`apply/pipeline.ts`), but its invocation is marked
 * `committer: 'client'`: the runner charges it to the run's ledger as it is
 * admitted (the client writes out of sight), and its `run()` never writes a
 * project file:
 *
 *   native edit   run() checkpoints every planned file (so `editwarden undo`
 *                 restores them); after the client wrote, the PostToolUse is
 *                 the confirm step (`confirmClientCommit`): what really
 *                 changed since that checkpoint, and the after record that
 *                 makes it an undo step (workspace/checkpoints/steps.ts)
 *   MCP write     run() notes the plan: the MCP server commits and
 *                 checkpoints it in its own run
 */
import { z } from 'zod';
import { plan } from '../apply/pipeline.js';
import type { EditRequest } from '../edit/types.js';
import type { FileChange } from '../guard/constraints.js';
import { deferDurable, syncGroup } from '../workspace/durable.js';
import { StepRecords } from '../workspace/checkpoints/steps.js';
import type { CheckpointChange } from '../workspace/checkpoints/types.js';
import type { CheckpointService } from '../workspace/checkpoints/service.js';
import { protectedRefusal } from '../workspace/policy.js';
import type { TransactionLayer } from '../workspace/transaction.js';
import type { FileWrite } from '../workspace/workspace.js';
import { defined } from '../defined.js';
import { refusedPlan } from './edits.js';
import { defineTool, Invocation, type Preparation, type ToolResult, type WriteTool } from './types.js';

/** An admitted plan the client commits: its changes and diff, and — when they are all the call writes — the plan's exact writes. */
interface ClientPlan {
  changes: readonly FileChange[];
  diff: string;
  writes?: readonly FileWrite[];
}

/** What the client's run step does with the admitted plan (the client commits it): checkpoint it, or note it. */
type CommitStep = (planned: ClientPlan) => Promise<ToolResult>;

/**
 * The client-commit form of `tool`: the same name, arguments and plan; its run step is `step`, never a write.
 * `refused`: who answers a request the plan refuses — this call (a native edit is denied with the plan's refusal),
 * or the MCP server, which writes nothing for it and says so in its own words (then this call has nothing to charge).
 */
export function clientCommitOf<S extends z.ZodType>(tool: WriteTool<S>, step: CommitStep = noted, refused: 'call' | 'server' = 'call'): WriteTool<S> {
  return defineTool({
    ...tool,
    async prepare(args, ctx): Promise<Preparation> {
      const prepared = await tool.prepare(args, ctx);
      if (!prepared.ok) return refused === 'call' ? prepared : { ok: true, invocation: new Invocation(async () => ({ ok: true, output: 'Refused by its plan: the MCP server answers it.' }), { committer: 'client' }) };
      const planned = prepared.invocation;
      return { ok: true, invocation: new Invocation(() => step({ changes: planned.changes, diff: planned.diff }), { changes: planned.changes, diff: planned.diff, committer: 'client' }) };
    },
  });
}

/** The MCP server commits (and checkpoints) the write itself: here the plan is only noted. */
async function noted(planned: ClientPlan): Promise<ToolResult> {
  return { ok: true, output: 'Planned; the MCP server writes it.', changes: [...planned.changes], data: { diff: planned.diff } };
}

const NativeEditArgs = z
  .object({
    // EditRequests the client's input was translated into (integrations/native-edit.ts): planned exactly like edit_file's.
    requests: z.array(z.custom<EditRequest>((v) => typeof v === 'object' && v !== null && !Array.isArray(v))),
    // Paths the client writes without a content model (a notebook cell): held to the boundary and the limits, and checkpointed.
    paths_only: z.array(z.string()),
  })
  .strict();

/**
 * A client's own edit, judged as editwarden's `name` (edit_file, write_file or apply_patch, for `allowed_tools`), in
 * its client-commit form: its requests planned by the change pipeline as edit_file plans them, charged as admitted,
 * and `step` run on the plan instead of a write (the client writes).
 */
export function nativeEditTool(name: 'edit_file' | 'write_file' | 'apply_patch', step: CommitStep): WriteTool<typeof NativeEditArgs> {
  return defineTool({
    name,
    kind: 'write',
    description: `A client's own edit tool, judged as ${name}.`,
    schema: NativeEditArgs,
    async prepare(args, ctx): Promise<Preparation> {
      const { ws } = ctx;
      // A path the client names without content has no request for the plan to check: the one resolver and the protected set, here.
      const touched: FileChange[] = args.paths_only.map((p) => {
        const resolved = ws.resolve(p);
        if (resolved.protectedBy) throw protectedRefusal(p, resolved.protectedBy);
        return { path: resolved.relative, added: 0, removed: 0 };
      });
      // A client's "write" replaces a file or creates it: the engine's overwrite needs the file, create needs its absence.
      const requests = args.requests.map((r) => (r.action === 'overwrite' && !ws.exists(r.path) ? { ...r, action: 'create' as const } : r));
      const admitted = (planned: ClientPlan): Preparation => ({ ok: true, invocation: new Invocation(() => step(planned), { changes: planned.changes, diff: planned.diff, committer: 'client' }) });
      if (requests.length === 0) return admitted({ changes: touched, diff: '' });
      const made = await plan(ws, requests, ctx.apply);
      if (!made.outcome.ok) return { ok: false, result: refusedPlan(made.outcome) };
      // The plan's exact writes, when they are all the call writes (no path without a content model).
      return admitted({ changes: [...made.changes, ...touched], diff: made.outcome.diff, ...(touched.length === 0 ? { writes: made.writes } : {}) });
    },
  });
}

/** Who took a hook checkpoint: the client, its tool, the tool call's id and the session (undo groups by it). */
export interface ClientOrigin {
  client: string;
  tool: string;
  call?: string | undefined;
  session?: string | undefined;
}

/**
 * The native edit's run step: a checkpoint of every planned file, durable before the client writes (or, deferred,
 * right after the answer). `afterOf`: what the plan's writes leave at each path, kept in the checkpoint's origin so
 * the call can be settled once that is on disk (integrations/hook-settle.ts).
 */
export function checkpointPlanned(transactions: TransactionLayer, origin: ClientOrigin, afterOf?: (writes: readonly FileWrite[]) => Record<string, string>): CommitStep {
  return async (planned) => {
    const files = [...new Set(planned.changes.map((c) => c.path))];
    const data = { diff: planned.diff, checkpoint: null as string | null, changes: [...planned.changes] };
    if (files.length > 0) {
      const unsynced: string[] = [];
      const label = `${origin.client} ${origin.tool}`;
      const shown = files.length <= 3 ? files.join(', ') : `${files.slice(0, 3).join(', ')} and ${files.length - 3} more`;
      const after = planned.writes && afterOf ? afterOf(planned.writes) : undefined;
      const hook = { kind: 'hook' as const, client: origin.client, tool: origin.tool, ...defined({ call: origin.call, session: origin.session, plannedAfter: after }) };
      data.checkpoint = transactions.checkpoints.createFiles(files, label, `before ${label} ${shown}`, hook, false, unsynced).id;
      if (transactions.durability === 'deferred') deferDurable(unsynced);
      else syncGroup(unsynced);
    }
    return { ok: true, output: data.checkpoint ? `checkpoint ${data.checkpoint}; the client writes it.` : 'Nothing to checkpoint.', changes: [...planned.changes], data };
  };
}

/** The newest checkpoint hooks took for this origin's call: its PreToolUse's (bounded look-back: hooks checkpoint right before the tool runs). */
export function clientCheckpoint(service: CheckpointService, origin: ClientOrigin): string | null {
  const ids = service.manifests.ids();
  for (let i = ids.length - 1; i >= 0 && i >= ids.length - 50; i--) {
    const m = service.get((ids[i] as { id: string }).id);
    if (m.origin.kind === 'hook' && m.origin.client === origin.client && m.origin.tool === origin.tool && (origin.call === undefined || m.origin.call === origin.call)) return m.id;
  }
  return null;
}

/**
 * The confirm step of a client-committed native edit (the client's PostToolUse, or the settle of a pending call):
 * what changed since its checkpoint; when something did, the checkpoint becomes an undo step, with the state it left recorded.
 */
export function confirmClientCommit(service: CheckpointService, checkpoint: string): CheckpointChange[] {
  const changes = service.diff(checkpoint);
  if (changes.length > 0)
    new StepRecords(service).confirm(
      checkpoint,
      service.get(checkpoint).entries.map((e) => e.path),
    );
  return changes;
}
