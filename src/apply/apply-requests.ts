/**
 * The planner/committer internals of the change pipeline (`pipeline.ts` is
 * the only module that calls them; `test/package/architecture.test.ts` pins
 * it): resolve every path in the sandbox, read each file once, plan all edits
 * with the pure engine, and only when every request succeeded (or `partial`
 * was asked for) hand the writes to the view in one commit. A refused request
 * writes nothing; a dry run writes nothing.
 *
 * Read → plan → stale check → commit is one critical section of the root
 * (`ws.transact`: on disk the root lock, held by synchronous code only): another
 * editwarden process cannot write between what this call read and what it
 * writes, so an edit is never planned on text that its commit then
 * overwrites. Only the language hooks (tree-sitter loading) are prepared
 * before, outside the lock. It must never write outside that section.
 */
import { EditwardenError, ErrorCode, toErrorInfo, type ErrorInfo } from '../errors.js';
import { planFile, type FilePlan } from '../edit/engine.js';
import { decodeText } from '../edit/text.js';
import { tryFastExactEdit } from '../edit/fast-edit.js';
import { DEFAULT_EDIT_OPTIONS, type EditOptions, type EditRequest, type EditResult, type EngineHooks, type RequestSource } from '../edit/types.js';
import { protectedRefusal } from '../workspace/policy.js';
import { entryRelative, type FileView, type WriteTransaction } from '../workspace/view.js';
import type { FileWrite } from '../workspace/workspace.js';

export interface ApplyOptions {
  dryRun?: boolean;
  /** Apply the requests that succeed and report the rest, instead of all or nothing. */
  partial?: boolean;
  edit?: Partial<EditOptions>;
  hooks?: EngineHooks;
  /** Prepares language hooks (AST paths, syntax guard) for the files involved; called only when given. */
  prepareHooks?: (paths: string[]) => Promise<EngineHooks>;
  /** Results for requests that failed before planning (format parse errors), merged in input order. */
  parseErrors?: Array<{ index: number; line?: number; format?: RequestSource['format']; path?: string; error: ErrorInfo; action?: EditResult['action'] }>;
  /**
   * Last word before the commit, inside the critical section: sees the
   * outcome as it will be once written; an error refuses the whole call
   * (every request rejected with it, nothing written). The write tools use it
   * to admit a re-plan only when it makes the change their gate checked.
   */
  admit?: (outcome: ApplyOutcome) => EditwardenError | null;
}

export interface ApplyOutcome {
  ok: boolean;
  results: EditResult[];
  /** One combined git-style diff of everything applied (or that would be, in a dry run). */
  diff: string;
  /** Relative paths written (or that would be). */
  files: string[];
  /** Files that were refused, for exit codes and summaries. */
  rejected: number;
}

interface Slot {
  index: number;
  request: EditRequest;
  path?: string;
  moveTo?: string;
  error?: EditwardenError;
}

