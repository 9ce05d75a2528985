/**
 * The hosts a sandboxed command may reach (`sandbox.network: [patterns]`),
 * and the destinations it asks for: parsed, normalised and matched here,
 * once. Pure: no DNS, no socket (the proxy, proxy.ts, acts on what this
 * decides).
 *
 * Grammar of a pattern (case-insensitive; one trailing dot of a name is dropped):
 *
 *   pattern   = host [ ":" port ]           no port: any port; a port: that port only
 *   host      = "*." domain                 every name BELOW domain (a.pypi.org, a.b.pypi.org), never domain itself
 *             | domain                      exactly that name
 *             | ipv4                        exactly that address (four decimal octets, no leading zeros)
 *             | "[" ipv6 "]" | ipv6         exactly that address (a bare ipv6 takes no port)
 *   domain    = label *( "." label )        ASCII letters, digits, "-", "_"; a label is 1-63 characters and
 *                                           neither starts nor ends with "-"; the whole name at most 253
 *   port      = 1-65535, decimal, no leading zero
 *
 * A wildcard needs at least two labels after `*.` (`*.com` is refused: that is
 * `network: on` by another name). A name whose last label is all digits, or a
 * hexadecimal/octal spelling (`0x7f.1`, `2130706433`), is no name: the system
 * resolver reads it as an IP address, so it would smuggle an address past the
 * "IP literals only when listed" rule — refused as a pattern and as a destination.
 *
 * A destination (what a CONNECT or an absolute-form request names) follows the
 * same host grammar without the wildcard; it matches a pattern when the hosts
 * are equal (exact, or a strict subdomain of a wildcard's domain) and the
 * pattern has no port or the same port. An IP literal matches only a pattern
 * that is that literal: no name pattern ever admits an address.
 */
import { isIPv4, isIPv6 } from 'node:net';

export type HostPattern =
  | { readonly kind: 'name'; readonly host: string; readonly port: number | null }
  | { readonly kind: 'wildcard'; readonly domain: string; readonly port: number | null }
  | { readonly kind: 'ip'; readonly host: string; readonly port: number | null };

export interface Destination {
  /** Lower-case name without a trailing dot, or a canonical IP literal (IPv6 without brackets). */
  readonly host: string;
  readonly ip: boolean;
  readonly port: number;
}

/** Why a pattern or a destination could not be read. */
export class HostSyntaxError extends Error {}

const MAX_NAME = 253;
const LABEL = /^[a-z0-9_](?:[a-z0-9_-]{0,61}[a-z0-9_])?$/;

/** The canonical spelling of an IPv6 literal (compressed, lower case), through the URL parser (no I/O). */
function canonicalIpv6(text: string): string {
  return new URL(`http://[${text}]/`).hostname.slice(1, -1);
}

/** A dotted quad the way the pattern grammar writes one: decimal octets without leading zeros. */
function isCanonicalIpv4(text: string): boolean {
  return isIPv4(text) && text.split('.').every((o) => o === String(Number(o)));
}

/** A name as the grammar reads it, or the reason it is not one. */
function checkName(text: string): string | null {
  if (text.length === 0) return 'an empty host';
  if (text.length > MAX_NAME) return `a name longer than ${MAX_NAME} characters`;
  const labels = text.split('.');
  for (const label of labels) if (!LABEL.test(label)) return `"${label || '(empty)'}" is not a host name label (letters, digits, "-", "_")`;
  const last = labels.at(-1) as string;
  // 2130706433, 127.1, 0x7f.0.0.1: the resolver reads these as addresses.
  if (/^(?:\d+|0x[0-9a-f]*)$/.test(last)) return `"${text}" is a numeric address spelling, not a name (write an IPv4 address as four decimal octets)`;
  return null;
}

/** The host part of a pattern or destination, normalised: lower case, one trailing dot dropped, an IPv6 canonical. */
function parseHost(raw: string, allowWildcard: boolean): { kind: HostPattern['kind']; host: string } {
  let text = raw.toLowerCase();
  if (text.startsWith('[') && text.endsWith(']')) {
    const inner = text.slice(1, -1);
    if (!isIPv6(inner)) throw new HostSyntaxError(`"${raw}" is not an IPv6 address`);
    return { kind: 'ip', host: canonicalIpv6(inner) };
  }
  if (isIPv6(text)) return { kind: 'ip', host: canonicalIpv6(text) };
  if (isCanonicalIpv4(text)) return { kind: 'ip', host: text };
  if (text.endsWith('.') && !text.endsWith('..')) text = text.slice(0, -1);
  if (text.startsWith('*.')) {
    if (!allowWildcard) throw new HostSyntaxError(`"${raw}" is a pattern, not a host`);
    const domain = text.slice(2);
    const problem = checkName(domain);
    if (problem) throw new HostSyntaxError(problem);
    if (!domain.includes('.')) throw new HostSyntaxError(`"${raw}" is too wide: a wildcard needs at least two labels after "*." (use network: on for everything)`);
    return { kind: 'wildcard', host: domain };
  }
  if (text.includes('*')) throw new HostSyntaxError(`"${raw}": "*" may only stand first, as "*." before a domain`);
  const problem = checkName(text);
  if (problem) throw new HostSyntaxError(problem);
  return { kind: 'name', host: text };
}

