/**
 * The wrapped agent's network from the command line
 * (src/integrations/wrap-network.ts): a model URL opens exactly its host
 * and port (the scheme's port when it names none), a bad pattern or URL is
 * E_USAGE, and a model on this machine's loopback takes the loopback names
 * out of NO_PROXY (the sandbox's loopback is not the host's).
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { formatHostPattern, parseHostPattern } from '../../src/config/host-patterns.js';
import { allowedHosts, modelEndpointPattern, noProxyFor } from '../../src/integrations/wrap-network.js';
import { EditwardenError } from '../../src/errors.js';

// Plain ASCII labels. A label starting `xn--` is an encoded international name, a URL only when its punycode decodes
// (`new URL('http://aa.xn--0.com')` throws, so editwarden rightly says "not a URL"): found by this property in CI.
const label = fc.stringMatching(/^[a-z][a-z0-9-]{0,8}[a-z0-9]$/).filter((l) => !l.startsWith('xn--'));
const name = fc.tuple(label, fc.array(label, { minLength: 1, maxLength: 3 }), fc.constantFrom('com', 'org', 'dev', 'io')).map(([a, b, tld]) => [a, ...b, tld].join('.'));
const ipv4 = fc.tuple(fc.integer({ min: 1, max: 223 }), fc.nat(255), fc.nat(255), fc.integer({ min: 1, max: 254 })).map((o) => o.join('.'));

describe('--model-url becomes one pattern: its host and its port', () => {
  it('any http(s) URL with a port: that host, that port, whatever the path', () => {
    fc.assert(
      fc.property(fc.oneof(name, ipv4), fc.integer({ min: 1, max: 65535 }), fc.constantFrom('http', 'https'), fc.constantFrom('', '/', '/v1', '/v1/chat/completions?x=1'), (host, port, scheme, rest) => {
        const [pattern] = allowedHosts([], [`${scheme}://${host}:${port}${rest}`]);
        expect(pattern).toMatchObject({ host, port });
      }),
    );
  });

  it('no port in the URL: the scheme’s (80, 443), never "any port"', () => {
    fc.assert(
      fc.property(fc.oneof(name, ipv4), fc.constantFrom(['http', 80] as const, ['https', 443] as const), (host, [scheme, port]) => {
        expect(modelEndpointPattern(`${scheme}://${host}/v1`)).toBe(`${host}:${port}`);
        expect(allowedHosts([], [`${scheme}://${host}`])[0]?.port).toBe(port);
      }),
    );
  });

  it('an IPv6 endpoint keeps its brackets and port', () => {
    expect(formatHostPattern(allowedHosts([], ['http://[::1]:8080/v1'])[0] ?? parseHostPattern('x.com'))).toBe('[::1]:8080');
  });

  it('what is not an http(s) URL, and what is no host pattern, is E_USAGE naming the flag', () => {
    for (const bad of ['not a url', 'ftp://example.com/', 'file:///etc/passwd']) {
      expect(() => allowedHosts([], [bad])).toThrow(EditwardenError);
      expect(() => allowedHosts([], [bad])).toThrow(/--model-url/);
    }
    for (const bad of ['*.com', '', ' a.com', 'a.com:0', 'a.com:65536', '2130706433']) {
      expect(() => allowedHosts([bad], [])).toThrow(/--allow-host/);
    }
  });
});

describe('NO_PROXY: loopback names go through the proxy when the person allowed a model there', () => {
  it('a loopback model takes NO_PROXY away; a remote one leaves the bridge’s', () => {
    for (const local of ['127.0.0.1:8080', 'localhost:11434', '[::1]:80', '127.0.0.2']) {
      expect(noProxyFor([parseHostPattern(local)])).toEqual({ NO_PROXY: undefined, no_proxy: undefined, npm_config_noproxy: undefined });
    }
    for (const remote of ['api.anthropic.com', '10.0.0.5:8080', '*.example.com']) expect(noProxyFor([parseHostPattern(remote)])).toEqual({});
  });
});
