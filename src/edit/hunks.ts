/**
 * Applies line-addressed hunks (unified diff, apply_patch) to a text.
 * Owned by the formats work (issue 3); the engine calls it for `patch` requests.
 */
import { EditwardenError, ErrorCode } from '../errors.js';
import type { MatchStrategy, PatchRequest } from './types.js';

export interface HunkApplication {
  text: string;
  strategy: MatchStrategy;
  /** 1-based line of the first hunk in the old text. */
  line: number;
  notes: string[];
}

export function applyHunks(_text: string, request: PatchRequest, _options: { strict: boolean }): HunkApplication {
  throw new EditwardenError({
    code: ErrorCode.INTERNAL,
    message: `Patch application is not built yet (${request.path}).`,
    hint: 'Under construction in this session.',
  });
}
