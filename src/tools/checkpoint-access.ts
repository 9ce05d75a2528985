/**
 * The checkpoint service behind a tool's workspace: the one way the
 * checkpoint and undo tools reach it. An overlay (a plan, a dry run) has
 * none — restoring there would write the disk under the view — so asking
 * for it is refused.
 */
import { EditwardenError, ErrorCode } from '../errors.js';
import type { CheckpointService } from '../workspace/checkpoints/service.js';
import { transactionsOf } from '../workspace/transaction.js';
import type { ToolContext } from './types.js';

export function checkpointsOf(ctx: ToolContext): CheckpointService {
  const layer = transactionsOf(ctx.ws);
  if (!layer) {
    // An overlay (a plan, a dry run) has no checkpoints: restoring one would write the disk under it.
    throw new EditwardenError({
      code: ErrorCode.INTERNAL,
      message: 'This view of the workspace has no checkpoint service (a dry run or a plan).',
      hint: 'Use the checkpoint tools on the workspace itself (openWorkspace), not in a dry run.',
    });
  }
  return layer.checkpoints;
}