export async function runRequests(ws: FileView, requests: EditRequest[], options: ApplyOptions = {}): Promise<ApplyOutcome> {
  const editOptions: EditOptions = { ...DEFAULT_EDIT_OPTIONS, ...options.edit };
  const slots: Slot[] = requests.map((request, index) => ({ index, request }));

  // 1. Sandbox: resolve every path before reading anything.
  for (const slot of slots) {
    try {
      // The protected set first, before any other verdict: whatever the request, these paths are never an agent's to write.
      const resolved = ws.resolve(slot.request.path);
      if (resolved.protectedBy) throw protectedRefusal(slot.request.path, resolved.protectedBy);
      // A delete names the entry (a link is removed as a link); everything else acts on what the path reaches.
      slot.path = slot.request.action === 'delete' ? entryRelative(ws, slot.request.path) : resolved.relative;
      if (slot.request.action === 'patch' && slot.request.moveTo !== undefined) {
        const target = ws.resolve(slot.request.moveTo);
        if (target.protectedBy) throw protectedRefusal(slot.request.moveTo, target.protectedBy);
        slot.moveTo = target.relative;
      }
    } catch (error) {
      slot.error = asEditwardenError(error, slot.request.path);
    }
  }

  // Move targets as step 1 resolved them (raw request spelling → relative path): resolved once.
  const moveTargets = new Map<string, string>();
  for (const slot of slots) if (slot.request.action === 'patch' && slot.request.moveTo !== undefined && slot.moveTo !== undefined) moveTargets.set(slot.request.moveTo, slot.moveTo);
  const targetOf = (moveTo: string): string => moveTargets.get(moveTo) ?? ws.resolve(moveTo).relative;

  // 2. Group by file, in first-seen order.
  const groups = new Map<string, Slot[]>();
  for (const slot of slots) {
    if (slot.error || slot.path === undefined) continue;
    const list = groups.get(slot.path) ?? [];
    list.push(slot);
    groups.set(slot.path, list);
  }

  const hooks = options.hooks ?? (options.prepareHooks ? await options.prepareHooks([...groups.keys()]) : {});

  // 3–6 run under the root lock: what is read is what the commit writes over. A dry run writes nothing and waits for no one.
  const work = (tx: WriteTransaction | null): ApplyOutcome => planAndCommit(ws, tx, slots, groups, targetOf, hooks, editOptions, options);
  return options.dryRun ? work(null) : ws.transact(work);
}

function planAndCommit(
  ws: FileView,
  /** The transaction the writes go through; null in a dry run, which writes nothing. */
  tx: WriteTransaction | null,
  slots: Slot[],
  groups: Map<string, Slot[]>,
  targetOf: (moveTo: string) => string,
  hooks: EngineHooks,
  editOptions: EditOptions,
  options: ApplyOptions,
): ApplyOutcome {
  // 3. Read and plan each file.
  const plans = new Map<string, FilePlan>();
  const modes = new Map<string, number>();
  for (const [path, group] of groups) {
    let before;
    let mode: number | undefined;
    const planOptions = {
      ...editOptions,
      continueOnError: options.partial === true,
    };
    try {
      const snapshot = ws.read(path);
      if (snapshot) {
        mode = snapshot.mode;
        modes.set(path, snapshot.mode);
        for (const slot of group) if (slot.request.expectedHash) checkStale(path, slot.request.expectedHash, snapshot.hash);
        const fast = tryFastExactEdit(
          path,
          snapshot.bytes,
          group.map((s) => ({ ...s.request, path })),
          { ...planOptions, mode: 0o100000 | snapshot.mode },
          hooks,
        );
        if (fast) {
          plans.set(path, fast);
          continue;
        }
        before = decodeText(snapshot.bytes, path);
      } else {
        for (const slot of group) if (slot.request.expectedHash) checkStale(path, slot.request.expectedHash, null);
        before = null;
      }
    } catch (error) {
      for (const slot of group) slot.error = asEditwardenError(error, path);
      continue;
    }
    const plan = planFile(
      path,
      before,
      group.map((s) => ({ ...s.request, path })),
      {
        ...planOptions,
        ...(mode !== undefined ? { mode: 0o100000 | mode } : {}),
      },
      hooks,
    );
    plans.set(path, plan);
  }

  // 4. Cross-file checks: a move may not land on a file that exists or that another request touches.
  // Checked for every plan with a move, partial ones included: partial mode writes those too.
  const refusedMoves = new Set<string>();
  for (const [path, plan] of plans) {
    if (plan.moveTo === undefined) continue;
    const target = targetOf(plan.moveTo);
    if (target !== path && (ws.exists(target) || groups.has(target))) {
      const step = plan.steps.find((s) => s.request.action === 'patch' && s.request.moveTo !== undefined);
      if (step) {
        step.ok = false;
        step.error = new EditwardenError({
          code: ErrorCode.EXISTS,
          message: `Cannot move ${path} to ${target}: ${target} already exists or is changed by another request.`,
          hint: 'Move to a new path, or edit the existing file instead.',
          path,
        });
      }
      plan.ok = false;
      refusedMoves.add(path);
    }
  }

  const anyFailed = slots.some((s) => s.error) || [...plans.values()].some((p) => !p.ok) || (options.parseErrors?.length ?? 0) > 0;
  const writeAllowed = !options.dryRun && (!anyFailed || options.partial === true);

  // A request's `force` also lets its write replace a read-only file (the workspace refuses it otherwise: E_READ_ONLY).
  const forced = new Set<string>();
  // Paths were resolved in step 1; a refused one has none and was reported there.
  for (const slot of slots) if (slot.request.force && slot.path !== undefined) forced.add(slot.path);
  // 5. Writes, in first-seen file order.
  const writes: FileWrite[] = [];
  const combined: string[] = [];
  const files: string[] = [];
  for (const [path, plan] of plans) {
    if ((!plan.ok && !options.partial) || refusedMoves.has(path)) continue;
    if (!plan.changed) continue;
    const target = plan.moveTo !== undefined ? targetOf(plan.moveTo) : path;
    if (!plan.deleted && plan.afterBytes) {
      const mode = modes.get(path);
      const write: FileWrite = mode !== undefined ? { kind: 'write', path: target, bytes: plan.afterBytes, mode } : { kind: 'write', path: target, bytes: plan.afterBytes };
      if (forced.has(path) && write.kind === 'write') write.force = true;
      writes.push(write);
    }
    if (plan.deleted || target !== path) writes.push({ kind: 'delete', path });
    files.push(target);
    if (target !== path) files.push(path);
    combined.push(plan.diff);
  }
  const outcomeOf = (written: boolean): ApplyOutcome => resultsOf(slots, groups, plans, options, written, { diff: combined.join(''), files });
  if (writeAllowed && options.admit) {
    const refusal = options.admit(outcomeOf(true));
    if (refusal) return refusedAll(slots, refusal);
  }
  if (writeAllowed && tx !== null && writes.length > 0) ws.commit(tx, writes);
  return outcomeOf(writeAllowed);
}

