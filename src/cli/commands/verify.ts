/**
 * `editwarden verify`: run the build and/or the tests (or a given command)
 * and judge them by exit code: 0 when everything passed, 3 when something
 * failed. Thin: resolves which steps to run, calls the verifier, prints.
 */
import type { Command } from 'commander';
import type { Config } from '../../config/config.js';
import { loadConfig } from '../../config/load.js';
import { EditwardenError, ErrorCode, toErrorInfo, ExitCode } from '../../errors.js';
import { newRunId, isRunId } from '../../runs/runs.js';
import { openReadOnly } from '../../workspace/open.js';
import type { ReadView } from '../../workspace/view.js';
import { formatDiagnostic } from '../../verify/diagnostics/index.js';
import { startLiveStatus } from '../live-status.js';
import { displayCommand } from '../../verify/runner.js';
import { resolveVerifyCommand, verify, type VerifyKind, type VerifyResult } from '../../verify/verifier.js';
import { paint, useColor, writeJson, type Io, refuseCommand } from '../output.js';
import { defined } from '../../defined.js';
import type { OutputEvent } from '../../verify/runner.js';

interface VerifyFlags {
  build?: boolean;
  test?: boolean;
  cmd?: string;
  timeout?: string;
  baseline?: boolean;
  root?: string;
  config?: string;
  runId?: string;
  json?: boolean;
}

/** Diagnostics shown per failed step; the rest are in the JSON and the logs. */
const SHOWN = 20;

export function registerVerify(program: Command, io: Io, setExit: (code: number) => void): void {
  program
    .command('verify')
    .description('Run the build and/or tests; pass or fail by exit code; logs kept under .editwarden/runs/.')
    .option('--build', 'run only the build command')
    .option('--test', 'run only the test command')
    .option('--cmd <command>', 'run this shell command instead')
    .option('--timeout <seconds>', 'time limit per command (default: verify.timeout, 600)')
    .option('--baseline', 'record this run as the baseline: later runs report new failures apart from these')
    .option('--root <dir>', 'workspace root (default: current folder)')
    .option('--config <file>', 'config file (default: <root>/.editwarden.yml)')
    .option('--run-id <id>', 'file the evidence under an existing run')
    .option('--json', 'print the JSON result')
    .action(async (flags: VerifyFlags) => {
      setExit(await runVerify(flags, io));
    });
}

async function runVerify(flags: VerifyFlags, io: Io): Promise<number> {
  let ws: ReadView;
  let config: Config;
  let steps: { kind: VerifyKind; command?: string }[];
  let timeoutMs: number;
  let runId: string;
  try {
    const picked = [flags.build, flags.test, flags.cmd !== undefined].filter(Boolean).length;
    if (picked > 1) throw usage('give at most one of --build, --test and --cmd.');
    timeoutMs = parseTimeout(flags.timeout);
    if (flags.runId !== undefined && !isRunId(flags.runId)) throw usage(`--run-id ${JSON.stringify(flags.runId)} is not a run id (like 20261121T235959Z-ab12cd).`);
    ws = openReadOnly(flags.root ?? process.cwd());
    config = loadConfig(ws.root, flags.config);
    if (timeoutMs === 0) timeoutMs = config.verify.timeout * 1000;
    steps = pickSteps(ws, config, flags);
    runId = flags.runId ?? newRunId();
  } catch (error) {
    return refuse(error, flags, io);
  }

  const results: VerifyResult[] = [];
  const skipped: VerifyKind[] = [];
  const live = !flags.json && io.stderr.isTTY === true;
  // The command runs in its own process group, out of reach of the terminal's Ctrl-C: pass it on.
  const interrupt = new AbortController();
  const onSignal = () => interrupt.abort();
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);
  try {
    for (const step of steps) {
      if (interrupt.signal.aborted) {
        skipped.push(step.kind);
        continue;
      }
      // Tests of a project that does not build only repeat the build's errors.
      if (results.some((r) => !r.passed)) {
        skipped.push(step.kind);
        continue;
      }
      const label = step.command ?? displayCommand(resolveVerifyCommand(ws, step.kind, config).command);
      if (!flags.json && !live) io.stderr.write(`verify ${step.kind}: ${label}\n`);
      const status = live ? startLiveStatus(io.stderr as NodeJS.WritableStream & { columns?: number }, label) : null;
      try {
        results.push(
          await verify(ws, {
            kind: step.kind,
            ...defined({ command: step.command }),
            timeoutMs,
            runId,
            config,
            baseline: flags.baseline ? 'record' : 'compare',
            signal: interrupt.signal,
            // What the network proxy refuses (sandbox.network lists hosts) goes to the event log as this command's.
            networkRecord: { stateDir: ws.stateDir, route: { via: 'cli', run: runId }, tool: 'verify' },
            ...defined({ onOutput: status ? (e: OutputEvent) => status.onOutput(e) : undefined }),
          }),
        );
      } catch (error) {
        return refuse(error, flags, io);
      } finally {
        status?.stop();
      }
    }
  } finally {
    process.removeListener('SIGINT', onSignal);
    process.removeListener('SIGTERM', onSignal);
  }

  const ok = results.every((r) => r.passed);
  if (flags.json) writeJson(io, { ok, run_id: runId, steps: results, skipped });
  else printResults(results, skipped, io);
  return ok ? ExitCode.OK : ExitCode.VERIFY_FAILED;
}

