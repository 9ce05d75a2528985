/**
 * The events of a root's event log (`.editwarden/events.jsonl`): what every
 * route — editwarden's own runs (exec, run, the Editor, MCP), a client's
 * hooks, the shell, undo/redo — did, as one closed union a person's view
 * (`editwarden log`, `editwarden report`) reads. Types and small builders
 * only: nothing here touches the disk (events.ts writes, events-read.ts reads).
 *
 * One event is one JSON object on one line. `v` is the format version; a
 * reader ignores fields it does not know, so fields may be added, never
 * renamed or given another meaning.
 */

export const EVENT_FORMAT = 1;

/** Who did it: the route, and the client, session and run where known. */
export interface EventRoute {
  /** exec | run | editor | controlled | mcp | hook | shell | cli … — the entry point the change came through. */
  via: string;
  /** The agent client (claude, codex, gemini, cursor, opencode, copilot, qwen) where one is known. */
  client?: string;
  /** The client's session id (hooks), or the MCP session. */
  session?: string;
  /** editwarden's run id for its own runs. */
  run?: string;
}

interface EventBase {
  v: typeof EVENT_FORMAT;
  /** ISO time the event was recorded. */
  time: string;
  route: EventRoute;
  /** Root-relative paths the event is about (may be empty). */
  paths: string[];
  /** The checkpoint (undo step) the change belongs to: `editwarden checkpoint restore <id>` / `editwarden undo` puts back the state before it. */
  checkpoint?: string;
  /** Set on the first event appended after a torn line (a writer that crashed mid-line): the torn fragment before it is no corruption. */
  after_torn?: true;
  /** Lists and texts cut to keep the event's line within its cap (events-cap.ts): what each held, and where the whole of it is. */
  cut?: EventCuts;
  /** The event was read back from the index of a rotated generation (events-index.ts): compact, its diff and side files gone. */
  indexed?: true;
}

/** A list cut to its first entries: how many it held, and the side file (`.editwarden/events-diffs/<id>.list`) with all of them. */
interface ListCut {
  total: number;
  /** sha256 of the side file holding the list as JSON. */
  blob?: string;
  /** Set when the side file holds only the list's first entries (it would have passed a side file's size cap): how many. */
  blob_entries?: number;
}

/** What capping did to an event: each cut list by its field name, and the names of the text fields cut short. */
export interface EventCuts {
  paths?: ListCut;
  written?: ListCut;
  removed?: ListCut;
  put_back?: ListCut;
  undoes?: ListCut;
  created?: ListCut;
  deleted?: ListCut;
  left?: ListCut;
  /** Text fields cut at their cap (the end replaced by a note of how much was cut). */
  texts?: string[];
}

/** The change's diff, inline when small, else a pointer to a blob under `.editwarden/events-diffs/`. */
export interface EventDiff {
  diff?: string;
  /** sha256 of the diff, stored as `.editwarden/events-diffs/<id>.diff`. */
  diff_blob?: string;
  /** The diff was longer than even a blob keeps: what is kept is its start. */
  diff_truncated?: true;
}

/** A change applied (by an editwarden tool, or a client's own edit tool after its hook allowed it). */
interface EditEvent extends EventBase, EventDiff {
  kind: 'edit';
  tool: string;
  added: number;
  removed: number;
  /** Of `paths`, those the change created and those it deleted (the rest it modified); absent when none. */
  created?: string[];
  deleted?: string[];
  /** A client's native edit: the client's id of the tool call, when its hook input names one. */
  call?: string;
}

/** A request refused: by the edit engine, a denied path, a hook, a limit. */
interface RefusalEvent extends EventBase {
  kind: 'refusal';
  tool: string;
  code: string;
  message: string;
  hint: string;
}

/** A shell command that ran, with what it changed (its diff, from the checkpoint taken before it: EventDiff). */
interface CommandEvent extends EventBase, EventDiff {
  kind: 'command';
  tool: string;
  command: string;
  /** null: killed (timeout, signal, cancelled) or refused before it ran. */
  exit_code: number | null;
  /** Lines the command added and removed over the files it changed (`paths`). */
  changes: { added: number; removed: number };
  /** Where the command's full logs are kept, when it kept them. */
  artifacts?: string;
  /** A guarded shell command: the folder it ran in, and which sandbox held it (bwrap, sandbox-exec, outer, none). */
  cwd?: string;
  sandbox?: string;
  /** The refusal or failure, when it did not end with exit code 0. */
  code?: string;
  message?: string;
  /** The last lines of what the command printed (bounded: COMMAND_OUTPUT_MAX), kept when it failed or was refused. */
  output?: string;
  /** Protected files (`.git/`, configs, client settings) the command changed and editwarden put back at once. */
  put_back?: string[];
  /** The command's file changes were put back (over the limits): `paths` changed, then were restored. */
  reverted?: true;
}

