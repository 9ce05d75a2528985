/**
 * `editwarden edit`'s flags are the edit_file JSON request spelt as flags:
 * they go through the JSON's own mapping (edit/request-fields.ts), so every
 * mode the JSON supports is reachable from flags and gives the same request.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { requestFromFlags, type EditFlags } from '../../src/cli/commands/edit.js';
import { AST_ACTIONS, EDIT_MODES } from '../../src/edit/request-fields.js';
import { editRequestFromArgs } from '../../src/edit/request-json.js';

const CLI = { format: 'cli', index: 0 } as const;

/** The flags a person types for a JSON request (the inverse of the CLI's mapping, written out by hand). */
function flagsFor(json: Record<string, unknown>): { path: string; flags: EditFlags } {
  const flags: EditFlags = { mode: json.mode as string };
  if (json.old_text !== undefined) flags.old = json.old_text as string;
  if (json.new_text !== undefined) flags.new = json.new_text as string;
  if (json.replace_all === true) flags.replaceAll = true;
  if (json.force === true) flags.force = true;
  if (json.expected_hash !== undefined) flags.expectedHash = json.expected_hash as string;
  if (json.ast_path !== undefined) flags.astPath = json.ast_path as string;
  if (json.ast_action !== undefined) flags.astAction = json.ast_action as string;
  if (json.line !== undefined) flags.line = String(json.line);
  return { path: json.path as string, flags };
}

describe('every JSON mode is reachable from flags, as the same request', () => {
  const table: Array<Record<string, unknown>> = [
    ...EDIT_MODES.map((mode) => ({ path: 'a.ts', mode, old_text: 'x', new_text: 'y', ...(mode === 'insert' ? { line: 2 } : {}) })),
    ...AST_ACTIONS.map((ast_action) => ({ path: 'a.ts', mode: 'edit', ast_path: 'Greeter-greet', ast_action, new_text: 'z' })),
    { path: 'a.ts', mode: 'edit', old_text: 'x', new_text: 'y', replace_all: true, force: true, expected_hash: 'abc' },
  ];
  for (const json of table) {
    it(`${String(json.mode)}${json.ast_action ? ` ast ${String(json.ast_action)}` : ''}`, () => {
      const { path, flags } = flagsFor(json);
      expect(requestFromFlags(path, flags)).toEqual(editRequestFromArgs(json, CLI));
    });
  }

  it('the table covers every mode and every AST action the JSON schema has', () => {
    expect(new Set(table.map((j) => j.mode))).toEqual(new Set(EDIT_MODES));
    expect(new Set(table.filter((j) => j.ast_path).map((j) => j.ast_action))).toEqual(new Set(AST_ACTIONS));
  });

  it('property: any valid request the JSON accepts, spelt as flags, is the same request', () => {
    const text = fc.string({ maxLength: 12 });
    const request = fc.record(
      {
        path: fc.constantFrom('a.ts', 'src/b.py'),
        mode: fc.constantFrom(...EDIT_MODES),
        old_text: text,
        new_text: text,
        replace_all: fc.boolean(),
        force: fc.boolean(),
        expected_hash: fc.constantFrom('abc', 'f00d'),
        ast_path: fc.constantFrom('Greeter', 'Greeter-greet#2'),
        ast_action: fc.constantFrom(...AST_ACTIONS),
        line: fc.nat({ max: 50 }),
      },
      { requiredKeys: ['path', 'mode'] },
    );
    fc.assert(
      fc.property(request, (json) => {
        let expected;
        try {
          expected = editRequestFromArgs(json, CLI);
        } catch {
          // The JSON refuses it; the flags must refuse it too (as a usage error).
          const { path, flags } = flagsFor(json);
          expect(() => requestFromFlags(path, flags)).toThrow(expect.objectContaining({ code: 'E_USAGE' }));
          return;
        }
        const { path, flags } = flagsFor(json);
        expect(requestFromFlags(path, flags)).toEqual(expected);
      }),
      { numRuns: 300 },
    );
  });
});
