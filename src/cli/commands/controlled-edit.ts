/**
 * `editwarden controlled-edit`: one edit of one file, then the build, then
 * rollback if it fails — the ControlledEditSession, from flags or a JSON tool
 * call on stdin. Exit 0 success, 1 edit refused, 3 build failed (rolled back).
 * A tool call that is not valid JSON is the design's `JSON parsing error: …`
 * path: the session answers it (tool exit code 1), writes the report, exits 1.
 */
import fs from 'node:fs';
import type { Command } from 'commander';
import { CHECKPOINT_DESCRIPTION, ControlledEditSession, type ControlledEditOutcome } from '../../agent/controlled.js';
import { loadProjectConfigCached } from '../../host/config-cache.js';
import { EditwardenError, ErrorCode, toErrorInfo, ExitCode } from '../../errors.js';
import { formatError, paint, paintDiff, readAll, useColor, writeJson, type Io, refuseCommand } from '../output.js';
import { openForCommand } from '../workspace.js';
import { defined } from '../../defined.js';

interface Flags {
  file?: string;
  old?: string;
  oldFile?: string;
  new?: string;
  newFile?: string;
  build?: string;
  timeout?: string;
  root?: string;
  config?: string;
  report?: string;
  request?: string;
  json?: boolean;
}

export function registerControlledEdit(program: Command, io: Io, setExit: (code: number) => void): void {
  program
    .command('controlled-edit')
    .description('Controlled Edit Mode: exactly one edit of one file, then the build; rolled back if the build fails.')
    .option('--file <path>', 'the one file to edit')
    .option('--old <text>', 'the unique text to replace')
    .option('--old-file <file>', 'read old_text from a file')
    .option('--new <text>', 'the replacement')
    .option('--new-file <file>', 'read new_text from a file')
    .option('--request <file>', 'the edit_file tool call as JSON ({"filename", "old_text", "new_text"}); \'-\' for stdin')
    .option('--build <cmd>', 'build command (default: verify.build, else the detected one)')
    .option('--timeout <seconds>', 'build timeout in seconds (default: verify.timeout)')
    .option('--report <path>', 'telemetry report path (default: reports.controlled_edit)')
    .option('--root <dir>', 'workspace root (default: current folder)')
    .option('--config <file>', 'config file')
    .option('--json', 'print the outcome as JSON')
    .action(async (flags: Flags) => {
      setExit(await runControlledEdit(flags, io));
    });
}

export function exitCodeOf(outcome: ControlledEditOutcome): number {
  switch (outcome.tool_exit_code) {
    case 0:
      return ExitCode.OK;
    case 1:
      return ExitCode.REJECTED;
    case 2:
      return ExitCode.VERIFY_FAILED;
    default: {
      const never: never = outcome.tool_exit_code;
      return never;
    }
  }
}

async function runControlledEdit(flags: Flags, io: Io): Promise<number> {
  const root = flags.root ?? process.cwd();
  let args: unknown;
  // Not valid JSON: the session's own answer (the design's router parses inside the tool call), not a usage error.
  let invalidJson: string | null = null;
  let timeoutMs: number | undefined;
  try {
    if (flags.request !== undefined) {
      const raw = flags.request === '-' ? await readAll(io.stdin) : fs.readFileSync(flags.request, 'utf8');
      try {
        args = JSON.parse(raw);
      } catch (error) {
        invalidJson = (error as Error).message;
      }
    } else {
      args = argsFromFlags(flags);
    }
    if (flags.timeout !== undefined) {
      const seconds = Number(flags.timeout);
      if (!Number.isFinite(seconds) || seconds <= 0) throw usage('--timeout must be a positive number of seconds.');
      timeoutMs = seconds * 1000;
    }
  } catch (error) {
    return refuseCommand(toErrorInfo(error), flags.json === true, io);
  }
  try {
    const { config, trust } = await loadProjectConfigCached(root, flags.config);
    const opened = await openForCommand(root, config, io, flags.json === true, flags.config, trust);
    const color = useColor(io);
    const session = new ControlledEditSession(opened, {
      ...defined({ buildCommand: flags.build || undefined }),
      ...defined({ buildTimeoutMs: timeoutMs }),
      ...defined({ reportPath: flags.report || undefined }),
    });
    if (!flags.json) io.stdout.write(`${paint(color, 'bold', 'controlled edit')} run ${session.runId}\n`);
    const outcome = invalidJson !== null ? session.invalidJson(invalidJson) : await session.editFile(args);
    printOutcome(outcome, flags.json === true, io);
    return exitCodeOf(outcome);
  } catch (error) {
    const info = toErrorInfo(error);
    return refuseCommand(info, flags.json === true, io);
  }
}

