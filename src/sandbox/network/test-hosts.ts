/**
 * The proxy's one resolver override, for tests: `EDITWARDEN_TEST_HOSTS`
 * ("registry.test=127.0.0.1,other.test=127.0.0.1") makes the filtering
 * proxy resolve those names to those addresses instead of asking DNS, so a
 * test can serve a registry on 127.0.0.1 under a name a person would list.
 *
 * Read from the environment of the process that runs the proxy — editwarden
 * itself (the CLI, the MCP server, the warm hook server), never the
 * sandboxed command, whose environment is its own and which cannot start or
 * reconfigure the proxy. Even so it is kept narrow enough to be harmless
 * where someone could set it: only names under `.test` (RFC 2606: reserved,
 * never resolved on the Internet) and only loopback addresses are taken, and
 * the name must still be listed in `sandbox.network` by the person — the
 * override changes where a listed `.test` name leads, never what is listed.
 * Anything else in it is ignored. Pure: the environment is passed in.
 */
import { isIPv4, isIPv6 } from 'node:net';

export const TEST_HOSTS_ENV = 'EDITWARDEN_TEST_HOSTS';

function isLoopback(address: string): boolean {
  return (isIPv4(address) && address.startsWith('127.')) || (isIPv6(address) && address === '::1');
}

/** The `.test` names mapped to loopback addresses by `EDITWARDEN_TEST_HOSTS` (empty when unset). */
export function testHostsFrom(env: Readonly<Record<string, string | undefined>>): ReadonlyMap<string, string> {
  const out = new Map<string, string>();
  for (const entry of (env[TEST_HOSTS_ENV] ?? '').split(',')) {
    const eq = entry.indexOf('=');
    if (eq < 0) continue;
    const name = entry.slice(0, eq).trim().toLowerCase().replace(/\.$/, '');
    const address = entry.slice(eq + 1).trim();
    if (/^(?:[a-z0-9-]+\.)+test$/.test(name) && isLoopback(address)) out.set(name, address);
  }
  return out;
}
