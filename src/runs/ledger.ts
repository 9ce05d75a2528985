/**
 * The ledger a `Run` carries: what the run changed so far, counted against
 * its limits. It is the one place a `ConstraintGuard` is built (`guardFor`),
 * so every route — editwarden's own runs, a client's native edits, the
 * guarded shell, editwarden's MCP tools seen by a client's hook — counts by
 * the same guard under the same limits.
 *
 * Two kinds, one interface:
 *
 *   in memory   editwarden's own runs (exec, run, the agent loop, the MCP
 *               server): the run is one process, its guard is its count
 *   session     a client session (Claude Code, Gemini CLI, …): each hook
 *               call and each shell command is its own editwarden process,
 *               so a guard per process counts one call alone (with
 *               `max_files: 1`, three Writes each saw "1 file"). The
 *               session's ledger keeps what it already changed in
 *               `.editwarden/sessions/<hash>.json`, keyed by the client's
 *               own session id.
 *
 * A session's check and record are one step under the root lock (`charge`):
 * two hook processes of one session cannot both pass with the last free
 * file. Its file is state like any other: read without following a symlink,
 * validated before use, and a damaged ledger is a refusal (fail closed),
 * never an empty count.
 *
 * A client session is interactive: a person watches it and undo covers it,
 * so its limits are the interactive profile's (profile.ts: only the caps a
 * layer of the config set) — `sessionLimits` is the one place every route of
 * a session reads them.
 */
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import type { Config, ConstraintsConfig } from '../config/config.js';
import type { ConfigLayers } from '../config/layers.js';
import { EditwardenError, ErrorCode, type ErrorInfo } from '../errors.js';
import { ConstraintGuard, type CheckSite, type FileChange, type GuardOptions } from '../guard/constraints.js';
import type { Violation } from '../guard/violations.js';
import { atomicWriteFile } from '../workspace/atomic.js';
import type { RootLock } from '../workspace/lock.js';
import { ensureStateSubdir } from '../workspace/state-dir.js';
import { defined } from '../defined.js';
import { configUnder, runProfile, type RunProfile } from './profile.js';

const SESSIONS_DIR = 'sessions';

/** A client session: the client's name and the id it sends with every hook input. */
export interface SessionKey {
  client: string;
  session: string;
}

/** The limits a run counts against, and how its guard reads them (who is there, where each limit was set). */
export interface RunLimits {
  constraints: ConstraintsConfig;
  guard: GuardOptions;
}

/** The limits of a run under `profile`: its size limits and budget (configUnder) and, for a refusal, where each was set. */
export function runLimits(config: Pick<Config, 'constraints'>, profile: RunProfile, now?: () => number): RunLimits {
  return {
    constraints: configUnder(config, profile).constraints,
    // The guard's question is only whether a person is there to ask.
    guard: { mode: profile.approval === 'person' ? 'interactive' : 'headless', ...defined({ now, limitSource: profile.limitSource }) },
  };
}

/** The limits of a client session in a project: the interactive profile's (only the caps a layer of the config set). */
export function sessionLimits(project: { config: Config; layers?: ConfigLayers | null | undefined }): RunLimits {
  return runLimits(project.config, runProfile('interactive', { config: project.config, layers: project.layers }));
}

/** The one place a ConstraintGuard is built: every count of every route starts here. */
function guardFor(limits: RunLimits): ConstraintGuard {
  return new ConstraintGuard(limits.constraints, limits.guard);
}

export interface Ledger {
  /** This process's guard: time, tokens and tools, and the changes it saw (a session's earlier processes are in its file). */
  readonly guard: ConstraintGuard;
  /** Whether `changes` fit on top of everything the ledger holds; records nothing. */
  check(changes: readonly FileChange[], site: CheckSite, prevented?: boolean): Violation | null;
  /** Checks and, when they fit, records `changes` in one step; the violation otherwise (nothing recorded). */
  charge(changes: readonly FileChange[], site: CheckSite, prevented?: boolean): Violation | null;
  /** Records what a call changed, fit or not: it happened. */
  record(changes: readonly FileChange[]): void;
}

/** An editwarden run's own ledger: the run is one process, its guard is the count. */
class MemoryLedger implements Ledger {
  readonly guard: ConstraintGuard;

  constructor(limits: RunLimits) {
    this.guard = guardFor(limits);
  }

  check(changes: readonly FileChange[], site: CheckSite, prevented = true): Violation | null {
    return this.guard.checkChanges(changes, site, prevented);
  }

  charge(changes: readonly FileChange[], site: CheckSite, prevented = true): Violation | null {
    const v = this.check(changes, site, prevented);
    if (!v) this.record(changes);
    return v;
  }

  record(changes: readonly FileChange[]): void {
    this.guard.recordChanges(changes);
  }
}

/** Where a client session's ledger lives: the root's state folder and its lock. */
export interface SessionStore {
  key: SessionKey;
  stateDir: string;
  lock: RootLock;
}

interface LedgerFile {
  format: 1;
  client: string;
  session: string;
  files: Record<string, { added: number; removed: number }>;
}

/** A client session's ledger, in `.editwarden/sessions/<hash>.json` (see the header). */
class SessionLedger implements Ledger {
  readonly guard: ConstraintGuard;
  private readonly file: string;

  constructor(
    private readonly limits: RunLimits,
    private readonly store: SessionStore,
  ) {
    this.guard = guardFor(limits);
    this.file = path.join(store.stateDir, SESSIONS_DIR, ledgerName(store.key));
  }

