/**
 * The shapes the event log's lines must have, checked without a schema
 * library: the writer (events.ts) loads the line grammar with every edit a
 * command records (it indexes a generation when the log rotates), and zod's
 * ~390 KB cost every `editwarden edit` ~18 ms of CPU to compile and start
 * (docs/benchmarks.md, "CLI start-up, round 2").
 *
 * A shape checks a parsed JSON value and names the first field that is wrong,
 * in the words the reader's notes use (`field route.via: expected a string`).
 * Objects are loose (unknown fields pass: newer writers may add some), like
 * the zod `looseObject`s they replace. It must never quote the value: a
 * damaged line may hold anything.
 */

/** null: the value has the shape; a string: why not, naming the field. */
export type Shape = (value: unknown, at: string) => string | null;

const fail = (at: string, what: string): string => `field ${at || '(event)'}: ${what}`;
const field = (at: string, key: string): string => (at ? `${at}.${key}` : key);

export const str: Shape = (v, at) => (typeof v === 'string' ? null : fail(at, 'expected a string'));
export const num: Shape = (v, at) => (typeof v === 'number' && Number.isFinite(v) ? null : fail(at, 'expected a number'));
export const bool: Shape = (v, at) => (typeof v === 'boolean' ? null : fail(at, 'expected a boolean'));

/** Exactly `expected` (a format version, a tag). */
export const literal =
  (expected: string | number | boolean): Shape =>
  (v, at) =>
    v === expected ? null : fail(at, `expected ${JSON.stringify(expected)}`);

/** One of `names`. */
export function oneOf(names: readonly string[]): Shape {
  const set = new Set(names);
  return (v, at) => (typeof v === 'string' && set.has(v) ? null : fail(at, `expected one of ${names.join(', ')}`));
}

/** A string matching `pattern` (a blob id). */
export const matching =
  (pattern: RegExp, what: string): Shape =>
  (v, at) =>
    typeof v === 'string' && pattern.test(v) ? null : fail(at, `expected ${what}`);

/** A string `Date.parse` reads. */
export const time: Shape = (v, at) => (typeof v === 'string' && !Number.isNaN(Date.parse(v)) ? null : fail(at, 'not a time'));

export const optional =
  (inner: Shape): Shape =>
  (v, at) =>
    v === undefined ? null : inner(v, at);

export const nullable =
  (inner: Shape): Shape =>
  (v, at) =>
    v === null ? null : inner(v, at);

/** Any of `shapes` (the first one's complaint when none fits). */
export const anyOf =
  (...shapes: Shape[]): Shape =>
  (v, at) => {
    let first: string | null = null;
    for (const shape of shapes) {
      const problem = shape(v, at);
      if (problem === null) return null;
      first ??= problem;
    }
    return first;
  };

export const arrayOf =
  (item: Shape): Shape =>
  (v, at) => {
    if (!Array.isArray(v)) return fail(at, 'expected an array');
    for (let i = 0; i < v.length; i++) {
      const problem = item(v[i], field(at, String(i)));
      if (problem !== null) return problem;
    }
    return null;
  };

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** An object with at least these fields (own properties only: `__proto__` in JSON is a plain key). */
export const looseObject =
  (fields: Readonly<Record<string, Shape>>): Shape =>
  (v, at) => {
    if (!isRecord(v)) return fail(at, 'expected an object');
    for (const [key, shape] of Object.entries(fields)) {
      const problem = shape(Object.hasOwn(v, key) ? v[key] : undefined, field(at, key));
      if (problem !== null) return problem;
    }
    return null;
  };

/** An object whose every value has `value`'s shape (counts by kind). */
export const recordOf =
  (value: Shape): Shape =>
  (v, at) => {
    if (!isRecord(v)) return fail(at, 'expected an object');
    for (const [key, item] of Object.entries(v)) {
      const problem = value(item, field(at, key));
      if (problem !== null) return problem;
    }
    return null;
  };