function parsePort(text: string): number {
  if (!/^[1-9]\d{0,4}$/.test(text) || Number(text) > 65535) throw new HostSyntaxError(`"${text}" is not a port (1-65535)`);
  return Number(text);
}

/** Splits `host[:port]`; a bare IPv6 literal has no port. */
function splitPort(text: string): { host: string; port: string | null } {
  if (text.startsWith('[')) {
    const end = text.indexOf(']');
    if (end < 0) throw new HostSyntaxError(`"${text}" opens "[" without closing it`);
    const rest = text.slice(end + 1);
    if (rest === '') return { host: text, port: null };
    if (!rest.startsWith(':')) throw new HostSyntaxError(`"${text}": only ":port" may follow "]"`);
    return { host: text.slice(0, end + 1), port: rest.slice(1) };
  }
  if (isIPv6(text)) return { host: text, port: null };
  const colon = text.lastIndexOf(':');
  return colon < 0 ? { host: text, port: null } : { host: text.slice(0, colon), port: text.slice(colon + 1) };
}

/** One entry of `sandbox.network`, or HostSyntaxError saying what is wrong with it. */
export function parseHostPattern(text: string): HostPattern {
  if (text !== text.trim() || text === '') throw new HostSyntaxError(`"${text}" has spaces around it or is empty`);
  const split = splitPort(text);
  const port = split.port === null ? null : parsePort(split.port);
  const host = parseHost(split.host, true);
  return host.kind === 'wildcard' ? { kind: 'wildcard', domain: host.host, port } : { kind: host.kind, host: host.host, port };
}

/** A pattern written back in its normal form (what the config keeps and messages show). */
export function formatHostPattern(p: HostPattern): string {
  const host = p.kind === 'wildcard' ? `*.${p.domain}` : p.kind === 'ip' && p.host.includes(':') ? (p.port === null ? p.host : `[${p.host}]`) : p.host;
  return p.port === null ? host : `${host}:${p.port}`;
}

/** A destination from its host text and port (a CONNECT's authority is split by the caller: parseAuthority). */
export function parseDestination(host: string, port: number): Destination {
  const parsed = parseHost(host, false);
  if (!Number.isInteger(port) || port < 1 || port > 65535) throw new HostSyntaxError(`${port} is not a port (1-65535)`);
  return { host: parsed.host, ip: parsed.kind === 'ip', port };
}

/** A CONNECT request's target, `host:port` (the port is required there). */
export function parseAuthority(text: string): Destination {
  const split = splitPort(text);
  if (split.port === null) throw new HostSyntaxError(`"${text}" names no port (CONNECT needs host:port)`);
  return parseDestination(split.host, parsePort(split.port));
}

/** Whether `dest` is one the pattern lets through. */
export function patternMatches(p: HostPattern, dest: Destination): boolean {
  if (p.port !== null && p.port !== dest.port) return false;
  switch (p.kind) {
    case 'ip':
      return dest.ip && dest.host === p.host;
    case 'name':
      return !dest.ip && dest.host === p.host;
    case 'wildcard':
      return !dest.ip && dest.host.endsWith(`.${p.domain}`);
  }
}

/** The first pattern that lets `dest` through, or null. */
export function matchingPattern(patterns: readonly HostPattern[], dest: Destination): HostPattern | null {
  return patterns.find((p) => patternMatches(p, dest)) ?? null;
}

/**
 * Whether every destination `p` lets through, `q` lets through too: how a
 * repository's list is judged against the person's (a repository may only
 * narrow). Exact, not approximate: a wildcard covers a name or a wildcard
 * strictly below its domain, and a port-less pattern covers every port.
 */
export function patternCovers(q: HostPattern, p: HostPattern): boolean {
  if (q.port !== null && q.port !== p.port) return false;
  switch (q.kind) {
    case 'ip':
      return p.kind === 'ip' && p.host === q.host;
    case 'name':
      return p.kind === 'name' && p.host === q.host;
    case 'wildcard':
      if (p.kind === 'name') return p.host.endsWith(`.${q.domain}`);
      if (p.kind === 'wildcard') return p.domain === q.domain || p.domain.endsWith(`.${q.domain}`);
      return false;
  }
}
