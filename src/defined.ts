/**
 * How an optional field is passed on, under `exactOptionalPropertyTypes`
 * (tsconfig.json): `{ ...defined({ root, session }) }` has each key whose
 * value is not undefined, and no key at all for the others — a field that
 * is absent, not present as `undefined`. The one idiom for what was written
 * as a conditional spread of `{ x }` (when x is defined) at each call; a call
 * that means "only when truthy" writes `x || undefined`.
 *
 * Must never: drop a value that is defined (`''`, `0`, `false` and `null`
 * are kept; a caller that means "only when truthy" says so itself).
 */
export function defined<T extends object>(fields: T): { [K in keyof T]?: Exclude<T[K], undefined> } {
  const out: Partial<Record<keyof T, unknown>> = {};
  for (const key of Object.keys(fields) as Array<keyof T>) if (fields[key] !== undefined) out[key] = fields[key];
  return out as { [K in keyof T]?: Exclude<T[K], undefined> };
}