/** A constraint was violated: the run stops (exit code 2). */
interface ViolationEvent extends EventBase {
  kind: 'violation';
  type: string;
  constraint: string;
  limit: number | string | string[];
  actual: number | string;
  message: string;
  hint: string;
  prevented: boolean;
  /** The violation report (violation.md) in the run folder, root-relative. */
  report?: string;
}

/** A checkpoint taken by a person or a hook (named undo step). */
interface CheckpointEvent extends EventBase {
  kind: 'checkpoint';
  label: string;
}

/**
 * A write editwarden itself made to project files from a checkpoint: `editwarden undo` / `redo`, and (`action`) a
 * command's put-back, a `checkpoint restore`, a rollback, a recovery, a forced undo's capture. Which step, the files
 * it wrote and removed, how many bytes, and (`step`, = `checkpoint`) the undo step it made of what it overwrote.
 */
interface UndoEvent extends EventBase {
  kind: 'undo' | 'redo';
  label: string;
  written: string[];
  removed: string[];
  /** The checkpoints of the step it undid or redid (so a report of that step's run or session shows it). */
  undoes?: string[];
  /** What it was (absent in older lines: the kind says it). */
  action?: 'undo' | 'redo' | 'put-back' | 'restore' | 'rollback' | 'recovery';
  /** Bytes of the files written. */
  bytes?: number;
  /** The undo step this write made (the capture of what it overwrote): `editwarden undo` right after it takes it back. */
  step?: string;
  /** Files it left as they were because the step's command cannot be shown to have changed them (a put-back). */
  left?: string[];
}

/** A run (editwarden's own) ended: its outcome and totals against the configured limits. */
interface RunEndEvent extends EventBase {
  kind: 'run-end';
  status: string;
  /** The mode's exit code and reason, when the mode closed the run with an outcome. */
  exit_code?: number;
  reason?: string;
  outcome: string;
  started_at: string;
  calls: number;
  totals: { files: number; lines_added: number; lines_removed: number; tokens: number; elapsed_seconds: number };
  /** null: the run had no such limit (an interactive session's, unless the config set it). */
  limits: { max_files: number | null; max_lines_changed: number | null; max_tokens: number | null; timeout_seconds: number | null };
}

/**
 * A connection a sandboxed command asked for and the filtering proxy refused (`sandbox.network` lists hosts):
 * one event per refused destination and reason during one command, with how many times it was asked.
 */
interface NetworkEvent extends EventBase {
  kind: 'network';
  /** The tool or route that ran the command (Bash, execute_command, verify). */
  tool: string;
  /** The command line, as the command event beside it names it. */
  command: string;
  /** The host the command asked for (lower-cased), or the unreadable target of a bad request. */
  host: string;
  /** null when no port could be read. */
  port: number | null;
  /** CONNECT, or the plain HTTP request's method. */
  method: string;
  /** not-listed | ip-literal | address | host-mismatch | bad-request (sandbox/network/refusals.ts). */
  reason: string;
  /** E_NETWORK_REFUSED, and what a person reads. */
  code: string;
  message: string;
  /** Connections to this destination refused during the command. */
  count: number;
  /** On the command's last network event: refused destinations past the ones the events name. */
  others?: { destinations: number; connections: number };
}

export type EditwardenEvent = EditEvent | RefusalEvent | CommandEvent | ViolationEvent | CheckpointEvent | UndoEvent | RunEndEvent | NetworkEvent;
export type EventKind = EditwardenEvent['kind'];
/** Longest command output an event keeps (its last characters): the full logs stay in the run's folder. */
const COMMAND_OUTPUT_MAX = 2000;

/** A command's output as an event keeps it: the last COMMAND_OUTPUT_MAX characters, whole lines where it can. */
export function outputTail(output: string): string {
  if (output.length <= COMMAND_OUTPUT_MAX) return output;
  const cut = output.slice(-COMMAND_OUTPUT_MAX);
  const nl = cut.indexOf('\n');
  return `…${nl >= 0 && nl < 200 ? cut.slice(nl) : cut}`;
}

export const EVENT_KINDS: readonly EventKind[] = ['edit', 'refusal', 'command', 'violation', 'checkpoint', 'undo', 'redo', 'run-end', 'network'];

/** An event as a caller hands it to appendEvent: the version and time are filled in (time may be given). */
export type NewEvent = DistributiveOmit<EditwardenEvent, 'v' | 'time'> & { time?: string };
type DistributiveOmit<T, K extends PropertyKey> = T extends unknown ? Omit<T, K> : never;
