/**
 * The Editor for the command line: runs a session (`run --mode editor`,
 * `--retry`, `--dry-run`, and `apply-proposal`) with a live transcript on a
 * terminal, Ctrl-C as a clean cancel, and the closing lines — or one JSON
 * object with --json. Thin: options in, runEditor, print, exit code out.
 */
import { describeNetwork } from '../config/network-setting.js';
import { runProfile, type RunProfile } from '../runs/profile.js';
import { exitCodeFor, formatRefusal, refusalEnvelope, toErrorInfo, type ErrorInfo } from '../errors.js';
import type { Io } from './output.js';
import { formatError, paint, useColor, writeJson } from './output.js';
import type { OpenedProject } from '../host/project.js';
import { runEditor, type EditorResult, type EditorRunEvent, type RunEditorOptions } from '../agent/editor/editor.js';
import { attemptLines } from '../agent/editor/counters.js';
import { defined } from '../defined.js';

/** What a command hands the Editor: its own options (the project is the one it opened, config included; the printing is added here) plus how to print. */
export interface EditorCommandOptions extends Omit<RunEditorOptions, 'project' | 'listeners'> {
  opened: OpenedProject;
  json?: boolean;
}

/** One line per Editor event, for people. */
export function describeEditorEvent(event: Exclude<EditorRunEvent, { type: 'agent' }>, color: boolean): string {
  switch (event.type) {
    case 'scout':
      return paint(color, 'dim', `scout ${event.scout === 'codebase' ? 'A (codebase)' : 'B (environment)'}: ${event.request}`);
    case 'verify-start':
      return paint(color, 'cyan', `verify #${event.n} (${event.trigger})…`);
    case 'verify-end': {
      const e = event.entry;
      const verdict = e.passed ? paint(color, 'green', 'PASS') : paint(color, 'red', 'FAIL');
      // The counters exactly as the specification's example writes them (attemptLines), under the verdict.
      return [`${verdict} run ${e.run_id} — ${e.lines.join('; ')}`, ...attemptLines(e.n, e.passed, e.reached, e.decision).map((l) => `  ${l}`)].join('\n');
    }
    case 'replan':
      return paint(color, 'yellow', `REPLAN → strategy ${event.strategy} (${event.context})`);
    case 'context':
      return paint(color, 'dim', `context snapshot: ${event.file}`);
    case 'hard-stop':
      return paint(color, 'red', `HARD STOP: ${event.reason}`);
    default: {
      const never: never = event;
      return String(never);
    }
  }
}

function editorResultJson(r: EditorResult): Record<string, unknown> {
  return {
    ok: r.exitCode === 0,
    status: r.status,
    reason: r.reason,
    exit_code: r.exitCode,
    run_id: r.runId,
    run_dir: r.runDir,
    green_run_id: r.record.green_run_id,
    baseline_run_id: r.record.baseline_run_id,
    strategy: r.record.strategy,
    counters: r.record.counters,
    verifications: r.record.verifications.map((v) => ({ n: v.n, run_id: v.run_id, passed: v.passed, decision: v.decision, counters: v.counters })),
    files_changed: r.record.files_changed,
    contexts: r.contexts,
    ...defined({
      summary: r.summaryFile || undefined,
      stuck_report: r.stuckReportFile || undefined,
      proposal: r.proposalFile || undefined,
      seeded_from: r.record.seeded_from || undefined,
      transcript: r.transcriptFile || undefined,
      metrics: r.metricsFile || undefined,
    }),
    ...defined({ error: r.error }),
  };
}

