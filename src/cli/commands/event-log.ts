/**
 * The root's event log as `log`, `report` and `wrap` read it: found from `--root`, checked as it is read, what
 * reading it skipped said on stderr, and the scope a report covers. Its own module so that `editwarden log`
 * loads the event log's reader only — not the report's renderers and the workspace (checkpoints, transactions,
 * the sandbox's policy) that `report` opens for the net change (test/cli/lazy-commands.test.ts).
 */
import fs from 'node:fs';
import path from 'node:path';
import { EditwardenError, ErrorCode } from '../../errors.js';
import type { ReportScope } from '../../report/event-summary.js';
import type { EditwardenEvent } from '../../runs/event-types.js';
import { readEvents, type EventLog } from '../../runs/events-read.js';
import { STATE_DIR } from '../../config/protected-set.js';
import type { Io } from '../output.js';

export interface EventFilter {
  run?: string | undefined;
  session?: string | undefined;
}

/** The root's event log (`--root`, else the working folder), checked as it is read. */
export function loadEventLog(rootFlag: string | undefined): { root: string; stateDir: string; log: EventLog } {
  const root = path.resolve(rootFlag ?? process.cwd());
  if (!fs.existsSync(root) || !fs.statSync(root).isDirectory()) {
    throw new EditwardenError({ code: ErrorCode.USAGE, message: `--root ${rootFlag ?? root} is not an existing folder.`, hint: 'Pass the project folder.' });
  }
  const stateDir = path.join(root, STATE_DIR);
  return { root, stateDir, log: readEvents(stateDir) };
}

/** What reading the log skipped or summarised, for a person (stderr): never a reason to show nothing. */
export function writeLogNotes(io: Io, log: EventLog): void {
  for (const note of log.notes) io.stderr.write(`note: ${note}\n`);
  if (log.dropped.length > 0) {
    const events = log.dropped.reduce((n, g) => n + g.events, 0);
    const listed = log.dropped.reduce((n, g) => n + g.listed, 0);
    io.stderr.write(
      `note: ${events} older event(s) in ${log.dropped.length} rotated generation(s) are summarised by the index; the ${listed} refusal(s), violation(s), deletion(s), undo steps and run ends among them are listed from the index (without their diffs).\n`,
    );
  }
}

/** What the report covers: the flags' scope, else the latest run or session in the log, else everything. */
export function reportScope(events: readonly EditwardenEvent[], flags: { run?: string | undefined; session?: string | undefined; all?: boolean | undefined }): { filter: EventFilter; scope: ReportScope } {
  const given = [flags.run !== undefined, flags.session !== undefined, flags.all === true].filter(Boolean).length;
  if (given > 1) throw new EditwardenError({ code: ErrorCode.USAGE, message: 'Give one of --run, --session and --all.', hint: 'editwarden report --run <id>, --session <id>, or --all.' });
  if (flags.run !== undefined) return { filter: { run: flags.run }, scope: { kind: 'run', id: flags.run } };
  if (flags.session !== undefined) return { filter: { session: flags.session }, scope: { kind: 'session', id: flags.session } };
  if (flags.all !== true) {
    for (let i = events.length - 1; i >= 0; i--) {
      const route = (events[i] as EditwardenEvent).route;
      if (route.run) return { filter: { run: route.run }, scope: { kind: 'run', id: route.run } };
      if (route.session) return { filter: { session: route.session }, scope: { kind: 'session', id: route.session } };
    }
  }
  return { filter: {}, scope: { kind: 'all' } };
}
