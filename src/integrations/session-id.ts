/**
 * The one reader of a client's session id: the hook-input field(s) the
 * client record names (`ClientIntegration.sessionFields`, as the real client
 * sends them). The session keys the client session's ledger (its limits
 * count across the session), the route of every event the hook records, the
 * guarded shell's `--session` and the folder a client's shell carries — so
 * one reader, or two routes of one session would be counted apart.
 * test/package/architecture.test.ts fails when another module reads a
 * session field of a hook input.
 */
import type { ClientIntegration } from './client.js';
import type { SessionKey } from '../runs/ledger.js';

/** A session id longer than this is not a client's id (the clients send UUIDs or short ids). */
const MAX_SESSION_ID = 200;

/** The session a hook input (as the client sent it) belongs to, or null when the client sent none (then each call counts alone). */
export function sessionOf(client: Pick<ClientIntegration, 'name' | 'sessionFields'>, input: Record<string, unknown>): SessionKey | null {
  for (const field of client.sessionFields) {
    const id = input[field];
    if (typeof id === 'string' && id !== '' && id.length <= MAX_SESSION_ID) return { client: client.name, session: id };
  }
  return null;
}
