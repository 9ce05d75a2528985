/**
 * Controlled Edit Mode v1: exactly one edit of one file, enforced by the
 * runner rather than by a model's good will. One `edit_file` call runs:
 * assert no edit yet → checkpoint `pre_edit_<path>` ("Controlled edit
 * baseline", taken before the replacement is attempted, so a refused
 * replacement still names it) → replace (every engine
 * rule and the syntax guard) → build → restore the checkpoint if the build
 * fails → record → stop. No automatic repair; the session ends after the edit
 * and its build, whatever the outcome.
 *
 * The CLI (`editwarden controlled-edit`) and the agent loop's controlled mode
 * call this same session object.
 */
import { commit, plan, type ApplyOptions, type Plan } from '../apply/pipeline.js';
import type { Config } from '../config/config.js';
import { editRequestFromArgs } from '../edit/request-json.js';
import type { EditRequest, EditResult } from '../edit/types.js';
import { projectOf, type Project } from '../host/project.js';
import { EditwardenError, ErrorCode, toErrorInfo, type ErrorInfo } from '../errors.js';
import { runProfile } from '../runs/profile.js';
import { Run } from '../runs/run.js';
import { verify, type VerifyResult } from '../verify/verifier.js';
import { readBuildOutput } from '../verify/build-output.js';
import type { OutputEvent } from '../verify/runner.js';
import type { Transaction } from '../workspace/transaction.js';
import type { Workspace } from '../workspace/workspace.js';
import { hashFiles, type FileHashes } from './hash-tree.js';
import { CHECKPOINT_DESCRIPTION, writeControlledEditReport, type ControlledEditOutcome, type ControlledEditReportPaths, type ControlledSessionState } from '../report/controlled-edit.js';

export type { ControlledEditOutcome, ControlledSessionState } from '../report/controlled-edit.js';
export { CHECKPOINT_DESCRIPTION } from '../report/controlled-edit.js';

/** The design's tool outputs, verbatim: each is the first line of what the model receives. */
export const MESSAGES = {
  success: 'SUCCESS: Code modified and build passed.',
  buildFailed: 'FAILURE: Compile failed. Workspace rolled back.',
  editFailed: (reason: string) => `Edit failed: ${reason}`,
  alreadyEdited: 'Error: An edit has already been performed in this session.',
  missingFields: "Error: Missing required JSON fields ('filename', 'old_text')",
  jsonError: (reason: string) => `JSON parsing error: ${reason}`,
} as const;

export interface ControlledSessionOptions {
  /** @deprecated With a workspace (the old form) only, and required there: a Project brings its own config. */
  config?: Config;
  /** Overrides config and detection (`--build CMD`). */
  buildCommand?: string;
  buildTimeoutMs?: number;
  /**
   * The run this session is (the agent's controlled mode shares it with its runner): its id names the build
   * logs' folder, and it owns the edit's transaction — opened at the edit, settled by the run's failure policy
   * (the controlled profile's: rollback). Default: a run of its own under the controlled profile, with `runId`.
   */
  run?: Run;
  runId?: string;
  /** @deprecated With a workspace (the old form) only: a Project brings its language hooks in its `applyOptions`. */
  applyHooks?: Pick<ApplyOptions, 'prepareHooks' | 'hooks'>;
  /** Where the telemetry report goes (default: config reports.controlled_edit). Set false to skip it. */
  reportPath?: string | false;
  now?: () => Date;
  onBuildOutput?: (event: OutputEvent) => void;
}

export class ControlledEditSession {
  readonly state: ControlledSessionState = {
    has_edited: false,
    build_success: null,
    edit_file_path: null,
    edit_checkpoint_id: null,
    edit_build_output: '',
    edit_build_output_file: null,
  };
  readonly runId: string;
  private readonly run: Run;
  private readonly ws: Workspace;
  private readonly project: Project;
  private readonly options: ControlledSessionOptions;
  private endedValue = false;

