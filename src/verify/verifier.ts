/**
 * The Verifier: runs the project's build or tests (or a given command) in
 * the workspace root, judges it by exit code alone, files the evidence under
 * `.editwarden/runs/<run_id>/verify/<n>/` and reads diagnostics out of the
 * output. Which command: the caller's, else `verify.build` / `verify.test`
 * from config, else detection. It must never write a project file, and
 * never decide pass/fail from what the output says.
 */
import type { NetworkRecord } from './command-network.js';
import fs from 'node:fs';
import path from 'node:path';
import { EditwardenError, ErrorCode } from '../errors.js';
import type { Config } from '../config/config.js';
import { loadConfig } from '../config/load.js';
import { claimNumberedDir, ensureRunDir, newRunId } from '../runs/runs.js';
import { commandSandbox } from '../sandbox/for-workspace.js';
import { commandPassed, displayCommand, runCommand, type CommandRecord, type OutputEvent } from './runner.js';
import { detectProject, type Detection } from './detect.js';
import { formatDiagnostic, parseDiagnostics, type Diagnostic } from './diagnostics/index.js';
import { baselineKey, compareWithBaseline, readBaseline, recordBaseline, type BaselineComparison } from './baseline.js';
import { defined } from '../defined.js';

export type VerifyKind = 'build' | 'test' | 'cmd';

/** What the verifier needs of a workspace (a Workspace has both). */
export interface VerifyWorkspace {
  readonly root: string;
  readonly stateDir: string;
}

export interface VerifyOptions {
  kind: VerifyKind;
  /** Required for 'cmd'; for 'build'/'test' it overrides config and detection. */
  command?: string | readonly string[];
  /** Default: config verify.timeout (seconds) × 1000. */
  timeoutMs?: number;
  /** Files the evidence under this run; a new run id when omitted. */
  runId?: string;
  /** 'record' saves this run as the baseline; 'compare' (default) compares with one when it exists. */
  baseline?: 'record' | 'compare' | 'off';
  /** Default: loadConfig(ws.root). */
  config?: Config;
  graceMs?: number;
  env?: Record<string, string | undefined>;
  tailLines?: number;
  onOutput?: (event: OutputEvent) => void;
  signal?: AbortSignal;
  /** Where connections the network proxy refuses are recorded (a host-list network): the route that verifies. */
  networkRecord?: NetworkRecord;
}

type CommandSource = 'option' | 'config' | 'detected';

export interface VerifyResult extends CommandRecord {
  kind: VerifyKind;
  run_id: string;
  /** The run's n-th verification. */
  n: number;
  /** Exit code 0, in time. The only verdict. */
  passed: boolean;
  source: CommandSource;
  /** The evidence folder, relative to the root ("/" separators). */
  artifact_dir: string;
  diagnostics: Diagnostic[];
  /** Last lines of the output (stdout and stderr in arrival order). */
  tail: string;
  baseline?: BaselineComparison;
  /** Set when this run was saved as the baseline. */
  baseline_recorded?: boolean;
}

/** Bytes of combined.log read for diagnostics: the head (first errors) and the tail (the summary). */
const DIAGNOSTIC_HEAD_BYTES = 2 * 1024 * 1024;
const DIAGNOSTIC_TAIL_BYTES = 2 * 1024 * 1024;

export interface ResolvedCommand {
  command: string | readonly string[];
  source: CommandSource;
}

/** Which command a verification of `kind` runs; refuses when there is none. */
export function resolveVerifyCommand(ws: VerifyWorkspace, kind: VerifyKind, config: Config, command?: string | readonly string[], detect: (root: string) => Detection = detectProject): ResolvedCommand {
  if (command !== undefined && (typeof command === 'string' ? command.trim() !== '' : command.length > 0)) return { command, source: 'option' };
  if (kind === 'cmd') {
    throw new EditwardenError({
      code: ErrorCode.USAGE,
      message: 'A "cmd" verification needs a command.',
      hint: 'Pass the command to run (editwarden verify --cmd "make check").',
    });
  }
  const configured = config.verify[kind];
  if (configured) return { command: configured, source: 'config' };
  const detected = detect(ws.root)[kind];
  if (detected) return { command: detected, source: 'detected' };
  throw new EditwardenError({
    code: ErrorCode.CONFIG,
    message: `No ${kind} command: none is configured and none was detected in ${ws.root}.`,
    hint: `Set verify.${kind} in .editwarden.yml (e.g. "${kind === 'build' ? 'make' : 'make test'}"), or pass one with --cmd.`,
  });
}

