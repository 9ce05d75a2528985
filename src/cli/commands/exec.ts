/**
 * `editwarden exec <calls.jsonl>`: a recorded sequence of tool calls (one
 * `{"tool": ..., "args": {...}, "tokens"?: n}` per line) run through the
 * ToolRunner in headless mode — the same runner the agent loop feeds from a
 * model. Prints each call's result and the final metrics. Exit 0 (all
 * calls succeeded), 1 (a call failed; the run went on, as a model would see
 * the error and continue), 2 (a constraint was violated: the run stopped).
 * Thin: flags → config, lines → runner.call, records → text or JSON.
 */
import { runProfile } from '../../runs/profile.js';
import { Run } from '../../runs/run.js';
import fs from 'node:fs';
import type { Command } from 'commander';
import { addConstraintOptions, constraintOverrides, type ConstraintFlags } from '../constraint-flags.js';
import type { Config } from '../../config/config.js';
import type { ConfigTrust } from '../../config/trust-state.js';
import { type ConfigLayers, ignoredNotice, leafKeys, withFlagKeys } from '../../config/layers.js';
import { EditwardenError, ErrorCode, type ErrorInfo, ExitCode } from '../../errors.js';
import { formatStatus, startRunStatus } from '../run-status.js';
import type { CallRecord, RunSummary, ToolCall, ToolRunner } from '../../tools/runner.js';
import { formatError, paint, readAll, useColor, writeJson, type Io, refuseCommand } from '../output.js';

interface ExecFlags extends ConstraintFlags {
  root?: string;
  config?: string;
  json?: boolean;
  showOutput?: boolean;
}

/** One line of the calls file: a call, or why it is not one. */
export type CallLine = { line: number; call: ToolCall } | { line: number; error: ErrorInfo };

export function registerExec(program: Command, io: Io, setExit: (code: number) => void): void {
  const command = program
    .command('exec')
    .description('Run recorded tool calls (JSON lines: {"tool", "args", "tokens"?}) headless, under the constraints; exit 2 on a violation.')
    .argument('<calls>', "JSON-lines file of tool calls; '-' reads stdin")
    .option('--root <dir>', 'workspace root (default: current folder)')
    .option('--config <file>', 'config file (default: <root>/.editwarden.yml)')
    .option('--show-output', 'print each tool output (what the model would read)')
    .option('--json', 'print the run as JSON');
  addConstraintOptions(command).action(async (file: string, flags: ExecFlags) => {
    setExit(await runExec(file, flags, io));
  });
}

/** Parses the calls file: blank lines and lines starting with "#" or "//" are skipped. */
export function parseCallLines(text: string): CallLine[] {
  const out: CallLine[] = [];
  text.split('\n').forEach((raw, i) => {
    const line = i + 1;
    const trimmed = raw.trim();
    if (trimmed === '' || trimmed.startsWith('#') || trimmed.startsWith('//')) return;
    const bad = (message: string): void => {
      out.push({ line, error: { code: ErrorCode.PARSE, message: `calls line ${line}: ${message}.`, hint: 'Each line is one JSON object: {"tool": "name", "args": {...}, "tokens": 123} (tokens optional).' } });
    };
    let value: unknown;
    try {
      value = JSON.parse(trimmed);
    } catch (error) {
      bad(`not valid JSON (${(error as Error).message})`);
      return;
    }
    if (typeof value !== 'object' || value === null || Array.isArray(value)) return bad('not a JSON object');
    const obj = value as Record<string, unknown>;
    const unknown = Object.keys(obj).filter((k) => k !== 'tool' && k !== 'args' && k !== 'tokens');
    if (unknown.length > 0) return bad(`unknown field "${unknown.join(', ')}"`);
    if (typeof obj.tool !== 'string' || obj.tool === '') return bad('missing "tool" (a tool name)');
    if (obj.args !== undefined && (typeof obj.args !== 'object' || obj.args === null || Array.isArray(obj.args))) return bad('"args" must be an object');
    if (obj.tokens !== undefined && (typeof obj.tokens !== 'number' || !Number.isInteger(obj.tokens) || obj.tokens < 0)) return bad('"tokens" must be a non-negative integer');
    const call: ToolCall = { tool: obj.tool, args: obj.args ?? {} };
    if (typeof obj.tokens === 'number') call.tokens = obj.tokens;
    out.push({ line, call });
  });
  return out;
}

