/**
 * The stop signal of one tool call: the run's deadline, the run's
 * cancellation (Ctrl-C) or this call's (an MCP client's), whichever comes
 * first — aborted with a CallStop naming which. The deadline is paused while
 * a person decides on an approval (waiting for a person is not agent time).
 * It never decides what a stop means for the run: the runner does.
 */
import { CallStop, type StopCause, type ToolResult } from './types.js';

/** Node's longest timer (2^31 - 1 ms): a longer (or infinite) delay fires after 1 ms instead. */
const MAX_TIMER_MS = 2 ** 31 - 1;

export class CallSignal {
  private readonly controller = new AbortController();
  private deadline: NodeJS.Timeout | undefined;
  private readonly onRunCancel = this.stopper('run-cancelled');
  private readonly onCallCancel = this.stopper('call-cancelled');

  constructor(
    private readonly remainingMs: () => number,
    private readonly run: AbortSignal | undefined,
    private readonly call: AbortSignal | undefined,
  ) {
    run?.addEventListener('abort', this.onRunCancel, { once: true });
    call?.addEventListener('abort', this.onCallCancel, { once: true });
    this.arm();
  }

  get signal(): AbortSignal {
    return this.controller.signal;
  }

  /** What stopped the call, or null while it runs. */
  stoppedBy(): StopCause | null {
    const reason: unknown = this.controller.signal.reason;
    return reason instanceof CallStop ? reason.stop : null;
  }

  /** Stops the deadline (while an approval is waited for). */
  pause(): void {
    clearTimeout(this.deadline);
  }

  /** (Re-)arms the deadline for the time the run has left. */
  arm(): void {
    clearTimeout(this.deadline);
    const left = this.remainingMs();
    // No time limit (an interactive session's, profile.ts): no deadline. Past Node's longest timer, setTimeout would fire at once.
    if (left > MAX_TIMER_MS) return;
    this.deadline = setTimeout(this.stopper('deadline'), Math.max(0, left));
  }

  dispose(): void {
    clearTimeout(this.deadline);
    this.run?.removeEventListener('abort', this.onRunCancel);
    this.call?.removeEventListener('abort', this.onCallCancel);
  }

  private stopper(cause: StopCause): () => void {
    return () => {
      if (!this.controller.signal.aborted) this.controller.abort(new CallStop(cause));
    };
  }
}

/** The tool's promise, or undefined if it has not settled `graceMs` after the signal aborted (it is abandoned). */
export async function settleOrAbandon(work: Promise<ToolResult>, signal: AbortSignal, graceMs: number): Promise<ToolResult | undefined> {
  let timer: NodeJS.Timeout | undefined;
  let onAbort: (() => void) | undefined;
  const gaveUp = new Promise<undefined>((resolve) => {
    onAbort = () => {
      timer = setTimeout(() => resolve(undefined), graceMs);
    };
    if (signal.aborted) onAbort();
    else signal.addEventListener('abort', onAbort, { once: true });
  });
  try {
    return await Promise.race([work, gaveUp]);
  } finally {
    clearTimeout(timer);
    if (onAbort) signal.removeEventListener('abort', onAbort);
  }
}