export async function verify(ws: VerifyWorkspace, options: VerifyOptions): Promise<VerifyResult> {
  const config = options.config ?? loadConfig(ws.root);
  const { command, source } = resolveVerifyCommand(ws, options.kind, config, options.command);
  const runId = options.runId ?? newRunId();
  const { n, dir } = claimNumberedDir(path.join(ensureRunDir(ws, runId), 'verify'));
  const result = await runCommand({
    command,
    cwd: ws.root,
    // The build files are the agent's to write (a Makefile that reads ~/.ssh): they run in the sandbox.
    sandbox: commandSandbox(ws, config),
    timeoutMs: options.timeoutMs ?? config.verify.timeout * 1000,
    artifactDir: dir,
    ...defined({ graceMs: options.graceMs, env: options.env, tailLines: options.tailLines, onOutput: options.onOutput, signal: options.signal, networkRecord: options.networkRecord }),
  });
  const passed = commandPassed(result);
  const diagnostics = parseDiagnostics(readForDiagnostics(path.join(dir, 'combined.log'), result.tail));
  const { tail, stdoutTail: _stdout, stderrTail: _stderr, artifactDir: _dir, ...record } = result;
  const verified: VerifyResult = {
    ...record,
    kind: options.kind,
    run_id: runId,
    n,
    passed,
    source,
    artifact_dir: path.relative(ws.root, dir).split(path.sep).join('/'),
    diagnostics,
    tail,
  };
  const mode = options.baseline ?? 'compare';
  const key = baselineKey(options.kind, displayCommand(command));
  if (mode === 'record') {
    recordBaseline(ws, options.kind, { run_id: runId, command: displayCommand(command), exit_code: result.exit_code, passed, diagnostics });
    verified.baseline_recorded = true;
  } else if (mode === 'compare') {
    const entry = readBaseline(ws).entries[key];
    if (entry) verified.baseline = compareWithBaseline(entry, ws.root, passed, diagnostics);
  }
  // result.json: the runner's record, completed with the verdict and what was found.
  fs.writeFileSync(path.join(dir, 'result.json'), `${JSON.stringify({ ...verified, tail: undefined }, null, 2)}\n`);
  return verified;
}

/** The failure as an error an agent can act on (controlled edit and the editor raise it). */
export function verifyFailure(result: VerifyResult): EditwardenError {
  const why = result.spawn_error
    ? `could not start: ${result.spawn_error}`
    : result.timed_out
      ? `timed out after ${Math.round(result.duration_ms)} ms`
      : result.aborted
        ? 'was cancelled'
        : result.exit_code === null
          ? `was killed by ${result.signal}`
          : `exited with code ${result.exit_code}`;
  const first = result.diagnostics
    .filter((d) => d.severity === 'error')
    .slice(0, 3)
    .map(formatDiagnostic);
  return new EditwardenError({
    code: ErrorCode.VERIFY_FAILED,
    message: `The ${result.kind} (${result.command}) ${why}.${first.length > 0 ? ` First errors: ${first.join(' | ')}` : ''}`,
    hint: `Fix what the output reports, then verify again; full logs are in ${result.artifact_dir}/.`,
  });
}

function readForDiagnostics(file: string, fallback: string): string {
  let fd: number;
  try {
    fd = fs.openSync(file, 'r');
  } catch {
    return fallback;
  }
  try {
    const size = fs.fstatSync(fd).size;
    if (size <= DIAGNOSTIC_HEAD_BYTES + DIAGNOSTIC_TAIL_BYTES) return fs.readFileSync(fd).toString('utf8');
    const head = Buffer.alloc(DIAGNOSTIC_HEAD_BYTES);
    const tail = Buffer.alloc(DIAGNOSTIC_TAIL_BYTES);
    fs.readSync(fd, head, 0, head.length, 0);
    fs.readSync(fd, tail, 0, tail.length, size - tail.length);
    return `${head.toString('utf8')}\n${tail.toString('utf8')}`;
  } finally {
    fs.closeSync(fd);
  }
}
