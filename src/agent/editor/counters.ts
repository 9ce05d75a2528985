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
  counters: DebugCounters;
  decision: LoopDecision;
}

export function initialCounters(): DebugCounters {
  return { consecutive_failures: 0, total_verify_loops: 0 };
}

/** The counters after one verification whose verdict is `passed`, and what follows from them. */
export function afterVerification(before: DebugCounters, passed: boolean, limits: { replanAfter?: number; hardStopAfter?: number } = {}): LoopStep {
  const replanAfter = limits.replanAfter ?? REPLAN_AFTER;
  const hardStopAfter = limits.hardStopAfter ?? HARD_STOP_AFTER;
  if (passed) return { counters: initialCounters(), decision: { action: 'green' } };
  const counters = { consecutive_failures: before.consecutive_failures + 1, total_verify_loops: before.total_verify_loops + 1 };
  // The hard stop is checked first: it wins when both limits are reached by the same FAIL.
  if (counters.total_verify_loops >= hardStopAfter) return { counters, decision: { action: 'hard-stop' } };
  if (counters.consecutive_failures >= replanAfter) return { counters: { ...counters, consecutive_failures: 0 }, decision: { action: 'replan' } };
  return { counters, decision: { action: 'fix' } };
}
