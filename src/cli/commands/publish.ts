/**
 * `editwarden publish <dir> [--root DIR] [--since TIME] [--json]`: copies
 * the records editwarden wrote in the root (its event log, the side files
 * its events name, the run folders and logs they point to) into `<dir>/state/`
 * through the validated readers (runs/publish.ts) — for a CI artifact; the
 * GitHub Action's report step runs it. Prints the counts a CI step judges by
 * as `key=value` lines (numbers only: safe to append to GITHUB_OUTPUT), or
 * the whole result with `--json`; what was left out goes to stderr.
 */
import path from 'node:path';
import type { Command } from 'commander';
import { EditwardenError, ErrorCode, ExitCode } from '../../errors.js';
import { publishRecords } from '../../runs/publish.js';
import { refuseCommand, writeJson, type Io } from '../output.js';

interface Flags {
  root?: string;
  since?: string;
  json?: boolean;
}

export function registerPublish(program: Command, io: Io, setExit: (code: number) => void): void {
  program
    .command('publish')
    .description('Copy the records editwarden wrote (event log, diffs, run folders) into a folder for a CI artifact, through its validated readers; print the refusal and violation counts.')
    .argument('<dir>', 'folder to write into (created; must not hold a state/ folder yet)')
    .option('--root <dir>', 'workspace root (default: current folder)')
    .option('--since <time>', 'only what was written at or after this ISO time (the run’s start)')
    .option('--json', 'print the whole result as JSON')
    .action((dir: string, flags: Flags) => setExit(publish(io, dir, flags)));
}

function publish(io: Io, dir: string, flags: Flags): number {
  try {
    const since = flags.since === undefined ? undefined : new Date(flags.since);
    if (since !== undefined && Number.isNaN(since.getTime())) {
      throw new EditwardenError({ code: ErrorCode.USAGE, message: `--since ${JSON.stringify(flags.since)} is not a time.`, hint: 'Pass an ISO time, e.g. --since 2026-11-29T01:00:00Z.' });
    }
    const result = publishRecords({ root: path.resolve(flags.root ?? process.cwd()), out: path.resolve(dir), since });
    for (const note of result.notes) io.stderr.write(`note: ${note}\n`);
    for (const left of result.left_out) io.stderr.write(`left out: .editwarden/${left.path} (${left.why})\n`);
    if (flags.json) writeJson(io, result);
    else io.stdout.write(`events=${result.events}\nrefusals=${result.refusals}\nviolations=${result.violations}\nfiles=${result.files.length}\nleft-out=${result.left_out.length}\n`);
    return ExitCode.OK;
  } catch (error) {
    return refuseCommand(error, flags.json === true, io);
  }
}
