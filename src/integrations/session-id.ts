/**
 * The client session a hook input belongs to: the id the client sends with
 * every hook call (Claude Code and Gemini CLI send `session_id`). The
 * session's ledger (runs/ledger.ts) is keyed by it.
 */
import type { SessionKey } from '../runs/ledger.js';

/** A session id longer than this is not a client's id (Claude and Gemini send UUIDs). */
const MAX_SESSION_ID = 200;

/** The session a hook input belongs to, or null when the client sent none (then each call counts alone). */
export function sessionOf(client: string, input: Record<string, unknown>): SessionKey | null {
  const id = input.session_id;
  if (typeof id !== 'string' || id === '' || id.length > MAX_SESSION_ID) return null;
  return { client, session: id };
}
