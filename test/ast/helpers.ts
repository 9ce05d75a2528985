/** Shared helpers for the ast/ tests: fixtures on disk, a prepared service, error capture. */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { EditwardenError } from '../../src/errors.js';
// Grammars compile with V8's baseline wasm compiler only (~3 s of CPU less over languages, property, guard-scale).
import '../wasm-baseline.js';

const FIXTURES = path.join(path.dirname(fileURLToPath(import.meta.url)), 'fixtures');

/** A fixture's text; `x.ts` is stored as `x.ts.fixture` so the type-checker leaves it alone. */
export function fixture(name: string): string {
  const stored = path.join(FIXTURES, `${name}.fixture`);
  return fs.readFileSync(fs.existsSync(stored) ? stored : path.join(FIXTURES, name), 'utf8');
}

/** Runs `fn`, expecting an EditwardenError; returns it. */
export function catchError(fn: () => unknown): EditwardenError {
  try {
    fn();
  } catch (error) {
    if (error instanceof EditwardenError) return error;
    throw error;
  }
  throw new Error('expected an EditwardenError, nothing was thrown');
}

export function maxBlankRun(text: string): number {
  let best = 0;
  let run = 0;
  for (const line of text.split('\n')) {
    run = line.trim() === '' ? run + 1 : 0;
    best = Math.max(best, run);
  }
  return best;
}

/** Indents every non-empty line of a block by `pad` (to feed badly indented code to the re-indenter). */
export function pad(code: string, by: string): string {
  return code
    .split('\n')
    .map((l) => (l === '' ? l : by + l))
    .join('\n');
}
