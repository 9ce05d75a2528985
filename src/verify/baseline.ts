/**
 * The baseline: which diagnostics and tests already failed before any edit,
 * so a later run can tell the failures an edit caused from those it found.
 * Stored per command in `.editwarden/verify/baseline.json` (state folder,
 * never a project file). Comparing never changes a verdict — that is the exit
 * code's job — it only sorts failures into new, old and fixed.
 */
import fs from 'node:fs';
import path from 'node:path';
import { atomicWriteFile } from '../workspace/atomic.js';
import { ensureStateSubdir } from '../workspace/state-dir.js';
import type { HasStateDir } from '../runs/runs.js';
import type { Diagnostic } from './diagnostics/types.js';

const BASELINE_FILE = 'verify/baseline.json';

interface FailureRecord {
  key: string;
  tool: string;
  severity: string;
  file: string | null;
  test?: string;
  message: string;
}

export interface BaselineEntry {
  recorded_at: string;
  run_id: string;
  command: string;
  exit_code: number | null;
  passed: boolean;
  failures: FailureRecord[];
}

export interface BaselineFile {
  version: 1;
  /** Keyed by `<kind>:<command>`: a baseline of `make` says nothing about `make test`. */
  entries: Record<string, BaselineEntry>;
}

export interface BaselineComparison {
  recorded_at: string;
  baseline_run_id: string;
  baseline_passed: boolean;
  /** Failing now, not before: what the change broke. */
  new: Diagnostic[];
  /** Failing now and before. */
  old: Diagnostic[];
  /** Failing before, not now. */
  fixed: FailureRecord[];
  /** A new error or failing test, or a run that passed before and fails now. */
  regressed: boolean;
}

export function baselineKey(kind: string, command: string): string {
  return `${kind}:${command}`;
}

/**
 * What identifies "the same failure" across runs: line numbers move when
 * code is edited above, so they are left out; test failures are their test's
 * name (the assertion's values may differ, it is still the test that fails).
 */
function failureKey(d: Diagnostic, root: string): string {
  const file = d.file === null ? '' : normaliseFile(d.file, root);
  if (d.test !== undefined) return `${d.tool}|test|${file}|${d.test}`;
  return `${d.tool}|${d.severity}|${file}|${d.code ?? ''}|${d.message.split('\n')[0]?.trim()}`;
}

function normaliseFile(file: string, root: string): string {
  const absolute = path.isAbsolute(file) ? file : path.join(root, file);
  return path.relative(root, absolute).split(path.sep).join('/');
}

/** Errors and warnings count; notes only explain them. */
function failuresOf(diagnostics: readonly Diagnostic[]): Diagnostic[] {
  return diagnostics.filter((d) => d.severity !== 'note');
}

export function readBaseline(ws: HasStateDir): BaselineFile {
  try {
    const data = JSON.parse(fs.readFileSync(path.join(ws.stateDir, BASELINE_FILE), 'utf8')) as BaselineFile;
    if (data && data.version === 1 && typeof data.entries === 'object' && data.entries !== null) return data;
  } catch {
    // No baseline yet, or a damaged one: treated alike, as none.
  }
  return { version: 1, entries: {} };
}

export function recordBaseline(
  ws: HasStateDir & { root: string },
  kind: string,
  run: { run_id: string; command: string; exit_code: number | null; passed: boolean; diagnostics: readonly Diagnostic[] },
  now: Date = new Date(),
): BaselineEntry {
  const file = readBaseline(ws);
  const entry: BaselineEntry = {
    recorded_at: now.toISOString(),
    run_id: run.run_id,
    command: run.command,
    exit_code: run.exit_code,
    passed: run.passed,
    failures: failuresOf(run.diagnostics).map((d) => {
      const record: FailureRecord = { key: failureKey(d, ws.root), tool: d.tool, severity: d.severity, file: d.file, message: d.message.split('\n')[0] ?? '' };
      if (d.test !== undefined) record.test = d.test;
      return record;
    }),
  };
  file.entries[baselineKey(kind, run.command)] = entry;
  const target = path.join(ws.stateDir, BASELINE_FILE);
  // A real folder of ours (a planted `.editwarden/verify` symlink must not take the baseline outside); the rename replaces a planted link.
  ensureStateSubdir(ws.stateDir, path.posix.dirname(BASELINE_FILE));
  atomicWriteFile(target, Buffer.from(`${JSON.stringify(file, null, 2)}\n`));
  return entry;
}

export function compareWithBaseline(entry: BaselineEntry, root: string, passed: boolean, diagnostics: readonly Diagnostic[]): BaselineComparison {
  const before = new Set(entry.failures.map((f) => f.key));
  const nowKeys = new Set<string>();
  const fresh: Diagnostic[] = [];
  const old: Diagnostic[] = [];
  for (const d of failuresOf(diagnostics)) {
    const key = failureKey(d, root);
    nowKeys.add(key);
    (before.has(key) ? old : fresh).push(d);
  }
  const fixed = entry.failures.filter((f) => !nowKeys.has(f.key));
  return {
    recorded_at: entry.recorded_at,
    baseline_run_id: entry.run_id,
    baseline_passed: entry.passed,
    new: fresh,
    old,
    fixed,
    regressed: fresh.some((d) => d.severity === 'error') || (entry.passed && !passed),
  };
}
