/**
 * `editwarden checkpoint create|list|diff|restore|drop|prune`: thin wrappers
 * over the checkpoint service. Every subcommand opens the root through
 * openWorkspace, so a transaction a killed process left behind is rolled
 * back (and reported) before anything else happens.
 */
import type { Command } from 'commander';
import { EditwardenError, ErrorCode, toErrorInfo, ExitCode } from '../../errors.js';
import { recordEvent } from '../../runs/events.js';
import { openWorkspace, type RecoveryNotice } from '../../workspace/open.js';
import type { CheckpointService } from '../../workspace/checkpoints/service.js';
import { parseDuration } from '../../workspace/checkpoints/prune.js';
import { listNewestFirst, resolveCheckpointRef } from '../../workspace/checkpoints/refs.js';
import type { CheckpointScope, CheckpointSummary } from '../../workspace/checkpoints/types.js';
import { paint, paintDiff, useColor, writeJson, type Io, refuseCommand } from '../output.js';
import { defined } from '../../defined.js';
import { greatestOf } from '../../arrays.js';

interface CommonFlags {
  root?: string;
  json?: boolean;
  lockTimeout?: string;
}

type Outcome = { json: Record<string, unknown>; text: string };

export function registerCheckpoint(program: Command, io: Io, setExit: (code: number) => void): void {
  const checkpoint = program.command('checkpoint').description('Take, inspect, restore and prune checkpoints of the workspace (stored under .editwarden/).');
  const common = (cmd: Command): Command =>
    cmd.option('--root <dir>', 'workspace root (default: current folder)').option('--lock-timeout <ms>', 'how long to wait for another editwarden process (default 10000)').option('--json', 'print JSON');
  const run = (flags: CommonFlags, body: (cps: CheckpointService) => Outcome): void => setExit(execute(io, flags, body));

  common(
    checkpoint
      .command('create')
      .description('Checkpoint every non-ignored file (default) or just the named files (--scope files).')
      .argument('[paths...]', 'files to record (files scope); with workspace scope, extra files to record even if ignored')
      .option('--name <name>', 'short name', 'manual')
      .option('--reason <text>', 'why this checkpoint exists', '')
      .option('--scope <scope>', 'workspace or files', 'workspace'),
  ).action((paths: string[], flags: CommonFlags & { name: string; reason: string; scope: string }) =>
    run(flags, (cps) => {
      const scope = parseScope(flags.scope);
      const id = cps.create(flags.name, flags.reason, scope, { paths });
      const summary = cps.list().find((c) => c.id === id) as CheckpointSummary;
      recordEvent(cps.ws.stateDir, { kind: 'checkpoint', route: { via: 'cli' }, label: flags.reason ? `${flags.name}: ${flags.reason}` : flags.name, paths, checkpoint: id });
      return { json: { id }, text: `checkpoint ${id} (${scope}, ${summary.files} files, ${formatBytes(summary.bytes)}; ${formatBytes(summary.uniqueBytes)} new)` };
    }),
  );

  common(checkpoint.command('list').description('List checkpoints, newest first (as everywhere), with their sizes.')).action((flags: CommonFlags) =>
    run(flags, (cps) => {
      const all = listNewestFirst(cps);
      return { json: { checkpoints: all }, text: formatList(all) };
    }),
  );

  common(
    checkpoint.command('diff').description('Show what changed since a checkpoint (what a restore would undo).').argument('<id>', 'checkpoint id, unique id prefix, name, or latest').option('--no-patch', 'list changed paths only'),
  ).action((ref: string, flags: CommonFlags & { patch: boolean }) =>
    run(flags, (cps) => {
      const id = resolveCheckpointRef(cps, ref);
      const changes = cps.diff(id, { patch: flags.patch });
      const color = useColor(io);
      const mark = { added: 'A', deleted: 'D', modified: 'M', mode: 'm', type: 'T' } as const;
      const lines = changes.map((c) => `${mark[c.change]} ${c.path}${c.patch ? `\n${paintDiff(color, c.patch.trimEnd())}` : ''}`);
      return { json: { id, changes }, text: changes.length === 0 ? `no changes since ${id}` : lines.join('\n') };
    }),
  );

  common(checkpoint.command('restore').description('Put every recorded file back exactly; a safety checkpoint is taken first so the restore can be undone.').argument('<id>', 'checkpoint id, unique id prefix, name, or latest')).action(
    (ref: string, flags: CommonFlags) =>
      run(flags, (cps) => {
        const id = resolveCheckpointRef(cps, ref);
        const r = cps.restore(id);
        // A restore is an undo a person chose: in the event log with the checkpoint that takes it back.
        recordEvent(cps.ws.stateDir, {
          kind: 'undo',
          action: 'restore',
          route: { via: 'cli' },
          label: `checkpoint restore ${id}`,
          written: r.written,
          removed: r.removed,
          bytes: r.bytes ?? 0,
          paths: [...r.written, ...r.removed],
          ...defined({ checkpoint: r.safety || undefined, step: r.safety || undefined }),
        });
        const text = `restored ${id}: ${r.written.length} written, ${r.removed.length} removed, ${r.unchanged} unchanged` + (r.safety ? `\nundo with: editwarden checkpoint restore ${r.safety}` : '');
        return { json: { ok: true, ...r }, text };
      }),
  );

  common(checkpoint.command('drop').description('Delete a checkpoint and the stored bytes only it used.').argument('<id>', 'checkpoint id, unique id prefix, name, or latest')).action((ref: string, flags: CommonFlags) =>
    run(flags, (cps) => {
      const id = resolveCheckpointRef(cps, ref);
      const r = cps.drop(id);
      return { json: { ok: true, ...r }, text: `dropped ${id} (${formatBytes(r.freedBytes)} freed)` };
    }),
  );

  common(
    checkpoint
      .command('repair')
      .description('List unfinished-transaction records recovery could not verify or roll back (held); drop one (keep the files as they are) or retry its rollback.')
      .option('--drop <record>', 'forget a held record for good (after checking the files)')
      .option('--retry <record>', 'put a held record back so the next command tries to roll it back again'),
  ).action((flags: CommonFlags & { drop?: string; retry?: string }) =>
    run(flags, (cps) => {
      if (flags.drop !== undefined || flags.retry !== undefined) {
        const file = (flags.drop ?? flags.retry) as string;
        const done = cps.lock.with(() => (flags.drop !== undefined ? cps.journal.dropHeld(file) : cps.journal.retryHeld(file)));
        if (!done) {
          throw new EditwardenError({
            code: ErrorCode.NOT_FOUND,
            message: `No held record named ${JSON.stringify(file)}.`,
            hint: 'Run `editwarden checkpoint repair` to list the held records.',
          });
        }
        const verb = flags.drop !== undefined ? 'dropped' : 'put back for retry';
        return { json: { ok: true, record: file, action: flags.drop !== undefined ? 'drop' : 'retry' }, text: `${verb}: ${file}` };
      }
      const held = cps.journal.heldRecords();
      const text = held.length === 0 ? 'no held records: nothing to repair' : held.map((h) => `${h.file}: ${h.why}`).join('\n') + '\n(drop with --drop RECORD once the files are right, or --retry RECORD)';
      return { json: { held }, text };
    }),
  );

  common(
    checkpoint
      .command('prune')
      .description('Drop old checkpoints: keep the newest N and/or drop those older than a duration (both: only what both allow).')
      .option('--keep-last <n>', 'keep the newest N checkpoints')
      .option('--older-than <duration>', 'drop checkpoints older than this (90s, 15m, 12h, 7d, 2w)'),
  ).action((flags: CommonFlags & { keepLast?: string; olderThan?: string }) =>
    run(flags, (cps) => {
      const policy: { keepLast?: number; olderThanMs?: number } = {};
      if (flags.keepLast !== undefined) policy.keepLast = parseCount(flags.keepLast);
      if (flags.olderThan !== undefined) policy.olderThanMs = parseDuration(flags.olderThan);
      const r = cps.prune(policy);
      return { json: { ok: true, ...r }, text: `dropped ${r.dropped.length} checkpoint(s), kept ${r.kept}, ${formatBytes(r.freedBytes)} freed` };
    }),
  );
}