  /**
   * `project`: as the entry opened it (host/project.ts `openProject`): its config, and its `applyOptions` for the
   * one plan. Deprecated form: a workspace, with `config` (and `applyHooks`) in the options.
   */
  constructor(project: Project | Workspace, options: ControlledSessionOptions = {}) {
    this.options = options;
    this.project = 'applyOptions' in project ? project : projectOf({ ws: project, config: configOf(options), applyHooks: options.applyHooks });
    this.ws = this.project.ws;
    this.run = options.run ?? new Run({ profile: runProfile('controlled', { config: this.project.config }), ...(options.runId ? { id: options.runId } : {}), opener: 'mode' });
    this.runId = this.run.id;
  }

  get ended(): boolean {
    return this.endedValue;
  }

  /**
   * Runs one `edit_file` tool call ({filename|path|file_path, old_text, new_text}).
   * An abort (Ctrl-C) kills the build; an edit without a passing build is rolled back.
   * `planned`: the change pipeline's plan of this same call, made once by the runner's
   * prepare (controlled-tool.ts) and shown to the gate: it is committed as is, never
   * planned a second time. Without it (the CLI, the demo) the session plans here.
   */
  async editFile(args: unknown, signal?: AbortSignal, planned?: Plan): Promise<ControlledEditOutcome> {
    // "No Second Edit": whatever the first call did, the session is over.
    if (this.endedValue || this.state.has_edited) return this.secondEdit(args);
    const fields = requiredFields(args);
    this.requested = fields.requested;
    if (!fields.ok) return this.attemptFailed(MESSAGES.missingFields, missingFieldsError(), fields.path);
    let request: EditRequest;
    let relative: string;
    try {
      request = editRequestFromArgs(args, { format: 'tool', index: 0 });
      this.assertAllowed(request);
      // A path outside the root is a refusal like any other (an outcome, a report), never a throw.
      relative = this.ws.resolve(request.path).relative;
    } catch (error) {
      return this.refused(toErrorInfo(error), undefined, fields.path);
    }
    const before: FileHashes = hashFiles(this.ws.root, [relative]);
    let tx: Transaction;
    // 1. Mandatory Pre-Edit Checkpoint, before the replacement is attempted (the design's order), in the run's transaction.
    try {
      tx = this.runTransaction(relative);
    } catch (error) {
      return this.refused(toErrorInfo(error, relative), undefined, relative);
    }
    try {
      this.state.edit_checkpoint_id = tx.checkpointBefore([relative]);
    } catch (error) {
      tx.rollback();
      return this.refused(toErrorInfo(error, relative), undefined, relative);
    }
    let applied;
    try {
      // A plan made on another view than this session's workspace would commit elsewhere: then the session plans itself.
      const change = planned !== undefined && planned.view === this.ws ? planned : await plan(this.ws, [request], this.project.applyOptions);
      applied = await commit(change);
    } catch (error) {
      tx.rollback();
      return this.refused(toErrorInfo(error, relative), undefined, relative);
    }
    const result = applied.results[0];
    if (!applied.ok || !result) {
      // A plan writes nothing unless every request succeeded (no partial here): the rollback finds the file as the checkpoint has it.
      tx.rollback();
      return this.refused(result?.error ?? toErrorInfo(new Error('the edit was not applied'), relative), result, relative);
    }
    this.state.has_edited = true;
    this.state.edit_file_path = relative;

    let verification: VerifyResult | undefined;
    const outcome = await tx.verify(async () => {
      verification = await verify(this.ws, {
        kind: 'build',
        ...(this.options.buildCommand ? { command: this.options.buildCommand } : {}),
        ...(this.options.buildTimeoutMs !== undefined ? { timeoutMs: this.options.buildTimeoutMs } : {}),
        runId: this.runId,
        config: this.project.config,
        baseline: 'off',
        ...(signal ? { signal } : {}),
        ...(this.options.onBuildOutput ? { onOutput: this.options.onBuildOutput } : {}),
      });
      return { ok: verification.passed };
    }, this.run.profile.failure);
    // A passing build settles the run as a success (its transaction committed); a failed one the policy already settled.
    if (outcome.ok) this.run.settle({ violated: false, succeeded: true });
    this.state.build_success = outcome.ok;
    this.captureBuildOutput(verification, outcome.ok ? '' : ((outcome as { detail?: string }).detail ?? ''));
    this.endedValue = true;

    const after = hashFiles(this.ws.root, [relative]);
    const rolledBack = !outcome.ok;
    const done: ControlledEditOutcome = {
      tool_exit_code: outcome.ok ? 0 : 2,
      message: outcome.ok ? MESSAGES.success : MESSAGES.buildFailed,
      state: { ...this.state },
      ended: true,
      edit_applied: true,
      ...(this.requested ? { requested: this.requested } : {}),
      run_id: this.runId,
      result: { ...result, status: rolledBack ? 'rolled-back' : 'applied' },
      rolled_back: rolledBack,
      ...(verification ? { verification } : {}),
      ...(rolledBack ? { rollback_check: { before: before[relative] ?? '', after: after[relative] ?? '', exact: before[relative] === after[relative] } } : {}),
    };
    if (!outcome.ok && !verification) {
      done.error = toErrorInfo(new Error((outcome as { detail?: string }).detail ?? 'the build could not run'), relative);
    } else if (verification && !verification.passed) {
      done.error = {
        code: ErrorCode.VERIFY_FAILED,
        message: `The build (${verification.command}) failed${verification.timed_out ? ' (timed out)' : ''}; the edit was rolled back.`,
        hint: `See ${verification.artifact_dir}/combined.log for the full output.`,
        path: relative,
      };
    }
    done.report = this.writeReport(done);
    return done;
  }

