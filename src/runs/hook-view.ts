/**
 * The hooks' records, read back from the root's event log: every native edit
 * a client's post-tool hook recorded and every command its guarded shell ran
 * (hook-records.ts writes them) — what `.editwarden/hooks/changes.jsonl`
 * held before it was folded into the log. A module of its own so that a
 * hook, which only writes, never loads the log's reader. Read-only.
 */
import type { EditwardenEvent } from './event-types.js';
import { readEvents } from './events-read.js';
import { defined } from '../defined.js';

/** A hooked native edit, as the view shows it: which client and tool, its undo step, and each path with how it changed. */
interface HookEditRecord {
  at: string;
  client: string;
  tool: string;
  call?: string;
  session?: string;
  checkpoint: string | null;
  changes: Array<{ path: string; change: 'created' | 'modified' | 'deleted' }>;
}

/** A guarded shell command, as the view shows it. */
interface HookCommandRecord {
  at: string;
  client: string;
  tool: string;
  session?: string;
  command: string;
  cwd?: string;
  exit_code: number | null;
  sandbox: string;
  checkpoint: string | null;
  paths: string[];
  changes: { added: number; removed: number };
  put_back?: string[];
  reverted?: true;
  /** The refusal's code, when its effects (or the command) were refused. */
  refused?: string;
}

export type HookRecord = HookEditRecord | HookCommandRecord;

const stringsOf = (v: unknown): Set<string> => new Set(Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : []);
const stringOf = (v: unknown): string | undefined => (typeof v === 'string' ? v : undefined);

/** One event of the log as a hook record (null: not a client's native edit, nor a command its guarded shell ran). */
function hookRecord(event: EditwardenEvent): HookRecord | null {
  const head = { at: event.time, client: event.route.client ?? '', ...defined({ session: event.route.session }) };
  // The line grammar checks no optional field of these (events-read.ts): each is read for what it is.
  if (event.kind === 'edit') {
    if (event.route.via !== 'hook') return null;
    const created = stringsOf(event.created);
    const deleted = stringsOf(event.deleted);
    return {
      ...head,
      tool: event.tool,
      ...defined({ call: stringOf(event.call) }),
      checkpoint: event.checkpoint ?? null,
      changes: event.paths.map((p) => ({ path: p, change: created.has(p) ? 'created' : deleted.has(p) ? 'deleted' : 'modified' })),
    };
  }
  // A guarded command ran when a sandbox held it: one refused before it ran names none.
  const sandbox = event.kind === 'command' && event.route.via === 'shell' ? stringOf(event.sandbox) : undefined;
  if (event.kind !== 'command' || sandbox === undefined) return null;
  return {
    ...head,
    tool: event.tool,
    command: event.command,
    ...defined({ cwd: stringOf(event.cwd) }),
    exit_code: event.exit_code,
    sandbox,
    checkpoint: event.checkpoint ?? null,
    paths: event.paths,
    changes: event.changes,
    ...defined({ put_back: event.put_back, reverted: event.reverted, refused: event.code }),
  };
}

/**
 * The view of the hooks' records (what `.editwarden/hooks/changes.jsonl` held): every native edit a client's
 * post-tool hook recorded and every command its guarded shell ran, oldest first, read from the root's event log.
 */
export function hookRecords(stateDir: string): HookRecord[] {
  const out: HookRecord[] = [];
  for (const event of readEvents(stateDir).events) {
    const record = hookRecord(event);
    if (record) out.push(record);
  }
  return out;
}
