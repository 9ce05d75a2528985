/**
 * `editwarden doctor`'s grammar check (grammarsThatDoNotLoad): every grammar
 * in one runtime, so it must still name exactly the grammars whose file is
 * missing, cut short or not a grammar — and a failure must not make the
 * grammars after it look broken (a runtime that saw a failure is replaced).
 * Real grammar files, real broken copies of them.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { grammarFile, grammarsThatDoNotLoad, treeSitterState } from '../../src/ast/grammars.js';
import { LANGUAGES } from '../../src/ast/languages/index.js';

/** Small grammars, so that many runs stay cheap. */
const SMALL = ['json', 'toml', 'lua', 'html'];
type Damage = 'missing' | 'truncated' | 'not wasm' | 'empty';
const DAMAGES: Damage[] = ['missing', 'truncated', 'not wasm', 'empty'];

let dir: string;
beforeAll(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ew-grammar-check-'));
});
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

let copies = 0;
/** A damaged stand-in for `grammar`'s wasm file. */
function damaged(grammar: string, damage: Damage): string {
  const file = path.join(dir, `${++copies}-tree-sitter-${grammar}.wasm`);
  const bytes = fs.readFileSync(grammarFile(grammar));
  if (damage === 'truncated') fs.writeFileSync(file, bytes.subarray(0, Math.floor(bytes.length / 2)));
  if (damage === 'not wasm') fs.writeFileSync(file, 'not a grammar\n');
  if (damage === 'empty') fs.writeFileSync(file, '');
  return file;
}

describe('the doctor grammar check', () => {
  it('every grammar editwarden ships loads, and the check leaves nothing in the process cache', async () => {
    const before = treeSitterState().grammars;
    const grammars = [...new Set(LANGUAGES.map((l) => l.grammar))];
    expect(await grammarsThatDoNotLoad(grammars)).toEqual([]);
    expect(treeSitterState().grammars).toEqual(before);
  });

  it('names exactly the damaged grammars, whatever their damage and wherever they are in the list', async () => {
    await fc.assert(
      fc.asyncProperty(fc.shuffledSubarray(SMALL, { minLength: 1 }), fc.array(fc.option(fc.constantFrom(...DAMAGES), { nil: undefined }), { minLength: SMALL.length, maxLength: SMALL.length }), async (order, damages) => {
        const files = new Map(order.map((g, i) => [g, damages[i] ? damaged(g, damages[i]) : grammarFile(g)]));
        const broken = order.filter((_, i) => damages[i] !== undefined);
        expect(await grammarsThatDoNotLoad(order, (g) => files.get(g) ?? grammarFile(g))).toEqual(broken);
      }),
      { numRuns: 8 },
    );
  });
});
