/**
 * The tools the MCP server offers beyond the runner's built-ins:
 * checkpoint_create / checkpoint_list / checkpoint_restore, verify and
 * detect. Each is a thin ToolDefinition over an existing service
 * (CheckpointService, verify(), detectProject()), registered with the same
 * ToolRunner as every other tool so it is gated, charged and recorded like
 * them. Nothing here re-implements a service; nothing here writes a project
 * file except through CheckpointService.restore.
 */
import path from 'node:path';
import { z } from 'zod';
import { ErrorCode, toErrorInfo } from '../errors.js';
import { sidesOf, toFileChange } from '../guard/command-effects.js';
import type { FileChange } from '../guard/constraints.js';
import { defineTool, failure, guarded, Invocation, type AnyTool, type Preparation, type ToolContext, type ToolResult } from './types.js';
import { detectProject } from '../verify/detect.js';
import { formatDiagnostic } from '../verify/diagnostics/index.js';
import { verify, verifyFailure } from '../verify/verifier.js';
import { commandSandbox } from '../sandbox/for-workspace.js';
import { refuseUnsandboxed } from './execute-command.js';
import { modelKeyEnvNames } from '../config/env-names.js';
import type { CheckpointService } from '../workspace/checkpoints/service.js';
import type { CheckpointChange } from '../workspace/checkpoints/types.js';
import { listNewestFirst, resolveCheckpointRef } from '../workspace/checkpoints/refs.js';
import { checkpointCreateDescription } from './descriptions/checkpoint_create.js';
import { checkpointListDescription } from './descriptions/checkpoint_list.js';
import { checkpointRestoreDescription } from './descriptions/checkpoint_restore.js';
import { verifyDescription } from './descriptions/verify.js';
import { detectDescription } from './descriptions/detect.js';
import { defined } from '../defined.js';
import { checkpointsOf } from './checkpoint-access.js';
import { redoTool, undoListTool, undoTool } from './undo-tools.js';

/** Longest list of diagnostics returned to a model in one result. */
const MAX_DIAGNOSTICS = 50;

const CheckpointCreateArgs = z
  .object({
    name: z.string().min(1).max(200).default('mcp').describe('Short name shown in checkpoint_list.'),
    reason: z.string().max(2000).default('').describe('Why this checkpoint exists (e.g. "before refactoring the parser").'),
    paths: z.array(z.string().min(1)).min(1).optional().describe('Record only these files (fast); leave out to record every non-ignored file of the workspace.'),
  })
  .strict();

export const checkpointCreateTool = defineTool({
  name: 'checkpoint_create',
  // It writes only editwarden's own state (.editwarden/), never a project file: nothing to plan or charge.
  kind: 'control',
  description: checkpointCreateDescription,
  schema: CheckpointCreateArgs,
  execute: (args, ctx) =>
    guarded(() => {
      const service = checkpointsOf(ctx);
      const scope = args.paths ? 'files' : 'workspace';
      const id = service.create(args.name, args.reason, scope, args.paths ? { paths: args.paths } : {});
      const summary = service.list().find((c) => c.id === id);
      const files = summary?.files ?? 0;
      return {
        ok: true,
        output: `checkpoint ${id} (${scope}, ${files} file(s)). Restore it with checkpoint_restore {"id": "${id}"}.`,
        data: { id, scope, files, bytes: summary?.bytes ?? 0 },
      };
    }),
});

const CheckpointListArgs = z
  .object({
    limit: z.number().int().positive().max(1000).default(20).describe('Newest checkpoints to show (default 20).'),
  })
  .strict();

export const checkpointListTool = defineTool({
  name: 'checkpoint_list',
  kind: 'read',
  description: checkpointListDescription,
  schema: CheckpointListArgs,
  execute: (args, ctx) =>
    guarded(() => {
      const all = listNewestFirst(checkpointsOf(ctx));
      const shown = all.slice(0, args.limit);
      const lines = shown.map((c) => `${c.id}  ${c.scope.padEnd(9)} ${c.createdAt}  ${c.files} file(s)  ${c.name}${c.reason ? ` — ${c.reason}` : ''} [${c.origin.kind}]`);
      const more = all.length > shown.length ? `\n[${all.length - shown.length} older checkpoint(s) not shown; raise limit]` : '';
      return {
        ok: true,
        output: all.length === 0 ? 'No checkpoints yet. Take one with checkpoint_create.' : `${lines.join('\n')}${more}`,
        data: { total: all.length, checkpoints: shown },
      };
    }),
});