/** Every request refused with one error (the admit hook said no): nothing was written. */
function refusedAll(slots: Slot[], error: EditwardenError): ApplyOutcome {
  const results: EditResult[] = slots.map((slot) => ({
    path: slot.path ?? slot.request.path,
    status: 'rejected',
    action: slot.request.action,
    added: 0,
    removed: 0,
    diff: '',
    error: error.toJSON(),
    ...(slot.request.source ? { source: slot.request.source } : {}),
  }));
  return { ok: false, results, diff: '', files: [], rejected: results.length };
}

function resultsOf(slots: Slot[], groups: Map<string, Slot[]>, plans: Map<string, FilePlan>, options: ApplyOptions, writeAllowed: boolean, written: { diff: string; files: string[] }): ApplyOutcome {
  // 6. Results in reply order: requests by their source index (else their position), parse errors by theirs.
  const firstFailure = describeFirstFailure(slots, plans, options.parseErrors);
  const planned = new Map<number, { plan: FilePlan; stepIndex: number }>();
  for (const [path, group] of groups) {
    const plan = plans.get(path);
    if (!plan) continue;
    group.forEach((slot, i) => planned.set(slot.index, { plan, stepIndex: i }));
  }
  const rows: Array<{ key: number; seq: number; result: EditResult }> = [];
  for (const slot of slots) {
    const ctx = { dryRun: options.dryRun === true, written: writeAllowed, partial: options.partial === true, firstFailure };
    rows.push({ key: slot.request.source?.index ?? slot.index, seq: slot.index, result: resultFor(slot, planned.get(slot.index), ctx) });
  }
  for (const [k, parseError] of (options.parseErrors ?? []).entries()) {
    const result: EditResult = {
      path: parseError.path ?? '',
      status: 'rejected',
      action: parseError.action ?? 'edit',
      added: 0,
      removed: 0,
      diff: '',
      error: parseError.error,
    };
    if (parseError.format !== undefined) result.source = { format: parseError.format, index: parseError.index, ...(parseError.line !== undefined ? { line: parseError.line } : {}) };
    rows.push({ key: parseError.index, seq: slots.length + k, result });
  }
  rows.sort((x, y) => x.key - y.key || x.seq - y.seq);
  const results = rows.map((r) => r.result);

  const rejected = results.filter((r) => r.status === 'rejected').length;
  return { ok: rejected === 0, results, diff: written.diff, files: written.files, rejected };
}

