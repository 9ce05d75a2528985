/** Process exit codes: a contract (DESIGN.md), never renumbered. */
export const ExitCode = {
  OK: 0,
  REJECTED: 1,
  CONSTRAINT: 2,
  VERIFY_FAILED: 3,
  HARD_STOP: 4,
  USAGE: 64,
} as const;
export type ExitCode = (typeof ExitCode)[keyof typeof ExitCode];
