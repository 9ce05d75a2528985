/**
 * `editwarden report [--root DIR] [--run ID | --session ID | --all] --format md|html [-o FILE]`:
 * what an agent did, for a person — a summary against the configured limits
 * and every event with its diff, code, hint or exit code (report/markdown.ts,
 * report/html.ts render it; this command reads the log and writes the file).
 * Without a scope it reports the latest run or client session in the log.
 * With `--format md`, when `GITHUB_STEP_SUMMARY` names a file, the report is
 * appended there too (a GitHub Actions job summary).
 */
import fs from 'node:fs';
import path from 'node:path';
import type { Command } from 'commander';
import { loadConfig } from '../../config/load.js';
import { EditwardenError, ErrorCode, ExitCode } from '../../errors.js';
import { renderHtml } from '../../report/html.js';
import { renderMarkdown } from '../../report/markdown.js';
import type { ReportItem, ReportLimits } from '../../report/event-summary.js';
import { eventMatches, type EditwardenEvent } from '../../runs/event-types.js';
import { readEventDiff, readEvents, type EventLog } from '../../runs/events-read.js';
import { STATE_DIR } from '../../workspace/paths.js';
import { refuseCommand, type Io } from '../output.js';

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

interface Flags {
  root?: string;
  run?: string;
  session?: string;
  all?: boolean;
  format: string;
  output?: string;
}

/** What the report covers: the flags' scope, else the latest run or session in the log, else everything. */
export function reportScope(events: readonly EditwardenEvent[], flags: { run?: string | undefined; session?: string | undefined; all?: boolean | undefined }): { filter: EventFilter; words: string } {
  const given = [flags.run !== undefined, flags.session !== undefined, flags.all === true].filter(Boolean).length;
  if (given > 1) throw new EditwardenError({ code: ErrorCode.USAGE, message: 'Give one of --run, --session and --all.', hint: 'editwarden report --run <id>, --session <id>, or --all.' });
  if (flags.run !== undefined) return { filter: { run: flags.run }, words: `run ${flags.run}` };
  if (flags.session !== undefined) return { filter: { session: flags.session }, words: `session ${flags.session}` };
  if (flags.all !== true) {
    for (let i = events.length - 1; i >= 0; i--) {
      const route = (events[i] as EditwardenEvent).route;
      if (route.run) return { filter: { run: route.run }, words: `run ${route.run}` };
      if (route.session) return { filter: { session: route.session }, words: `session ${route.session}` };
    }
  }
  return { filter: {}, words: 'all events' };
}

function limitsOf(root: string): ReportLimits {
  const c = loadConfig(root).constraints;
  return { max_files: c.max_files, max_lines_changed: c.max_lines_changed, max_tokens: c.max_tokens, timeout_seconds: c.timeout };
}

export function registerReport(program: Command, io: Io, setExit: (code: number) => void): void {
  program
    .command('report')
    .description('What the agent did, for a person: a summary against the limits, then every change (with its diff), refusal, command and violation — as Markdown or one self-contained HTML page.')
    .option('--root <dir>', 'workspace root (default: current folder)')
    .option('--run <id>', "one editwarden run's events")
    .option('--session <id>', "one client session's events (hooks, MCP)")
    .option('--all', 'every event in the log (default: the latest run or session)')
    .option('--format <format>', 'md or html', 'md')
    .option('-o, --output <file>', 'write the report to this file (default: standard output)')
    .action((flags: Flags) => setExit(report(io, flags)));
}

function report(io: Io, flags: Flags): number {
  try {
    if (flags.format !== 'md' && flags.format !== 'html') {
      throw new EditwardenError({ code: ErrorCode.USAGE, message: `--format ${JSON.stringify(flags.format)} is not a report format.`, hint: 'Use --format md or --format html.' });
    }
    const { root, stateDir, log } = loadEventLog(flags.root);
    const scope = reportScope(log.events, flags);
    const items: ReportItem[] = log.events.filter((e) => eventMatches(e, scope.filter)).map((event) => ({ event, diff: event.kind === 'edit' ? readEventDiff(stateDir, event) : null }));
    if ((flags.run !== undefined || flags.session !== undefined) && items.length === 0) {
      throw new EditwardenError({
        code: ErrorCode.NOT_FOUND,
        message: `The event log of ${root} has no events of ${scope.words}.`,
        hint: 'List what is there with `editwarden log` (or `editwarden log --json`), then pass a run or session id from it.',
      });
    }
    const input = { scope: scope.words, root, items, limits: limitsOf(root), generatedAt: new Date().toISOString() };
    const text = flags.format === 'html' ? renderHtml(input) : renderMarkdown(input);
    if (flags.output !== undefined) fs.writeFileSync(path.resolve(flags.output), text);
    else io.stdout.write(text);
    const summaryFile = io.env.GITHUB_STEP_SUMMARY;
    // A GitHub Actions job: the Markdown report is the job's summary page too.
    if (flags.format === 'md' && summaryFile !== undefined && summaryFile !== '') fs.appendFileSync(summaryFile, text);
    if (log.torn > 0) io.stderr.write(`note: ${log.torn} torn line(s) in the event log were skipped (a writer stopped mid-line).\n`);
    writeLogNotes(io, log);
    return ExitCode.OK;
  } catch (error) {
    return refuseCommand(error, false, io);
  }
}
