/**
 * apply_patch: a patch in any format the formats layer reads (apply_patch
 * envelope, unified diff, SEARCH/REPLACE blocks, active-edit directives,
 * JSON requests), detected automatically, applied all or nothing. The same
 * parse-and-apply path as `editwarden apply`: nothing here re-implements it.
 */
import { z } from 'zod';
import { planReply } from '../apply/apply-reply.js';
import { FORMAT_NAMES, type FormatName } from '../formats/index.js';
import { prepareWrites, withoutDiffs } from './edits.js';
import { defineTool } from './types.js';
import { textArg } from './call-args.js';
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

export const applyPatchTool = defineTool({
  name: 'apply_patch',
  kind: 'write',
  // The headless ADR's name for applying a diff: a model prompted with the ADR's tool list calls it.
  aliases: ['apply_diff'],
  description: applyPatchDescription,
  describe: (a) => `apply_patch (${textArg(a.patch).split('\n').length} lines)`,
  slim: withoutDiffs,
  schema: ApplyPatchArgs,
  // Parsed and planned once; the invocation commits that plan.
  prepare: (args, ctx) => prepareWrites(planReply(ctx.ws, args.patch, { ...ctx.apply, format: args.format as FormatName | 'auto' }).then((reply) => reply.plan)),
});