export async function runEditorCommand(io: Io, o: EditorCommandOptions): Promise<number> {
  const json = o.json === true;
  const color = useColor(io);
  let own: AbortController | null = null;
  let onInterrupt: (() => void) | null = null;
  if (!o.run?.signal) {
    // Ctrl-C: the first stops after the current step (partial work kept); the second leaves at once.
    own = new AbortController();
    let interrupts = 0;
    onInterrupt = () => {
      interrupts++;
      if (interrupts === 1) {
        own?.abort(new Error('interrupted'));
        io.stderr.write(`\n${paint(useColor(io, 'stderr'), 'yellow', 'Stopping after the current step')} (Ctrl-C again to leave now)…\n`);
        return;
      }
      process.exit(130);
    };
    process.on('SIGINT', onInterrupt);
    process.on('SIGTERM', onInterrupt);
  }
  const signal = o.run?.signal ?? own?.signal;
  const { createLiveRenderer } = await import('./live-transcript.js');
  const live = json ? null : createLiveRenderer(io.stdout, { color, diffs: true });
  const onEvent = (event: EditorRunEvent): void => {
    if (json) return;
    if (event.type === 'agent') live?.(event.event);
    else io.stdout.write(`${describeEditorEvent(event, color)}\n`);
  };
  // The command's own fields pass through as they are; the project, the signal and the printing are added here.
  const { opened, json: _json, run, ...editor } = o;
  const profile = runProfile('editor', { config: opened.config, dryRun: o.dryRun, configured: o.configured });
  const options: RunEditorOptions = {
    ...editor,
    project: opened,
    run: { ...run, ...defined({ signal }) },
    listeners: {
      onEvent,
      onStart: (info) => {
        if (!json)
          io.stdout.write(
            `${paint(color, 'bold', 'editwarden editor')} ${info.runId}${o.provider ? ` · ${o.provider.id}` : ''}${o.dryRun ? ' · dry run' : ''}${o.proposal ? ` · apply-proposal ${o.proposal.file}` : ''} · ${networkNote(profile)} · ${limitsNote(profile)}\n`,
          );
      },
    },
  };
  try {
    let result: EditorResult;
    try {
      result = await runEditor(options);
    } catch (error) {
      // Refused before anything ran (usage, --retry without a report): nothing to report but the error.
      const info: ErrorInfo = toErrorInfo(error);
      if (json) writeJson(io, refusalEnvelope(info, { status: 'refused' }));
      else io.stderr.write(`${formatError(info, useColor(io, 'stderr'))}\n`);
      return exitCodeFor(info.code);
    }
    if (json) writeJson(io, editorResultJson(result));
    else io.stdout.write(`${closingLines(result, color).join('\n')}\n`);
    return result.exitCode;
  } finally {
    if (onInterrupt) {
      process.removeListener('SIGINT', onInterrupt);
      process.removeListener('SIGTERM', onInterrupt);
    }
  }
}

/** The run header's word on the network (the Editor's specification: "Network Access — Unrestricted"). */
function networkNote(profile: RunProfile): string {
  return profile.network === 'off' ? 'network: off (sandbox.network: off)' : `network: ${describeNetwork(profile.network)}`;
}

function limitsNote(profile: RunProfile): string {
  const { max_files, max_lines_changed } = profile.sizeLimits;
  if (max_files === null && max_lines_changed === null) return 'size limits: none';
  return `size limits: max_files ${max_files ?? 'none'}, max_lines_changed ${max_lines_changed ?? 'none'}`;
}

function closingLines(r: EditorResult, color: boolean): string[] {
  const tone = r.exitCode === 0 ? 'green' : r.status === 'cancelled' ? 'yellow' : 'red';
  const out = ['', `${paint(color, tone, r.status)} — ${r.reason}`];
  if (r.error) out.push(formatRefusal(r.error).replace(/^/gm, '  '));
  const files = r.record.files_changed;
  if (files.length > 0) out.push(`  files: ${files.map((f) => `${f.path} (+${f.added} −${f.removed})`).join(', ')}`);
  if (r.record.verifications.length > 0) out.push(`  verifications: ${r.record.verifications.length}${r.record.green_run_id ? ` · green run ${r.record.green_run_id}` : ''}`);
  if (r.summaryFile) out.push(`  summary: ${r.summaryFile}`);
  if (r.stuckReportFile) out.push(`  stuck report: ${r.stuckReportFile} (editwarden run --mode editor --retry … hands it to the next session)`);
  if (r.proposalFile) out.push(`  proposal: ${r.proposalFile} (editwarden apply-proposal ${r.proposalFile})`);
  if (r.status === 'cancelled') out.push('  The partial changes are kept.');
  if (r.status === 'success') out.push('  The changes are left uncommitted for you to review.');
  out.push(`  run folder: ${r.runDir}`);
  return out;
}
