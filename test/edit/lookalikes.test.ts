/**
 * One look-alike table for every path: a quote written with typographic
 * characters (here the acute accent ´ for an apostrophe) behaves the same
 * through edit_file (old_text/new_text), apply_patch and a unified diff.
 */
import { describe, expect, it } from 'vitest';
import { planFile } from '../../src/edit/engine.js';
import { applyHunks } from '../../src/edit/hunks.js';
import { LOOKALIKE_MAP, replaceLookalikes } from '../../src/edit/lookalikes.js';
import { normalizedString } from '../../src/edit/normalize.js';
import { fromRawText, renderRaw } from '../../src/edit/text.js';
import { DEFAULT_EDIT_OPTIONS } from '../../src/edit/types.js';
import { parseApplyPatch, parseUnifiedDiff } from '../../src/formats/index.js';

const FILE = "def greet():\n    say('it's fine')\n    return 1\n";
const EXPECTED = "def greet():\n    say('it's great')\n    return 1\n";

function viaEditFile(oldText: string, newText: string): string | undefined {
  const plan = planFile('g.py', fromRawText(FILE), [{ action: 'edit', path: 'g.py', oldText, newText }], { ...DEFAULT_EDIT_OPTIONS, strict: false });
  return plan.ok && plan.after ? renderRaw(plan.after) : undefined;
}

function viaPatch(text: string, parse: typeof parseUnifiedDiff): string | undefined {
  const request = parse(text).requests[0];
  if (request?.action !== 'patch') return undefined;
  try {
    return applyHunks(FILE, request, { strict: false }).text;
  } catch {
    return undefined;
  }
}

describe('a quote with ´ for an apostrophe applies through every path', () => {
  it('edit_file', () => {
    expect(viaEditFile('    say(´it´s fine´)\n', "    say('it's great')\n")).toBe(EXPECTED);
  });
  it('unified diff', () => {
    expect(viaPatch("--- a/g.py\n+++ b/g.py\n@@ -1,3 +1,3 @@\n def greet():\n-    say(´it´s fine´)\n+    say('it's great')\n     return 1\n", parseUnifiedDiff)).toBe(EXPECTED);
  });
  it('apply_patch', () => {
    expect(viaPatch("*** Begin Patch\n*** Update File: g.py\n@@\n def greet():\n-    say(´it´s fine´)\n+    say('it's great')\n     return 1\n*** End Patch\n", parseApplyPatch)).toBe(EXPECTED);
  });
});

describe('both matchers read the same table', () => {
  it('every look-alike means the same to the edit strategies and the hunk matcher', () => {
    for (const [ch, ascii] of LOOKALIKE_MAP) {
      const line = `a${ch}b`;
      expect(replaceLookalikes(line)).toBe(`a${ascii}b`);
      // The character-level normaliser collapses a look-alike space with its neighbours, so compare with spaces kept apart.
      expect(normalizedString(line, { trailing: false, runs: false, unicode: true })).toBe(`a${ascii}b`);
    }
  });
});