const CheckpointRestoreArgs = z
  .object({
    id: z.string().min(1).describe('Checkpoint id from checkpoint_create or checkpoint_list (a unique id prefix, a checkpoint name, or "latest" also work).'),
  })
  .strict();

/** What a restore would change: the files that differ from the checkpoint now, with their line counts (streamed: any size counts). */
function restoreChanges(service: CheckpointService, id: string): { diff: CheckpointChange[]; changes: FileChange[] } {
  const diff = service.diff(id);
  const sides = sidesOf(service, service.get(id));
  return { diff, changes: diff.map((c) => toFileChange(c, sides)) };
}

function sameChanges(a: readonly FileChange[], b: readonly FileChange[]): boolean {
  return a.length === b.length && a.every((x, i) => x.path === b[i]?.path && x.added === b[i]?.added && x.removed === b[i]?.removed);
}

/** The restore itself, under the root lock: charged for what it overwrites now, and refused when that is not what the plan showed. */
function restoreAsPlanned(ctx: ToolContext, service: CheckpointService, id: string, planned: readonly FileChange[]): ToolResult {
  // One critical section: another writer may have changed files since the plan.
  const done = ctx.ws.transact(() => {
    const now = restoreChanges(service, id).changes;
    if (!sameChanges(planned, now)) return null;
    return { r: service.restore(id), changes: now };
  });
  if (!done) {
    return failure({
      code: ErrorCode.STALE,
      message: `Files changed after restoring checkpoint ${id} was planned and checked (another writer); nothing was restored.`,
      hint: 'Call checkpoint_restore again: it is planned against the files as they are now.',
    });
  }
  const { r, changes } = done;
  const touched = [...r.written, ...r.removed];
  const output = [
    `restored checkpoint ${r.id}: ${r.written.length} file(s) written, ${r.removed.length} removed, ${r.unchanged} unchanged.`,
    ...touched.slice(0, 50).map((p) => `  ${r.removed.includes(p) ? 'removed' : 'written'} ${p}`),
    ...(touched.length > 50 ? [`  … and ${touched.length - 50} more`] : []),
    ...(r.safety ? [`To undo this restore: checkpoint_restore {"id": "${r.safety}"}.`] : []),
  ].join('\n');
  return { ok: true, output, data: r, changes };
}

export const checkpointRestoreTool = defineTool({
  name: 'checkpoint_restore',
  // A restore rewrites project files, so it is planned and gated like any edit (patterns, file and line limits).
  kind: 'write',
  // It puts files back as they were, dropping later work; restoring twice gives the same files.
  annotations: { destructiveHint: true, idempotentHint: true },
  description: checkpointRestoreDescription,
  schema: CheckpointRestoreArgs,
  async prepare(args, ctx): Promise<Preparation> {
    try {
      const service = checkpointsOf(ctx);
      const id = resolveCheckpointRef(service, args.id);
      const { diff, changes } = restoreChanges(service, id);
      // The plan (the checkpoint and the changes it showed) lives in this closure until run().
      const run = (): Promise<ToolResult> => guarded(() => restoreAsPlanned(ctx, service, id, changes));
      return { ok: true, invocation: new Invocation(run, { changes, diff: diff.map((c) => c.patch ?? `${c.change} ${c.path}\n`).join('') }) };
    } catch (error) {
      return { ok: false, result: failure(toErrorInfo(error)) };
    }
  },
});

const VerifyArgs = z
  .object({
    kind: z.enum(['build', 'test']).default('build').describe('build (default) or test: the command configured in .editwarden.yml (verify.build / verify.test), else the one detected.'),
  })
  .strict();

