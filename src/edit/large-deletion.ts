/**
 * The large-deletion rule, once: a file of at least `dramaticMinLines` lines
 * may not be left with fewer than `dramaticRatio` of them unless the request
 * is forced. The engine (engine.ts) and its byte-level fast path
 * (fast-edit.ts) both ask this function. Pure arithmetic; must never read a
 * file or decide anything else.
 */
import type { EditOptions } from './types.js';

// Defends against: a model "editing" a file by wiping most of it (a truncated overwrite, a SEARCH that swallows the body).
export function shrinksTooMuch(beforeLines: number, afterLines: number, options: Pick<EditOptions, 'dramaticMinLines' | 'dramaticRatio'>): boolean {
  return beforeLines >= options.dramaticMinLines && afterLines < beforeLines * options.dramaticRatio;
}
