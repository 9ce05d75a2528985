/**
 * The Editor's debug-loop counters, exactly as the editor specification
 * states them, as a pure state machine (no I/O, no clock):
 *
 *   consecutive_failures  +1 on every FAIL; reset on REPLAN or full green
 *   total_verify_loops    +1 on every verification; reset on full green only
 *
 *   consecutive_failures reaches 3  → REPLAN (new strategy, new context
 *                                     snapshot, scope unchanged, no human)
 *   total_verify_loops reaches 12   → HARD STOP, which wins when both
 *                                     trigger on the same verification
 *
 * It must never decide what a verification's verdict is (the Verifier's
 * exit codes do) nor do anything about it (the session does).
 */

export const REPLAN_AFTER = 3;
export const HARD_STOP_AFTER = 12;

export interface DebugCounters {
  consecutive_failures: number;
  total_verify_loops: number;
}

/** What the session must do after a verification. */
export type LoopDecision =
  /** Full green: both counters reset; the task may be completed. */
  | { action: 'green' }
  /** A FAIL below both limits: fix forward and verify again. */
  | { action: 'fix' }
  /** 3 consecutive failures: a new strategy (consecutive_failures was reset). */
  | { action: 'replan' }
  /** 12 verifications without green: stop, write the stuck report. */
  | { action: 'hard-stop' };

export interface LoopStep {
  /** The counters after this verification, resets done: what the next verification starts from. */
  counters: DebugCounters;
  /**
   * The counters this verification reached, before a reset: what the
   * specification's example writes ("consecutive=3, total=3 → REPLAN
   * triggered", then "consecutive resets to 0").
   */
  reached: DebugCounters;
  decision: LoopDecision;
}

export function initialCounters(): DebugCounters {
  return { consecutive_failures: 0, total_verify_loops: 0 };
}

/** The counters after one verification whose verdict is `passed`, and what follows from them. */
export function afterVerification(before: DebugCounters, passed: boolean, limits: { replanAfter?: number; hardStopAfter?: number } = {}): LoopStep {
  const replanAfter = limits.replanAfter ?? REPLAN_AFTER;
  const hardStopAfter = limits.hardStopAfter ?? HARD_STOP_AFTER;
  // A PASS is a verify attempt too (total +1), then full green resets both.
  if (passed) return { counters: initialCounters(), reached: { consecutive_failures: 0, total_verify_loops: before.total_verify_loops + 1 }, decision: { action: 'green' } };
  const counters = { consecutive_failures: before.consecutive_failures + 1, total_verify_loops: before.total_verify_loops + 1 };
  // The hard stop is checked first: it wins when both limits are reached by the same FAIL.
  if (counters.total_verify_loops >= hardStopAfter) return { counters, reached: counters, decision: { action: 'hard-stop' } };
  if (counters.consecutive_failures >= replanAfter) return { counters: { ...counters, consecutive_failures: 0 }, reached: counters, decision: { action: 'replan' } };
  return { counters, reached: counters, decision: { action: 'fix' } };
}

/** Column of "consecutive" in the example: the reset line starts there. */
const EXAMPLE_COLUMN = 19;

/**
 * One attempt as the specification's example writes it, e.g.
 *
 *   Attempt 3: FAIL  → consecutive=3, total=3 → REPLAN triggered
 *                      consecutive resets to 0
 *
 * (a second line only when a REPLAN resets the count). Every place that
 * shows the counters to a person or the model renders them with this.
 */
export function attemptLines(n: number, passed: boolean, reached: DebugCounters, decision: LoopDecision['action']): string[] {
  const head = `Attempt ${n}: ${passed ? 'PASS' : 'FAIL'}`.padEnd(EXAMPLE_COLUMN - 2);
  const counts = `consecutive=${reached.consecutive_failures}, total=${reached.total_verify_loops}`;
  switch (decision) {
    case 'green':
      return [`${head}→ ${counts} → full green`, `${' '.repeat(EXAMPLE_COLUMN)}both counters reset to 0`];
    case 'fix':
      return [`${head}→ ${counts}`];
    case 'replan':
      return [`${head}→ ${counts} → REPLAN triggered`, `${' '.repeat(EXAMPLE_COLUMN)}consecutive resets to 0`];
    case 'hard-stop':
      return [`${head}→ ${counts} → Hard stop${reached.consecutive_failures >= REPLAN_AFTER ? ' (precedence over REPLAN)' : ''}`];
    default: {
      const never: never = decision;
      return [String(never)];
    }
  }
}
