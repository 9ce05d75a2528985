/**
 * Constraint violations: the closed set of ways a headless run can overstep
 * its limits (the ADR's five types), each naming the limit it broke, the
 * value it would have reached, and what to change. A violation ends the run
 * with exit code 2; this module only describes them, it never decides.
 */

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
  /** The ADR's `ConstraintViolation.Error()`, `constraint violated: <Type> - <err>`: the ADR's own sentence (ADR_ERRORS) first, then ours. */
  message: string;
  /** The ADR's error text alone, verbatim (`max files limit exceeded: 11 >= 10`); absent where the ADR words none (the token budget). */
  adr_error?: string;
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

/**
 * The ADR's error texts, verbatim — its Go `fmt.Errorf` strings in
 * RecordFileModification, ValidateToolCall and CheckTimeout. Users of that
 * design grep their logs for exactly these, so every violation leads with
 * one (the token budget has no sentence in the ADR; ours stands alone).
 */
export const ADR_ERRORS = {
  /** The ADR counts the file being added: `len(filesModified)+1 >= MaxFiles`. */
  maxFiles: (reached: number, max: number): string => `max files limit exceeded: ${reached} >= ${max}`,
  maxLines: (total: number, max: number): string => `max lines changed exceeded: ${total} > ${max}`,
  pattern: (path: string): string => `file ${path} not allowed by patterns`,
  interactive: (tool: string): string => `interactive tool ${tool} not allowed in headless mode`,
  notAllowed: (tool: string): string => `tool ${tool} not in allowed list`,
  timeout: (elapsedMs: number, timeoutMs: number): string => `execution timeout exceeded: ${goDuration(elapsedMs)} > ${goDuration(timeoutMs)}`,
} as const;

/**
 * A duration as Go's `time.Duration.String()` prints it (`%v` in the ADR's
 * timeout error): `5m0s`, `6m0.25s`, `1h0m0s`, `1.5s`, `250ms`, `0s`. Millisecond
 * resolution (what editwarden measures); fractions are printed without trailing zeros.
 */
export function goDuration(ms: number): string {
  const total = Math.max(0, Math.round(ms));
  if (total === 0) return '0s';
  if (total < 1000) return `${total}ms`;
  const hours = Math.floor(total / 3_600_000);
  const minutes = Math.floor((total % 3_600_000) / 60_000);
  const millis = total % 60_000;
  const whole = Math.floor(millis / 1000);
  const fraction = millis % 1000;
  const seconds = fraction === 0 ? `${whole}` : `${whole}.${String(fraction).padStart(3, '0').replace(/0+$/, '')}`;
  if (hours > 0) return `${hours}h${minutes}m${seconds}s`;
  if (minutes > 0) return `${minutes}m${seconds}s`;
  return `${seconds}s`;
}
