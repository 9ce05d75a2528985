/**
 * The reply formats' parse cases as data (issue 30; codex's
 * `tests/fixtures/scenarios/NNN/` habit): one folder per case under
 * test/fixtures/formats/NNN-name/, all run by this one driver through
 * parseEdits (pure: no disk, no process):
 *
 *   reply.txt     the model's reply, byte for byte
 *   parsed.json   parse_as   the format asked for ('auto' detects it, as `editwarden apply` does)
 *                 options    optional: fileExists (every file exists) and path (the file the tool names)
 *                 format     optional: the format detected (null: none recognised)
 *                 requests   optional: the requests parsed, in order, each matched field by field
 *                 errors     optional: the item errors, in order, each matched on index, line, code
 *                            and text its message must contain
 *
 * Add a case by adding a folder. What a whole project looks like after a
 * reply is the dialect corpus (test/fixtures/dialects); rules a table cannot
 * say (streaming, properties, round trips) stay in the format tests.
 */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { type FormatName, parseEdits } from '../../src/formats/index.js';

const CASES = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', 'fixtures', 'formats');
const cases = fs
  .readdirSync(CASES)
  .filter((name) => /^\d{3}-/.test(name))
  .sort();

interface ExpectedError {
  index?: number;
  line?: number;
  code?: string;
  message?: string;
}
interface Parsed {
  parse_as: FormatName | 'auto';
  options?: { fileExists?: boolean; path?: string };
  format?: FormatName | null;
  requests?: object[];
  errors?: ExpectedError[];
}

const read = (name: string, file: string): string => fs.readFileSync(path.join(CASES, name, file), 'utf8');

describe('reply format cases (test/fixtures/formats)', () => {
  it('has cases, each with a reply and at least one expectation', () => {
    expect(cases.length).toBeGreaterThanOrEqual(30);
    for (const name of cases) {
      const parsed = JSON.parse(read(name, 'parsed.json')) as Parsed;
      expect(fs.existsSync(path.join(CASES, name, 'reply.txt')), name).toBe(true);
      expect(
        ['format', 'requests', 'errors'].some((k) => k in parsed),
        name,
      ).toBe(true);
    }
  });

  it.each(cases)('%s', (name) => {
    const expected = JSON.parse(read(name, 'parsed.json')) as Parsed;
    const { fileExists, path: given } = expected.options ?? {};
    const result = parseEdits(read(name, 'reply.txt'), expected.parse_as, { ...(fileExists ? { fileExists: () => true } : {}), ...(given ? { path: given } : {}) });
    if ('format' in expected) expect(result.format ?? null).toBe(expected.format);
    if (expected.requests) expect(result.requests).toMatchObject(expected.requests);
    if (expected.errors) {
      const errors = result.errors.map((e) => ({ index: e.index, line: e.line, code: e.error.code, message: e.error.message }));
      expect(errors).toMatchObject(expected.errors.map((e) => ({ ...e, ...(e.message === undefined ? {} : { message: expect.stringContaining(e.message) }) })));
    }
  });
});
