/** The host patterns of `sandbox.network`: grammar, matching and "a repository may only narrow", hammered by fast-check. */
import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import { type Destination, formatHostPattern, type HostPattern, HostSyntaxError, parseAuthority, parseDestination, parseHostPattern, patternCovers, patternMatches } from '../../src/config/host-patterns.js';
import { networkLoosens, normalizeNetwork } from '../../src/config/network-setting.js';
import { parseConfig } from '../../src/config/config.js';

const label = fc.stringMatching(/^[a-z0-9](?:[a-z0-9-]{0,6}[a-z0-9])?$/);
/** A top label is never all digits (that would be an address spelling). */
const top = fc.stringMatching(/^[a-z][a-z0-9]{0,5}$/);
const domain = fc.tuple(fc.array(label, { minLength: 0, maxLength: 3 }), top).map(([ls, t]) => [...ls, t].join('.'));
const twoLabels = fc.tuple(fc.array(label, { minLength: 1, maxLength: 3 }), top).map(([ls, t]) => [...ls, t].join('.'));
const port = fc.option(fc.integer({ min: 1, max: 65535 }), { nil: null });
const ipv4 = fc.tuple(fc.nat(255), fc.nat(255), fc.nat(255), fc.nat(255)).map((o) => o.join('.'));

const pattern: fc.Arbitrary<HostPattern> = fc.oneof(
  fc.record({ kind: fc.constant('name' as const), host: domain, port }),
  fc.record({ kind: fc.constant('wildcard' as const), domain: twoLabels, port }),
  fc.record({ kind: fc.constant('ip' as const), host: ipv4, port }),
  fc.record({ kind: fc.constant('ip' as const), host: fc.ipV6().map((v) => new URL(`http://[${v}]/`).hostname.slice(1, -1)), port }),
);

/** Destinations near a pattern: its own host, names below it, beside it and above it, other ports. */
function near(p: HostPattern): fc.Arbitrary<Destination> {
  const base = p.kind === 'wildcard' ? p.domain : p.host;
  const hosts =
    p.kind === 'ip'
      ? fc.constantFrom(base, '10.0.0.1', '::1')
      : fc.oneof(
          fc.constant(base),
          label.map((l) => `${l}.${base}`),
          label.map((l) => `${l}${base}`),
          fc.constant(base.split('.').slice(1).join('.') || base),
          domain,
        );
  return fc.tuple(hosts, fc.oneof(fc.constant(p.port ?? 443), fc.integer({ min: 1, max: 65535 }))).map(([h, n]) => parseDestination(h, n));
}

describe('grammar', () => {
  test('property: a pattern written back reads as itself; case and one trailing dot do not matter', () => {
    fc.assert(
      fc.property(pattern, (p) => {
        const text = formatHostPattern(p);
        expect(parseHostPattern(text)).toEqual(p);
        if (p.kind !== 'ip') {
          const upper = p.port === null ? `${text.toUpperCase()}.` : `${text.split(':')[0]?.toUpperCase()}.:${p.port}`;
          expect(parseHostPattern(upper)).toEqual(p);
        }
      }),
    );
  });

  test('refuses what is not a pattern: too-wide wildcards, stray stars, numeric address spellings, bad ports, spaces', () => {
    for (const bad of [
      '*',
      '*.com',
      'a.*.com',
      '*example.com',
      '2130706433',
      '0x7f.1',
      '127.1',
      '0177.0.0.1',
      'a..b',
      '-a.com',
      'a-.com',
      'registry.test:0',
      'registry.test:65536',
      'registry.test:080',
      ' a.com',
      'a.com ',
      '',
      '[::1',
      'a b.com',
      'ünï.com',
    ])
      expect(() => parseHostPattern(bad), bad).toThrow(HostSyntaxError);
  });

  test('a CONNECT target needs host:port; an IPv6 literal is bracketed there', () => {
    expect(parseAuthority('Registry.NPMJS.org.:443')).toEqual({ host: 'registry.npmjs.org', ip: false, port: 443 });
    expect(parseAuthority('[::1]:8080')).toEqual({ host: '::1', ip: true, port: 8080 });
    for (const bad of ['registry.npmjs.org', '::1:443', '0x7f.1:443', 'a.com:99999', '*.a.com:443']) expect(() => parseAuthority(bad), bad).toThrow(HostSyntaxError);
  });
});

