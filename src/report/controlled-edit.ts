/**
 * The controlled-edit telemetry report (markdown, following the design's
 * template) and its JSON twin. Written by the runner after the session's
 * edit and build, through the workspace like any write — it is not the
 * session's edit and never counts as one.
 */
import type { EditResult } from '../edit/types.js';
import type { ErrorInfo } from '../errors.js';
import type { VerifyResult } from '../verify/verifier.js';
import type { Workspace } from '../workspace/workspace.js';
import { formatDiagnostic } from '../verify/diagnostics/index.js';
import { compilationExcerpt } from '../verify/build-output.js';
import { appendAll } from '../arrays.js';

export interface ControlledEditReportPaths {
  markdown: string;
  json: string;
}

/** The outcome of a controlled-edit session's one edit: what the report and the session's caller read. */
/** The session state the controlled-edit design lists. */
export interface ControlledSessionState {
  has_edited: boolean;
  build_success: boolean | null;
  edit_file_path: string | null;
  edit_checkpoint_id: string | null;
  /**
   * The design's "Captured stdout/stderr of build command": the build's whole output (up to 1 MiB;
   * beyond, its head and tail with a note), or why no build ran.
   */
  edit_build_output: string;
  /** The file that keeps every byte the build printed (`.editwarden/runs/<run_id>/verify/<n>/combined.log`); null when no build ran. */
  edit_build_output_file: string | null;
}

/** Tool exit codes of the design: 0 success, 1 the edit failed (nothing written), 2 the build failed and was rolled back. */
type ControlledToolExit = 0 | 1 | 2;

export interface ControlledEditOutcome {
  tool_exit_code: ControlledToolExit;
  message: string;
  state: ControlledSessionState;
  /** Whether the session is over (no further edit_file call is accepted). */
  ended: boolean;
  /** Whether the replacement itself was made (it may have been rolled back after a failed build). */
  edit_applied: boolean;
  /** The replacement asked for (the report's diff when nothing was applied). */
  requested?: { old_text: string; new_text: string };
  run_id: string;
  result?: EditResult;
  error?: ErrorInfo;
  verification?: VerifyResult;
  rolled_back: boolean;
  /** sha256 of the edited file before the edit and after the rollback (equal when the rollback is exact). */
  rollback_check?: { before: string; after: string; exact: boolean };
  report?: ControlledEditReportPaths | undefined;
  /** Why the telemetry report could not be written (the edit's outcome stands). */
  report_error?: ErrorInfo;
}

const FIRST_DIAGNOSTICS = 10;

/** The design's description of the pre-edit checkpoint (`create_checkpoint("pre_edit_" + filename, "Controlled edit baseline")`). */
export const CHECKPOINT_DESCRIPTION = 'Controlled edit baseline';

/** Why the Compilation Status is FAILED without a build: said on the line after the field. */
function noBuildReason(outcome: ControlledEditOutcome): string {
  if (outcome.edit_applied) return `the build could not run${outcome.error ? `: ${outcome.error.message.split('\n')[0]}` : ''}`;
  return 'the build did not run: the edit failed';
}

/**
 * The design's report template, verbatim, first (headings, bold labels, the diff block, the
 * compilation output); what editwarden adds (run id, build command, logs, rollback check, why
 * an edit failed) comes after it, under "Details".
 */
