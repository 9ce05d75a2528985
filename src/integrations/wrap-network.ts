/**
 * The wrapped agent's network: none, unless the person names hosts —
 * `--allow-host HOST[:PORT]` (the grammar of `sandbox.network`,
 * config/host-patterns.ts) or `--model-url URL`, whose host and port become
 * one pattern (the port the URL names, else 80 for http and 443 for https,
 * so a model on 127.0.0.1:8080 opens that port and no other of the host).
 * The agent reaches them only through the filtering proxy
 * (sandbox/network/proxy.ts, the one every sandboxed command uses) over the
 * socket bound into its sandbox and the bridge on its own loopback; the
 * proxy's refusals are written to the event log at each step, so a person
 * sees them while the agent runs.
 *
 * It must never start a second proxy kind, and never widen the list beyond
 * what the person named (a repository's `sandbox.network` does not reach a
 * wrapped agent: wrap's network is the command line's alone).
 */
import { type HostPattern, HostSyntaxError, parseHostPattern } from '../config/host-patterns.js';
import { EditwardenError, ErrorCode } from '../errors.js';
import { recordNetworkRefusals } from '../runs/network-events.js';
import type { EventRoute } from '../runs/event-types.js';
import { isHostLocalAddress } from '../sandbox/network/address.js';
import { startNetworkProxy, type NetworkProxy } from '../sandbox/network/proxy.js';
import { RefusalTally } from '../sandbox/network/refusals.js';
import { testHostsFrom } from '../sandbox/network/test-hosts.js';

/** The pattern text of a model endpoint's URL: its host and its port (the scheme's when it names none). */
export function modelEndpointPattern(url: string): string {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    throw usage(`--model-url ${JSON.stringify(url)} is not a URL.`, 'Give the endpoint the agent calls, e.g. --model-url https://api.anthropic.com or --model-url http://127.0.0.1:11434/v1.');
  }
  if (u.protocol !== 'http:' && u.protocol !== 'https:') throw usage(`--model-url ${JSON.stringify(url)} is not an http:// or https:// URL.`, "The agent reaches its model over HTTP or HTTPS through editwarden's proxy; give that URL.");
  const port = u.port !== '' ? u.port : u.protocol === 'https:' ? '443' : '80';
  return `${u.hostname}:${port}`;
}

/** The patterns the person named, parsed (a bad one is E_USAGE, saying which and why). */
export function allowedHosts(allow: readonly string[], modelUrls: readonly string[]): HostPattern[] {
  const texts = [...allow.map((text) => ({ text, flag: '--allow-host' })), ...modelUrls.map((url) => ({ text: modelEndpointPattern(url), flag: `--model-url ${url}` }))];
  return texts.map(({ text, flag }) => {
    try {
      return parseHostPattern(text);
    } catch (error) {
      if (!(error instanceof HostSyntaxError)) throw error;
      throw usage(`${flag}: "${text}" is not a host pattern: ${error.message}.`, 'Write HOST or HOST:PORT (api.anthropic.com, 127.0.0.1:8080, *.example.com); a port limits it to that port.');
    }
  });
}

/**
 * The proxy variables' exceptions for the agent. The bridge's environment
 * sends loopback names direct (NO_PROXY: the sandbox's own test servers);
 * when the person allowed a model on this machine's loopback, those must go
 * through the proxy instead — the sandbox's loopback is not the host's.
 */
export function noProxyFor(hosts: readonly HostPattern[]): Record<string, string | undefined> {
  const local = hosts.some((h) => (h.kind === 'ip' && isHostLocalAddress(h.host)) || (h.kind === 'name' && (h.host === 'localhost' || h.host.endsWith('.localhost'))));
  return local ? { NO_PROXY: undefined, no_proxy: undefined, npm_config_noproxy: undefined } : {};
}

/** The running proxy of one wrap session and the refusals not yet written. */
export class WrapNetwork {
  private tally = new RefusalTally();

  private constructor(private readonly proxy: NetworkProxy) {}

  static async start(hosts: readonly HostPattern[]): Promise<WrapNetwork> {
    let network: WrapNetwork | null = null;
    const proxy = await startNetworkProxy({ allow: hosts, onRefused: (r) => network?.tally.add(r), testHosts: testHostsFrom(process.env) });
    network = new WrapNetwork(proxy);
    return network;
  }

  get socketPath(): string {
    return this.proxy.socketPath;
  }

  /** Writes the refusals since the last flush as `network` events (a log that cannot be written is returned). */
  flush(stateDir: string, who: { route: EventRoute; command: string }): Error | null {
    const tally = this.tally;
    if (tally.total === 0) return null;
    this.tally = new RefusalTally();
    return recordNetworkRefusals(stateDir, { refused: tally.refused(), others: tally.others() }, { ...who, tool: 'wrap' });
  }

  close(): Promise<void> {
    return this.proxy.close();
  }
}

function usage(message: string, hint: string): EditwardenError {
  return new EditwardenError({ code: ErrorCode.USAGE, message, hint });
}