  /**
   * The run's transaction, opened for this one file (the checkpoint is named `pre_edit_<path>`). Design 000
   * promises "a failed build restores the file": a run under another failure policy cannot keep that promise,
   * so it is refused before anything is written.
   */
  private runTransaction(relative: string): Transaction {
    const tx = this.run.profile.failure === 'rollback' ? this.run.open(this.ws.transactions, { name: `pre_edit_${relative}`, reason: CHECKPOINT_DESCRIPTION, scope: 'files' }) : null;
    if (tx) return tx;
    throw new EditwardenError({
      code: ErrorCode.USAGE,
      message: `Controlled edit mode rolls a failed build back; this run's failure policy is "${this.run.profile.failure}".`,
      hint: 'Run the controlled edit under the controlled profile (runProfile("controlled"), failure policy rollback).',
      path: relative,
    });
  }

  /**
   * `edit_build_output`: the build's whole output, read back from the log the runner kept (the
   * in-memory tail loses an early compiler error); the log's path beside it. Without a build, why.
   */
  private captureBuildOutput(verification: VerifyResult | undefined, why: string): void {
    if (!verification) {
      this.state.edit_build_output = why;
      return;
    }
    const whole = readBuildOutput(this.ws.root, verification.artifact_dir);
    this.state.edit_build_output = whole?.text ?? verification.tail;
    this.state.edit_build_output_file = whole?.file ?? null;
  }

  /** Guardrails: edit_file replacements only (one edit and one file are enforced before: secondEdit). */
  private assertAllowed(request: EditRequest): void {
    if (request.action !== 'edit') {
      throw new EditwardenError({
        code: ErrorCode.PARSE,
        message: `Controlled edit mode only replaces text (old_text → new_text); "${request.action}" is not allowed.`,
        hint: 'Send {"filename", "old_text", "new_text"}.',
        path: request.path,
      });
    }
  }

  /**
   * The call the model sent was not valid JSON: the design's `JSON parsing error: …`, and like any
   * first attempt it ends the session and writes the report.
   */
  invalidJson(reason: string): ControlledEditOutcome {
    if (this.endedValue || this.state.has_edited) return this.secondEdit(undefined);
    const error: ErrorInfo = {
      code: ErrorCode.PARSE,
      message: `The edit_file arguments are not valid JSON: ${reason}.`,
      hint: 'The controlled session is over; start a new one with {"filename", "old_text", "new_text"} as one valid JSON object.',
    };
    return this.attemptFailed(MESSAGES.jsonError(reason), error, null);
  }

  /** A failed replacement: has_edited = true, build_success = false, the path kept, the report written, the session over. */
  private refused(error: ErrorInfo, result: EditResult | undefined, path: string | null): ControlledEditOutcome {
    return this.attemptFailed(MESSAGES.editFailed(error.message), error, path, result);
  }

