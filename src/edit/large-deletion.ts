/**
 * The large-deletion rule, once: a file of at least `dramaticMinLines` lines
 * may not be left with fewer than `dramaticRatio` of them unless the request
 * is forced. The engine (engine.ts) and its byte-level fast path
 * (fast-edit.ts) both ask this function. Pure arithmetic; must never read a
 * file or decide anything else.
 *
 * Who is asked: every request that shrinks a file except a forced one and an
 * explicit overwrite (`mode: "overwrite"` said in the request; the design keeps
 * the heuristic for `edit` mode and calls overwrite "explicit only"). A
 * whole-file write nobody named an overwrite — a client's native Write that
 * wipes a file — is still asked (engine.ts `explicitOverwrite`).
 */
import type { EditOptions } from './types.js';

// Defends against: a model "editing" a file by wiping most of it (a truncated overwrite, a SEARCH that swallows the body).
export function shrinksTooMuch(beforeLines: number, afterLines: number, options: Pick<EditOptions, 'dramaticMinLines' | 'dramaticRatio'>): boolean {
  return beforeLines >= options.dramaticMinLines && afterLines < beforeLines * options.dramaticRatio;
}