function resultFor(slot: Slot, planned: { plan: FilePlan; stepIndex: number } | undefined, ctx: { dryRun: boolean; written: boolean; partial: boolean; firstFailure: string }): EditResult {
  const base = {
    path: slot.path ?? slot.request.path,
    action: slot.request.action,
    ...(slot.request.source ? { source: slot.request.source } : {}),
  };
  if (slot.error) return { ...base, status: 'rejected', added: 0, removed: 0, diff: '', error: slot.error.toJSON() };
  if (!planned) {
    return { ...base, status: 'rejected', added: 0, removed: 0, diff: '', error: toErrorInfo(new Error('request was not planned'), base.path) };
  }
  const step = planned.plan.steps[planned.stepIndex];
  if (!step) return { ...base, status: 'rejected', added: 0, removed: 0, diff: '' };
  const common = {
    ...base,
    added: step.added,
    removed: step.removed,
    diff: step.diff,
    ...(step.applied ? { strategy: step.applied.strategy, count: step.applied.count } : {}),
    ...(step.applied && step.applied.notes.length > 0 ? { notes: step.applied.notes } : {}),
    ...(planned.plan.moveTo !== undefined && slot.request.action === 'patch' && slot.request.moveTo ? { movedTo: slot.moveTo ?? planned.plan.moveTo } : {}),
  };
  if (step.syntaxWarnings && step.syntaxWarnings.length > 0) {
    const w = step.syntaxWarnings[0];
    common.notes = [...(common.notes ?? []), `syntax warning: new error at line ${w?.line}: ${JSON.stringify(w?.snippet)}`];
  }
  if (!step.ok) return { ...common, status: 'rejected', added: 0, removed: 0, diff: '', error: step.error?.toJSON() ?? toErrorInfo(new Error('failed'), base.path) };
  if (ctx.dryRun) return { ...common, status: 'dry-run' };
  if (ctx.written) return { ...common, status: 'applied' };
  return {
    ...common,
    status: 'rejected',
    error: {
      code: ErrorCode.ABORTED,
      message: `This edit would have applied, but nothing was written because ${ctx.firstFailure}; a reply is applied all or nothing.`,
      hint: 'Fix the failed request and send the reply again, or use partial mode to apply what succeeds.',
      path: base.path,
    },
  };
}

function describeFirstFailure(slots: Slot[], plans: Map<string, FilePlan>, parseErrors: ApplyOptions['parseErrors']): string {
  const first = parseErrors?.[0];
  if (first) return `request #${first.index + 1} could not be parsed (${first.error.code})`;
  for (const slot of slots) {
    if (slot.error) return `request #${slot.index + 1} (${slot.request.path}) was refused with ${slot.error.code}`;
  }
  for (const plan of plans.values()) {
    const bad = plan.steps.find((s) => !s.ok && s.error?.code !== ErrorCode.ABORTED) ?? plan.steps.find((s) => !s.ok);
    if (bad) return `an edit to ${plan.path} was refused with ${bad.error?.code ?? 'an error'}`;
  }
  return 'another request failed';
}

function checkStale(path: string, expected: string | undefined, actual: string | null): void {
  if (expected === undefined || expected === '') return;
  const wanted = expected.toLowerCase().replace(/^sha256:/, '');
  if (actual !== null && wanted.length >= 8 && actual.startsWith(wanted)) return;
  throw new EditwardenError({
    code: ErrorCode.STALE,
    message: actual === null ? `${path} was deleted after you read it (expected hash ${wanted.slice(0, 12)}…).` : `${path} changed after you read it: its hash is now ${actual.slice(0, 12)}…, not ${wanted.slice(0, 12)}….`,
    hint: 'Read the file again and base the edit on its current content.',
    path,
  });
}

function asEditwardenError(error: unknown, path: string): EditwardenError {
  if (error instanceof EditwardenError) return error;
  return new EditwardenError(toErrorInfo(error, path), { cause: error });
}
