/**
 * Scout B, the environment scout: how this project is built and tested
 * (commands and test framework, from config and detection), whether it has
 * a test suite at all (and if not, which framework new tests should use),
 * the toolchain versions present, the baseline of failures before any edit,
 * and the interpretation of a Verifier run (diagnostics, new vs old
 * failures, the log's tail) read from its evidence folder — which the
 * Editor model itself may not read. It runs `--version` probes and the
 * baseline verification; it never writes a project file.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { Config } from '../../config/config.js';
import { runDir } from '../../runs/runs.js';
import { commandSandbox } from '../../sandbox/for-workspace.js';
import { runCommand, type CommandSandbox } from '../../verify/runner.js';
import { detectProject, type Detection } from '../../verify/detect.js';
import { formatDiagnostic, type Diagnostic } from '../../verify/diagnostics/index.js';
import type { VerifyResult, VerifyWorkspace } from '../../verify/verifier.js';
import { testLayout } from './conventions.js';
import { describeSteps, firstErrors, relativeDiagnostic, runVerification, verificationCommands, type Verification } from '../editor/verification.js';
import { readSmallFile } from '../../small-file.js';

export interface ToolVersion {
  tool: string;
  version: string | null;
}

interface StepSummary {
  kind: string;
  command: string;
  passed: boolean;
  exit_code: number | null;
  timed_out: boolean;
  artifact_dir: string;
  errors: number;
  warnings: number;
  failing_tests: number;
  /** Failures compared with the baseline, when one was recorded for this command. */
  new_failures?: string[];
  old_failures?: number;
  fixed?: number;
}

export interface VerificationSummary {
  run_id: string;
  passed: boolean;
  steps: StepSummary[];
  lines: string[];
  first_errors: string[];
}

export interface EnvironmentPayload {
  scout: 'environment';
  kinds: string[];
  build: { command: string; source: string } | null;
  test: { command: string; source: string } | null;
  framework: string | null;
  package_manager: string | null;
  test_files: number;
  /** A test command exists and test files were found. */
  has_test_suite: boolean;
  /** When there is no suite: the framework new tests should be written in, from the package files. */
  suggested_framework: string | null;
  toolchain: ToolVersion[];
  baseline: VerificationSummary | { skipped: string };
}

export interface RunInterpretation {
  scout: 'environment';
  run_id: string;
  steps: Array<StepSummary & { diagnostics: string[]; log_tail: string }>;
}

const PROBES: Record<string, Array<[string, string[]]>> = {
  node: [
    ['node', ['--version']],
    ['npm', ['--version']],
  ],
  typescript: [['node_modules/.bin/tsc', ['--version']]],
  python: [['python3', ['--version']]],
  go: [['go', ['version']]],
  cargo: [
    ['cargo', ['--version']],
    ['rustc', ['--version']],
  ],
  cmake: [
    ['cmake', ['--version']],
    ['c++', ['--version']],
  ],
  meson: [
    ['meson', ['--version']],
    ['ninja', ['--version']],
  ],
  make: [
    ['make', ['--version']],
    ['cc', ['--version']],
  ],
  maven: [['java', ['-version']]],
  gradle: [['java', ['-version']]],
};

/** `node_modules/.bin/tsc` is a file the agent can write: a probe is a command like any other, so it runs in the sandbox. */
async function probe(root: string, sandbox: CommandSandbox, program: string, args: string[]): Promise<ToolVersion> {
  const local = program.includes('/');
  const file = local ? path.join(root, program) : program;
  const tool = local ? path.basename(program) : program;
  if (local && !fs.existsSync(file)) return { tool, version: null };
  const r = await runCommand({ command: [file, ...args], cwd: root, sandbox, timeoutMs: 5000, graceMs: 500, tailLines: 5 });
  // `java -version` answers on stderr; a missing program is a version of null, not an error.
  const text =
    `${r.stdoutTail}\n${r.stderrTail}`
      .split('\n')
      .map((l) => l.trim())
      .find((l) => l !== '') ?? '';
  const failed = r.spawn_error !== undefined || r.exit_code !== 0;
  // Under a sandbox a missing program is the sandbox's complaint ("bwrap: execvp cmake: No such file…"), not a version.
  const missing = failed && (text === '' || /^(bwrap|sandbox-exec): /.test(text));
  return { tool, version: missing ? null : text.slice(0, 120) || null };
}

async function toolchainVersions(ws: VerifyWorkspace, detection: Detection, config: Config): Promise<ToolVersion[]> {
  const root = ws.root;
  const sandbox = commandSandbox(ws, config);
  const wanted: Array<[string, string[]]> = [];
  const seen = new Set<string>();
  for (const kind of detection.kinds) {
    for (const p of PROBES[kind] ?? []) {
      if (seen.has(p[0])) continue;
      seen.add(p[0]);
      wanted.push(p);
    }
  }
  const pm = detection.projects.find((p) => p.packageManager)?.packageManager;
  if (pm && pm !== 'npm' && !seen.has(pm)) wanted.push([pm, ['--version']]);
  return Promise.all(wanted.map(([program, args]) => probe(root, sandbox, program, args)));
}

