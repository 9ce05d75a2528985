/**
 * The limits of one client session. Each hook call and each shell command a
 * client runs is its own editwarden process, so a guard built per call
 * counts one call alone: with `max_files: 1`, three Writes in one session
 * each saw "1 file". The ledger keeps what the session already changed in
 * `.editwarden/sessions/<key>.json`, keyed by the client's own session id
 * (Claude Code and Gemini CLI send `session_id` with every hook input), so
 * `constraints` mean the same in a hooked session as in editwarden's runs.
 *
 * Check and record are one step under the root lock: two hook processes of
 * one session cannot both pass with the last free file. The file is state
 * like any other: read without following a symlink, validated before use,
 * and a damaged ledger is a refusal (fail closed), never an empty count.
 *
 * A client session is interactive: a person watches it and undo covers it,
 * so its limits are the interactive profile's (runs/profile.ts: only the caps
 * a layer of the config set) — `sessionLimits` is the one place every route of
 * a session (native edits, the guarded shell, editwarden's MCP tools seen by
 * the hook) reads them.
 */
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import type { ConstraintsConfig } from '../config/config.js';
import type { Project } from '../host/project.js';
import { configUnder, runProfile } from '../runs/profile.js';
import { EditwardenError, ErrorCode, type ErrorInfo } from '../errors.js';
import { ConstraintGuard, type FileChange, type GuardOptions } from '../guard/constraints.js';
import { atomicWriteFile } from '../workspace/atomic.js';
import type { RootLock } from '../workspace/lock.js';
import { ensureStateSubdir } from '../workspace/state-dir.js';
import { defined } from '../defined.js';

const SESSIONS_DIR = 'sessions';
/** A session id longer than this is not a client's id (Claude and Gemini send UUIDs). */
const MAX_SESSION_ID = 200;

export interface SessionKey {
  client: string;
  session: string;
}

interface LedgerFile {
  format: 1;
  client: string;
  session: string;
  files: Record<string, { added: number; removed: number }>;
}

/** The session a hook input belongs to, or null when the client sent none (then each call counts alone, as before). */
export function sessionOf(client: string, input: Record<string, unknown>): SessionKey | null {
  const id = input.session_id;
  if (typeof id !== 'string' || id === '' || id.length > MAX_SESSION_ID) return null;
  return { client, session: id };
}

/** The ledger's file name: a hash, so a hostile session id (`../../x`) never becomes a path. */
function ledgerName(key: SessionKey): string {
  return `${createHash('sha256').update(`${key.client}\0${key.session}`).digest('hex').slice(0, 32)}.json`;
}

/** The limits of a client session in `project`, and where each was set (for the refusal's message and hint). */
export interface SessionLimits {
  constraints: ConstraintsConfig;
  guard: GuardOptions;
}

export function sessionLimits(project: Project): SessionLimits {
  const profile = runProfile('interactive', { config: project.config, layers: project.layers });
  return {
    constraints: configUnder(project.config, profile).constraints,
    guard: { mode: 'interactive', ...defined({ limitSource: profile.limitSource }) },
  };
}

export class SessionLedger {
  private readonly file: string;

  constructor(
    private readonly stateDir: string,
    private readonly lock: RootLock,
    private readonly key: SessionKey,
  ) {
    this.file = path.join(stateDir, SESSIONS_DIR, ledgerName(key));
  }

  /** The files this session changed so far (validated). */
  usage(): LedgerFile['files'] {
    return this.read().files;
  }

  /**
   * Checks `changes` against the limits on top of what the session already
   * changed; when they fit, records them. Returns the refusal otherwise
   * (nothing recorded). `tool` names the call for the message.
   */
  charge(limits: SessionLimits, changes: readonly FileChange[], tool: string): ErrorInfo | null {
    if (changes.length === 0) return null;
    const constraints = limits.constraints;
    return this.lock.with(() => {
      const ledger = this.read();
      const guard = new ConstraintGuard(constraints, limits.guard);
      guard.recordChanges(Object.entries(ledger.files).map(([p, c]) => ({ path: p, ...c })));
      const violation = guard.checkChanges(changes, { tool });
      if (violation) return { code: ErrorCode.CONSTRAINT, message: `${violation.message} ${usageLine(constraints, ledger.files, changes)}`, hint: violation.hint, ...defined({ path: violation.path }) };
      for (const c of changes) {
        const entry = ledger.files[c.path] ?? { added: 0, removed: 0 };
        ledger.files[c.path] = { added: entry.added + c.added, removed: entry.removed + c.removed };
      }
      this.write(ledger);
      return null;
    });
  }

  private read(): LedgerFile {
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
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return { format: 1, client: this.key.client, session: this.key.session, files: {} };
      throw damaged(this.file);
    }
    let data: unknown;
    try {
      data = JSON.parse(text);
    } catch {
      throw damaged(this.file);
    }
    if (!isLedger(data) || data.client !== this.key.client || data.session !== this.key.session) throw damaged(this.file);
    return data;
  }

  private write(ledger: LedgerFile): void {
    ensureStateSubdir(this.stateDir, SESSIONS_DIR);
    atomicWriteFile(this.file, Buffer.from(`${JSON.stringify(ledger)}\n`), { mode: 0o644 });
  }
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
