/**
 * The state field of /proc/<pid>/stat (src/verify/process-tree.ts
 * `parseStat`): whatever a program names itself, its state is read from
 * after the last ")" — a name like `x) T (` does not make a running process
 * look stopped (the freeze would then skip it, and it would write during a
 * capture).
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseStat } from '../../src/verify/process-tree.js';

const STATES = ['R', 'S', 'D', 'T', 't', 'Z', 'X', 'I', 'P', 'W'];

describe('parseStat reads the state, the process group and the start time after the last ")", whatever the name', () => {
  it('any name of up to 15 characters, parentheses and spaces included', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 4_194_304 }),
        fc.string({ maxLength: 15, unit: fc.constantFrom('a', ' ', '(', ')', 'T', 'Z', 'x', '1', '\t') }),
        fc.constantFrom(...STATES),
        fc.integer({ min: 1, max: 4_194_304 }),
        fc.nat(),
        (pid, comm, state, pgrp, start) => {
          // Field 22 is the start time: with the pid, who the process is (freezeTree and thawTree never act on a reused pid).
          const line = `${pid} (${comm}) ${state} 1 ${pgrp} ${pgrp} 0 -1 4194560 0 0 0 0 0 0 0 0 20 0 1 0 ${start} 0 0\n`;
          expect(parseStat(line)).toEqual({ state, pgrp, start: String(start) });
        },
      ),
    );
  });

  it('a line that is not a stat line has no state', () => {
    expect(parseStat('')).toBeNull();
    expect(parseStat('1234 (bash')).toBeNull();
    expect(parseStat('1234 (bash)')).toBeNull();
    expect(parseStat('1234 (bash) S')).toBeNull();
    expect(parseStat('1234 (bash) S 1 x')).toBeNull();
  });
});