function summarizeStep(s: VerifyResult): StepSummary {
  const failures = (d: Diagnostic): boolean => d.severity === 'error';
  return {
    kind: s.kind,
    command: s.command,
    passed: s.passed,
    exit_code: s.exit_code,
    timed_out: s.timed_out,
    artifact_dir: s.artifact_dir,
    errors: s.diagnostics.filter((d) => failures(d) && d.test === undefined).length,
    warnings: s.diagnostics.filter((d) => d.severity === 'warning').length,
    failing_tests: s.diagnostics.filter((d) => failures(d) && d.test !== undefined).length,
    ...(s.baseline
      ? {
          new_failures: s.baseline.new
            .filter(failures)
            .slice(0, 10)
            .map((d) => relativeDiagnostic(formatDiagnostic(d), s.cwd)),
          old_failures: s.baseline.old.filter(failures).length,
          fixed: s.baseline.fixed.length,
        }
      : {}),
  };
}

export function summarizeVerification(v: Verification): VerificationSummary {
  return { run_id: v.run_id, passed: v.passed, steps: v.steps.map(summarizeStep), lines: describeSteps(v), first_errors: firstErrors(v) };
}

/** Which framework tests should be written in when the project has none, judged from its package files. */
function suggestFramework(detection: Detection, root: string): string | null {
  if (detection.framework) return detection.framework;
  for (const p of detection.projects) {
    switch (p.kind) {
      case 'node':
      case 'typescript':
        return hasDependency(root, 'vitest') ? 'vitest' : hasDependency(root, 'jest') ? 'jest' : hasDependency(root, 'mocha') ? 'mocha' : 'node:test';
      case 'python':
        return /\bpytest\b/.test(readText(root, 'pyproject.toml') + readText(root, 'requirements-dev.txt') + readText(root, 'setup.cfg')) ? 'pytest' : 'unittest';
      case 'go':
        return 'go test';
      case 'cargo':
        return 'cargo test';
      case 'cmake':
        return 'ctest';
      case 'meson':
        return 'meson';
      case 'maven':
      case 'gradle':
        return 'junit';
      case 'make':
        break;
      default: {
        const never: never = p.kind;
        return never;
      }
    }
  }
  return null;
}

function readText(root: string, rel: string): string {
  try {
    // The repository's files: never a FIFO or an endless device behind a committed link (small-file.ts).
    return readSmallFile(path.join(root, rel), { maxBytes: 4 * 1024 * 1024, follow: true }).toString('utf8');
  } catch {
    return '';
  }
}

function hasDependency(root: string, name: string): boolean {
  try {
    const pkg = JSON.parse(readText(root, 'package.json')) as { dependencies?: Record<string, string>; devDependencies?: Record<string, string> };
    return name in { ...pkg.dependencies, ...pkg.devDependencies };
  } catch {
    return false;
  }
}

export interface EnvironmentOptions {
  config: Config;
  /** Project files (for counting test files). */
  files: readonly string[];
  /** Run the baseline verification (false in a dry run: no verification runs). */
  baseline: boolean | string;
  signal?: AbortSignal;
  /** Toolchain versions already probed in this session. */
  toolchain?: ToolVersion[];
}

export async function scoutEnvironment(ws: VerifyWorkspace, options: EnvironmentOptions): Promise<{ payload: EnvironmentPayload; baseline: Verification | null }> {
  const detection = detectProject(ws.root);
  const commands = verificationCommands(ws, options.config);
  const tests = testLayout(options.files);
  const hasSuite = commands.test !== null && tests.files > 0;
  const toolchain = options.toolchain ?? (await toolchainVersions(ws, detection, options.config));
  let baseline: Verification | null = null;
  let baselineSummary: EnvironmentPayload['baseline'];
  if (options.baseline !== true) {
    baselineSummary = { skipped: typeof options.baseline === 'string' ? options.baseline : 'not requested' };
  } else if (!commands.build && !commands.test) {
    baselineSummary = { skipped: 'no build or test command' };
  } else {
    baseline = await runVerification(ws, { config: options.config, baseline: 'record', ...(options.signal ? { signal: options.signal } : {}) });
    baselineSummary = summarizeVerification(baseline);
  }
  return {
    payload: {
      scout: 'environment',
      kinds: detection.kinds,
      build: commands.build,
      test: commands.test,
      framework: detection.framework,
      package_manager: detection.projects.find((p) => p.packageManager)?.packageManager ?? null,
      test_files: tests.files,
      has_test_suite: hasSuite,
      suggested_framework: hasSuite ? null : suggestFramework(detection, ws.root),
      toolchain,
      baseline: baselineSummary,
    },
    baseline,
  };
}

/** Reads a verification's evidence (result.json of each step, the log's tail) back from the run folder. */
export function interpretRun(ws: VerifyWorkspace, runId: string, logLines = 40): RunInterpretation {
  const dir = path.join(runDir(ws, runId), 'verify');
  let entries: string[];
  try {
    entries = fs
      .readdirSync(dir)
      .filter((x) => /^\d+$/.test(x))
      .sort((a, b) => Number(a) - Number(b));
  } catch {
    entries = [];
  }
  const steps: RunInterpretation['steps'] = [];
  for (const n of entries) {
    let result: VerifyResult;
    try {
      result = JSON.parse(fs.readFileSync(path.join(dir, n, 'result.json'), 'utf8')) as VerifyResult;
    } catch {
      continue;
    }
    const log = readText(path.join(dir, n), 'combined.log');
    const tail = log
      .split('\n')
      .slice(-logLines - 1)
      .join('\n')
      .trimEnd();
    steps.push({ ...summarizeStep({ ...result, diagnostics: result.diagnostics ?? [] }), diagnostics: (result.diagnostics ?? []).slice(0, 30).map((d) => relativeDiagnostic(formatDiagnostic(d), result.cwd)), log_tail: tail });
  }
  return { scout: 'environment', run_id: runId, steps };
}
