/**
 * The state field of /proc/<pid>/stat (src/verify/process-tree.ts
 * `stateOfStat`): whatever a program names itself, its state is read from
 * after the last ")" — a name like `x) T (` does not make a running process
 * look stopped (the freeze would then skip it, and it would write during a
 * capture).
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { stateOfStat } from '../../src/verify/process-tree.js';

const STATES = ['R', 'S', 'D', 'T', 't', 'Z', 'X', 'I', 'P', 'W'];

describe('stateOfStat reads the state after the last ")", whatever the name', () => {
  it('any name of up to 15 characters, parentheses and spaces included', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 4_194_304 }), fc.string({ maxLength: 15, unit: fc.constantFrom('a', ' ', '(', ')', 'T', 'Z', 'x', '1', '\t') }), fc.constantFrom(...STATES), (pid, comm, state) => {
        const line = `${pid} (${comm}) ${state} 1 ${pid} ${pid} 0 -1 4194560 0 0 0 0 0 0 0 0 20 0 1 0 12345 0 0\n`;
        expect(stateOfStat(line)).toBe(state);
      }),
    );
  });

  it('a line that is not a stat line has no state', () => {
    expect(stateOfStat('')).toBeNull();
    expect(stateOfStat('1234 (bash')).toBeNull();
    expect(stateOfStat('1234 (bash)')).toBeNull();
  });
});
