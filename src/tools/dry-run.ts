/**
 * `dry_run: true` for the write tools: a read-kind twin of a write tool
 * (`edit_file_dry_run`…) whose work is the write tool's own `prepare()` — the
 * same pipeline that computes the real diff before every write — so a
 * preview can never disagree with the edit it previews. It goes through the
 * ToolRunner like any call (validated, recorded) but, being a read, is never
 * charged to the limits and never writes.
 */
import { toErrorInfo } from '../errors.js';
import { defineTool, failure, type AnyTool, type ToolDefinition } from './types.js';
import { cutOutput } from './output.js';

const DRY_RUN_SUFFIX = '_dry_run';

export function dryRunName(tool: string): string {
  return `${tool}${DRY_RUN_SUFFIX}`;
}

export function dryRunOf(tool: AnyTool): ToolDefinition {
  if (tool.kind !== 'write') throw new Error(`${tool.name} is not a write tool; it has no dry run`);
  const prepare = tool.prepare;
  return defineTool({
    name: dryRunName(tool.name),
    kind: 'read',
    description: `Preview of ${tool.name}: the diff it would make, nothing written.`,
    schema: tool.schema,
    async execute(args, ctx) {
      try {
        // The invocation is only looked at, never run: a preview writes nothing.
        const prepared = await prepare(args, ctx);
        if (!prepared.ok) return prepared.result;
        const planned = prepared.invocation;
        const diff = cutOutput(planned.diff.trimEnd(), 'diff');
        const summary = planned.changes.map((c) => `dry-run ${c.path} +${c.added} -${c.removed}`);
        return {
          ok: true,
          output: [...(summary.length > 0 ? summary : ['dry-run: no change']), 'Nothing was written.', ...(diff ? [diff] : [])].join('\n'),
          data: { dry_run: true, changes: planned.changes },
        };
      } catch (error) {
        return failure(toErrorInfo(error));
      }
    },
  });
}
