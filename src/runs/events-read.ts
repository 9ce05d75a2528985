/**
 * The root's event log, read back: every kept generation, oldest first, each
 * line checked to be an event editwarden wrote before anyone sees it. The
 * log lives in state an agent never writes, but a repository can ship a
 * `.editwarden/` of its own, so the file is trusted only after it is checked
 * (as every state file: state-dir.ts): a symlink, a FIFO, a file of another
 * user or a line that is not an event is refused with E_UNTRUSTED_STATE —
 * except the one torn line a writer killed mid-write leaves (events.ts marks
 * the line after it), which is skipped and counted. It never writes.
 */
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { z } from 'zod';
import { BLOB_ID, checkStateStat, untrusted } from '../workspace/state-dir.js';
import { EVENT_FORMAT, EVENT_KINDS, type EditwardenEvent } from './event-types.js';
import { checkedStat, DIFFS_DIR, EVENT_LOG_MAX_BYTES, generationFile } from './events.js';

export interface EventLog {
  /** Oldest first. */
  events: EditwardenEvent[];
  /** Torn lines skipped (a writer killed mid-line). */
  torn: number;
  /** The files read, oldest first. */
  files: string[];
}

/** A log file larger than this is not one editwarden rotated (it rotates at 8 MiB plus one line). */
const MAX_FILE_BYTES = 4 * EVENT_LOG_MAX_BYTES;

const str = z.string();
const strings = z.array(z.string());
const num = z.number();

/** The fields each kind must have, with their types; unknown fields pass (newer writers may add some). */
const base = z.looseObject({
  v: z.literal(EVENT_FORMAT),
  time: str.refine((t) => !Number.isNaN(Date.parse(t)), 'not a time'),
  kind: z.enum(EVENT_KINDS as [string, ...string[]]),
  route: z.looseObject({ via: str, client: str.optional(), session: str.optional(), run: str.optional() }),
  paths: strings,
  checkpoint: str.optional(),
  diff: str.optional(),
  diff_blob: str.regex(BLOB_ID).optional(),
});
const byKind: Record<string, z.ZodType> = {
  edit: z.looseObject({ tool: str, added: num, removed: num }),
  refusal: z.looseObject({ tool: str, code: str, message: str, hint: str }),
  command: z.looseObject({ tool: str, command: str, exit_code: num.nullable(), changes: z.looseObject({ added: num, removed: num }) }),
  violation: z.looseObject({ type: str, constraint: str, message: str, hint: str, prevented: z.boolean(), limit: z.union([num, str, strings]), actual: z.union([num, str]) }),
  checkpoint: z.looseObject({ label: str }),
  undo: z.looseObject({ label: str, written: strings, removed: strings }),
  redo: z.looseObject({ label: str, written: strings, removed: strings }),
  'run-end': z.looseObject({
    status: str,
    outcome: str,
    started_at: str,
    calls: num,
    totals: z.looseObject({ files: num, lines_added: num, lines_removed: num, tokens: num, elapsed_seconds: num }),
    limits: z.looseObject({ max_files: num, max_lines_changed: num, max_tokens: num, timeout_seconds: num }),
  }),
};

/** One line as an event, or why it is not one. */
export function parseEventLine(line: string): EditwardenEvent | string {
  let value: unknown;
  try {
    value = JSON.parse(line);
  } catch {
    return 'it is not JSON';
  }
  const head = base.safeParse(value);
  if (!head.success) return describe(head.error);
  const body = byKind[head.data.kind]?.safeParse(value);
  if (!body?.success) return body ? describe(body.error) : 'unknown kind';
  return value as EditwardenEvent;
}

function describe(error: z.ZodError): string {
  const issue = error.issues[0];
  return `field ${issue?.path.join('.') || '(event)'}: ${issue?.message ?? 'invalid'}`;
}

/** Every kept generation of the log at `stateDir`, oldest first; an empty log when there is none. */
export function readEvents(stateDir: string): EventLog {
  const out: EventLog = { events: [], torn: 0, files: [] };
  let st: fs.Stats;
  try {
    st = fs.lstatSync(stateDir);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return out;
    throw error;
  }
  checkStateStat(stateDir, st);
  for (const n of generationsOf(stateDir)) {
    const file = path.join(stateDir, generationFile(n));
    const text = readLogFile(file);
    if (text === null) continue;
    out.files.push(file);
    parseInto(out, file, text);
  }
  return out;
}

/** Rotated generations present (highest number = oldest), then the current log. */
function generationsOf(stateDir: string): number[] {
  const rotated = fs
    .readdirSync(stateDir)
    .map((name) => /^events\.([1-9]\d{0,3})\.jsonl$/.exec(name)?.[1])
    .filter((n): n is string => n !== undefined)
    .map(Number)
    .sort((a, b) => b - a);
  return [...rotated, 0];
}

function readLogFile(file: string): string | null {
  let fd: number;
  try {
    fd = fs.openSync(file, fs.constants.O_RDONLY | fs.constants.O_NOFOLLOW | fs.constants.O_NONBLOCK);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') return null;
    if (code === 'ELOOP') throw untrusted(`${file} is a symlink; editwarden's event log must be a regular file.`);
    throw error;
  }
  try {
    const st = checkedStat(file, fd);
    if (st.size > MAX_FILE_BYTES) throw untrusted(`${file} is ${st.size} bytes; editwarden rotates its event log long before that.`);
    return fs.readFileSync(fd, 'utf8');
  } finally {
    fs.closeSync(fd);
  }
}

function parseInto(out: EventLog, file: string, text: string): void {
  const lines = text.split('\n');
  // The part after the last newline is a line a writer did not finish.
  const last = lines.pop();
  if (last !== undefined && last !== '') out.torn++;
  let pendingTorn: { line: number; why: string } | null = null;
  lines.forEach((line, i) => {
    if (line === '') return;
    const parsed = parseEventLine(line);
    if (typeof parsed === 'string') {
      if (pendingTorn) throw badLine(file, pendingTorn.line, pendingTorn.why);
      pendingTorn = { line: i + 1, why: parsed };
      return;
    }
    if (pendingTorn) {
      // Only the line a crashed writer left (the next writer marked its own) is no corruption.
      if (parsed.after_torn !== true) throw badLine(file, pendingTorn.line, pendingTorn.why);
      out.torn++;
      pendingTorn = null;
    }
    out.events.push(parsed);
  });
  if (pendingTorn !== null) {
    const { line, why } = pendingTorn;
    throw badLine(file, line, why);
  }
}

function badLine(file: string, line: number, why: string): Error {
  return untrusted(
    `${file} line ${line} is not an event editwarden wrote (${why}).`,
    'editwarden will not show a log it cannot trust. Look at the file; if it is damaged, move it away (`mv .editwarden/events.jsonl /tmp/`) and a new log begins.',
  );
}

/** The diff of an event: inline, or its blob read back and checked against its id (a swapped blob is refused). */
export function readEventDiff(stateDir: string, event: { diff?: string; diff_blob?: string }): string | null {
  if (event.diff !== undefined) return event.diff;
  if (event.diff_blob === undefined) return null;
  if (!BLOB_ID.test(event.diff_blob)) throw untrusted(`${JSON.stringify(event.diff_blob)} is not a diff blob id.`);
  const file = path.join(stateDir, DIFFS_DIR, `${event.diff_blob}.diff`);
  const text = readLogFile(file);
  if (text === null) return null;
  if (createHash('sha256').update(text, 'utf8').digest('hex') !== event.diff_blob) throw untrusted(`${file} does not hold the diff its name says.`);
  return text;
}
