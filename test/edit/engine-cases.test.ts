/**
 * The edit engine's cases as data (issue 30; codex's
 * `tests/fixtures/scenarios/NNN/` habit): one folder per case under
 * test/fixtures/engine/NNN-name/, all run by this one driver through the
 * pure planFile (no disk, no process):
 *
 *   before          the file before (absent: the file does not exist), byte for byte
 *   request.json    the requests in the engine's own form (EditRequest; `path` may be left
 *                   out: src/app.ts), applied in order as one plan to the first one's file
 *   options.json    optional: overrides of DEFAULT_EDIT_OPTIONS (strict, maxFileBytes, …)
 *   after           the file as it would be written, byte for byte; or
 *   expected-error  line 1: the code of the first failed step (nothing is written);
 *                   further lines `message: TEXT` / `hint: TEXT`: text that part must contain
 *   applied.json    optional: what each step reports (strategy, count, line, notes), matched per step
 *
 * Add a case by adding a folder. The rules a table cannot say (near-match
 * lines, diffs, encodings, the all-or-nothing abort) stay in engine.test.ts.
 */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { planFile } from '../../src/edit/engine.js';
import { fromRawText, renderRaw } from '../../src/edit/text.js';
import { DEFAULT_EDIT_OPTIONS, type EditRequest } from '../../src/edit/types.js';

const CASES = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', 'fixtures', 'engine');
const PATH = 'src/app.ts';
const cases = fs
  .readdirSync(CASES)
  .filter((name) => /^\d{3}-/.test(name))
  .sort();

const read = (dir: string, file: string): string | null => (fs.existsSync(path.join(dir, file)) ? fs.readFileSync(path.join(dir, file), 'utf8') : null);

describe('edit engine cases (test/fixtures/engine)', () => {
  it('has cases, each with requests and exactly one expectation', () => {
    expect(cases.length).toBeGreaterThanOrEqual(75);
    for (const name of cases) {
      const dir = path.join(CASES, name);
      expect(fs.existsSync(path.join(dir, 'request.json')), name).toBe(true);
      expect(fs.existsSync(path.join(dir, 'after')) !== fs.existsSync(path.join(dir, 'expected-error')), name).toBe(true);
    }
  });

  it.each(cases)('%s', (name) => {
    const dir = path.join(CASES, name);
    const before = read(dir, 'before');
    const requests = (JSON.parse(read(dir, 'request.json')!) as Array<Omit<EditRequest, 'path'> & { path?: string }>).map((r) => ({ path: PATH, ...r }) as EditRequest);
    const file = requests[0]?.path ?? PATH;
    const options = { ...DEFAULT_EDIT_OPTIONS, ...(JSON.parse(read(dir, 'options.json') ?? '{}') as object) };
    const plan = planFile(file, before === null ? null : fromRawText(before), requests, options);
    const expectedError = read(dir, 'expected-error');
    if (expectedError !== null) {
      const [code, ...texts] = expectedError.trimEnd().split('\n');
      expect(plan.ok).toBe(false);
      // Nothing to write: a refused plan keeps the file as it was, and has no bytes for a file that did not exist.
      if (before === null) expect(plan.afterBytes).toBeUndefined();
      else expect(plan.after === null ? null : renderRaw(plan.after)).toBe(before);
      const failed = plan.steps.find((s) => !s.ok && s.error?.code !== 'E_ABORTED')?.error;
      expect(failed?.code).toBe(code);
      for (const line of texts) {
        const [, part, text] = /^(message|hint): (.*)$/.exec(line) ?? [];
        if (!part) throw new Error(`${name}/expected-error: "${line}" is neither "message: TEXT" nor "hint: TEXT"`);
        expect(part === 'message' ? failed?.message : failed?.hint).toContain(text);
      }
    } else {
      expect(plan.steps.map((s) => s.error?.code ?? 'ok')).toEqual(requests.map(() => 'ok'));
      expect(plan.ok).toBe(true);
      if (before === null) expect(plan.before).toBeNull();
      expect(plan.after === null ? null : renderRaw(plan.after)).toBe(read(dir, 'after'));
    }
    const applied = read(dir, 'applied.json');
    if (applied !== null) {
      const facts = JSON.parse(applied) as object[];
      facts.forEach((fact, i) => expect(plan.steps[i]?.applied).toMatchObject(fact));
    }
  });
});
