/**
 * The connections the filtering proxy refused, tallied for the record: one
 * entry per refused destination and reason with how many times it was
 * asked, the first MAX_DESTINATIONS of them kept and the rest counted. A
 * command that retries one host a thousand times, or sweeps a thousand
 * hosts, adds a bounded handful of events to the person's log, not a flood
 * that rotates the real history out. Pure.
 */

/** Why the proxy refused a connection (a closed set: the event log and the report name it). */
export const NETWORK_REFUSAL_REASONS = {
  /** The host (or host:port) is not in `sandbox.network`. */
  'not-listed': 'the host is not listed in sandbox.network',
  /** An IP address that is not itself listed (a listed name never admits an address). */
  'ip-literal': 'an IP address is reached only when that address itself is listed in sandbox.network',
  /** A wildcard-listed name resolved to the host's loopback, link-local or multicast addresses. */
  address: "the name resolved to this machine's own (loopback, link-local) addresses, which only an exact entry may reach",
  /** A plain HTTP request whose Host header names another host than its absolute URI. */
  'host-mismatch': 'the Host header names another host than the request line',
  /** Not a proxy request editwarden can judge (no absolute URI, not http://, an unreadable host). */
  'bad-request': 'not a request the proxy can judge (CONNECT host:port, or an absolute http:// URI)',
} as const;
type NetworkRefusalReason = keyof typeof NETWORK_REFUSAL_REASONS;

export interface NetworkRefusal {
  /** The host as the command named it (lower-cased), or the raw target when it could not be read. */
  host: string;
  /** null when no port could be read. */
  port: number | null;
  /** CONNECT, or the plain HTTP request's method. */
  method: string;
  reason: NetworkRefusalReason;
}

export interface TalliedRefusal extends NetworkRefusal {
  /** How many connections to this destination were refused for this reason. */
  count: number;
}

/** Distinct refused destinations kept per command; the rest are counted in `others`. */
export const MAX_DESTINATIONS = 20;
/** Longest host text kept (a hostile request line may name a very long one). */
const MAX_HOST_TEXT = 300;

export class RefusalTally {
  private readonly kept = new Map<string, TalliedRefusal>();
  private readonly otherKeys = new Set<string>();
  private otherCount = 0;

  add(refusal: NetworkRefusal): void {
    const host = refusal.host.length > MAX_HOST_TEXT ? `${refusal.host.slice(0, MAX_HOST_TEXT)}…` : refusal.host;
    const key = `${refusal.reason} ${host} ${refusal.port ?? ''}`;
    const known = this.kept.get(key);
    if (known) {
      known.count++;
      return;
    }
    if (this.kept.size < MAX_DESTINATIONS) {
      this.kept.set(key, { ...refusal, host, count: 1 });
      return;
    }
    // Bounded too: past the kept ones, only the number of distinct destinations (up to a cap) and of connections.
    if (this.otherKeys.size < 10_000) this.otherKeys.add(key);
    this.otherCount++;
  }

  /** The kept destinations in the order first refused. */
  refused(): TalliedRefusal[] {
    return [...this.kept.values()].map((r) => ({ ...r }));
  }

  /** The refusals past the kept destinations: how many destinations and connections (null when none). */
  others(): { destinations: number; connections: number } | null {
    return this.otherCount === 0 ? null : { destinations: this.otherKeys.size, connections: this.otherCount };
  }

  get total(): number {
    let n = this.otherCount;
    for (const r of this.kept.values()) n += r.count;
    return n;
  }
}
