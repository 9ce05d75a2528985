import picomatch from 'picomatch';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseConfig } from '../../src/config/config.js';
import { codeOf } from '../error-code.js';
import { checkGlob, GLOB_LIMITS, globProblem } from '../../src/config/glob-bounds.js';
import { compilePatterns } from '../../src/guard/patterns.js';
import { globFilter } from '../../src/tools/search.js';

/** The subjects that make picomatch's regular expressions backtrack most: one long name, one deep path, no match at the end. */
const LONG_NAME = 'a'.repeat(255);
const DEEP_PATH = `${'aaaaaaaaaaaaaaaaaaa/'.repeat(200)}a`;

function worstMs(glob: string): number {
  const re = picomatch.makeRe(glob, { dot: true });
  // Compiled on first use: not part of the cost per path.
  re.test('x');
  let worst = 0;
  for (const subject of [LONG_NAME, DEEP_PATH]) {
    const t0 = performance.now();
    re.test(subject);
    worst = Math.max(worst, performance.now() - t0);
  }
  return worst;
}

describe('globs over the bounds are refused before picomatch sees them', () => {
  const refused: Array<[string, RegExp]> = [
    ['*a*a*a*b', /4 "\*" wildcards/],
    ['*a*a*b', /3 "\*" wildcards/],
    ['*(a*)b', /extglob/],
    ['+(a|aa)b', /extglob/],
    ['**/a/**/b/**/c', /3 "\*\*" segments/],
    ['**/*a*/**/*a*b', /between two "\*\*"/],
    ['**/a*a*/**/b', /between two "\*\*"/],
    ['*a*/*a*/**/*b', /weight/],
    [`${'x'.repeat(GLOB_LIMITS.maxLength)}*`, /characters long/],
    ['{a,b}{c,d}{e,f}{g,h}{i,j}', /\{…\} groups/],
  ];
  it.each(refused)('%s', (glob, why) => {
    expect(globProblem(glob)).toMatch(why);
    expect(codeOf(() => checkGlob(glob))).toBe('E_GLOB_TOO_COMPLEX');
  });

  it('search_files globs, constraint patterns and config globs all pass the same check', () => {
    expect(codeOf(() => globFilter(['*a*a*a*a*a*a*b']))).toBe('E_GLOB_TOO_COMPLEX');
    expect(codeOf(() => compilePatterns([], ['*(a*)b']))).toBe('E_GLOB_TOO_COMPLEX');
    expect(codeOf(() => parseConfig('constraints:\n  denied_patterns: ["*a*a*a*a*b"]\n'))).toBe('E_CONFIG');
    let message = '';
    try {
      parseConfig('constraints:\n  denied_patterns: ["*a*a*a*a*b"]\n');
    } catch (error) {
      message = (error as Error).message;
    }
    expect(message).toContain('E_GLOB_TOO_COMPLEX');
    expect(message).toContain('constraints.denied_patterns.0');
  });

  it('accepts the globs people write', () => {
    for (const g of ['src/**/*.ts', '**/*_generated.*', '{src,lib}/**/*.{ts,tsx}', '**/__tests__/**/*.test.*', '*.md', 'vendor/**', '.git/**', 'docs/[a-z]*.md', 'file(1).txt']) {
      expect(globProblem(g), g).toBeNull();
    }
  });
});

describe('every glob within the bounds matches the worst subjects quickly', () => {
  it('the measured worst cases of the bounds stay under 250 ms per path', () => {
    for (const g of ['*a*b', '**/a*/**/b', '**/*a/**/b', '*a*/**/*a*b', '**/**/*a*b', '{a*,b*}/**/*a*b', '*?*b', '*a*/*a*/**/b', '**/*a*/*a*']) {
      expect(globProblem(g), g).toBeNull();
      expect(worstMs(g), g).toBeLessThan(250);
    }
  });

  it('property: generated globs of "a", "*", "?" and "**" segments within the bounds stay under 250 ms per path', () => {
    const segment = fc.oneof(
      fc.constant('**'),
      fc.array(fc.constantFrom('a', '*', '?', 'b'), { minLength: 1, maxLength: 6 }).map((cs) => cs.join('')),
    );
    const glob = fc.array(segment, { minLength: 1, maxLength: 5 }).map((ss) => `${ss.join('/')}b`);
    fc.assert(
      fc.property(glob, (g) => {
        fc.pre(globProblem(g) === null);
        return worstMs(g) < 250;
      }),
      { numRuns: 150 },
    );
  });
});