  check(changes: readonly FileChange[], site: CheckSite, prevented = true): Violation | null {
    if (changes.length === 0) return this.guard.checkChanges(changes, site, prevented);
    return this.store.lock.with(() => this.over(this.read(), changes, site, prevented));
  }

  charge(changes: readonly FileChange[], site: CheckSite, prevented = true): Violation | null {
    if (changes.length === 0) return this.guard.checkChanges(changes, site, prevented);
    return this.store.lock.with(() => {
      const ledger = this.read();
      const v = this.over(ledger, changes, site, prevented);
      if (!v) this.add(ledger, changes);
      return v;
    });
  }

  record(changes: readonly FileChange[]): void {
    if (changes.length === 0) return;
    this.store.lock.with(() => this.add(this.read(), changes));
  }

  /**
   * The violation `changes` make on top of the session's files (the verdict an in-memory ledger holding them gives);
   * when the session's earlier changes are what takes it over, the message names the session's usage.
   */
  private over(ledger: LedgerFile, changes: readonly FileChange[], site: CheckSite, prevented: boolean): Violation | null {
    const session = guardFor(this.limits);
    session.recordChanges(Object.entries(ledger.files).map(([p, c]) => ({ path: p, ...c })));
    const v = session.checkChanges(changes, site, prevented);
    if (!v || this.guard.checkChanges(changes, site, prevented)) return v;
    return { ...v, message: `${v.message} ${usageLine(this.limits.constraints, ledger.files, changes)}` };
  }

  private add(ledger: LedgerFile, changes: readonly FileChange[]): void {
    for (const c of changes) {
      const entry = ledger.files[c.path] ?? { added: 0, removed: 0 };
      ledger.files[c.path] = { added: entry.added + c.added, removed: entry.removed + c.removed };
    }
    ensureStateSubdir(this.store.stateDir, SESSIONS_DIR);
    atomicWriteFile(this.file, Buffer.from(`${JSON.stringify(ledger)}\n`), { mode: 0o644 });
    this.guard.recordChanges(changes);
  }

  private read(): LedgerFile {
    const { key } = this.store;
    let text: string;
    try {
      // O_NOFOLLOW: a ledger planted as a symlink must not make editwarden read (or trust) a file elsewhere.
      const fd = fs.openSync(this.file, fs.constants.O_RDONLY | fs.constants.O_NOFOLLOW);
      try {
        text = fs.readFileSync(fd, 'utf8');
      } finally {
        fs.closeSync(fd);
      }
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return { format: 1, client: key.client, session: key.session, files: {} };
      throw damaged(this.file);
    }
    let data: unknown;
    try {
      data = JSON.parse(text);
    } catch {
      throw damaged(this.file);
    }
    if (!isLedger(data) || data.client !== key.client || data.session !== key.session) throw damaged(this.file);
    return data;
  }
}

/** The ledger of a run with `limits`: a client session's (in its state folder) when `session` is given, else in memory. */
export function openLedger(limits: RunLimits, session: SessionStore | null): Ledger {
  return session ? new SessionLedger(limits, session) : new MemoryLedger(limits);
}

/** A violation as the refusal a hook answers: E_CONSTRAINT with its message, hint and path. */
export function violationRefusal(v: Violation): ErrorInfo {
  return { code: ErrorCode.CONSTRAINT, message: v.message, hint: v.hint, ...defined({ path: v.path }) };
}

/** The ledger's file name: a hash, so a hostile session id (`../../x`) never becomes a path. */
function ledgerName(key: SessionKey): string {
  return `${createHash('sha256').update(`${key.client}\0${key.session}`).digest('hex').slice(0, 32)}.json`;
}

/** "2 of 1 files used in this session: a.txt, b.txt" — what the model needs to decide what to do next. */
function usageLine(constraints: ConstraintsConfig, files: LedgerFile['files'], changes: readonly FileChange[]): string {
  const all = [...new Set([...Object.keys(files), ...changes.map((c) => c.path)])];
  let lines = 0;
  for (const c of Object.values(files)) lines += c.added + c.removed;
  for (const c of changes) lines += c.added + c.removed;
  const shown = all.length <= 8 ? all.join(', ') : `${all.slice(0, 8).join(', ')} and ${all.length - 8} more`;
  const of = (limit: number): string => (Number.isFinite(limit) ? `of ${limit}` : '(no limit)');
  return `${all.length} ${of(constraints.max_files)} files used in this session: ${shown}; ${lines} ${of(constraints.max_lines_changed)} lines.`;
}

function isLedger(data: unknown): data is LedgerFile {
  if (typeof data !== 'object' || data === null) return false;
  const d = data as Record<string, unknown>;
  if (d.format !== 1 || typeof d.client !== 'string' || typeof d.session !== 'string') return false;
  if (typeof d.files !== 'object' || d.files === null || Array.isArray(d.files)) return false;
  return Object.entries(d.files as Record<string, unknown>).every(([p, c]) => {
    const e = c as Record<string, unknown> | null;
    return p.length > 0 && p.length < 4096 && e !== null && typeof e === 'object' && Number.isSafeInteger(e.added) && Number.isSafeInteger(e.removed) && (e.added as number) >= 0 && (e.removed as number) >= 0;
  });
}

function damaged(file: string): EditwardenError {
  return new EditwardenError({
    code: ErrorCode.IO,
    message: `${file} is not a valid session ledger, so this session's limits cannot be counted.`,
    hint: 'It was changed by hand or damaged. A person can delete it (the session then counts from zero).',
  });
}
