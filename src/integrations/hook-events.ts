/**
 * What a client's hook adds to the root's event log (runs/events.ts): a
 * native edit the hook refused (code, message, hint — before this, a hook's
 * refusal was written nowhere), and a native edit the client made after the
 * hook allowed it (the real diff since the hook's checkpoint, and that
 * checkpoint as its undo step). Route: `hook`, the client, and the client's
 * session id when its hook input carries one. Recording never changes the
 * hook's answer: a log that cannot be written is reported, not obeyed.
 */
import path from 'node:path';
import type { ErrorInfo } from '../errors.js';
import { outputTail, recordEvent, type EventRoute } from '../runs/events.js';
import { STATE_DIR } from '../workspace/paths.js';
import type { NativeEdit } from './native-edit.js';
import { defined } from '../defined.js';

/** The route of a hook call: its client and, when the input names one, the client's session. */
export function hookRoute(client: string, input: Record<string, unknown>): EventRoute {
  const session = input.session_id ?? input.sessionId ?? input.conversation_id;
  return { via: 'hook', client, ...defined({ session: typeof session === 'string' && session !== '' ? session : undefined }) };
}

/** A path as the log shows it: root-relative when it lies under the root (clients often send absolute paths). */
function shown(root: string, p: string): string {
  if (!path.isAbsolute(p)) return p;
  const rel = path.relative(root, p);
  return rel === '' || rel.startsWith('..') || path.isAbsolute(rel) ? p : rel.split(path.sep).join('/');
}

/** The hook refused a native edit (or input it could not read). */
export function recordHookRefusal(root: string, route: EventRoute, tool: string, edit: NativeEdit | null, error: ErrorInfo): Error | null {
  const paths = edit ? [...edit.requests.map((r) => r.path), ...edit.pathsOnly] : error.path ? [error.path] : [];
  return recordEvent(path.join(root, STATE_DIR), { kind: 'refusal', route, tool, paths: [...new Set(paths.map((p) => shown(root, p)))], code: error.code, message: error.message, hint: error.hint });
}

/** The client changed these files after its hook allowed the edit: the real diff, undone by `checkpoint`. */
export function recordHookEdit(root: string, route: EventRoute, tool: string, recorded: { checkpoint: string | null; changes: Array<{ path: string; patch?: string }> }): Error | null {
  if (recorded.changes.length === 0) return null;
  const diff = recorded.changes.map((c) => c.patch ?? '').join('');
  const { added, removed } = diffLines(diff);
  return recordEvent(path.join(root, STATE_DIR), {
    kind: 'edit',
    route,
    tool,
    paths: recorded.changes.map((c) => c.path),
    added,
    removed,
    ...defined({ diff: diff !== '' ? diff : undefined, checkpoint: recorded.checkpoint || undefined }),
  });
}

/** Lines a unified diff adds and removes (headers not counted). */
function diffLines(diff: string): { added: number; removed: number } {
  let added = 0;
  let removed = 0;
  for (const line of diff.split('\n')) {
    if (line.startsWith('+++ ') || line.startsWith('--- ')) continue;
    if (line.startsWith('+')) added++;
    else if (line.startsWith('-')) removed++;
  }
  return { added, removed };
}

/** A command the client's shell tool ran through `editwarden shell`: its exit code, the files it changed and their undo step. */
export function recordHookCommand(
  root: string,
  route: EventRoute,
  tool: string,
  run: {
    command: string;
    exitCode: number | null;
    changes: ReadonlyArray<{ path: string; added: number; removed: number }>;
    checkpoint: string | null;
    refusal: ErrorInfo | null;
    /** What it changed, as a unified diff (text files). */
    diff?: string;
    /** Its output (the last lines), kept when it failed or was refused. */
    output?: string;
    /** Protected files it changed, put back at once. */
    putBack?: readonly string[];
    /** Its changes were put back (over the limits). */
    reverted?: boolean;
  },
): Error | null {
  const added = run.changes.reduce((n, c) => n + c.added, 0);
  const removed = run.changes.reduce((n, c) => n + c.removed, 0);
  const failed = run.exitCode !== 0 || run.refusal !== null;
  return recordEvent(path.join(root, STATE_DIR), {
    kind: 'command',
    route,
    tool,
    command: run.command,
    exit_code: run.exitCode,
    paths: run.changes.map((c) => c.path),
    changes: { added, removed },
    ...defined({
      checkpoint: run.checkpoint || undefined,
      diff: run.diff || undefined,
      output: failed && run.output ? outputTail(run.output) : undefined,
      put_back: run.putBack?.length ? [...run.putBack] : undefined,
      reverted: run.reverted ? (true as const) : undefined,
    }),
    ...(run.refusal ? { code: run.refusal.code, message: run.refusal.message } : {}),
  });
}
