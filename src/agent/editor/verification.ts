/**
 * One full verification of the Editor: the build, then the tests, through
 * the Verifier, under a run id of its own (so every verification — green or
 * failed — can be named by its run_id in the summary and the stuck report).
 * A failed build skips the tests. Commands come from config, else from
 * detection, re-read every time: a test script the Editor adds is run by
 * the next verification. The verdict is the exit codes' and only theirs.
 * It never writes a project file (the Verifier files its evidence under
 * `.editwarden/runs/<run_id>/verify/`).
 */
import type { Config } from '../../config/config.js';
import { EditwardenError, ErrorCode } from '../../errors.js';
import { newRunId } from '../../runs/runs.js';
import { formatDiagnostic, type Diagnostic } from '../../verify/diagnostics/index.js';
import { resolveVerifyCommand, verify, type VerifyResult, type VerifyWorkspace } from '../../verify/verifier.js';

export type StepKind = 'build' | 'test';

export interface Verification {
  run_id: string;
  /** Every step that ran passed, and at least one ran. */
  passed: boolean;
  steps: VerifyResult[];
  /** Steps not run: no command for them, or an earlier step failed. */
  skipped: Array<{ kind: StepKind; why: 'no-command' | 'build-failed' }>;
}

export interface VerificationOptions {
  config: Config;
  baseline: 'record' | 'compare' | 'off';
  runId?: string;
  signal?: AbortSignal;
}

/** The commands a full verification would run now (null: none). */
export function verificationCommands(ws: VerifyWorkspace, config: Config): Record<StepKind, { command: string; source: string } | null> {
  const one = (kind: StepKind): { command: string; source: string } | null => {
    try {
      const r = resolveVerifyCommand(ws, kind, config);
      return { command: typeof r.command === 'string' ? r.command : r.command.join(' '), source: r.source };
    } catch (error) {
      if (error instanceof EditwardenError && error.code === ErrorCode.CONFIG) return null;
      throw error;
    }
  };
  return { build: one('build'), test: one('test') };
}

/** Refused when the project has neither a build nor a test command: there is nothing to verify with. */
export function nothingToVerify(root: string): EditwardenError {
  return new EditwardenError({
    code: ErrorCode.CONFIG,
    message: `No build or test command: none is configured and none was detected in ${root}.`,
    hint: 'Set verify.build or verify.test in .editwarden.yml, or add a test script the detection finds (e.g. "test" in package.json).',
  });
}

export async function runVerification(ws: VerifyWorkspace, options: VerificationOptions): Promise<Verification> {
  const commands = verificationCommands(ws, options.config);
  if (!commands.build && !commands.test) throw nothingToVerify(ws.root);
  const runId = options.runId ?? newRunId();
  const steps: VerifyResult[] = [];
  const skipped: Verification['skipped'] = [];
  for (const kind of ['build', 'test'] as const) {
    const command = commands[kind];
    if (!command) {
      skipped.push({ kind, why: 'no-command' });
      continue;
    }
    if (steps.some((s) => !s.passed)) {
      skipped.push({ kind, why: 'build-failed' });
      continue;
    }
    steps.push(
      await verify(ws, {
        kind,
        command: command.command,
        runId,
        config: options.config,
        baseline: options.baseline,
        ...(options.signal ? { signal: options.signal } : {}),
      }),
    );
  }
  return { run_id: runId, passed: steps.length > 0 && steps.every((s) => s.passed), steps, skipped };
}

/** One line per step, build first: "build `make` passed" / "test `npm test` FAILED (exit 1)" / "build: no command". */
export function describeSteps(v: Verification): string[] {
  const lines: string[] = [];
  for (const kind of ['build', 'test'] as const) {
    const s = v.steps.find((x) => x.kind === kind);
    if (s) {
      const why = s.passed ? 'passed' : s.timed_out ? 'FAILED (timed out)' : s.spawn_error ? `FAILED (could not start: ${s.spawn_error})` : `FAILED (exit ${s.exit_code ?? s.signal})`;
      lines.push(`${s.kind} \`${s.command}\` ${why}`);
      continue;
    }
    const skipped = v.skipped.find((x) => x.kind === kind);
    if (skipped) lines.push(skipped.why === 'no-command' ? `${kind}: no command` : `${kind} not run (the build failed)`);
  }
  return lines;
}

/** Diagnostic paths inside the root, shown relative to it (reports travel; temp roots do not). */
export function relativeDiagnostic(text: string, root: string): string {
  return text.split(`${root}/`).join('');
}

/**
 * The first errors of a failed verification, formatted: failures new since
 * the baseline first, then those that were already failing before any edit
 * (marked so), for reports and the model.
 */
export function firstErrors(v: Verification, max = 5): string[] {
  const fresh: string[] = [];
  const old: string[] = [];
  for (const s of v.steps) {
    if (s.passed) continue;
    const errors = (list: Diagnostic[]): Diagnostic[] => list.filter((x) => x.severity === 'error');
    if (s.baseline) {
      for (const d of errors(s.baseline.new)) fresh.push(relativeDiagnostic(formatDiagnostic(d), s.cwd));
      for (const d of errors(s.baseline.old)) old.push(`${relativeDiagnostic(formatDiagnostic(d), s.cwd)} (already failing before any edit)`);
    } else {
      for (const d of errors(s.diagnostics)) fresh.push(relativeDiagnostic(formatDiagnostic(d), s.cwd));
    }
  }
  return [...fresh, ...old].slice(0, max);
}
