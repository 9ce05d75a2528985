import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { compilePatterns, normalizeRelative, relativeToRoot } from '../../src/guard/patterns.js';
import picomatch from 'picomatch';

const DEFAULT_DENY = ['.git/**', 'vendor/**', 'node_modules/**', '**/*_generated.*'];

describe('deny beats allow', () => {
  it('refuses a path that matches both lists, naming the deny glob', () => {
    const m = compilePatterns(['**/*.go'], DEFAULT_DENY);
    expect(m.check('vendor/lib.go')).toEqual({ ok: false, reason: 'denied', pattern: 'vendor/**' });
    expect(m.check('src/main.go')).toEqual({ ok: true });
  });

  it('holds for any path matching any deny glob (property)', () => {
    const segment = fc.stringMatching(/^[a-z_.]{1,6}$/).filter((s) => s !== '.' && s !== '..');
    fc.assert(
      fc.property(fc.array(segment, { minLength: 1, maxLength: 4 }), (parts) => {
        const p = parts.join('/');
        const m = compilePatterns(['**'], [`${parts[0]}/**`, p]);
        expect(m.check(p).ok).toBe(false);
      }),
    );
  });
});

describe('an empty allow list allows everything that is not denied', () => {
  it('allows any path when both lists are empty', () => {
    const m = compilePatterns([], []);
    expect(m.check('anything/at/all.txt').ok).toBe(true);
  });

  it('a non-empty allow list refuses what it does not match', () => {
    const m = compilePatterns(['src/**/*.go', 'docs/**/*.md'], []);
    expect(m.check('src/a/b.go').ok).toBe(true);
    expect(m.check('docs/x.md').ok).toBe(true);
    expect(m.check('README.md')).toEqual({ ok: false, reason: 'not-allowed' });
  });
});

describe('glob semantics (picomatch, dot: true)', () => {
  const m = compilePatterns([], DEFAULT_DENY);

  it('"**" crosses dot folders and matches dot files', () => {
    expect(compilePatterns(['**'], []).check('.github/workflows/ci.yml').ok).toBe(true);
    expect(compilePatterns([], ['**/.env']).check('config/.env').ok).toBe(false);
  });

  it('"dir/**" denies the folder itself and everything in it, but not a same-named folder deeper down', () => {
    expect(m.check('vendor').ok).toBe(false);
    expect(m.check('vendor/a/b/c.go').ok).toBe(false);
    expect(m.check('src/vendor/x.go').ok).toBe(true);
  });

  it('"**/*_generated.*" matches at the root and at any depth', () => {
    expect(m.check('api_generated.go').ok).toBe(false);
    expect(m.check('a/b/api_generated.ts').ok).toBe(false);
    expect(m.check('a/b/api_generator.ts').ok).toBe(true);
  });

  it('a glob without "/" matches only at the root ("*.md" is not "**/*.md")', () => {
    const md = compilePatterns(['*.md'], []);
    expect(md.check('README.md').ok).toBe(true);
    expect(md.check('docs/guide.md').ok).toBe(false);
  });

  it('brace and class globs work', () => {
    const g = compilePatterns(['{src,lib}/**/*.[jt]s'], []);
    expect(g.check('lib/a.js').ok).toBe(true);
    expect(g.check('src/x/y.ts').ok).toBe(true);
    expect(g.check('test/a.ts').ok).toBe(false);
  });
});

describe('paths are normalised relative to the root before matching', () => {
  const m = compilePatterns(['src/**'], ['vendor/**']);

  it('"./", duplicate slashes and ".." segments cannot dodge a deny glob', () => {
    expect(m.check('./vendor/lib.go').ok).toBe(false);
    expect(m.check('vendor//lib.go').ok).toBe(false);
    expect(m.check('src/../vendor/lib.go').ok).toBe(false);
  });

  it('absolute paths inside the root are made relative', () => {
    expect(relativeToRoot('/repo', '/repo/vendor/lib.go')).toBe('vendor/lib.go');
    expect(normalizeRelative('./a//b/../c/')).toBe('a/c');
  });

  it('on POSIX a backslash is part of a file name, not a separator', () => {
    expect(m.check('src\\x.go')).toEqual({ ok: false, reason: 'not-allowed' });
  });
});

describe('compiled once per list, per process', () => {
  const GLOBS = ['**/*.go', 'src/**', 'vendor/**', '**/*.md', 'docs/*', '.git/**', 'a?.txt'];
  const PATHS = ['src/main.go', 'vendor/x.go', 'docs/a.md', 'docs/deep/b.md', 'a1.txt', 'ab.txt', '.git/config', 'README.md', 'x/y/z.go'];
  /** What the two lists say, glob by glob (picomatch itself, no combined expression, no cache). */
  function oracle(allowed: string[], denied: string[], p: string): string {
    const hit = (g: string): boolean => picomatch(g, { dot: true })(p);
    const deny = denied.find(hit);
    if (deny !== undefined) return `denied ${deny}`;
    return allowed.length > 0 && !allowed.some(hit) ? 'not-allowed' : 'ok';
  }
  const verdict = (v: ReturnType<ReturnType<typeof compilePatterns>['check']>): string => (v.ok ? 'ok' : v.reason === 'denied' ? `denied ${v.pattern}` : v.reason);

  it('the same lists give the same (frozen) matcher; lists compiled in any order each keep their own verdicts', () => {
    expect(compilePatterns(['src/**'], ['vendor/**'])).toBe(compilePatterns(['src/**'], ['vendor/**']));
    expect(Object.isFrozen(compilePatterns(['src/**'], ['vendor/**']).allowed)).toBe(true);
    const list = fc.subarray(GLOBS);
    fc.assert(
      fc.property(fc.array(fc.tuple(list, list), { minLength: 1, maxLength: 24 }), fc.constantFrom(...PATHS), (configs, p) => {
        for (const [allowed, denied] of configs) expect(verdict(compilePatterns(allowed, denied).check(p))).toBe(oracle(allowed, denied, p));
      }),
      { numRuns: 200 },
    );
  });
});
