/**
 * Adding one list to another, and the least or greatest number of a list —
 * for lists of any length. A spread into a call (`out.push(...items)`,
 * `Math.min(...items)`) passes every item as an argument on the stack, and
 * past roughly 120,000 of them V8 throws `RangeError: Maximum call stack
 * size exceeded`: a restore over a tree with that many new files, a command
 * that touched that many paths, or an edit with that many matches would
 * crash at the moment it is recorded or undone. Every list in src/ is joined
 * through here (test/package/architecture.test.ts forbids the spread form),
 * so whether a list can grow that long never has to be decided call by call.
 *
 * Must never: import anything of editwarden; copy `target` (callers keep
 * their reference); stop before the last item.
 */

/** Appends every item to `target` in order; returns `target`. */
export function appendAll<T>(target: T[], items: Iterable<T>): T[] {
  for (const item of items) target.push(item);
  return target;
}

/** Puts every item at the front of `target`, in their order; returns `target`. */
export function prependAll<T>(target: T[], items: readonly T[]): T[] {
  if (items.length === 0) return target;
  const rest = target.splice(0, target.length);
  appendAll(target, items);
  appendAll(target, rest);
  return target;
}

/** The least of `values` (`Infinity` for none, as `Math.min()`; NaN if any is NaN). */
export function leastOf(values: Iterable<number>): number {
  let least = Number.POSITIVE_INFINITY;
  for (const value of values) {
    if (Number.isNaN(value)) return Number.NaN;
    if (value < least) least = value;
  }
  return least;
}

/** The greatest of `values` (`-Infinity` for none, as `Math.max()`; NaN if any is NaN). */
export function greatestOf(values: Iterable<number>): number {
  let greatest = Number.NEGATIVE_INFINITY;
  for (const value of values) {
    if (Number.isNaN(value)) return Number.NaN;
    if (value > greatest) greatest = value;
  }
  return greatest;
}
