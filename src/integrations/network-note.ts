/**
 * What the guarded shell says after a command whose filtering proxy refused
 * connections (`sandbox.network` lists hosts): which destinations, and
 * where that is recorded. One line on stderr, for the model and the person
 * alike; nothing when nothing was refused.
 */
import { networkTarget, type NetworkRefusals } from '../runs/network-events.js';

export function networkNote(refused: NetworkRefusals | undefined): string | null {
  if (refused === undefined || refused.refused.length === 0) return null;
  const named = refused.refused.slice(0, 5).map((r) => networkTarget(r.host, r.port));
  const more = refused.refused.length - named.length + (refused.others?.destinations ?? 0);
  return `[editwarden] note: the sandbox's network proxy refused ${named.join(', ')}${more > 0 ? ` and ${more} more` : ''} (E_NETWORK_REFUSED: not in sandbox.network; recorded in \`editwarden log\`). Only the hosts a person lists in sandbox.network are reachable; a person can add one in their own config (~/.config/editwarden/config.yml).`;
}
