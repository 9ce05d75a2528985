/**
 * edit_file: one change to one file, in the JSON request of the DESIGN
 * contract (the schema lives in edit/request-json.ts and is shared with the
 * CLI and MCP; it is not repeated here). Planned first for the constraint
 * gate; the invocation then commits the planned writes (edits.ts).
 */
import { plan } from '../apply/pipeline.js';
import { toErrorInfo } from '../errors.js';
import { EditFileArgsSchema, editRequestFromArgs } from '../edit/request-json.js';
import type { EditRequest } from '../edit/types.js';
import { prepareWrites, withoutDiffs } from './edits.js';
import { defineTool, failure, type Preparation } from './types.js';
import { targetArg, textArg } from './call-args.js';
import { editFileDescription } from './descriptions/edit_file.js';

export const editFileTool = defineTool({
  name: 'edit_file',
  kind: 'write',
  description: editFileDescription,
  describe: (a) => `edit_file ${textArg(a.mode) || (a.ast_path ? 'ast' : 'edit')} ${targetArg(a)}${a.ast_path ? ` @ ${textArg(a.ast_path)}` : ''}`,
  slim: withoutDiffs,
  schema: EditFileArgsSchema,
  async prepare(args, ctx): Promise<Preparation> {
    let request: EditRequest;
    try {
      request = editRequestFromArgs(args, { format: 'tool', index: 0 });
    } catch (error) {
      return { ok: false, result: failure(toErrorInfo(error)) };
    }
    return prepareWrites(plan(ctx.ws, [request], ctx.apply));
  },
});
