/**
 * The event-log route of a client's hook call (runs/event-types.ts
 * `EventRoute`): `hook`, the client, and the client's session id when its
 * hook input carries one. What the hook records is written by
 * runs/hook-records.ts, the one writer of a hook's facts.
 */
import type { EventRoute } from '../runs/events.js';
import { defined } from '../defined.js';

/** The route of a hook call: its client and, when the input names one, the client's session. */
export function hookRoute(client: string, input: Record<string, unknown>): EventRoute {
  const session = input.session_id ?? input.sessionId ?? input.conversation_id;
  return { via: 'hook', client, ...defined({ session: typeof session === 'string' && session !== '' ? session : undefined }) };
}
