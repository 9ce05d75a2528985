/**
 * `editwarden log [--root DIR] [--json] [--run ID] [--session ID]`: the
 * root's event log as a timeline, newest last, one line per event — edits,
 * refusals, commands, violations, checkpoints, undo/redo from every route
 * (editwarden's runs, MCP, a client's hooks). On a colour terminal refusals
 * and violations stand out. `--json`: one object per line, the event as
 * recorded plus `path` (its first path) for convenience.
 */
import type { Command } from 'commander';
import { ExitCode } from '../../errors.js';
import { eventLine, type Severity } from '../../report/event-summary.js';
import { eventMatches } from '../../runs/event-types.js';
import { paint, refuseCommand, useColor, type Io, type Style } from '../output.js';
import { loadEventLog, writeLogNotes } from './report.js';

interface Flags {
  root?: string;
  json?: boolean;
  run?: string;
  session?: string;
}

const KIND_STYLE: Record<Severity, Style> = { change: 'green', refusal: 'red', violation: 'red', command: 'cyan', 'command-failed': 'yellow', undo: 'yellow', info: 'dim' };

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
    const events = log.events.filter((e) => eventMatches(e, { run: flags.run, session: flags.session }));
    writeLogNotes(io, log);
    if (flags.json) {
      for (const e of events) io.stdout.write(`${JSON.stringify(e.paths[0] !== undefined ? { ...e, path: e.paths[0] } : e)}\n`);
      return ExitCode.OK;
    }
    const color = useColor(io);
    if (events.length === 0) io.stdout.write('no events recorded\n');
    for (const e of events) {
      const line = eventLine(e);
      const loud = line.severity === 'refusal' || line.severity === 'violation';
      const kind = paint(color, KIND_STYLE[line.severity], line.kind.padEnd(10));
      const text = loud ? paint(color, 'bold', line.text) : line.text;
      io.stdout.write(`${paint(color, 'dim', line.time.replace('T', ' ').replace(/\.\d+Z$/, 'Z'))} ${loud ? paint(color, 'bold', kind) : kind} ${text}  ${paint(color, 'dim', `[${line.route}]`)}\n`);
    }
    if (log.torn > 0) io.stderr.write(`note: ${log.torn} torn line(s) skipped (a writer stopped mid-line).\n`);
    return ExitCode.OK;
  } catch (error) {
    return refuseCommand(error, flags.json === true, io);
  }
}