describe('matching', () => {
  test('property: exact names match only themselves, wildcards only strict subdomains, IPs only the same IP; a port pattern only its port', () => {
    fc.assert(
      fc.property(
        pattern.chain((p) => fc.tuple(fc.constant(p), near(p))),
        ([p, d]) => {
          const portOk = p.port === null || p.port === d.port;
          const expected = p.kind === 'ip' ? d.ip && d.host === p.host && portOk : p.kind === 'name' ? !d.ip && d.host === p.host && portOk : !d.ip && d.host !== p.domain && d.host.endsWith(`.${p.domain}`) && portOk;
          expect(patternMatches(p, d)).toBe(expected);
        },
      ),
    );
  });

  test('property: when q covers p, every destination p lets through q lets through too (a repository may narrow, never widen)', () => {
    // p drawn near q: below it, glued to it without a dot, the same, other ports — where a wrong rule would show.
    const related = pattern.chain((q) => {
      const d = q.kind === 'wildcard' ? q.domain : q.host;
      const texts = q.kind === 'ip' ? fc.constant(formatHostPattern(q)) : fc.oneof(...[`*.x.${d}`, `*.x${d}`, `x.${d}`, `x${d}`, d, `*.${d}`].map((t) => fc.constant(t)));
      return fc.tuple(
        fc.constant(q),
        fc.tuple(texts, fc.oneof(fc.constant(q.port), port)).map(([t, n]) => (n === null || t.includes(':') ? t : `${t}:${n}`)),
      );
    });
    fc.assert(
      fc.property(related, fc.array(fc.oneof(label, fc.constant('x')), { maxLength: 2 }), fc.integer({ min: 1, max: 65535 }), ([q, pText], sub, n) => {
        let p: HostPattern;
        try {
          p = parseHostPattern(pText);
        } catch {
          return;
        }
        if (!patternCovers(q, p)) return;
        const base = p.kind === 'wildcard' ? [...sub, 'w', p.domain].join('.') : p.host;
        const d = parseDestination(base, p.port ?? n);
        if (patternMatches(p, d)) expect(patternMatches(q, d)).toBe(true);
      }),
      { numRuns: 500 },
    );
  });

  test('covers: a wildcard covers names and wildcards below it, a port-less pattern every port, nothing covers a wider pattern', () => {
    const c = (q: string, p: string) => patternCovers(parseHostPattern(q), parseHostPattern(p));
    expect(c('*.pypi.org', 'files.pypi.org')).toBe(true);
    expect(c('*.pypi.org', '*.a.pypi.org')).toBe(true);
    expect(c('*.pypi.org', 'pypi.org')).toBe(false);
    expect(c('registry.npmjs.org', 'registry.npmjs.org:443')).toBe(true);
    expect(c('registry.npmjs.org:443', 'registry.npmjs.org')).toBe(false);
    expect(c('*.a.pypi.org', '*.pypi.org')).toBe(false);
  });
});

describe('the sandbox.network key', () => {
  test('off | on | a list; true/false are on/off; a list is normalised and deduplicated; an empty list is off', () => {
    expect(parseConfig('sandbox:\n  network: off\n').sandbox.network).toBe('off');
    expect(parseConfig('sandbox:\n  network: on\n').sandbox.network).toBe('on');
    expect(parseConfig('sandbox:\n  network: true\n').sandbox.network).toBe('on');
    expect(parseConfig('sandbox:\n  network: []\n').sandbox.network).toBe('off');
    expect(parseConfig("sandbox:\n  network: [Registry.NPMJS.org, 'registry.npmjs.org.', '*.pypi.org']\n").sandbox.network).toEqual(['registry.npmjs.org', '*.pypi.org']);
    expect(() => parseConfig("sandbox:\n  network: ['*.com']\n")).toThrow(/sandbox\.network\.0.*not a host pattern/);
    expect(() => parseConfig('sandbox:\n  network: maybe\n')).toThrow(/sandbox\.network/);
  });

  test("property: off < a list < on, and a list loosens exactly when it names a host the person's does not cover", () => {
    const list = fc.array(pattern.map(formatHostPattern), { maxLength: 4 });
    fc.assert(
      fc.property(list, list, (mine, base) => {
        expect(networkLoosens('off', normalizeNetwork(base))).toBe(false);
        expect(networkLoosens(normalizeNetwork(mine), 'on')).toBe(false);
        expect(networkLoosens('on', normalizeNetwork(base))).toBe(true);
        // Its own subset never loosens; a host nobody listed does.
        expect(networkLoosens(normalizeNetwork(base.slice(0, 2)), normalizeNetwork(base))).toBe(false);
        const ps = mine.map(parseHostPattern);
        const bs = base.map(parseHostPattern);
        const expected = ps.some((p) => !bs.some((b) => patternCovers(b, p)));
        expect(networkLoosens(normalizeNetwork(mine), normalizeNetwork(base))).toBe(ps.length > 0 && expected);
      }),
    );
  });
});
