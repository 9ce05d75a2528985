/**
 * What a client's hooks and its guarded shell write into the root's event
 * log (events.ts) — the one record of them: a native edit the hook refused
 * (code, message, hint), a native edit the client made after the hook
 * allowed it (the real diff since the hook's checkpoint, that checkpoint as
 * its undo step, the client's call id, which paths it created or deleted),
 * and a command the client's shell ran through `editwarden shell` (its exit
 * code, folder, sandbox, what it changed and the undo step). Route: `hook`,
 * the client, and the client's session when its hook input carries one.
 *
 * Each fact is written once, here; `hookRecords` (hook-view.ts) is the view
 * of them that `.editwarden/hooks/changes.jsonl` used to be (a second file
 * every hooked edit was also appended to). Recording never changes the hook's answer: a
 * log that cannot be written is returned as an error, for the caller to
 * report, not obey. Nothing here touches a project file.
 */
import path from 'node:path';
import type { ErrorInfo } from '../errors.js';
import { STATE_DIR } from '../workspace/paths.js';
import type { EventRoute } from './event-types.js';
import { outputTail, recordEvent } from './events.js';
import { defined } from '../defined.js';

/** A path as the log shows it: root-relative when it lies under the root (clients often send absolute paths). */
function shown(root: string, p: string): string {
  if (!path.isAbsolute(p)) return p;
  const rel = path.relative(root, p);
  return rel === '' || rel.startsWith('..') || path.isAbsolute(rel) ? p : rel.split(path.sep).join('/');
}

/** The paths a refused native edit named (its requests' and the paths it names without content). */
interface RefusedEdit {
  requests: ReadonlyArray<{ path: string }>;
  pathsOnly: readonly string[];
}

/** The hook refused a native edit (or input it could not read). */
export function recordHookRefusal(root: string, route: EventRoute, tool: string, edit: RefusedEdit | null, error: ErrorInfo): Error | null {
  const paths = edit ? [...edit.requests.map((r) => r.path), ...edit.pathsOnly] : error.path ? [error.path] : [];
  return recordEvent(path.join(root, STATE_DIR), { kind: 'refusal', route, tool, paths: [...new Set(paths.map((p) => shown(root, p)))], code: error.code, message: error.message, hint: error.hint });
}

/** What the client's edit changed, as the post-tool hook found it since the hook's checkpoint. */
export interface NativeChanges {
  /** The client's id of the tool call, when its hook input names one. */
  call?: string | undefined;
  /** The pre-tool hook's checkpoint (the undo step); null: no hook vetted this edit before it ran (Cursor's afterFileEdit). */
  checkpoint: string | null;
  changes: ReadonlyArray<{ path: string; change: string; patch?: string }>;
  /** The files the client named, recorded for an edit no hook vetted (no checkpoint: nothing to diff against). */
  named?: readonly string[] | undefined;
}

/**
 * The client changed these files after its hook allowed the edit: the real diff, undone by `checkpoint`. An edit no
 * hook vetted (no checkpoint: there is nothing to diff against) is recorded as that, with the paths the client
 * named (root-relative where they lie under the root) and no line counts; a vetted edit that changed nothing is not recorded.
 */
export function recordHookEdit(root: string, route: EventRoute, tool: string, recorded: NativeChanges): Error | null {
  if (recorded.changes.length === 0 && recorded.checkpoint !== null) return null;
  const diff = recorded.changes.map((c) => c.patch ?? '').join('');
  const { added, removed } = diffLines(diff);
  const having = (kind: string): string[] | undefined => {
    const list = recorded.changes.filter((c) => c.change === kind).map((c) => c.path);
    return list.length > 0 ? list : undefined;
  };
  return recordEvent(path.join(root, STATE_DIR), {
    kind: 'edit',
    route,
    tool,
    paths: recorded.checkpoint === null && recorded.changes.length === 0 ? [...new Set((recorded.named ?? []).map((p) => shown(root, p)))] : recorded.changes.map((c) => c.path),
    added,
    removed,
    ...defined({ created: having('created'), deleted: having('deleted'), call: recorded.call, diff: diff !== '' ? diff : undefined, checkpoint: recorded.checkpoint || undefined }),
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

/** A command the client's shell tool ran through `editwarden shell` (or refused before it ran). */
export interface HookCommandRun {
  command: string;
  exitCode: number | null;
  changes: ReadonlyArray<{ path: string; added: number; removed: number }>;
  checkpoint: string | null;
  refusal: ErrorInfo | null;
  /** The folder it ran in (absolute). */
  cwd?: string;
  /** Which sandbox held it (bwrap, sandbox-exec, outer, none). */
  sandbox?: string;
  /** What it changed, as a unified diff (text files). */
  diff?: string;
  /** Its output (the last lines), kept when it failed or was refused. */
  output?: string;
  /** Protected files it changed, put back at once. */
  putBack?: readonly string[];
  /** Its changes were put back (over the limits). */
  reverted?: boolean;
}

/** A command the client's shell tool ran through `editwarden shell`: its exit code, the files it changed and their undo step. */
export function recordHookCommand(root: string, route: EventRoute, tool: string, run: HookCommandRun): Error | null {
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
      cwd: run.cwd,
      sandbox: run.sandbox,
      checkpoint: run.checkpoint || undefined,
      diff: run.diff || undefined,
      output: failed && run.output ? outputTail(run.output) : undefined,
      put_back: run.putBack?.length ? [...run.putBack] : undefined,
      reverted: run.reverted ? (true as const) : undefined,
    }),
    ...(run.refusal ? { code: run.refusal.code, message: run.refusal.message } : {}),
  });
}

/** What a put-back wrote: the files written and removed, their bytes, and the undo step it made of what it overwrote. */
export interface PutBack {
  written: readonly string[];
  removed: readonly string[];
  bytes?: number | undefined;
  /** The capture of what the put-back overwrote (its own undo step). */
  safety?: string | undefined;
}

/** A guarded command's changes put back (over the session's limits): which files, how many bytes, the step that takes the put-back back, and what was left. */
export function recordHookPutBack(root: string, route: EventRoute, label: string, r: PutBack, left: readonly string[]): Error | null {
  return recordEvent(path.join(root, STATE_DIR), {
    kind: 'undo',
    action: 'put-back',
    route,
    label,
    written: [...r.written],
    removed: [...r.removed],
    bytes: r.bytes ?? 0,
    paths: [...r.written, ...r.removed],
    ...defined({ checkpoint: r.safety, step: r.safety, left: left.length > 0 ? [...left] : undefined }),
  });
}