export const verifyTool = defineTool({
  name: 'verify',
  // The build may rewrite tracked files (generated sources): the runner charges what it changed, as for any command.
  kind: 'command',
  // The project's own build or test: it changes no source file, and running it again judges the same tree.
  annotations: { destructiveHint: false, idempotentHint: true },
  description: verifyDescription,
  schema: VerifyArgs,
  async execute(args, ctx) {
    const refused = refuseUnsandboxed(ctx, commandSandbox(ctx.ws, ctx.config));
    if (refused) return refused;
    try {
      const result = await verify(ctx.ws, {
        kind: args.kind,
        config: ctx.config,
        ...defined({ runId: ctx.runDir ? path.basename(ctx.runDir) : undefined }),
        signal: ctx.signal,
        // Model API keys never reach the build, whose output goes back to the client.
        env: Object.fromEntries(modelKeyEnvNames().map((name) => [name, undefined])),
      });
      const diagnostics = result.diagnostics.slice(0, MAX_DIAGNOSTICS);
      const verdict = result.passed ? 'passed' : 'FAILED';
      const output = [
        `${args.kind} ${verdict}: ${result.command} (exit ${result.exit_code ?? result.signal ?? '?'}, ${(result.duration_ms / 1000).toFixed(1)} s${result.sandbox === 'none' ? ', sandbox: none' : ''}; logs in ${result.artifact_dir}/)`,
        ...diagnostics.map((d) => `  ${formatDiagnostic(d)}`),
        ...(result.diagnostics.length > diagnostics.length ? [`  … ${result.diagnostics.length - diagnostics.length} more diagnostic(s) in the logs`] : []),
        ...(result.tail ? ['--- last lines of output ---', result.tail.trimEnd()] : []),
      ].join('\n');
      const data = {
        kind: result.kind,
        passed: result.passed,
        command: result.command,
        source: result.source,
        exit_code: result.exit_code,
        signal: result.signal,
        timed_out: result.timed_out,
        duration_ms: result.duration_ms,
        artifact_dir: result.artifact_dir,
        sandbox: result.sandbox,
        diagnostics,
        ...defined({ network_refused: result.network_refused }),
      };
      if (result.passed) return { ok: true, output, data };
      return { ok: false, output, data, error: verifyFailure(result).toJSON() };
    } catch (error) {
      const info = toErrorInfo(error);
      // The verifier's hint names CLI flags; over MCP the only way is the config file.
      if (info.code === ErrorCode.CONFIG) info.hint = `Ask the person to set verify.${args.kind} in .editwarden.yml (e.g. "${args.kind === 'build' ? 'make' : 'make test'}"); detect shows what was found.`;
      return failure(info);
    }
  },
});

const DetectArgs = z.object({}).strict();

/** What detect answers: the project kinds found, their commands, and the ones verify would choose. */
function detectionResult(ctx: ToolContext): ToolResult {
  const d = detectProject(ctx.ws.root);
  const lines =
    d.projects.length === 0 ? ['No known project type found at the workspace root.'] : d.projects.map((p) => `${p.kind}: build ${p.build ?? '-'}; test ${p.test ?? '-'}${p.framework ? ` (${p.framework})` : ''} [${p.evidence.join(', ')}]`);
  const configured = [ctx.config.verify.build ? `verify.build (config): ${ctx.config.verify.build}` : '', ctx.config.verify.test ? `verify.test (config): ${ctx.config.verify.test}` : ''].filter(Boolean);
  const { root: _root, ...data } = d;
  return {
    ok: true,
    output: [...lines, `chosen: build ${ctx.config.verify.build ?? d.build ?? '-'}; test ${ctx.config.verify.test ?? d.test ?? '-'}`, ...configured].join('\n'),
    data: { ...data, configured: { build: ctx.config.verify.build ?? null, test: ctx.config.verify.test ?? null } },
  };
}

export const detectTool = defineTool({
  name: 'detect',
  kind: 'read',
  description: detectDescription,
  schema: DetectArgs,
  execute: (_args, ctx) => guarded(() => detectionResult(ctx)),
});

export const SERVICE_TOOLS: readonly AnyTool[] = [checkpointCreateTool, checkpointListTool, checkpointRestoreTool, undoListTool, undoTool, redoTool, verifyTool, detectTool];
