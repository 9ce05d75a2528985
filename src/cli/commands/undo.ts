/**
 * `editwarden undo [--session ID|last] [--to STEP] [--run ID] [--list]
 * [--dry-run] [--force]` and `editwarden redo [--session ID|last] [--to
 * STEP]`: step back and forth through the changes editwarden recorded — its
 * own writes, the native edits a client hook confirmed, and the shell
 * commands run through it (workspace/checkpoints/history.ts). A session or
 * a step to go back to is chosen by undo-select.ts and undone as ONE step;
 * `redo` mirrors it.
 * Without --root the root is found from the current folder upward
 * (find-root.ts); nothing is created in a subfolder.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { Command } from 'commander';
import { EditwardenError, ErrorCode, toErrorInfo, ExitCode } from '../../errors.js';
import { recordEvent } from '../../runs/events.js';
import { isRunId, runDir } from '../../runs/runs.js';
import { findHistoryRoot } from '../../workspace/checkpoints/find-root.js';
import { UndoHistory, type StepResult, type StepView, type UndoPreview } from '../../workspace/checkpoints/history.js';
import { notKeptLine } from '../../workspace/checkpoints/ignored.js';
import type { CheckpointService } from '../../workspace/checkpoints/service.js';
import { groupSteps, redoSelected, undoSelected, type UndoSelection } from '../../workspace/checkpoints/undo-select.js';
import { openWorkspace } from '../../workspace/open.js';
import { paint, useColor, writeJson, type Io, refuseCommand } from '../output.js';
import { defined } from '../../defined.js';
import { STATE_DIR } from '../../config/protected-set.js';
import { appendAll } from '../../arrays.js';

interface Flags {
  root?: string;
  json?: boolean;
  run?: string;
  session?: string;
  to?: string;
  list?: boolean;
  dryRun?: boolean;
  force?: boolean;
}

export function registerUndo(program: Command, io: Io, setExit: (code: number) => void): void {
  program
    .command('undo')
    .description('Restore the state before the most recent change editwarden recorded (its own writes and hooked native edits); again to go further back.')
    .option('--root <dir>', 'workspace root (default: the nearest folder upward holding editwarden history, else the git root)')
    .option('--session <id>', "undo every step of this client session as one step (the client's session id, as `--list` shows it; `last`: the latest session)")
    .option('--to <step>', 'undo back to this step: it and every later step, as one step (a step id from `--list`)')
    .option('--run <id>', 'undo every change of this run (and any made after it)')
    .option('--list', 'list the steps, newest first, grouped by client session (kind, time, label, files), without undoing')
    .option('--dry-run', 'show the unified diff the next undo would restore, without writing')
    .option('--force', 'undo even files changed since the step (a later change of yours is overwritten; redo puts it back)')
    .option('--json', 'print JSON')
    .action((flags: Flags) => {
      if (flags.list || flags.dryRun) {
        setExit(inspect(io, flags));
        return;
      }
      setExit(
        step(
          io,
          flags,
          (history, root) => {
            const options = { force: flags.force === true };
            if (flags.run !== undefined) return history.undoSince(runStart(root, flags.run, history), options);
            return undoSelected(history, selectionOf(flags), options);
          },
          'undo',
        ),
      );
    });
}

export function registerRedo(program: Command, io: Io, setExit: (code: number) => void): void {
  program
    .command('redo')
    .description('Put back what the last `editwarden undo` took away.')
    .option('--root <dir>', 'workspace root (default: the nearest folder upward holding editwarden history, else the git root)')
    .option('--session <id>', 'redo every undone step of this client session (`last`: the latest)')
    .option('--to <step>', 'redo undone steps, newest undo first, until this step is back')
    .option('--json', 'print JSON')
    .action((flags: Flags) => setExit(step(io, flags, (history) => redoSelected(history, selectionOf(flags)), 'redo')));
}

/** `--list` and `--dry-run`: read the history, write nothing. */
function inspect(io: Io, flags: Flags): number {
  try {
    if (flags.list && flags.dryRun) throw usage('--list and --dry-run are two views; pass one of them.');
    if (flags.run !== undefined || flags.session !== undefined || flags.to !== undefined) throw usage('--run, --session and --to undo several steps; --list and --dry-run look at the history without undoing.');
    const opened = openWorkspace(flags.root ?? findHistoryRoot(process.cwd()));
    const history = new UndoHistory(opened.transactions.checkpoints);
    if (flags.list) {
      const steps = history.list();
      if (flags.json) writeJson(io, { ok: true, steps, sessions: groupSteps(steps).map((g) => ({ by: g.by, ...defined({ session: g.session, run: g.run }), steps: g.steps.map((s) => s.key) })) });
      else io.stdout.write(formatList(steps));
      return ExitCode.OK;
    }
    const preview = history.preview();
    if (flags.json) writeJson(io, { ok: true, ...preview });
    else io.stdout.write(formatPreview(preview));
    return ExitCode.OK;
  } catch (error) {
    return refuseCommand(toErrorInfo(error), flags.json === true, io);
  }
}

