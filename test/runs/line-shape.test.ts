/**
 * The event log's line grammar without a schema library (runs/line-shape.ts,
 * so the writer every edit loads does not load zod): it accepts and refuses
 * exactly the lines the zod schema it replaced accepted and refused. The zod
 * schema is kept here, verbatim, as the reference; fast-check mutates valid
 * events of every kind (a field removed, a field replaced by any JSON value)
 * and compares the verdicts.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { parseEventLine } from '../../src/runs/event-lines.js';
import { EVENT_FORMAT, EVENT_KINDS } from '../../src/runs/event-types.js';
import { BLOB_ID } from '../../src/workspace/state-dir.js';

// The reference: event-lines.ts's schema before this change.
const str = z.string();
const strings = z.array(z.string());
const num = z.number();
const listCut = z.looseObject({ total: num, blob: str.regex(BLOB_ID).optional() });
const base = z.looseObject({
  v: z.literal(EVENT_FORMAT),
  time: str.refine((t) => !Number.isNaN(Date.parse(t)), 'not a time'),
  kind: z.enum(EVENT_KINDS as [string, ...string[]]),
  route: z.looseObject({ via: str, client: str.optional(), session: str.optional(), run: str.optional() }),
  paths: strings,
  checkpoint: str.optional(),
  diff: str.optional(),
  diff_blob: str.regex(BLOB_ID).optional(),
  cut: z.looseObject({ paths: listCut.optional(), written: listCut.optional(), removed: listCut.optional(), put_back: listCut.optional(), undoes: listCut.optional(), left: listCut.optional(), texts: strings.optional() }).optional(),
  indexed: z.literal(true).optional(),
});
const byKind: Record<string, z.ZodType> = {
  edit: z.looseObject({ tool: str, added: num, removed: num }),
  refusal: z.looseObject({ tool: str, code: str, message: str, hint: str }),
  command: z.looseObject({ tool: str, command: str, exit_code: num.nullable(), changes: z.looseObject({ added: num, removed: num }) }),
  violation: z.looseObject({ type: str, constraint: str, message: str, hint: str, prevented: z.boolean(), limit: z.union([num, str, strings]), actual: z.union([num, str]) }),
  checkpoint: z.looseObject({ label: str }),
  undo: z.looseObject({ label: str, written: strings, removed: strings }),
  redo: z.looseObject({ label: str, written: strings, removed: strings }),
  'run-end': z.looseObject({
    status: str,
    outcome: str,
    started_at: str,
    calls: num,
    totals: z.looseObject({ files: num, lines_added: num, lines_removed: num, tokens: num, elapsed_seconds: num }),
    limits: z.looseObject({ max_files: num.nullable(), max_lines_changed: num.nullable(), max_tokens: num.nullable(), timeout_seconds: num.nullable() }),
  }),
};
function zodAccepts(line: string): boolean {
  let value: unknown;
  try {
    value = JSON.parse(line);
  } catch {
    return false;
  }
  const head = base.safeParse(value);
  return head.success && byKind[head.data.kind]?.safeParse(value).success === true;
}

const blob = 'a'.repeat(64);
const common = {
  v: EVENT_FORMAT,
  time: '2026-11-29T03:00:00.000Z',
  route: { via: 'cli', client: 'claude', session: 's' },
  paths: ['a.txt'],
  checkpoint: 'c1',
  diff_blob: blob,
  cut: { paths: { total: 3, blob }, texts: ['x'] },
  indexed: true,
};
const VALID: Record<string, object> = {
  edit: { ...common, kind: 'edit', tool: 'edit_file', added: 1, removed: 2 },
  refusal: { ...common, kind: 'refusal', tool: 'edit_file', code: 'E_X', message: 'm', hint: 'h' },
  command: { ...common, kind: 'command', tool: 'Bash', command: 'true', exit_code: null, changes: { added: 0, removed: 0 } },
  violation: { ...common, kind: 'violation', type: 't', constraint: 'c', message: 'm', hint: 'h', prevented: true, limit: ['a'], actual: 3 },
  checkpoint: { ...common, kind: 'checkpoint', label: 'l' },
  undo: { ...common, kind: 'undo', label: 'l', written: ['a'], removed: [] },
  redo: { ...common, kind: 'redo', label: 'l', written: [], removed: ['b'] },
  'run-end': {
    ...common,
    kind: 'run-end',
    status: 's',
    outcome: 'o',
    started_at: 't',
    calls: 1,
    totals: { files: 1, lines_added: 1, lines_removed: 0, tokens: 3, elapsed_seconds: 1 },
    limits: { max_files: null, max_lines_changed: 5, max_tokens: null, timeout_seconds: 2 },
  },
};

/** A dotted path into `value` and a replacement (undefined: the field is removed). */
function mutate(value: unknown, at: readonly string[], to: unknown): unknown {
  if (at.length === 0) return to;
  if (typeof value !== 'object' || value === null) return value;
  const copy: Record<string, unknown> = Array.isArray(value) ? ([...value] as unknown as Record<string, unknown>) : { ...(value as Record<string, unknown>) };
  const [head, ...rest] = at as [string, ...string[]];
  const next = mutate(copy[head], rest, to);
  if (next === undefined) delete copy[head];
  else copy[head] = next;
  return copy;
}

function paths(value: unknown, prefix: string[] = []): string[][] {
  if (typeof value !== 'object' || value === null) return [prefix];
  return [prefix, ...Object.entries(value).flatMap(([k, v]) => paths(v, [...prefix, k]))];
}

const replacement = fc.oneof(fc.constant(undefined), fc.jsonValue({ maxDepth: 2 }), fc.constantFrom('2026-01-01', 'not a time', blob, 'A'.repeat(64), 'edit', 'nope', EVENT_FORMAT, 2, true, null, [], ['x', 1], {}));

describe('the line grammar accepts exactly what the zod schema accepted', () => {
  it('every valid event of every kind is an event', () => {
    for (const event of Object.values(VALID)) {
      const line = JSON.stringify(event);
      expect(zodAccepts(line)).toBe(true);
      expect(typeof parseEventLine(line)).toBe('object');
    }
  });

  it('mutated events (fields removed or replaced by any JSON value, one to three at a time): the same verdict', () => {
    const kind = fc.constantFrom(...Object.keys(VALID));
    const mutations = kind.chain((k) => {
      const event = VALID[k] as object;
      return fc.tuple(fc.constant(event), fc.array(fc.tuple(fc.constantFrom(...paths(event)), replacement), { minLength: 1, maxLength: 3 }));
    });
    fc.assert(
      fc.property(mutations, ([event, changes]) => {
        let value: unknown = event;
        for (const [at, to] of changes) value = mutate(value, at, to);
        const line = JSON.stringify(value) ?? 'null';
        const verdict = parseEventLine(line);
        expect(typeof verdict === 'object').toBe(zodAccepts(line));
        if (typeof verdict === 'string') expect(verdict).not.toContain('"');
      }),
      { numRuns: 3000 },
    );
  });

  it('any JSON line: the same verdict', () => {
    fc.assert(
      fc.property(fc.jsonValue({ maxDepth: 3 }), (value) => {
        const line = JSON.stringify(value);
        expect(typeof parseEventLine(line) === 'object').toBe(zodAccepts(line));
      }),
      { numRuns: 1000 },
    );
  });
});
