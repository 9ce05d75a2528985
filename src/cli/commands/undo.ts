/**
 * `editwarden undo [--run ID]` and `editwarden redo`: step back and forth
 * through the changes editwarden recorded — its own writes and the native
 * edits a client hook checkpointed (workspace/checkpoints/history.ts).
 */
import fs from 'node:fs';
import path from 'node:path';
import type { Command } from 'commander';
import { EditwardenError, ErrorCode, toErrorInfo, ExitCode } from '../../errors.js';
import { recordEvent } from '../../runs/events.js';
import { runDir } from '../../runs/runs.js';
import { UndoHistory, type StepResult } from '../../workspace/checkpoints/history.js';
import { openWorkspace } from '../../workspace/open.js';
import { paint, useColor, writeJson, type Io, refuseCommand } from '../output.js';

interface Flags {
  root?: string;
  json?: boolean;
  run?: string;
}

export function registerUndo(program: Command, io: Io, setExit: (code: number) => void): void {
  program
    .command('undo')
    .description('Restore the state before the most recent change editwarden recorded (its own writes and hooked native edits); again to go further back.')
    .option('--root <dir>', 'workspace root (default: current folder)')
    .option('--run <id>', 'undo every change of this run (and any made after it)')
    .option('--json', 'print JSON')
    .action((flags: Flags) =>
      setExit(
        step(
          io,
          flags,
          (history, root) => {
            if (flags.run === undefined) return [history.undo()];
            return history.undoSince(runStart(root, flags.run));
          },
          'undo',
        ),
      ),
    );
}

export function registerRedo(program: Command, io: Io, setExit: (code: number) => void): void {
  program
    .command('redo')
    .description('Put back what the last `editwarden undo` took away.')
    .option('--root <dir>', 'workspace root (default: current folder)')
    .option('--json', 'print JSON')
    .action((flags: Flags) => setExit(step(io, flags, (history) => [history.redo()], 'redo')));
}

function step(io: Io, flags: Flags, body: (history: UndoHistory, root: string) => StepResult[], verb: 'undo' | 'redo'): number {
  try {
    const opened = openWorkspace(flags.root ?? process.cwd());
    const color = useColor(io, 'stderr');
    if (!flags.json) for (const n of opened.recovered) io.stderr.write(`${paint(color, 'yellow', 'recovered:')} ${n.message}\n`);
    const results = body(new UndoHistory(opened.transactions.checkpoints), opened.ws.root).filter((r) => r.change !== null);
    // In the event log too (`editwarden log`); the safety checkpoint is the step that takes this one back.
    for (const r of results)
      recordEvent(opened.ws.stateDir, { kind: verb, route: { via: 'cli' }, label: r.change?.label ?? '', written: r.written, removed: r.removed, paths: [...r.written, ...r.removed], ...(r.safety ? { checkpoint: r.safety } : {}) });
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
function runStart(root: string, runId: string): string {
  const dir = runDir({ stateDir: path.join(root, '.editwarden') }, runId);
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
