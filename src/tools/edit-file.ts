/**
 * edit_file: one change to one file, in the JSON request of the DESIGN
 * contract (the schema lives in edit/request-json.ts and is shared with the
 * CLI and MCP; it is not repeated here). Planned first for the constraint
 * gate; the invocation then commits the planned writes (edits.ts).
 */
import { applyRequests } from '../apply/apply-requests.js';
import { toErrorInfo } from '../errors.js';
import { EditFileArgsSchema, editRequestFromArgs } from '../edit/request-json.js';
import type { EditRequest } from '../edit/types.js';
import { prepareWrites, type WorkspacePipeline } from './edits.js';
import { defineTool, failure, type Preparation, type ToolContext } from './types.js';

function pipeline(request: EditRequest, ctx: ToolContext): WorkspacePipeline {
  return (ws, extra) => applyRequests(ws, [request], { ...ctx.apply, ...extra });
}

export const editFileTool = defineTool({
  name: 'edit_file',
  kind: 'write',
  description: [
    'Change one file. Default mode "edit": replace old_text with new_text, where old_text is copied EXACTLY from read_file output (without line numbers) and occurs exactly once in the file —',
    'include enough surrounding lines to make it unique, or set replace_all.',
    'Other modes: create (new file only), overwrite (whole file; prefer edit), append, prepend, insert (after `line`), remove.',
    'Send expected_hash (from read_file) so the edit is refused if the file changed since you read it.',
    'An edit that would leave a file of 20+ lines with less than a third of them is refused unless force is true: never delete code by accident.',
    'The result carries the unified diff of what changed; check it.',
  ].join(' '),
  schema: EditFileArgsSchema,
  async prepare(args, ctx): Promise<Preparation> {
    let request: EditRequest;
    try {
      request = editRequestFromArgs(args, { format: 'tool', index: 0 });
    } catch (error) {
      return { ok: false, result: failure(toErrorInfo(error)) };
    }
    return prepareWrites(pipeline(request, ctx), ctx);
  },
});
