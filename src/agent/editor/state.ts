/**
 * What an Editor session knows about itself, as plain data: the counters,
 * the strategies and hypotheses, every verification with its run_id, and
 * how it ended. The session fills it in; reports are rendered from it and
 * it is saved as `editor.json` in the run folder (the file `--retry` looks
 * for). No behaviour here beyond small pure helpers.
 */
import { createHash } from 'node:crypto';
import { ExitCode } from '../../errors.js';
import type { DebugCounters, LoopDecision } from './counters.js';

import type { RunStatus } from '../../runs/outcome.js';
import type { EditorFlavour } from '../../runs/profile.js';

export type { EditorFlavour };

/** How an Editor session ends: its part of the one RunStatus vocabulary (runs/outcome.ts says what each means). */
export type EditorStatus = Extract<RunStatus, 'success' | 'proposal' | 'hard-stop' | 'cancelled' | 'violation' | 'verify-failed' | 'failed'>;

/** The exit code per status; the numbers are errors.ts's ExitCode, the one table. */
export const EXIT_CODES: Readonly<Record<EditorStatus, ExitCode>> = {
  success: ExitCode.OK,
  proposal: ExitCode.OK,
  'hard-stop': ExitCode.HARD_STOP,
  cancelled: ExitCode.INTERRUPTED,
  violation: ExitCode.CONSTRAINT,
  'verify-failed': ExitCode.VERIFY_FAILED,
  failed: ExitCode.REJECTED,
};

export interface VerificationEntry {
  /** 1-based order in the session. */
  n: number;
  run_id: string;
  passed: boolean;
  strategy: number;
  /** What asked for it: the model's verify call, its task_completion, or apply-proposal. */
  trigger: 'verify' | 'completion' | 'proposal';
  /** The counters after this verification (a REPLAN's reset done). */
  counters: DebugCounters;
  /** The counters it reached before any reset: the specification's "consecutive=3, total=3 → REPLAN triggered". */
  reached: DebugCounters;
  decision: LoopDecision['action'];
  lines: string[];
  first_errors: string[];
}

export interface HypothesisEntry {
  strategy: number;
  hypothesis: string;
  /** The approach being taken, when the Editor stated one. */
  approach?: string;
  /** Verifications done when it was recorded. */
  after_verification: number;
  /** Where it came from: the Editor's record_hypothesis (default), its blocked summary, or its answer when asked at the hard stop. */
  source?: 'record_hypothesis' | 'blocked' | 'asked-at-hard-stop' | 'last-failure';
}

export interface FileChangeEntry {
  path: string;
  added: number;
  removed: number;
  created: boolean;
}

export interface EditorRecord {
  version: 1;
  run_id: string;
  flavour: EditorFlavour;
  task: string;
  task_key: string;
  model: string | null;
  status: EditorStatus;
  exit_code: number;
  reason: string;
  started_at: string;
  finished_at: string;
  strategy: number;
  counters: DebugCounters;
  verifications: VerificationEntry[];
  baseline_run_id: string | null;
  green_run_id: string | null;
  hypotheses: HypothesisEntry[];
  files_changed: FileChangeEntry[];
  completion?: { summary: string; status: string };
  /** Run whose stuck report seeded this session (--retry). */
  seeded_from?: string;
  reports: { summary?: string; stuck_report?: string; proposal?: string; contexts: string[] };
}

export const RECORD_FILE = 'editor.json';

/** Same task, same key: whitespace and case do not make a task new. */
export function taskKey(task: string): string {
  return createHash('sha256').update(task.trim().replace(/\s+/g, ' ').toLowerCase()).digest('hex').slice(0, 16);
}
