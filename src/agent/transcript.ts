/**
 * The run transcript: one JSON object per line in the run folder
 * (`transcript.jsonl`), appended as things happen so a killed run still
 * leaves its story. It records what the model was told and what it
 * answered (an `assistant` line per turn — replayable with `replay:FILE`),
 * each tool call's outcome, active-edit directives, approvals, usage and
 * how the run ended. It writes only into the run folder, never a project file.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { ModelToolCall, TokenUsage } from './providers/types.js';
import type { ErrorInfo } from '../errors.js';

const TRANSCRIPT_FILE = 'transcript.jsonl';

export type TranscriptEvent =
  | { type: 'start'; run_id: string; model: string; mode: string; task: string; tools: string[]; active_edit: boolean; system: string }
  | { type: 'user'; content: string }
  | { type: 'assistant'; turn: number; text: string; tool_calls: ModelToolCall[]; usage: TokenUsage; stop_reason: string }
  | {
      type: 'tool_result';
      turn: number;
      call_id: string;
      tool: string;
      /** ok / failed / refused / declined (the runner's), malformed (never reached a tool), skipped (not run: the run was over). */
      status: string;
      output: string;
      error?: ErrorInfo;
      files?: string[];
    }
  | { type: 'active_edit'; turn: number; index: number; path?: string; status: string; output: string }
  | { type: 'approval'; tool: string; decision: 'approved' | 'declined'; reason?: string }
  | { type: 'question'; question: string; answer: string }
  | { type: 'note'; text: string }
  | { type: 'end'; status: string; reason: string; exit_code: number };

export type TimedEvent = TranscriptEvent & { at: string };

export interface TranscriptSink {
  write(event: TranscriptEvent): void;
}

/** Appends to `<dir>/transcript.jsonl`; null dir keeps the events in memory only. */
export class Transcript implements TranscriptSink {
  readonly file: string | null;
  readonly events: TimedEvent[] = [];

  constructor(
    dir: string | null,
    private readonly now: () => Date = () => new Date(),
  ) {
    this.file = dir ? path.join(dir, TRANSCRIPT_FILE) : null;
  }

  write(event: TranscriptEvent): void {
    const timed = { ...event, at: this.now().toISOString() } as TimedEvent;
    this.events.push(timed);
    if (!this.file) return;
    try {
      fs.appendFileSync(this.file, `${JSON.stringify(timed)}\n`);
    } catch {
      // Evidence, not function: a full disk must not stop the run it records.
    }
  }
}

/**
 * Reads a transcript file back (lines that are not JSON are skipped).
 * @knipignore unused (providers/script.ts reads a transcript its own way); kept only while agent/ is restructured on another branch (issue 30 §1): remove or use after that merge.
 */
export function readTranscript(file: string): TimedEvent[] {
  const out: TimedEvent[] = [];
  for (const line of fs.readFileSync(file, 'utf8').split('\n')) {
    if (line.trim() === '') continue;
    try {
      out.push(JSON.parse(line) as TimedEvent);
    } catch {
      // A line cut by a crash: the rest is still worth reading.
    }
  }
  return out;
}
