/**
 * The undo steps of a wrapped agent (`editwarden wrap`): what it changed
 * between two quiet moments is one step, measured exactly as a guarded
 * shell command's effects are (guard/command-effects.ts: the index taken at
 * the step's start, the diff after, protected paths the agent created or
 * changed put back at once, one undo step of exactly the changed paths),
 * and recorded in the event log as it happens: an `edit` event per step
 * (tool `wrap`, its diff and its undo step), a `refusal` per protected path
 * put back, and at the end one `command` event with the agent's exit code.
 *
 * A capture while the agent runs holds its whole process tree still
 * (verify/process-tree.ts) from the diff that closes one step to the index
 * that opens the next: a write in that gap would belong to no step.
 *
 * It must never write a project file itself: put-backs happen in
 * CommandEffects (the protected set) and undo through the one restore
 * primitive.
 */
import path from 'node:path';
import { ErrorCode, toErrorInfo, type ErrorInfo } from '../errors.js';
import { CommandEffects, type CommandEffectsResult, type EffectsMark } from '../guard/command-effects.js';
import { recordEvent, type EventRoute } from '../runs/events.js';
import type { SandboxPolicy } from '../sandbox/policy.js';
import type { Project } from '../host/project.js';
import { freezeTree, thawTree, type FrozenTree } from '../verify/process-tree.js';
import { notKeptLine } from '../workspace/checkpoints/ignored.js';
import { defined } from '../defined.js';

export interface WrapStep {
  /** The undo step (a checkpoint id), or null when the period changed nothing of the agent's. */
  step: string | null;
  paths: string[];
  /** Protected paths the agent created or changed, put back. */
  putBack: string[];
}

export interface WrapStepsOptions {
  project: Project;
  sandbox: SandboxPolicy;
  route: EventRoute;
  /** The agent's command line, as the undo step and the log name it. */
  command: string;
  /** Where editwarden speaks (stderr): a put-back, a capture that failed. */
  say: (line: string) => void;
}

export class WrapSteps {
  private readonly effects: CommandEffects;
  private mark: EffectsMark | null = null;
  private queue: Promise<unknown> = Promise.resolve();
  /** The sandbox's bwrap process once started: the tree a capture holds still. */
  tree: number | null = null;
  readonly steps: WrapStep[] = [];

  constructor(private readonly options: WrapStepsOptions) {
    this.effects = new CommandEffects(options.project.transactions.checkpoints, options.project.config);
  }

  /** Takes the first index (before the agent starts). Throws when it cannot: no index, no undo — the agent is not started. */
  begin(): void {
    this.mark = this.open();
  }

  /** Closes the open step and (unless `last`) opens the next; captures run one at a time, in the order asked. */
  capture(last = false): Promise<WrapStep | null> {
    const next = this.queue.then(() => this.captureNow(last));
    this.queue = next.catch(() => undefined);
    return next;
  }

  private open(): EffectsMark {
    const { command, route } = this.options;
    return this.effects.before(`wrap ${command}`, { command, client: route.client ?? 'wrap', tool: 'wrap', ...defined({ session: route.session }) });
  }

  private async captureNow(last: boolean): Promise<WrapStep | null> {
    const mark = this.mark;
    if (mark === null) return null;
    const frozen: FrozenTree | null = !last && this.tree !== null ? await freezeTree(this.tree) : null;
    let found: CommandEffectsResult;
    try {
      if (frozen && frozen.late.length > 0) this.options.say(`[editwarden] ${frozen.late.length} process(es) of the agent did not stop in time; a write of theirs during this capture may land in the next step.`);
      const window = { start: mark.startedAt ?? new Date().toISOString(), end: new Date().toISOString() };
      try {
        found = this.effects.after(mark, { readOnly: this.options.sandbox.readOnly, window });
      } finally {
        this.mark = null;
      }
      // The next step opens before the agent moves again.
      if (!last) this.mark = this.open();
    } finally {
      if (frozen) thawTree(frozen);
    }
    // Written with the agent running again: the log needs no still tree.
    return this.record(found);
  }

  private record(found: CommandEffectsResult): WrapStep | null {
    const { project, route, say } = this.options;
    const stateDir = project.ws.stateDir;
    const notKept = notKeptLine(found.ignored.notKept);
    if (notKept !== null) say(`[editwarden] ${notKept}`);
    const putBack = found.governing.filter((g) => g.reverted).map((g) => g.path);
    for (const g of found.governing) {
      const refusal = protectedRefusal(g.path, g.reverted);
      say(`[editwarden] ${refusal.code}: ${refusal.message}`);
      const failed = recordEvent(stateDir, { kind: 'refusal', route, tool: 'wrap', paths: [g.path], code: refusal.code, message: refusal.message, hint: refusal.hint });
      if (failed) say(`[editwarden] could not log this: ${failed.message}`);
    }
    if (found.changes.length === 0 && putBack.length === 0) return null;
    const step: WrapStep = { step: found.step, paths: found.changes.map((c) => c.path), putBack };
    this.steps.push(step);
    if (found.changes.length > 0) {
      const failed = recordEvent(stateDir, {
        kind: 'edit',
        route,
        tool: 'wrap',
        paths: step.paths,
        added: found.changes.reduce((n, c) => n + c.added, 0),
        removed: found.changes.reduce((n, c) => n + c.removed, 0),
        ...defined({ diff: found.diff !== '' ? found.diff : undefined, checkpoint: found.step ?? undefined }),
      });
      if (failed) say(`[editwarden] could not log this step: ${failed.message}`);
    }
    return step;
  }

  /** The agent ended: its one `command` event (exit code, every file its steps changed). */
  finish(exitCode: number | null, failure: ErrorInfo | null): void {
    const { project, route, command, say } = this.options;
    const paths = [...new Set(this.steps.flatMap((s) => s.paths))];
    const putBack = [...new Set(this.steps.flatMap((s) => s.putBack))];
    const failed = recordEvent(project.ws.stateDir, {
      kind: 'command',
      route,
      tool: 'wrap',
      command,
      exit_code: exitCode,
      paths,
      changes: { added: 0, removed: 0 },
      ...defined({ put_back: putBack.length > 0 ? putBack : undefined }),
      ...(failure ? { code: failure.code, message: failure.message } : {}),
    });
    if (failed) say(`[editwarden] could not log the end of this run: ${failed.message}`);
  }
}

/** What the agent is told nothing of (it sees only the OS error, or nothing): the log's words for a protected path it changed. */
function protectedRefusal(rel: string, reverted: boolean): ErrorInfo {
  return {
    code: ErrorCode.DENIED_PATH,
    message: reverted
      ? `The wrapped agent created or changed ${rel}, a protected path (it governs git, editwarden or an agent client); it was put back.`
      : `The wrapped agent changed ${rel}, a protected path outside the root; it could not be put back.`,
    hint: `Protected paths are read-only to an agent. If the change was wanted, make it yourself (${path.posix.basename(rel)}).`,
  };
}

/** A capture that failed, as the run's end reports it. */
export function captureFailure(error: unknown): ErrorInfo {
  const info = toErrorInfo(error);
  return { code: info.code, message: `editwarden could not record what the wrapped agent changed: ${info.message}`, hint: info.hint };
}