async function runExec(file: string, flags: ExecFlags, io: Io): Promise<number> {
  // Loaded here, not at the top: every other command would pay for the schemas and tools at start-up.
  const [{ withOverrides }, { loadProjectConfig }, { ToolRunner }, { openForCommand }] = await Promise.all([import('../../config/config.js'), import('../../config/load.js'), import('../../tools/runner.js'), import('../workspace.js')]);
  const root = flags.root ?? process.cwd();
  let config: Config;
  let trust: ConfigTrust;
  let layers: ConfigLayers;
  let lines: CallLine[];
  try {
    const loaded = loadProjectConfig(root, flags.config);
    const base = loaded.config;
    trust = loaded.trust;
    const overrides = constraintOverrides(base, flags);
    config = withOverrides(base, overrides);
    layers = withFlagKeys(loaded.layers, leafKeys(overrides));
    lines = parseCallLines(file === '-' ? await readAll(io.stdin) : readCalls(file));
  } catch (error) {
    return refuseBeforeRun(error, flags, io);
  }
  let runner: ToolRunner;
  try {
    // --config is part of the protected set: no tool writes it, a command that changes it is put back.
    const project = await openForCommand(root, config, io, flags.json === true, flags.config, trust, layers);
    runner = ToolRunner.start({
      project,
      run: new Run({ profile: runProfile('headless', { config, layers }) }),
      // `editwarden log` tells an exec of recorded calls from an agent's own run.
      events: { via: 'exec' },
    });
  } catch (error) {
    return refuseBeforeRun(error, flags, io);
  }

  const color = useColor(io);
  // A raise the repository's untrusted file asked for is not applied: say so once, before the run.
  const notice = ignoredNotice(layers);
  if (notice && !flags.json) io.stderr.write(`${paint(useColor(io, 'stderr'), 'yellow', 'note:')} ${notice}\n`);
  const status = flags.json ? null : startRunStatus(io.stderr, () => runner.totals(), config.constraints);
  const printed: Array<{ line: number; record?: CallRecord; error?: ErrorInfo }> = [];
  let failed = false;
  for (const item of lines) {
    if (runner.state !== 'running') break;
    if ('error' in item) {
      failed = true;
      printed.push({ line: item.line, error: item.error });
      if (!flags.json) printLine(io, status, `${paint(color, 'red', 'failed')} line ${item.line}\n${formatError(item.error, color)}\n`);
      continue;
    }
    status?.update(`#${runner.calls.length + 1} ${item.call.tool}`);
    const record = await runner.call(item.call);
    if (record.status === 'failed' || record.status === 'declined') failed = true;
    printed.push({ line: item.line, record });
    if (!flags.json) printLine(io, status, renderRecord(record, item.line, color, flags.showOutput === true));
  }
  status?.stop();
  const skipped = lines.length - printed.length;
  const summary = runner.finish();
  if (flags.json) {
    writeJson(io, {
      ok: !failed && summary.violation === null,
      run_id: summary.runId,
      run_dir: summary.runDir,
      status: summary.status,
      calls: printed.map((p) => (p.record ? { line: p.line, ...p.record } : { line: p.line, status: 'failed', ok: false, error: p.error })),
      skipped,
      violation: summary.violation,
      rollback: summary.rollback,
      metrics: summary.metrics,
      reports: summary.reports,
    });
  } else {
    io.stdout.write(renderSummary(summary, config, skipped, color));
  }
  if (summary.violation) return ExitCode.CONSTRAINT;
  return failed ? ExitCode.REJECTED : ExitCode.OK;
}

function printLine(io: Io, status: ReturnType<typeof startRunStatus> | null, text: string): void {
  // The status line lives on stderr; clear it so the call line is not drawn over it.
  if (status && io.stderr.isTTY) io.stderr.write('\r\u001b[K');
  io.stdout.write(text);
}

function readCalls(file: string): string {
  try {
    return fs.readFileSync(file, 'utf8');
  } catch (error) {
    throw new EditwardenError({
      code: ErrorCode.USAGE,
      message: `Cannot read the calls file ${JSON.stringify(file)}: ${(error as Error).message}.`,
      hint: "Pass a JSON-lines file of tool calls, or '-' to read them from stdin.",
    });
  }
}

function refuseBeforeRun(error: unknown, flags: ExecFlags, io: Io): number {
  return refuseCommand(error, flags.json === true, io, { calls: [] });
}

function renderRecord(record: CallRecord, line: number, color: boolean, showOutput: boolean): string {
  const label = record.status === 'ok' ? paint(color, 'green', 'ok') : record.status === 'refused' ? paint(color, 'red', 'VIOLATION') : paint(color, 'yellow', record.status);
  const files = record.files.length > 0 ? ` ${record.files.slice(0, 5).join(', ')}${record.files.length > 5 ? ` (+${record.files.length - 5})` : ''} +${record.lines_added} -${record.lines_removed}` : '';
  const tokens = record.tokens > 0 ? ` [${record.tokens} tokens]` : '';
  const out = [`#${record.index + 1} ${label} ${record.tool}${files}${tokens} (${record.duration_ms.toFixed(0)} ms, line ${line})`];
  if (record.violation) out.push(`  ${record.violation.message}`, `  ${paint(color, 'dim', 'hint:')} ${record.violation.hint}`);
  else if (record.error) out.push(formatError(record.error, color));
  if (showOutput && record.output && !record.violation) out.push(record.output.replace(/^/gm, '  │ '));
  return `${out.join('\n')}\n`;
}

function renderSummary(summary: RunSummary, config: Config, skipped: number, color: boolean): string {
  const m = summary.metrics;
  const out = [''];
  const head = summary.violation ? paint(color, 'red', `${summary.violation.type} violation`) : paint(color, 'green', summary.status);
  out.push(`run ${summary.runId}: ${head}; ${m.calls} call(s)${skipped > 0 ? `, ${skipped} not run` : ''}`);
  out.push(`  ${formatStatus(m.constraints.actual, config.constraints).replace(/^⏵ /, '')}`);
  if (summary.violation) {
    out.push(`  ${summary.violation.message}`);
    out.push(
      m.outcome === 'rolled-back'
        ? `  on_violation: rollback — the run was undone (${summary.rollback?.written.length ?? 0} file(s) put back, ${summary.rollback?.removed.length ?? 0} removed).`
        : m.outcome === 'kept'
          ? '  on_violation: keep — the partial work is kept for inspection.'
          : '  the rollback did not finish; the next editwarden command in this root completes it.',
    );
  }
  if (summary.reports.violationMarkdown) out.push(`  report: ${summary.reports.violationMarkdown}`);
  if (summary.reports.metrics) out.push(`  metrics: ${summary.reports.metrics}`);
  if (summary.reports.metrics && m.outcome !== 'rolled-back') out.push(`  undo this run: editwarden undo --run ${summary.runId}`);
  return `${out.join('\n')}\n`;
}
