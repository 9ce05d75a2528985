import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { afterVerification, HARD_STOP_AFTER, initialCounters, REPLAN_AFTER, type DebugCounters, type LoopDecision } from '../../../src/agent/editor/counters.js';

describe('debug-loop counters, exactly as specified', () => {
  it('the limits are 3 consecutive failures (REPLAN) and 12 verify loops (hard stop)', () => {
    expect(REPLAN_AFTER).toBe(3);
    expect(HARD_STOP_AFTER).toBe(12);
  });

  // The specification's example: twelve attempts, none green.
  const twelveFailures: Array<[number, DebugCounters, LoopDecision['action']]> = [
    [1, { consecutive_failures: 1, total_verify_loops: 1 }, 'fix'],
    [2, { consecutive_failures: 2, total_verify_loops: 2 }, 'fix'],
    [3, { consecutive_failures: 0, total_verify_loops: 3 }, 'replan'],
    [4, { consecutive_failures: 1, total_verify_loops: 4 }, 'fix'],
    [5, { consecutive_failures: 2, total_verify_loops: 5 }, 'fix'],
    [6, { consecutive_failures: 0, total_verify_loops: 6 }, 'replan'],
    [7, { consecutive_failures: 1, total_verify_loops: 7 }, 'fix'],
    [8, { consecutive_failures: 2, total_verify_loops: 8 }, 'fix'],
    [9, { consecutive_failures: 0, total_verify_loops: 9 }, 'replan'],
    [10, { consecutive_failures: 1, total_verify_loops: 10 }, 'fix'],
    [11, { consecutive_failures: 2, total_verify_loops: 11 }, 'fix'],
    // Both limits are reached by attempt 12: the hard stop wins (and no REPLAN resets the count).
    [12, { consecutive_failures: 3, total_verify_loops: 12 }, 'hard-stop'],
  ];

  it('the 12-attempt example, attempt by attempt', () => {
    let counters = initialCounters();
    const seen: Array<[number, DebugCounters, LoopDecision['action']]> = [];
    for (let attempt = 1; attempt <= 12; attempt++) {
      const step = afterVerification(counters, false);
      counters = step.counters;
      seen.push([attempt, counters, step.decision.action]);
    }
    expect(seen).toEqual(twelveFailures);
  });

  it.each([
    ['FAIL FAIL PASS', [false, false, true], { consecutive_failures: 0, total_verify_loops: 0 }, 'green'],
    ['FAIL FAIL FAIL PASS FAIL', [false, false, false, true, false], { consecutive_failures: 1, total_verify_loops: 1 }, 'fix'],
    ['FAIL×11 PASS FAIL×3', [...Array(11).fill(false), true, false, false, false], { consecutive_failures: 0, total_verify_loops: 3 }, 'replan'],
    ['FAIL×11 PASS FAIL×11 (green resets the total)', [...Array(11).fill(false), true, ...Array(11).fill(false)], { consecutive_failures: 2, total_verify_loops: 11 }, 'fix'],
  ] as Array<[string, boolean[], DebugCounters, LoopDecision['action']]>)('%s', (_name, verdicts, counters, last) => {
    let c = initialCounters();
    let action: LoopDecision['action'] = 'fix';
    for (const passed of verdicts) {
      const step = afterVerification(c, passed);
      c = step.counters;
      action = step.decision.action;
    }
    expect(c).toEqual(counters);
    expect(action).toBe(last);
  });

  it('property: REPLAN exactly when 3 failures in a row since the last green or REPLAN; hard stop exactly at the 12th loop since green', () => {
    fc.assert(
      fc.property(fc.array(fc.boolean(), { maxLength: 40 }), (verdicts) => {
        let c = initialCounters();
        let sinceGreen = 0;
        let run = 0;
        for (const passed of verdicts) {
          const step = afterVerification(c, passed);
          if (passed) {
            sinceGreen = 0;
            run = 0;
            expect(step.decision.action).toBe('green');
          } else {
            sinceGreen++;
            run++;
            if (sinceGreen === 12) {
              expect(step.decision.action).toBe('hard-stop');
              return; // The session ends here.
            }
            if (run === 3) {
              expect(step.decision.action).toBe('replan');
              run = 0;
            } else expect(step.decision.action).toBe('fix');
          }
          expect(step.counters).toEqual({ consecutive_failures: run, total_verify_loops: sinceGreen });
          c = step.counters;
        }
      }),
    );
  });
});
