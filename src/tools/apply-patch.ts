/**
 * apply_patch: a patch in any format the formats layer reads (apply_patch
 * envelope, unified diff, SEARCH/REPLACE blocks, active-edit directives,
 * JSON requests), detected automatically, applied all or nothing. The same
 * parse-and-apply path as `editwarden apply`: nothing here re-implements it.
 */
import { z } from 'zod';
import { applyReply } from '../apply/apply-reply.js';
import { FORMAT_NAMES, type FormatName } from '../formats/index.js';
import { prepareWrites, type WorkspacePipeline } from './edits.js';
import { defineTool, type ToolContext } from './types.js';
import { applyPatchDescription } from './descriptions/apply_patch.js';

const ApplyPatchArgs = z
  .object({
    patch: z.string().min(1).describe('The patch text.'),
    format: z
      .enum(['auto', ...FORMAT_NAMES] as [string, ...string[]])
      .default('auto')
      .describe('auto (default) detects it; or one of: apply-patch ("*** Begin Patch"), udiff (unified diff), search-replace, active-edit, json.'),
  })
  .strict();

/** Parse and apply against the workspace it is handed: the plan runs once and its writes are committed as planned. */
function pipeline(args: z.output<typeof ApplyPatchArgs>, ctx: ToolContext): WorkspacePipeline {
  return (ws, extra) => applyReply(ws, args.patch, { ...ctx.apply, ...extra, format: args.format as FormatName | 'auto' });
}

export const applyPatchTool = defineTool({
  name: 'apply_patch',
  kind: 'write',
  // The headless ADR's name for applying a diff: a model prompted with the ADR's tool list calls it.
  aliases: ['apply_diff'],
  description: applyPatchDescription,
  schema: ApplyPatchArgs,
  prepare: (args, ctx) => prepareWrites(pipeline(args, ctx), ctx),
});
