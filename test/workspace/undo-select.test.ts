/**
 * The undo selection (workspace/checkpoints/undo-select.ts), pure: which
 * changes `--session <id>`, `--session last` and `--to <step>` take, which
 * change `redo` must reach, and the grouping `undo --list` shows — checked
 * against a plain model over generated histories.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { Change } from '../../src/workspace/checkpoints/changes.js';
import type { StepView } from '../../src/workspace/checkpoints/history.js';
import { groupSteps, selectRedo, selectUndo, stepMatches } from '../../src/workspace/checkpoints/undo-select.js';
import { codeOf } from '../error-code.js';

/** A history, oldest first: each change with a session (or none: editwarden's own) and whether it is undone. */
const history = fc.array(fc.record({ session: fc.option(fc.constantFrom('s-1', 's-2', 's-3'), { nil: undefined }), undone: fc.boolean() }), { maxLength: 12 }).map((items) => {
  const changes: Change[] = items.map((it, i) => ({
    key: `${i % 2 === 0 ? 'hook' : 'command'}:20261129-0000${String(i).padStart(2, '0')}-000-abcd`,
    kind: i % 2 === 0 ? 'hook' : 'command',
    label: `step ${i}`,
    checkpoints: [`20261129-0000${String(i).padStart(2, '0')}-000-abcd`],
    createdAt: `2026-11-29T00:00:${String(i).padStart(2, '0')}.000Z`,
    ...(it.session !== undefined ? { session: it.session, client: 'claude' } : {}),
  }));
  const undone = new Set(changes.filter((_, i) => items[i]?.undone).map((c) => c.key));
  return { changes, undone };
});

describe('selectUndo', () => {
  it('property: --session <id> takes exactly the open changes of that session, newest first; an unknown one is E_NOT_FOUND', () => {
    fc.assert(
      fc.property(history, fc.constantFrom('s-1', 's-2', 's-3'), ({ changes, undone }, session) => {
        const open = [...changes].reverse().filter((c) => !undone.has(c.key));
        const expected = open.filter((c) => c.session === session);
        if (expected.length === 0) expect(codeOf(() => selectUndo(changes, undone, { kind: 'session', session }))).toBe('E_NOT_FOUND');
        else expect(selectUndo(changes, undone, { kind: 'session', session })).toEqual(expected);
      }),
      { numRuns: 300 },
    );
  });

  it('property: --session last is the session of the newest open change that has one', () => {
    fc.assert(
      fc.property(history, ({ changes, undone }) => {
        const newest = [...changes].reverse().find((c) => !undone.has(c.key) && c.session !== undefined);
        if (!newest) {
          expect(codeOf(() => selectUndo(changes, undone, { kind: 'session', session: 'last' }))).toBe('E_NOT_FOUND');
          return;
        }
        const picked = selectUndo(changes, undone, { kind: 'session', session: 'last' });
        expect(picked[0]).toEqual(newest);
        expect(picked.every((c) => c.session === newest.session)).toBe(true);
      }),
      { numRuns: 300 },
    );
  });

  it('property: --to <step> takes the open changes from the newest down to that step, by key or by id; an undone or unknown step is E_NOT_FOUND', () => {
    fc.assert(
      fc.property(history, fc.nat(20), fc.boolean(), ({ changes, undone }, at, byId) => {
        const target = changes[at];
        const name = target === undefined ? 'no-such-step' : byId ? target.key.slice(target.key.indexOf(':') + 1) : target.key;
        if (target === undefined || undone.has(target.key)) {
          expect(codeOf(() => selectUndo(changes, undone, { kind: 'to', step: name }))).toBe('E_NOT_FOUND');
          return;
        }
        const expected = [...changes.slice(at)].reverse().filter((c) => !undone.has(c.key));
        expect(selectUndo(changes, undone, { kind: 'to', step: name })).toEqual(expected);
        expect(stepMatches(target, name)).toBe(true);
      }),
      { numRuns: 300 },
    );
  });

  it('the newest step alone by default', () => {
    const changes: Change[] = [
      { key: 'tx:1', kind: 'transaction', label: 'a', checkpoints: ['x'], createdAt: '1' },
      { key: 'tx:2', kind: 'transaction', label: 'b', checkpoints: ['y'], createdAt: '2' },
    ];
    expect(selectUndo(changes, new Set(['tx:2']), { kind: 'newest' })).toEqual([changes[0]]);
  });
});

describe('selectRedo', () => {
  it('property: a session redo reaches the deepest entry of that session on the redo stack; --to reaches the step itself', () => {
    fc.assert(
      fc.property(history, fc.constantFrom('s-1', 's-2', 's-3'), ({ changes, undone }, session) => {
        const stack = changes.filter((c) => undone.has(c.key)).map((c) => ({ change: c.key }));
        const ofSession = stack.filter((e) => changes.find((c) => c.key === e.change)?.session === session);
        if (ofSession.length === 0) expect(codeOf(() => selectRedo(changes, stack, { kind: 'session', session }))).toBe('E_NOT_FOUND');
        else expect(selectRedo(changes, stack, { kind: 'session', session })).toBe(ofSession[0]?.change);
        for (const e of stack) expect(selectRedo(changes, stack, { kind: 'to', step: e.change })).toBe(e.change);
      }),
      { numRuns: 300 },
    );
  });
});

describe('groupSteps', () => {
  it('property: consecutive steps of one session (or run) form one group; the groups hold every step, in order', () => {
    const step = fc.record({ by: fc.constantFrom('claude', 'editwarden'), session: fc.option(fc.constantFrom('a', 'b'), { nil: undefined }) });
    fc.assert(
      fc.property(fc.array(step, { maxLength: 15 }), (items) => {
        const steps: StepView[] = items.map((it, i) => ({ key: `k${i}`, kind: 'edit', by: it.by, label: '', createdAt: '', files: [], undone: false, ...(it.session !== undefined ? { session: it.session } : {}) }));
        const groups = groupSteps(steps);
        expect(groups.flatMap((g) => g.steps)).toEqual(steps);
        for (const g of groups) for (const s of g.steps) expect([s.by, s.session]).toEqual([g.by, g.session]);
        for (let i = 1; i < groups.length; i++) {
          const [a, b] = [groups[i - 1], groups[i]];
          // Two neighbouring groups of one session would have been one.
          if (a?.session !== undefined) expect(a.session === b?.session && a.by === b?.by).toBe(false);
        }
        for (const g of groups) if (g.session === undefined && g.run === undefined) expect(g.steps).toHaveLength(1);
      }),
      { numRuns: 300 },
    );
  });
});