  private attemptFailed(message: string, error: ErrorInfo, path: string | null, result?: EditResult): ControlledEditOutcome {
    this.state.has_edited = true;
    this.state.build_success = false;
    if (path !== null) this.state.edit_file_path = path;
    this.endedValue = true;
    const outcome: ControlledEditOutcome = {
      tool_exit_code: 1,
      message,
      state: { ...this.state },
      ended: true,
      edit_applied: false,
      ...(this.requested ? { requested: this.requested } : {}),
      run_id: this.runId,
      error,
      rolled_back: false,
      ...(result ? { result } : {}),
    };
    outcome.report = this.writeReport(outcome);
    return outcome;
  }

  /** Any call after the first: refused with the design's message; the session's report stays the first call's. */
  private secondEdit(args: unknown): ControlledEditOutcome {
    const asked = requiredFields(args).path;
    let relative: string | null = null;
    try {
      relative = asked ? this.ws.resolve(asked).relative : null;
    } catch {
      relative = asked;
    }
    const other = relative !== null && this.state.edit_file_path !== null && relative !== this.state.edit_file_path;
    const error: ErrorInfo = other
      ? {
          code: ErrorCode.SECOND_FILE,
          message: `Controlled edit mode changes exactly one file; this session already edited ${this.state.edit_file_path}, not ${relative}.`,
          hint: 'Start a new controlled session for another file.',
          path: relative as string,
        }
      : {
          code: ErrorCode.SECOND_EDIT,
          message: 'Controlled edit mode allows exactly one edit per session, and it has been made.',
          hint: 'The session is over; start a new one for another change.',
          ...(relative ? { path: relative } : {}),
        };
    return {
      tool_exit_code: 1,
      message: MESSAGES.alreadyEdited,
      state: { ...this.state },
      ended: true,
      edit_applied: false,
      run_id: this.runId,
      error,
      rolled_back: false,
    };
  }

  private requested: { old_text: string; new_text: string } | undefined;

  /** The report never changes the outcome: a report that cannot be written is said in `report_error`. */
  private writeReport(outcome: ControlledEditOutcome): ControlledEditReportPaths | undefined {
    if (this.options.reportPath === false) return undefined;
    const target = this.options.reportPath ?? this.project.config.reports.controlled_edit;
    try {
      return writeControlledEditReport(this.ws, target, outcome, (this.options.now ?? (() => new Date()))());
    } catch (error) {
      outcome.report_error = toErrorInfo(error, target);
      return undefined;
    }
  }
}

/** The design's required fields: a file name and a non-empty old_text (aliases of the edit_file contract accepted). */
function requiredFields(args: unknown): { ok: boolean; path: string | null; requested?: { old_text: string; new_text: string } } {
  const a = args && typeof args === 'object' && !Array.isArray(args) ? (args as Record<string, unknown>) : {};
  const name = [a.filename, a.path, a.file_path].find((v): v is string => typeof v === 'string' && v !== '') ?? null;
  const oldText = typeof a.old_text === 'string' ? a.old_text : '';
  const newText = typeof a.new_text === 'string' ? a.new_text : typeof a.content === 'string' ? a.content : '';
  return { ok: name !== null && oldText !== '', path: name, ...(oldText !== '' ? { requested: { old_text: oldText, new_text: newText } } : {}) };
}

function missingFieldsError(): ErrorInfo {
  return {
    code: ErrorCode.MISSING_OLD_TEXT,
    message: 'The controlled edit needs a file name (filename) and a non-empty old_text.',
    hint: 'The controlled session is over; start a new one with {"filename", "old_text", "new_text"}.',
  };
}

/** The old form's config: required with a workspace (a Project brings its own). */
function configOf(options: ControlledSessionOptions): Config {
  if (options.config) return options.config;
  throw new EditwardenError({
    code: ErrorCode.USAGE,
    message: 'A controlled edit session over a workspace was given no config.',
    hint: 'Pass the project (openProject(root, config)) instead of the workspace, or `config` in the options.',
  });
}
