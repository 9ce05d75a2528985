/**
 * The headless ADR's error texts (its Go fmt.Errorf strings), pasted from the ADR, produced by the
 * guard for the ADR's own numbers; and `%v` of a time.Duration as Go prints it.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ConstraintGuard } from '../../src/guard/constraints.js';
import { ADR_ERRORS, goDuration } from '../../src/guard/violations.js';
import { defaultConfig } from '../../src/config/config.js';

describe("the ADR's sentences, verbatim", () => {
  it('the five texts with the scenarios’ numbers', () => {
    expect(ADR_ERRORS.maxFiles(11, 10)).toBe('max files limit exceeded: 11 >= 10');
    expect(ADR_ERRORS.maxLines(600, 500)).toBe('max lines changed exceeded: 600 > 500');
    expect(ADR_ERRORS.pattern('vendor/lib.go')).toBe('file vendor/lib.go not allowed by patterns');
    expect(ADR_ERRORS.interactive('ask_question')).toBe('interactive tool ask_question not allowed in headless mode');
    expect(ADR_ERRORS.notAllowed('write_file')).toBe('tool write_file not in allowed list');
    expect(ADR_ERRORS.timeout(6 * 60_000, 5 * 60_000)).toBe('execution timeout exceeded: 6m0s > 5m0s');
  });

  it('lead the violation message: `constraint violated: <Type> - <ADR sentence> — <ours>`', () => {
    const config = defaultConfig().constraints;
    const guard = new ConstraintGuard(config, { mode: 'headless' });
    const v = guard.checkPath('vendor/lib.go');
    expect(v?.adr_error).toBe('file vendor/lib.go not allowed by patterns');
    expect(v?.message).toMatch(/^constraint violated: Pattern - file vendor\/lib\.go not allowed by patterns — vendor\/lib\.go matches the denied pattern "vendor\/\*\*"/);
    const files = Array.from({ length: 11 }, (_, i) => ({ path: `src/f${i}.go`, added: 1, removed: 0 }));
    expect(guard.checkChanges(files)?.message).toMatch(/^constraint violated: FileModification - max files limit exceeded: 11 >= 10 — /);
    expect(guard.checkTool('ask_question', {}, true)?.message).toMatch(/^constraint violated: ToolRestriction - interactive tool ask_question not allowed in headless mode — /);
    // The token budget has no sentence in the ADR: ours alone.
    const tokens = guard.recordTokens(55_000);
    expect(tokens?.adr_error).toBeUndefined();
    expect(tokens?.message).toMatch(/^constraint violated: TokenLimit - 55000 tokens used/);
  });
});

describe('goDuration: time.Duration.String()', () => {
  it.each([
    [0, '0s'],
    [250, '250ms'],
    [1500, '1.5s'],
    [1000, '1s'],
    [61_250, '1m1.25s'],
    [300_000, '5m0s'],
    [3_600_000, '1h0m0s'],
    [3_723_004, '1h2m3.004s'],
  ])('%d ms → %s', (ms, text) => {
    expect(goDuration(ms)).toBe(text);
  });

  it('reads back to the same milliseconds', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 100 * 3_600_000 }), (ms) => {
        const m = /^(?:(\d+)h)?(?:(\d+)m)?(?:(\d+(?:\.\d+)?)s)?(?:(\d+)ms)?$/.exec(goDuration(ms));
        if (!m) return false;
        const back = Number(m[1] ?? 0) * 3_600_000 + Number(m[2] ?? 0) * 60_000 + Math.round(Number(m[3] ?? 0) * 1000) + Number(m[4] ?? 0);
        return back === ms;
      }),
    );
  });
});