function renderControlledEditMarkdown(outcome: ControlledEditOutcome, when: Date): string {
  const s = outcome.state;
  const v = outcome.verification;
  const target = s.edit_file_path ?? outcome.result?.path ?? outcome.error?.path ?? '(none)';
  // The design's field holds PASSED or FAILED only; when no build ran, FAILED and the reason on the next line.
  const compile = v ? (v.passed ? 'PASSED' : 'FAILED') : `FAILED\n  (${noBuildReason(outcome)})`;
  const lines = [
    '# Controlled Edit Mode v1: Run Report',
    '',
    `- **Timestamp:** ${when.toISOString()}`,
    `- **Target File:** \`${target}\``,
    `- **Checkpoint ID:** \`${s.edit_checkpoint_id ?? '(none: the request was refused before a checkpoint was taken)'}\``,
    `- **Edit Status:** ${outcome.edit_applied ? 'SUCCESS' : 'FAILURE'}`,
    `- **Compilation Status:** ${compile}`,
    `- **Automatic Rollback Triggered:** ${outcome.rolled_back ? 'YES' : 'NO'}`,
    '',
    '## Modification Diff Detail',
    '',
    '```diff',
  ];
  // The template's block exactly: -[old_text] then +[new_text], each line marked (the git diff follows in Details).
  if (outcome.requested) appendAll(lines, modificationBlock(outcome.requested.old_text, outcome.requested.new_text));
  lines.push('```', '', '## Compilation Diagnostic Output', '', '```text');
  if (!v) lines.push(s.edit_build_output.trimEnd() || `(${noBuildReason(outcome)})`);
  else lines.push(compilationExcerpt(s.edit_build_output || v.tail).trimEnd() || '(no output)');
  lines.push('```', '', '## Details', '', `- **Run ID:** ${outcome.run_id}`, `- **Result:** ${outcome.message}`, `- **Tool exit code:** ${outcome.tool_exit_code}`);
  if (s.edit_checkpoint_id && s.edit_file_path) lines.push(`- **Checkpoint:** \`pre_edit_${s.edit_file_path}\` — ${CHECKPOINT_DESCRIPTION}`);
  if (v) {
    lines.push(`- **Build command:** \`${v.command}\` (exit code ${v.exit_code ?? 'none'}${v.timed_out ? ', timed out' : ''}, ${Math.round(v.duration_ms)} ms)`);
    lines.push(`- **Build logs:** \`${v.artifact_dir}/\``);
  }
  if (s.edit_build_output_file) lines.push(`- **Full build output:** \`${s.edit_build_output_file}\``);
  if (outcome.rollback_check) {
    const c = outcome.rollback_check;
    lines.push(`- **Rollback check:** sha256 before ${c.before.slice(0, 16)}…, after rollback ${c.after.slice(0, 16)}… — ${c.exact ? 'identical' : 'DIFFERENT'}`);
  }
  if (outcome.error && !outcome.edit_applied) {
    lines.push('', '### Why the edit failed', '', `\`${outcome.error.code}\`: ${outcome.error.message}`, '', `Hint: ${outcome.error.hint}`);
  }
  const diff = outcome.result?.diff ?? '';
  if (diff) lines.push('', '### Unified diff', '', '```diff', diff.trimEnd(), '```');
  if (v) {
    const first = v.diagnostics.slice(0, FIRST_DIAGNOSTICS).map((d) => `- ${formatDiagnostic(d)}`);
    lines.push('', '### Parsed compiler diagnostics', '', first.length > 0 ? first.join('\n') : '(none parsed)');
  }
  return `${lines.join('\n')}\n`;
}

/** `-[old_text]` / `+[new_text]`: every line of each side marked; an empty side adds no line. */
function modificationBlock(oldText: string, newText: string): string[] {
  const side = (text: string, mark: string): string[] =>
    text === ''
      ? []
      : text
          .replace(/\r?\n$/, '')
          .split(/\r?\n/)
          .map((l) => `${mark}${l}`);
  return [...side(oldText, '-'), ...side(newText, '+')];
}

function controlledEditJson(outcome: ControlledEditOutcome, when: Date): unknown {
  const v = outcome.verification;
  return {
    timestamp: when.toISOString(),
    run_id: outcome.run_id,
    target_file: outcome.state.edit_file_path ?? outcome.result?.path ?? outcome.error?.path ?? null,
    checkpoint_id: outcome.state.edit_checkpoint_id,
    edit_status: outcome.edit_applied ? 'SUCCESS' : 'FAILURE',
    compilation_status: v ? (v.passed ? 'PASSED' : 'FAILED') : 'FAILED',
    build_ran: v !== undefined,
    rollback: outcome.rolled_back,
    message: outcome.message,
    tool_exit_code: outcome.tool_exit_code,
    state: outcome.state,
    diff: outcome.result?.diff ?? '',
    error: outcome.error ?? null,
    rollback_check: outcome.rollback_check ?? null,
    build: v
      ? {
          command: v.command,
          exit_code: v.exit_code,
          timed_out: v.timed_out,
          duration_ms: v.duration_ms,
          artifact_dir: v.artifact_dir,
          diagnostics: v.diagnostics.slice(0, 50),
          tail: v.tail,
        }
      : null,
  };
}

export function writeControlledEditReport(ws: Workspace, target: string, outcome: ControlledEditOutcome, when: Date): ControlledEditReportPaths {
  const markdown = ws.resolve(target).relative;
  const json = markdown.replace(/\.md$/i, '') + '.json';
  ws.transact((tx) =>
    ws.commit(tx, [
      { kind: 'write', path: markdown, bytes: Buffer.from(renderControlledEditMarkdown(outcome, when)) },
      { kind: 'write', path: json, bytes: Buffer.from(`${JSON.stringify(controlledEditJson(outcome, when), null, 2)}\n`) },
    ]),
  );
  return { markdown, json };
}
