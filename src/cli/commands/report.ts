/**
 * `editwarden report [--root DIR] [--run ID | --session ID | --all] --format md|html [-o FILE]`:
 * what an agent did, for a person — how it ended against the limits the run
 * recorded, what is different now (report/net-change.ts, from the
 * checkpoints), then every event with its diff, code, hint, output or exit
 * code (report/markdown.ts, report/html.ts render it; this command reads the
 * log and the checkpoints and writes the file; times on this machine's clock).
 * Without a scope it reports the latest run or client session in the log.
 * With `--format md`, when `GITHUB_STEP_SUMMARY` names a file, the report is
 * appended there too (a GitHub Actions job summary).
 */
import fs from 'node:fs';
import path from 'node:path';
import type { Command } from 'commander';
import { EditwardenError, ErrorCode, ExitCode, toErrorInfo } from '../../errors.js';
import { renderHtml } from '../../report/html.js';
import { renderMarkdown } from '../../report/markdown.js';
import { eventsInScope, type ReportInput, type ReportItem } from '../../report/event-summary.js';
import { netChanges } from '../../report/net-change.js';
import { openWorkspace } from '../../workspace/open.js';
import { readEventDiff, readEventList } from '../../runs/events-read.js';
import { refuseCommand, type Io } from '../output.js';
import { loadEventLog, reportScope, writeLogNotes } from './event-log.js';

interface Flags {
  root?: string;
  run?: string;
  session?: string;
  all?: boolean;
  format: string;
  output?: string;
}

/** The report's facts: the scope's events with their diffs, and the net change read from the checkpoints. */
export function reportInput(loaded: ReturnType<typeof loadEventLog>, flags: { run?: string | undefined; session?: string | undefined; all?: boolean | undefined }): ReportInput {
  const { root, stateDir, log } = loaded;
  const { filter, scope } = reportScope(log.events, flags);
  const items: ReportItem[] = eventsInScope(log.events, filter).map((event) => {
    const changed = event.kind === 'edit' || event.kind === 'command';
    const allPaths = changed && event.cut?.paths ? readEventList(stateDir, event, 'paths') : null;
    return { event, diff: changed ? readEventDiff(stateDir, event) : null, ...(allPaths ? { allPaths } : {}) };
  });
  if (scope.kind !== 'all' && (flags.run !== undefined || flags.session !== undefined) && items.length === 0) {
    throw new EditwardenError({
      code: ErrorCode.NOT_FOUND,
      message: `The event log of ${root} has no events of ${scope.kind} ${scope.id}.`,
      hint: 'List what is there with `editwarden log` (or `editwarden log --json`), then pass a run or session id from it.',
    });
  }
  return { scope, root, items, net: items.length === 0 ? [] : netOf(root, items), generatedAt: new Date().toISOString(), timeZone: Intl.DateTimeFormat().resolvedOptions().timeZone };
}

function netOf(root: string, items: ReportItem[]): ReportInput['net'] {
  try {
    return netChanges(items, openWorkspace(root).transactions.checkpoints);
  } catch (error) {
    return { unavailable: `the checkpoints could not be read (${toErrorInfo(error).message})` };
  }
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
    const loaded = loadEventLog(flags.root);
    const input = reportInput(loaded, flags);
    const text = flags.format === 'html' ? renderHtml(input) : renderMarkdown(input);
    if (flags.output !== undefined) fs.writeFileSync(path.resolve(flags.output), text);
    else io.stdout.write(text);
    const summaryFile = io.env.GITHUB_STEP_SUMMARY;
    // A GitHub Actions job: the Markdown report is the job's summary page too.
    if (flags.format === 'md' && summaryFile !== undefined && summaryFile !== '') fs.appendFileSync(summaryFile, text);
    if (loaded.log.torn > 0) io.stderr.write(`note: ${loaded.log.torn} torn line(s) in the event log were skipped (a writer stopped mid-line).\n`);
    writeLogNotes(io, loaded.log);
    return ExitCode.OK;
  } catch (error) {
    return refuseCommand(error, false, io);
  }
}