/** With no flag: the build, then the tests — whichever of the two the project has. */
function pickSteps(ws: ReadView, config: Config, flags: VerifyFlags): { kind: VerifyKind; command?: string }[] {
  if (flags.cmd !== undefined) {
    if (flags.cmd.trim() === '') throw usage('--cmd needs a command.');
    return [{ kind: 'cmd', command: flags.cmd }];
  }
  if (flags.build) return [{ kind: 'build' }];
  if (flags.test) return [{ kind: 'test' }];
  const steps: { kind: VerifyKind }[] = [];
  for (const kind of ['build', 'test'] as const) {
    try {
      resolveVerifyCommand(ws, kind, config);
      steps.push({ kind });
    } catch {
      // This project has no such step; the other may do.
    }
  }
  if (steps.length === 0) {
    throw new EditwardenError({
      code: ErrorCode.CONFIG,
      message: `Nothing to verify: no build or test command is configured or detected in ${ws.root}.`,
      hint: 'Set verify.build / verify.test in .editwarden.yml, or pass --cmd "…". `editwarden detect` shows what was found.',
    });
  }
  return steps;
}

function parseTimeout(value: string | undefined): number {
  if (value === undefined) return 0;
  const seconds = Number(value);
  if (!Number.isFinite(seconds) || seconds <= 0) throw usage(`--timeout must be a positive number of seconds, not ${JSON.stringify(value)}.`);
  return Math.round(seconds * 1000);
}

function printResults(results: VerifyResult[], skipped: VerifyKind[], io: Io): void {
  const color = useColor(io);
  const out = (line: string) => io.stdout.write(`${line}\n`);
  for (const r of results) {
    const verdict = r.passed ? paint(color, 'green', 'PASS') : paint(color, 'red', 'FAIL');
    const seconds = `${(r.duration_ms / 1000).toFixed(1)}s`;
    out(`${verdict} ${r.kind}  ${r.command}  (${why(r)}, ${seconds}${r.sandbox === 'none' ? `, ${paint(color, 'yellow', 'sandbox: none')}` : ''})  evidence: ${r.artifact_dir}/`);
    if (r.baseline_recorded) out(`  baseline recorded: ${r.diagnostics.filter((d) => d.severity !== 'note').length} failing diagnostics/tests`);
    if (r.baseline) {
      const b = r.baseline;
      out(`  baseline: ${b.new.length} new, ${b.old.length} already failing, ${b.fixed.length} fixed${b.regressed ? paint(color, 'red', ' — regressed') : ''}`);
    }
    if (r.passed) continue;
    const shown = r.baseline ? r.baseline.new : r.diagnostics.filter((d) => d.severity !== 'note');
    if (shown.length > 0) {
      for (const d of shown.slice(0, SHOWN)) out(`  ${formatDiagnostic(d)}`);
      if (shown.length > SHOWN) out(paint(color, 'dim', `  … ${shown.length - SHOWN} more in the JSON result and the logs`));
    } else {
      const lines = r.tail.split('\n').slice(-SHOWN);
      out(paint(color, 'dim', '  last output:'));
      for (const line of lines) out(`  │ ${line}`);
    }
  }
  for (const kind of skipped) out(`${paint(color, 'yellow', 'SKIP')} ${kind}  (an earlier step failed)`);
}

function why(r: VerifyResult): string {
  if (r.spawn_error) return `could not start: ${r.spawn_error}`;
  if (r.timed_out) return 'timed out';
  if (r.aborted) return 'cancelled';
  if (r.exit_code === null) return `killed by ${r.signal}`;
  return `exit ${r.exit_code}`;
}

function usage(message: string): EditwardenError {
  return new EditwardenError({ code: ErrorCode.USAGE, message, hint: 'Run `editwarden verify --help` for the options.' });
}

function refuse(error: unknown, flags: { json?: boolean }, io: Io): number {
  const info = toErrorInfo(error);
  return refuseCommand(info, flags.json === true, io);
}