function argsFromFlags(flags: Flags): Record<string, unknown> {
  if (!flags.file) throw usage('controlled-edit needs --file (or --request).');
  const oldText = flags.oldFile !== undefined ? fs.readFileSync(flags.oldFile, 'utf8') : flags.old;
  const newText = flags.newFile !== undefined ? fs.readFileSync(flags.newFile, 'utf8') : flags.new;
  if (oldText === undefined || newText === undefined) throw usage('controlled-edit needs --old and --new (or --old-file / --new-file).');
  return { filename: flags.file, old_text: oldText, new_text: newText };
}

function usage(message: string): EditwardenError {
  return new EditwardenError({ code: ErrorCode.USAGE, message, hint: 'Run `editwarden controlled-edit --help`.' });
}

/** The outcome for machines: the session, the edit result and a summary of the build. */
export function outcomeJson(outcome: ControlledEditOutcome): unknown {
  const v = outcome.verification;
  return {
    ok: outcome.tool_exit_code === 0,
    tool_exit_code: outcome.tool_exit_code,
    message: outcome.message,
    run_id: outcome.run_id,
    state: outcome.state,
    results: outcome.result ? [outcome.result] : [],
    checkpoint: outcome.state.edit_checkpoint_id,
    rolled_back: outcome.rolled_back,
    ...defined({ rollback_check: outcome.rollback_check }),
    ...defined({
      verification: v
        ? {
            command: v.command,
            passed: v.passed,
            exit_code: v.exit_code,
            timed_out: v.timed_out,
            duration_ms: v.duration_ms,
            artifact_dir: v.artifact_dir,
            diagnostics: v.diagnostics.slice(0, 20),
          }
        : undefined,
    }),
    ...defined({ error: outcome.error, report: outcome.report, report_error: outcome.report_error }),
  };
}

function printOutcome(outcome: ControlledEditOutcome, json: boolean, io: Io): void {
  if (json) {
    writeJson(io, outcomeJson(outcome));
    return;
  }
  const color = useColor(io);
  const s = outcome.state;
  if (s.edit_checkpoint_id) io.stdout.write(`checkpoint ${s.edit_checkpoint_id} (pre_edit_${s.edit_file_path}: ${CHECKPOINT_DESCRIPTION})\n`);
  if (outcome.result?.diff) io.stdout.write(paintDiff(color, outcome.result.diff));
  const v = outcome.verification;
  if (v) {
    io.stdout.write(`build: ${v.command} → ${v.passed ? paint(color, 'green', 'PASSED') : paint(color, 'red', 'FAILED')} (exit ${v.exit_code ?? 'none'}${v.timed_out ? ', timed out' : ''}, ${Math.round(v.duration_ms)} ms)\n`);
    for (const d of v.diagnostics.filter((x) => x.severity === 'error').slice(0, 5)) {
      io.stdout.write(`  ${d.file ?? ''}${d.line ? `:${d.line}` : ''}${d.column ? `:${d.column}` : ''}: ${d.message}\n`);
    }
  }
  if (outcome.rollback_check) {
    const c = outcome.rollback_check;
    io.stdout.write(`rollback: sha256 before ${c.before.slice(0, 12)} after ${c.after.slice(0, 12)} — ${c.exact ? 'byte-identical' : 'DIFFERENT'}\n`);
  }
  if (outcome.error && !s.has_edited) io.stdout.write(`${formatError(outcome.error, color)}\n`);
  const tone = outcome.tool_exit_code === 0 ? 'green' : 'red';
  io.stdout.write(`${paint(color, tone, outcome.message)}\n`);
  // As the agent path tells the model (describeOutcome): the design's tool exit code under its message.
  io.stdout.write(`tool exit code: ${outcome.tool_exit_code}\n`);
  if (outcome.report) io.stdout.write(`report: ${outcome.report.markdown} (+ ${outcome.report.json})\n`);
  if (outcome.report_error) io.stderr.write(`${formatError(outcome.report_error, useColor(io, 'stderr'))}\n`);
}