/** The steps, newest first, under one heading per client session (or run): who, the session id, and how to undo it all. */
function formatList(steps: StepView[]): string {
  if (steps.length === 0) return 'no steps recorded\n';
  const out: string[] = [];
  for (const group of groupSteps(steps)) {
    if (group.session !== undefined) out.push(`${group.by} session ${group.session} — undo it all: editwarden undo --session ${group.session}`);
    else if (group.run !== undefined) out.push(`${group.by} run ${group.run} — undo it all: editwarden undo --run ${group.run}`);
    for (const s of group.steps) {
      const shown = s.files.slice(0, 3).join(', ') + (s.files.length > 3 ? `, +${s.files.length - 3} more` : '');
      const who = group.session === undefined && group.run === undefined ? `${s.by}; ` : '';
      out.push(`  ${s.createdAt}  ${s.kind.padEnd(7)}  ${stepId(s.key)}  ${s.label}  [${who}${s.files.length} file(s): ${shown}]${s.undone ? '  (undone)' : ''}`);
      const notKept = notKeptLine(s.notKept ?? []);
      if (notKept !== null) out.push(`      ${notKept}`);
    }
  }
  out.push('Undo back to a step (it and every later one): editwarden undo --to <step id>');
  return `${out.join('\n')}\n`;
}

/** A step's id as `undo --to` takes it: the key without its kind (`command:20261129-…` → `20261129-…`). */
function stepId(key: string): string {
  return key.slice(key.indexOf(':') + 1);
}

/** What `--session` / `--to` name (one at most), or the newest step. */
function selectionOf(flags: Flags): UndoSelection {
  if (flags.session !== undefined && flags.to !== undefined) throw usage('--session and --to each choose the steps; pass one of them.');
  if (flags.session !== undefined) {
    if (flags.session === '') throw usage('--session needs a client session id (as `editwarden undo --list` shows it) or `last`.');
    return { kind: 'session', session: flags.session };
  }
  if (flags.to !== undefined) {
    if (flags.to === '') throw usage('--to needs a step id (as `editwarden undo --list` shows it).');
    return { kind: 'to', step: flags.to };
  }
  return { kind: 'newest' };
}

function formatPreview(p: UndoPreview): string {
  if (p.change === null) return 'nothing to undo\n';
  const out = [`undo would take back: ${p.change.kind} ${p.change.label} (${p.change.createdAt}) — nothing written (dry run)`];
  for (const c of p.changes) {
    if (c.patch) out.push(c.patch.trimEnd());
    else out.push(`${c.change === 'added' ? 'would remove' : 'would restore'} ${c.path} (${c.change}; no text diff)`);
  }
  if (p.changedSince.length > 0) out.push(`refused without --force: changed since that step: ${p.changedSince.join(', ')}`);
  return `${out.join('\n')}\n`;
}

/** The ignored files the steps' commands changed without keeping them (ignored.ts), from the steps' checkpoints. */
function notKeptOf(service: CheckpointService, ids: readonly string[]): Array<{ path: string; why: string }> {
  const out: Array<{ path: string; why: string }> = [];
  for (const id of ids) {
    try {
      const origin = service.get(id).origin;
      if (origin.kind === 'command' && Array.isArray(origin.notKept)) appendAll(out, origin.notKept);
    } catch {
      // A checkpoint dropped since: nothing to say about it.
    }
  }
  return out;
}

