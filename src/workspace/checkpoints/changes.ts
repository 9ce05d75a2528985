/**
 * Which checkpoints are undo steps, and how they group: the "changes" of a
 * root's undo history (history.ts walks them). Pure: summaries in, changes
 * out; nothing here reads or writes the disk.
 */
import { defined } from '../../defined.js';
import type { CheckpointSummary } from './types.js';

/** One undoable change: the checkpoints that hold the state before it, oldest first. */
export interface Change {
  key: string;
  kind: 'transaction' | 'hook' | 'command' | 'restore';
  /** Human label: the transaction's reason, the hook's tool, the command line, the restored id. */
  label: string;
  checkpoints: string[];
  createdAt: string;
  /** The client session it belongs to (a client's native edit or shell command), where the client sent one. */
  session?: string;
  /** The client that made it (claude, gemini, …); absent: editwarden's own. */
  client?: string;
}

/**
 * The changes recorded in these checkpoints (oldest first): a transaction's
 * checkpoints form one change; a hook's checkpoint one; a restore's safety
 * checkpoint (unless undo/redo made it) one — undoing it undoes the restore.
 */
export function changesOf(summaries: readonly CheckpointSummary[], own: ReadonlySet<string>, confirmed?: ReadonlySet<string>): Change[] {
  const byKey = new Map<string, Change>();
  for (const c of [...summaries].sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0))) {
    let key: string;
    let kind: Change['kind'];
    let label: string;
    // The client and session a client's edit or shell command came from: undo-select.ts selects and groups by them.
    let who: { client?: string | undefined; session?: string | undefined } = {};
    switch (c.origin.kind) {
      case 'transaction':
        key = `tx:${c.origin.tx}`;
        kind = 'transaction';
        label = c.reason || c.name;
        break;
      case 'hook':
        // A pre-hook checkpoint of an edit the client never applied is no step (steps.ts): only a confirmed one is.
        if (confirmed !== undefined && !confirmed.has(c.id)) continue;
        key = `hook:${c.id}`;
        kind = 'hook';
        label = c.reason || `${c.origin.client} ${c.origin.tool}`;
        who = { client: c.origin.client, session: c.origin.session };
        break;
      case 'command':
        key = `command:${c.id}`;
        kind = 'command';
        label = c.name;
        who = { client: c.origin.client, session: c.origin.session };
        break;
      case 'safety':
        if (own.has(c.id)) continue;
        // One act of editwarden's (a rollback of several checkpoints, one recovery) is one step: its captures share a group.
        key = `restore:${c.origin.group ?? c.id}`;
        kind = 'restore';
        label = c.origin.label ?? `restore of checkpoint ${c.origin.before}`;
        break;
      case 'manual':
      case 'index':
        continue;
      default: {
        const never: never = c.origin;
        void never;
        continue;
      }
    }
    const existing = byKey.get(key);
    if (existing) existing.checkpoints.push(c.id);
    else byKey.set(key, { key, kind, label, checkpoints: [c.id], createdAt: c.createdAt, ...defined({ client: who.client, session: who.session }) });
  }
  return [...byKey.values()].sort((a, b) => ((a.checkpoints[0] as string) < (b.checkpoints[0] as string) ? -1 : 1));
}
