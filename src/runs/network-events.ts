/**
 * The connections a command's filtering proxy refused, as events of the
 * root's event log (kind `network`): one per refused destination and
 * reason, with its count; the command's last one names how many more
 * destinations were refused past those kept (sandbox/network/refusals.ts
 * bounds them). Every sandboxed route records through here, via the
 * command runner (verify/command-network.ts).
 */
import { ErrorCode } from '../errors.js';
import { NETWORK_REFUSAL_REASONS, type TalliedRefusal } from '../sandbox/network/refusals.js';
import type { EventRoute, NewEvent } from './event-types.js';
import { recordEvent } from './events.js';
import { defined } from '../defined.js';

/** What a command's proxy refused: the kept destinations and the count of the rest. */
export interface NetworkRefusals {
  refused: TalliedRefusal[];
  others: { destinations: number; connections: number } | null;
}

/** The target as a person reads it: host:port, an IPv6 literal bracketed. */
export function networkTarget(host: string, port: number | null): string {
  const shown = host.includes(':') ? `[${host}]` : host;
  return port === null ? shown : `${shown}:${port}`;
}

/** The events of one command's refusals (empty when none). */
export function networkEvents(found: NetworkRefusals, who: { route: EventRoute; tool: string; command: string }): NewEvent[] {
  return found.refused.map((r, i) => {
    const last = i === found.refused.length - 1;
    const times = r.count === 1 ? '' : ` (${r.count} times)`;
    return {
      kind: 'network',
      route: who.route,
      paths: [],
      tool: who.tool,
      command: who.command,
      host: r.host,
      port: r.port,
      method: r.method,
      reason: r.reason,
      code: ErrorCode.NETWORK_REFUSED,
      message: `${r.method} ${networkTarget(r.host, r.port)} refused${times}: ${NETWORK_REFUSAL_REASONS[r.reason]}.`,
      count: r.count,
      ...defined({ others: last && found.others ? found.others : undefined }),
    };
  });
}

/** Appends them to the log; a log that cannot be written is returned, not thrown (the command's own record still says). */
export function recordNetworkRefusals(stateDir: string, found: NetworkRefusals, who: { route: EventRoute; tool: string; command: string }): Error | null {
  let failed: Error | null = null;
  for (const event of networkEvents(found, who)) failed = recordEvent(stateDir, event) ?? failed;
  return failed;
}
