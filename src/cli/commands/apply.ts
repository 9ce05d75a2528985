/**
 * `editwarden apply [FILE|-]`: a model's reply (JSON requests, active edit
 * directives, SEARCH/REPLACE blocks, an apply_patch envelope or a unified
 * diff) applied as one transaction. Thin: parse with formats/, apply with
 * applyRequests, print. Items that could not be parsed are results too
 * (status "rejected", E_PARSE, with their index and line), in reply order.
 * Active edit directives are applied each on its own unless --atomic
 * (apply-reply.ts chooses that default); the exit code is 1 whenever one
 * request was rejected, whatever was applied beside it.
 */
import fs from 'node:fs';
import { Option, type Command } from 'commander';
import { applyReply, type ReplyOutcome } from '../../apply/apply-reply.js';
import { EditwardenError, ErrorCode } from '../../errors.js';
import { FORMAT_NAMES, type FormatName } from '../../formats/index.js';
import { paintDiff, readAll, useColor, writeJson, printResults, type Io } from '../output.js';
import { runWriteCommand } from './write-command.js';
import { defined } from '../../defined.js';

interface ApplyFlags {
  format: FormatName | 'auto';
  root?: string;
  config?: string;
  dryRun?: boolean;
  partial?: boolean;
  atomic?: boolean;
  strict?: boolean;
  json?: boolean;
}

export { applyReply, type ApplyReplyOptions, type ReplyOutcome } from '../../apply/apply-reply.js';

export function registerApply(program: Command, io: Io, setExit: (code: number) => void): void {
  program
    .command('apply')
    .description('Apply the edits in a model reply (JSON, active edit, SEARCH/REPLACE, apply_patch, unified diff) as one transaction (active edit directives: each on its own unless --atomic).')
    .argument('[file]', "the reply to apply; '-' or nothing reads stdin")
    .addOption(new Option('--format <format>', 'how the reply is written').choices(['auto', ...FORMAT_NAMES]).default('auto'))
    .option('--root <dir>', 'workspace root (default: current folder)')
    .option('--config <file>', 'config file (default: <root>/.editwarden.yml)')
    .option('--dry-run', 'print one combined diff, write nothing')
    .addOption(new Option('--partial', 'apply the requests that succeed and report the rest (default: all or nothing, except active edit directives: each on its own)').conflicts('atomic'))
    .option('--atomic', 'all or nothing for every format, active edit directives included (one bad directive writes nothing)')
    .option('--strict', 'exact matching: git-apply semantics for diffs, no whitespace tolerance')
    .option('--json', 'print the JSON result')
    .action(async (file: string | undefined, flags: ApplyFlags) => {
      setExit(await runApply(file, flags, io));
    });
}

function runApply(file: string | undefined, flags: ApplyFlags, io: Io): Promise<number> {
  return runWriteCommand(flags, io, {
    input: async () => (file === undefined || file === '-' ? readAll(io.stdin) : readReply(file)),
    apply: (opened, text) => applyReply(opened.ws, text, { format: flags.format, dryRun: flags.dryRun === true, ...defined({ partial: flags.partial ? true : undefined }), atomic: flags.atomic === true, ...opened.applyOptions }),
    print: (outcome) => print(outcome, flags, io),
  });
}

function readReply(file: string): string {
  try {
    return fs.readFileSync(file, 'utf8');
  } catch (error) {
    throw new EditwardenError({
      code: ErrorCode.USAGE,
      message: `Cannot read the reply ${JSON.stringify(file)}: ${(error as Error).message}.`,
      hint: "Pass the file holding the model's reply, or '-' to read it from stdin.",
    });
  }
}

function print(outcome: ReplyOutcome, flags: ApplyFlags, io: Io): void {
  if (flags.json) {
    writeJson(io, { ok: outcome.ok, format: outcome.format ?? null, results: outcome.results, ...defined({ diff: flags.dryRun ? outcome.diff : undefined }) });
    return;
  }
  const color = useColor(io);
  printResults(outcome.results, io, { diffs: !flags.dryRun, sources: true });
  // A dry run shows everything as one git-style diff, ready for `git apply`.
  if (flags.dryRun && outcome.diff) io.stdout.write(paintDiff(color, outcome.diff));
}