function usage(message: string): EditwardenError {
  return new EditwardenError({
    code: ErrorCode.USAGE,
    message,
    hint: 'Undo a client session with `editwarden undo --session <id>` (or `--session last`), back to a step with `editwarden undo --to <step>`, an editwarden run with `--run <run id>`; `editwarden undo --list` shows the ids.',
  });
}

function step(io: Io, flags: Flags, body: (history: UndoHistory, root: string) => StepResult[], verb: 'undo' | 'redo'): number {
  try {
    const opened = openWorkspace(flags.root ?? findHistoryRoot(process.cwd()));
    const color = useColor(io, 'stderr');
    if (!flags.json) for (const n of opened.recovered) io.stderr.write(`${paint(color, 'yellow', 'recovered:')} ${n.message}\n`);
    const history = new UndoHistory(opened.transactions.checkpoints);
    const results = body(history, opened.ws.root).filter((r) => r.change !== null);
    // The checkpoints of each step taken back: a report of that step's session or run shows the undo.
    const stepCheckpoints = results.length > 0 ? new Map(history.changes().map((c) => [c.key, c.checkpoints])) : new Map<string, string[]>();
    // In the event log too (`editwarden log`); the safety checkpoint is the step that takes this one back.
    for (const r of results)
      recordEvent(opened.ws.stateDir, {
        kind: verb,
        action: verb,
        route: { via: 'cli' },
        label: r.change?.label ?? '',
        written: r.written,
        removed: r.removed,
        bytes: r.bytes,
        paths: [...r.written, ...r.removed],
        ...defined({ checkpoint: r.safety || undefined, step: r.safety || undefined, undoes: stepCheckpoints.get(r.change?.key ?? '') }),
      });
    if (flags.json) {
      writeJson(io, { ok: true, steps: results });
      return ExitCode.OK;
    }
    if (results.length === 0) {
      io.stdout.write(verb === 'undo' ? 'nothing to undo\n' : 'nothing to redo\n');
      return ExitCode.OK;
    }
    const out: string[] = [];
    for (const r of results) {
      out.push(`${verb === 'undo' ? 'undid' : 'redid'} ${r.change?.label} (${r.change?.createdAt}): ${r.written.length} file(s) written, ${r.removed.length} removed`);
      for (const p of r.written) out.push(`  written ${p}`);
      for (const p of r.removed) out.push(`  removed ${p}`);
      // Ignored files the command changed that were over a cap or in a rebuildable folder: never silently missing.
      const notKept = notKeptLine(notKeptOf(opened.transactions.checkpoints, stepCheckpoints.get(r.change?.key ?? '') ?? []));
      if (notKept !== null) out.push(`  ${notKept}`);
    }
    out.push(verb === 'undo' ? 'redo with: editwarden redo' : 'undo again with: editwarden undo');
    io.stdout.write(`${out.join('\n')}\n`);
    return ExitCode.OK;
  } catch (error) {
    const info = toErrorInfo(error);
    return refuseCommand(info, flags.json === true, io);
  }
}

/** When a run started, from its metrics.json (validated: a run folder is state an agent could have tampered with). */
function runStart(root: string, runId: string, history: UndoHistory): string {
  // A client's session id is no run id: say which flag takes it.
  if (history.changes().some((c) => c.session === runId))
    throw usage(`${runId} is a ${history.changes().find((c) => c.session === runId)?.client ?? 'client'} session, not an editwarden run: undo it with \`editwarden undo --session ${runId}\`.`);
  if (!isRunId(runId)) throw usage(`${JSON.stringify(runId)} is neither an editwarden run id (like 20261121T235959Z-ab12cd) nor a client session with recorded steps.`);
  const dir = runDir({ stateDir: path.join(root, STATE_DIR) }, runId);
  let started: unknown;
  try {
    started = (JSON.parse(fs.readFileSync(path.join(dir, 'metrics.json'), 'utf8')) as { started_at?: unknown }).started_at;
  } catch {
    started = undefined;
  }
  if (typeof started !== 'string' || Number.isNaN(Date.parse(started))) {
    throw new EditwardenError({ code: ErrorCode.NOT_FOUND, message: `Run ${runId} has no readable metrics.json with its start time.`, hint: 'Check the run id (ls .editwarden/runs), or undo step by step with `editwarden undo`.' });
  }
  return new Date(Date.parse(started)).toISOString();
}