function execute(io: Io, flags: CommonFlags, body: (cps: CheckpointService) => Outcome): number {
  let recovered: RecoveryNotice[] = [];
  try {
    const timeoutMs = flags.lockTimeout !== undefined ? parseCount(flags.lockTimeout) : undefined;
    const opened = openWorkspace(flags.root ?? process.cwd(), timeoutMs !== undefined ? { lock: { timeoutMs } } : {});
    recovered = opened.recovered;
    reportRecovery(io, recovered, flags.json === true);
    const outcome = body(opened.transactions.checkpoints);
    if (flags.json) writeJson(io, recovered.length > 0 ? { ...outcome.json, recovered } : outcome.json);
    else io.stdout.write(`${outcome.text}\n`);
    return ExitCode.OK;
  } catch (error) {
    const info = toErrorInfo(error);
    return refuseCommand(info, flags.json === true, io, { ...defined({ recovered: recovered.length > 0 ? recovered : undefined }) });
  }
}

/** People see recovery on stderr even with --json (the JSON carries it too). */
function reportRecovery(io: Io, recovered: RecoveryNotice[], json: boolean): void {
  if (json) return;
  const color = useColor(io, 'stderr');
  for (const n of recovered) io.stderr.write(`${paint(color, 'yellow', 'recovered:')} ${n.message}\n`);
}

function parseScope(text: string): CheckpointScope {
  if (text === 'workspace' || text === 'files') return text;
  throw new EditwardenError({ code: ErrorCode.USAGE, message: `Unknown scope ${JSON.stringify(text)}.`, hint: 'Use --scope workspace or --scope files.' });
}

function parseCount(text: string): number {
  const n = Number(text);
  if (!Number.isInteger(n) || n < 0) {
    throw new EditwardenError({ code: ErrorCode.USAGE, message: `${JSON.stringify(text)} is not a whole number.`, hint: 'Pass a number such as 10.' });
  }
  return n;
}

export function formatBytes(n: number): string {
  if (n < 1024) return `${n} B`;
  if (n < 1024 * 1024) return `${(n / 1024).toFixed(1)} KiB`;
  if (n < 1024 ** 3) return `${(n / 1024 / 1024).toFixed(1)} MiB`;
  return `${(n / 1024 ** 3).toFixed(2)} GiB`;
}

function formatList(all: CheckpointSummary[]): string {
  if (all.length === 0) return 'no checkpoints';
  const rows = all.map((c) => [c.id, c.createdAt.replace('T', ' ').replace(/\.\d+Z$/, 'Z'), c.scope, String(c.files), formatBytes(c.bytes), formatBytes(c.uniqueBytes), c.reason ? `${c.name}: ${c.reason}` : c.name]);
  const head = ['id', 'created', 'scope', 'files', 'size', 'unique', 'name'];
  const widths = head.map((h, i) => greatestOf([h.length, ...rows.map((r) => (r[i] as string).length)]));
  const line = (cells: string[]): string => cells.map((c, i) => (i === cells.length - 1 ? c : c.padEnd(widths[i] as number))).join('  ');
  return [line(head), ...rows.map(line)].join('\n');
}
