/**
 * Context recording: versioned snapshots `agent/context_001.md`,
 * `agent/context_002.md`, … — one at the start of a session and one at each
 * REPLAN — each followed by the raw payload of every scout query made
 * while it is the current snapshot. Numbers continue after the files
 * already there, so an earlier session's context is never overwritten. The
 * scope section is written from the same input every time: a REPLAN changes
 * the strategy, never the scope. Writes only through records.ts.
 */
import { existingRecords, writeRecord, type RecordTarget } from './records.js';
import { greatestOf } from '../../arrays.js';

export interface Snapshot {
  reason: 'start' | 'replan';
  runId: string;
  /** The task and the constraints: identical in every snapshot of a session. */
  scope: string;
  strategy: number;
  /** Everything else worth knowing at this point (state, verifications, hypotheses), as markdown. */
  body: string;
}

export interface ScoutRecord {
  scout: 'codebase' | 'environment';
  /** What was asked ("query …", "start", "interpret run …"). */
  request: string;
  payload: unknown;
}

const CONTEXT_FILE = /^context_(\d{3,})\.md$/;

function contextName(n: number): string {
  return `context_${String(n).padStart(3, '0')}.md`;
}

export class ContextRecorder {
  private current: { name: string; head: string; payloads: string[] } | null = null;
  private next: number;
  readonly written: string[] = [];

  constructor(
    private readonly target: RecordTarget,
    private readonly now: () => Date = () => new Date(),
  ) {
    const taken = existingRecords(target)
      .map((n) => CONTEXT_FILE.exec(n)?.[1])
      .filter((x): x is string => x !== undefined)
      .map(Number);
    this.next = taken.length === 0 ? 1 : greatestOf(taken) + 1;
  }

  /** The current snapshot's path (relative to the root), or null before the first. */
  get currentFile(): string | null {
    return this.written[this.written.length - 1] ?? null;
  }

  /** Starts a new versioned snapshot; scout payloads recorded from now on are appended to it. */
  snapshot(s: Snapshot, payloads: readonly ScoutRecord[] = []): string {
    const n = this.next++;
    const title = s.reason === 'start' ? `Editor context ${String(n).padStart(3, '0')} — start (strategy ${s.strategy})` : `Editor context ${String(n).padStart(3, '0')} — REPLAN (strategy ${s.strategy})`;
    const head = [`# ${title}`, '', `run ${s.runId} · written ${this.now().toISOString()}`, '', '## Scope (unchanged by REPLAN)', '', s.scope.trimEnd(), '', s.body.trimEnd(), '', '## Scout payloads (raw)', ''].join('\n');
    this.current = { name: contextName(n), head, payloads: [] };
    for (const p of payloads) this.current.payloads.push(render(p));
    const rel = this.flush();
    this.written.push(rel);
    return rel;
  }

  /** Appends a scout's raw payload to the current snapshot. */
  record(p: ScoutRecord): void {
    if (!this.current) return;
    this.current.payloads.push(render(p));
    this.flush();
  }

  private flush(): string {
    const c = this.current as { name: string; head: string; payloads: string[] };
    const payloads = c.payloads.length === 0 ? ['(none yet)\n'] : c.payloads;
    return writeRecord(this.target, c.name, `${c.head}\n${payloads.join('\n')}`);
  }
}

function render(p: ScoutRecord): string {
  return [`### Scout ${p.scout === 'codebase' ? 'A (codebase)' : 'B (environment)'} — ${p.request}`, '', '```json', JSON.stringify(p.payload, null, 2), '```', ''].join('\n');
}
