/**
 * `editwarden log [--root DIR] [--json] [--run ID] [--session ID]`: the
 * root's event log as a timeline, newest last, one line per event on the
 * local clock (the date once per day) — edits,
 * refusals, commands, violations, checkpoints, undo/redo from every route
 * (editwarden's runs, MCP, a client's hooks). On a colour terminal refusals
 * and violations stand out; the last line is the report's headline for the
 * same scope (`editwarden report` with the same flags). `--json`: one object
 * per line, the event as recorded plus `path` (its first path) for convenience.
 */
import type { Command } from 'commander';
import { ExitCode } from '../../errors.js';
import { scopeWords } from '../../report/cards.js';
import { clockFor } from '../../report/clock.js';
import { eventLine, eventsInScope, headline, summarize, type Severity } from '../../report/event-summary.js';
import { paint, refuseCommand, useColor, type Io, type Style } from '../output.js';
import { loadEventLog, reportScope, writeLogNotes } from './event-log.js';

interface Flags {
  root?: string;
  json?: boolean;
  run?: string;
  session?: string;
}

const KIND_STYLE: Record<Severity, Style> = { change: 'green', refusal: 'red', violation: 'red', command: 'cyan', 'command-failed': 'yellow', attempt: 'red', undo: 'yellow', info: 'dim' };

export function registerLog(program: Command, io: Io, setExit: (code: number) => void): void {
  program
    .command('log')
    .description('The timeline of what agents did in this root (edits, refusals, commands, violations, undo), newest last.')
    .option('--root <dir>', 'workspace root (default: current folder)')
    .option('--run <id>', "only this editwarden run's events")
    .option('--session <id>', "only this client session's events")
    .option('--json', 'one JSON object per line')
    .action((flags: Flags) => setExit(log(io, flags)));
}

function log(io: Io, flags: Flags): number {
  try {
    const { log } = loadEventLog(flags.root);
    const events = eventsInScope(log.events, { run: flags.run, session: flags.session });
    writeLogNotes(io, log);
    if (flags.json) {
      for (const e of events) io.stdout.write(`${JSON.stringify(e.paths[0] !== undefined ? { ...e, path: e.paths[0] } : e)}\n`);
      return ExitCode.OK;
    }
    const color = useColor(io);
    if (events.length === 0) io.stdout.write('no events recorded\n');
    const clock = clockFor(Intl.DateTimeFormat().resolvedOptions().timeZone);
    let date = '';
    for (const e of events) {
      const line = eventLine(e);
      // Local times; the date (and the zone) once, then again only where the day changes.
      if (clock.date(e.time) !== date) {
        date = clock.date(e.time);
        io.stdout.write(`${paint(color, 'bold', date)} ${paint(color, 'dim', `(${clock.zone(e.time)})`)}\n`);
      }
      const loud = line.severity === 'refusal' || line.severity === 'violation' || line.severity === 'attempt';
      const kind = paint(color, KIND_STYLE[line.severity], line.kind.padEnd(10));
      const text = loud ? paint(color, 'bold', line.text) : line.text;
      io.stdout.write(`${paint(color, 'dim', clock.time(line.time))} ${loud ? paint(color, 'bold', kind) : kind} ${text}  ${paint(color, 'dim', `[${line.route}]`)}\n`);
    }
    // The report's headline, for the scope `editwarden report` would show with the same flags.
    const { filter, scope } = reportScope(log.events, flags);
    const scoped = eventsInScope(log.events, filter);
    if (scoped.length > 0) io.stdout.write(`${paint(color, 'bold', `${scopeWords(scope)}: ${headline(summarize(scoped.map((event) => ({ event, diff: null }))))}`)}\n`);
    if (log.torn > 0) io.stderr.write(`note: ${log.torn} torn line(s) skipped (a writer stopped mid-line).\n`);
    return ExitCode.OK;
  } catch (error) {
    return refuseCommand(error, flags.json === true, io);
  }
}
