/**
 * Addresses a wildcard pattern must never lead to: the host's own loopback,
 * "this host" (0.0.0.0, ::), link-local (169.254.0.0/16 holds the cloud
 * metadata service, fe80::/10) and multicast/broadcast. A name under
 * `*.example.com` is chosen by whoever runs example.com's DNS, not by the
 * person who listed the pattern: one A record of 127.0.0.1 would otherwise
 * open the host's local services (a database, a dev server) to the sandbox.
 * An exact name or a listed IP literal is the person's own choice and may
 * lead anywhere. Pure: no DNS, no socket.
 */
import { BlockList, isIPv4, isIPv6 } from 'node:net';

const SPECIAL = new BlockList();
SPECIAL.addSubnet('127.0.0.0', 8, 'ipv4');
SPECIAL.addSubnet('0.0.0.0', 8, 'ipv4');
SPECIAL.addSubnet('169.254.0.0', 16, 'ipv4');
SPECIAL.addSubnet('224.0.0.0', 4, 'ipv4');
SPECIAL.addAddress('255.255.255.255', 'ipv4');
SPECIAL.addAddress('::1', 'ipv6');
SPECIAL.addAddress('::', 'ipv6');
SPECIAL.addSubnet('fe80::', 10, 'ipv6');
SPECIAL.addSubnet('ff00::', 8, 'ipv6');

/** Whether `address` (an IP literal) is loopback, unspecified, link-local or multicast — an IPv4-mapped IPv6 address by the IPv4 it holds. */
export function isHostLocalAddress(address: string): boolean {
  if (isIPv4(address)) return SPECIAL.check(address, 'ipv4');
  if (!isIPv6(address)) return true;
  const v4 = mappedIpv4(address);
  return v4 === null ? SPECIAL.check(address, 'ipv6') : SPECIAL.check(v4, 'ipv4');
}

/** The IPv4 address an IPv4-mapped IPv6 address holds (`::ffff:127.0.0.1`, `::ffff:7f00:1`), or null. */
function mappedIpv4(address: string): string | null {
  const dotted = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  if (dotted) return dotted[1] as string;
  const hex = /^::ffff:([0-9a-f]{1,4}):([0-9a-f]{1,4})$/i.exec(address);
  if (!hex) return null;
  const hi = Number.parseInt(hex[1] as string, 16);
  const lo = Number.parseInt(hex[2] as string, 16);
  return [hi >> 8, hi & 255, lo >> 8, lo & 255].join('.');
}
