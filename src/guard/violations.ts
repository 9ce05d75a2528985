/**
 * Constraint violations: the closed set of ways a headless run can overstep
 * its limits (the ADR's five types), each naming the limit it broke, the
 * value it would have reached, and what to change. A violation ends the run
 * with exit code 2; this module only describes them, it never decides.
 */
import { EditwardenError, ErrorCode } from '../errors.js';

export const ViolationType = {
  FILE_MODIFICATION: 'FileModification',
  TOOL_RESTRICTION: 'ToolRestriction',
  TOKEN_LIMIT: 'TokenLimit',
  TIMEOUT: 'Timeout',
  PATTERN: 'Pattern',
} as const;
export type ViolationType = (typeof ViolationType)[keyof typeof ViolationType];

/** The `constraints:` key a violation is about. */
export type ConstraintKey =
  | 'max_files'
  | 'max_lines_changed'
  | 'allowed_patterns'
  | 'denied_patterns'
  | 'allowed_tools'
  | 'headless'
  | 'max_tokens'
  | 'timeout'
  /** Always on: `.git/` and the config files, which govern the agent; a command that changes them is charged and reverted. */
  | 'protected_paths';

export interface Violation {
  type: ViolationType;
  constraint: ConstraintKey;
  /** The configured limit (a number, a glob, or the list of allowed tools). */
  limit: number | string | string[];
  /** What the run reached or would have reached. */
  actual: number | string;
  message: string;
  hint: string;
  /** Tool call that caused it (0-based index in the run) and its tool. */
  call?: number;
  tool?: string;
  path?: string;
  /** Whether the offending change was refused before anything was written (false: it already happened, e.g. by a command). */
  prevented: boolean;
  /** ISO time. */
  at: string;
  elapsed_seconds: number;
}
