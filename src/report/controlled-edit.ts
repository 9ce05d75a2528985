/**
 * The controlled-edit telemetry report (markdown, following the design's
 * template) and its JSON twin. Written by the runner after the session's
 * edit and build, through the workspace like any write — it is not the
 * session's edit and never counts as one.
 */
import type { ControlledEditOutcome } from '../agent/controlled.js';
import type { Workspace } from '../workspace/workspace.js';
import { formatDiagnostic } from '../verify/diagnostics/index.js';

export interface ControlledEditReportPaths {
  markdown: string;
  json: string;
}

const TAIL_LINES = 40;
const FIRST_DIAGNOSTICS = 10;

/**
 * The design's report template, verbatim, first (headings, bold labels, the diff block, the
 * compilation output); what editwarden adds (run id, build command, logs, rollback check, why
 * an edit failed) comes after it, under "Details".
 */
export function renderControlledEditMarkdown(outcome: ControlledEditOutcome, when: Date): string {
  const s = outcome.state;
  const v = outcome.verification;
  const target = s.edit_file_path ?? outcome.result?.path ?? outcome.error?.path ?? '(none)';
  const compile = v ? (v.passed ? 'PASSED' : 'FAILED') : 'FAILED (the build did not run: the edit failed)';
  const lines = [
    '# Controlled Edit Mode v1: Run Report',
    '',
    `- **Timestamp:** ${when.toISOString()}`,
    `- **Target File:** \`${target}\``,
    `- **Checkpoint ID:** \`${s.edit_checkpoint_id ?? '(none: nothing was written)'}\``,
    `- **Edit Status:** ${outcome.edit_applied ? 'SUCCESS' : 'FAILURE'}`,
    `- **Compilation Status:** ${compile}`,
    `- **Automatic Rollback Triggered:** ${outcome.rolled_back ? 'YES' : 'NO'}`,
    '',
    '## Modification Diff Detail',
    '',
    '```diff',
  ];
  const diff = outcome.result?.diff ?? '';
  if (diff) lines.push(diff.trimEnd());
  else if (outcome.requested) {
    // Nothing was applied: the replacement that was asked for, in the design's -old/+new form.
    for (const l of outcome.requested.old_text.replace(/\n$/, '').split('\n')) lines.push(`-${l}`);
    if (outcome.requested.new_text !== '') for (const l of outcome.requested.new_text.replace(/\n$/, '').split('\n')) lines.push(`+${l}`);
  }
  lines.push('```', '', '## Compilation Diagnostic Output', '', '```text');
  if (!v) lines.push('(the build did not run: the edit failed)');
  else lines.push(v.tail.split('\n').slice(-TAIL_LINES).join('\n').trimEnd() || '(no output)');
  lines.push('```', '', '## Details', '', `- **Run ID:** ${outcome.run_id}`, `- **Result:** ${outcome.message}`, `- **Tool exit code:** ${outcome.tool_exit_code}`);
  if (v) {
    lines.push(`- **Build command:** \`${v.command}\` (exit code ${v.exit_code ?? 'none'}${v.timed_out ? ', timed out' : ''}, ${Math.round(v.duration_ms)} ms)`);
    lines.push(`- **Build logs:** \`${v.artifact_dir}/\``);
  }
  if (outcome.rollback_check) {
    const c = outcome.rollback_check;
    lines.push(`- **Rollback check:** sha256 before ${c.before.slice(0, 16)}…, after rollback ${c.after.slice(0, 16)}… — ${c.exact ? 'identical' : 'DIFFERENT'}`);
  }
  if (outcome.error && !outcome.edit_applied) {
    lines.push('', '### Why the edit failed', '', `\`${outcome.error.code}\`: ${outcome.error.message}`, '', `Hint: ${outcome.error.hint}`);
  }
  if (v) {
    const first = v.diagnostics.slice(0, FIRST_DIAGNOSTICS).map((d) => `- ${formatDiagnostic(d)}`);
    lines.push('', '### Parsed compiler diagnostics', '', first.length > 0 ? first.join('\n') : '(none parsed)');
  }
  return `${lines.join('\n')}\n`;
}

export function controlledEditJson(outcome: ControlledEditOutcome, when: Date): unknown {
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
