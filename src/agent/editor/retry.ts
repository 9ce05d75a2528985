/**
 * `--retry`: the latest stuck report for the same task, found through the
 * `editor.json` each Editor run leaves in its run folder. Only the report
 * is handed on — not transcripts, not contexts, not earlier reports: the
 * next session starts from what the last one concluded. Reads the state
 * folder only; never writes.
 */
import fs from 'node:fs';
import path from 'node:path';
import { EditwardenError, ErrorCode } from '../../errors.js';
import { listRuns, runDir, type HasStateDir } from '../../runs/runs.js';
import { atomicWriteFile } from '../../workspace/atomic.js';
import { RECORD_FILE, type EditorRecord } from './state.js';

export const STUCK_REPORT_FILE = 'stuck_report.md';
export const SUMMARY_FILE = 'summary.md';
export const PROPOSAL_FILE = 'proposal.diff';

export function saveRecord(dir: string, record: EditorRecord): string {
  const file = path.join(dir, RECORD_FILE);
  atomicWriteFile(file, Buffer.from(`${JSON.stringify(record, null, 2)}\n`));
  return file;
}

function readRecord(ws: HasStateDir, runId: string): EditorRecord | null {
  try {
    const data = JSON.parse(fs.readFileSync(path.join(runDir(ws, runId), RECORD_FILE), 'utf8')) as EditorRecord;
    return data && data.version === 1 ? data : null;
  } catch {
    return null;
  }
}

export interface StuckSeed {
  runId: string;
  /** The report, as the run folder keeps it. */
  file: string;
  text: string;
}

/** The newest run of this task that ended with a stuck report, or null. */
export function latestStuckReport(ws: HasStateDir, key: string): StuckSeed | null {
  for (const id of listRuns(ws).reverse()) {
    const record = readRecord(ws, id);
    if (!record || record.task_key !== key || record.status !== 'hard-stop') continue;
    const file = path.join(runDir(ws, id), STUCK_REPORT_FILE);
    try {
      return { runId: id, file, text: fs.readFileSync(file, 'utf8') };
    } catch {}
  }
  return null;
}

export function noStuckReport(): EditwardenError {
  return new EditwardenError({
    code: ErrorCode.NO_FILE,
    message: 'There is no stuck report for this task: --retry needs an earlier Editor run of the same task that hard-stopped.',
    hint: 'Run without --retry, or give the task exactly as before (case and spacing do not matter).',
  });
}
