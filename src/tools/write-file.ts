/**
 * write_file: create a file, or replace a whole file when `overwrite` is
 * set — through the same sandbox, guards (size, large deletion), constraint
 * gate and transaction as every other edit. Never a raw fs write.
 */
import { z } from 'zod';
import { plan } from '../apply/pipeline.js';
import type { EditRequest } from '../edit/types.js';
import { prepareWrites, withoutDiffs } from './edits.js';
import { defineTool } from './types.js';
import { targetArg } from './call-args.js';
import { writeFileDescription } from './descriptions/write_file.js';
import { defined } from '../defined.js';

const WriteFileArgs = z
  .object({
    path: z.string().min(1).describe('File path relative to the workspace root; missing folders are created.'),
    content: z.string().describe('The complete new content of the file.'),
    overwrite: z.boolean().default(false).describe('Replace an existing file (default false: refuse if it exists).'),
    force: z.boolean().default(false).describe('Allow overwriting a file of 20+ lines with less than a third of its lines.'),
    expected_hash: z.string().optional().describe('sha256 of the file as you read it; a mismatch is refused as stale.'),
  })
  .strict();

type WriteArgs = z.output<typeof WriteFileArgs>;

function requestOf(args: WriteArgs): EditRequest {
  return {
    action: args.overwrite ? 'overwrite' : 'create',
    path: args.path,
    content: args.content,
    ...defined({ force: args.force ? true : undefined, expectedHash: args.expected_hash || undefined }),
    source: { format: 'tool', index: 0 },
  };
}

export const writeFileTool = defineTool({
  name: 'write_file',
  kind: 'write',
  // It replaces a whole file (destructive); the same call twice leaves the same file.
  annotations: { destructiveHint: true, idempotentHint: true },
  description: writeFileDescription,
  describe: (a) => `write_file ${a.overwrite ? 'overwrite' : 'create'} ${targetArg(a)}`,
  slim: withoutDiffs,
  schema: WriteFileArgs,
  prepare: (args, ctx) => prepareWrites(plan(ctx.ws, [requestOf(args)], ctx.apply)),
});
