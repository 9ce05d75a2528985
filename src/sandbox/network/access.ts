/**
 * What network a sandboxed command gets, as the sandbox reads it: none (the
 * default), all of it, or the hosts a person listed — reached only through
 * the filtering proxy (proxy.ts). Made from the config's `sandbox.network`
 * once (config.ts has already validated and normalised it), spelled for
 * bubblewrap by bwrapNetworkArgs. Pure.
 */
import { type HostPattern, parseHostPattern } from '../../config/host-patterns.js';
import type { NetworkSetting } from '../../config/network-setting.js';
import { SANDBOX_PROXY_SOCKET } from './bridge.js';

export type NetworkAccess = { readonly mode: 'off' } | { readonly mode: 'on' } | { readonly mode: 'hosts'; readonly hosts: readonly HostPattern[] };

/** The access `sandbox.network` grants (a list with no entry is no network). */
export function networkAccess(setting: NetworkSetting): NetworkAccess {
  if (setting === 'on') return { mode: 'on' };
  if (setting === 'off' || setting.length === 0) return { mode: 'off' };
  return { mode: 'hosts', hosts: setting.map(parseHostPattern) };
}

/**
 * bubblewrap's network arguments: `on` shares the host's network; `off` and
 * a host list get a namespace of their own (a private loopback, no route
 * out); a host list also gets the proxy's socket, bound read-only (connect()
 * ignores read-only, and nothing can replace the mount). Placed after the
 * private /tmp is mounted, since the socket appears under it. A host list
 * without a running proxy (`proxySocket` null) is no network at all.
 */
export function bwrapNetworkArgs(access: NetworkAccess, proxySocket: string | null): string[] {
  switch (access.mode) {
    case 'on':
      return [];
    case 'off':
      return ['--unshare-net'];
    case 'hosts':
      return proxySocket === null ? ['--unshare-net'] : ['--unshare-net', '--ro-bind', proxySocket, SANDBOX_PROXY_SOCKET];
  }
}
