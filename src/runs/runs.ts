/**
 * Run ids and run folders: every verification, controlled edit and editor
 * session files its evidence under `.editwarden/runs/<run_id>/`. Run ids sort
 * by time as plain strings. This module names and creates folders; it must
 * never accept a run id that could lead outside the runs folder.
 */
import fs from 'node:fs';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import { EditwardenError, ErrorCode } from '../errors.js';
import { ensureStateSubdir } from '../workspace/state-dir.js';
import { greatestOf } from '../arrays.js';

const RUNS_DIR = 'runs';

/** `20261121T235959Z-ab12cd`: UTC second, then 6 random hex digits for runs started in the same second. */
const RUN_ID = /^\d{8}T\d{6}Z-[0-9a-f]{6}$/;

export function newRunId(now: Date = new Date(), random: () => string = () => randomBytes(3).toString('hex')): string {
  const stamp = now
    .toISOString()
    .replace(/[-:]/g, '')
    .replace(/\.\d{3}Z$/, 'Z');
  return `${stamp}-${random()}`;
}

export function isRunId(value: string): boolean {
  return RUN_ID.test(value);
}

/** Anything that knows its state folder (a Workspace does). */
export interface HasStateDir {
  readonly stateDir: string;
}

export function runsRoot(ws: HasStateDir): string {
  return path.join(ws.stateDir, RUNS_DIR);
}

/** The folder of one run; refuses ids that are not run ids (a "../" in a flag must not pick the folder). */
export function runDir(ws: HasStateDir, runId: string): string {
  if (!isRunId(runId)) {
    throw new EditwardenError({
      code: ErrorCode.USAGE,
      message: `${JSON.stringify(runId)} is not a run id.`,
      hint: 'Run ids look like 20261121T235959Z-ab12cd; omit the run id to start a new run.',
    });
  }
  return path.join(runsRoot(ws), runId);
}

/** Creates (if needed) and returns the folder of one run. */
export function ensureRunDir(ws: HasStateDir, runId: string): string {
  const dir = runDir(ws, runId);
  // The state folder gets its ignore file whichever command makes it first (run, verify, MCP — not only edit),
  // and `runs/` and the run's folder must be real folders (a planted symlink would send the run's records outside).
  ensureStateSubdir(ws.stateDir, `${RUNS_DIR}/${runId}`);
  return dir;
}

/** Run ids present on disk, oldest first. */
export function listRuns(ws: HasStateDir): string[] {
  let names: string[];
  try {
    names = fs.readdirSync(runsRoot(ws));
  } catch {
    return [];
  }
  return names.filter(isRunId).sort();
}

/**
 * Claims the next numbered folder `<parent>/<n>/` (1, 2, 3, …). mkdir without
 * `recursive` fails if the folder exists, so two verifiers in one run never
 * share a number.
 */
export function claimNumberedDir(parent: string): { n: number; dir: string } {
  fs.mkdirSync(parent, { recursive: true });
  let n =
    1 +
    greatestOf([
      0,
      ...fs
        .readdirSync(parent)
        .filter((x) => /^\d+$/.test(x))
        .map(Number),
    ]);
  for (;;) {
    const dir = path.join(parent, String(n));
    try {
      fs.mkdirSync(dir);
      return { n, dir };
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      n++;
    }
  }
}
