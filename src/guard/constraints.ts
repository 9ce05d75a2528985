/**
 * The constraint guard of one run: the `constraints:` config compiled into a
 * matcher and limits, plus the running totals (files changed, lines added
 * and removed, tokens, elapsed time). A check is a question ("would this
 * change overstep a limit?") answered with a Violation or null; the runner
 * asks it before a write tool writes, and after a command ran (its effects
 * cannot be known before; such violations carry prevented: false).
 * Recording is separate, so a refused change is never counted. It never touches the disk and never runs a tool: the tool
 * runner asks, then acts.
 */
import type { ConstraintsConfig } from '../config/config.js';
import type { LimitSource } from '../config/layers.js';
import type { Attendance } from '../config/modes.js';
import { compilePatterns, normalizeRelative, type PathMatcher } from './patterns.js';
import { ADR_ERRORS, ViolationType, type ConstraintKey, type Violation } from './violations.js';
import { defined } from '../defined.js';
import { GIT_DIR } from '../config/protected-set.js';

/** One file a change touches, with the lines it adds and removes (from the real diff). */
export interface FileChange {
  path: string;
  added: number;
  removed: number;
}

/** Where a check happens, for the violation record. */
export interface CheckSite {
  tool?: string;
  call?: number;
}

export interface GuardOptions {
  /** Whether a person is there (config/modes.ts); default headless. */
  mode?: Attendance;
  /** Milliseconds clock (tests pass their own). */
  now?: () => number;
  /**
   * Where each limit was set and how to raise it (config/layers.ts `limitSource`): a refusal names the file
   * and key to change. Without it, the refusal names the key and its command-line flag.
   */
  limitSource?: (key: `constraints.${LimitKey}`) => LimitSource;
}

/** The limits a person raises: the ones a refusal says where to change. */
type LimitKey = 'max_files' | 'max_lines_changed' | 'max_tokens' | 'timeout';

export interface ConstraintTotals {
  files_modified: number;
  lines_added: number;
  lines_removed: number;
  tokens_used: number;
  /** Agent time (what constraints.timeout limits): the time waited for a person is not in it. */
  elapsed_seconds: number;
  /** Time the run waited for a person at approval prompts (interactive mode). */
  waited_for_person_seconds?: number;
}

export class ConstraintGuard {
  readonly config: ConstraintsConfig;
  readonly matcher: PathMatcher;
  readonly mode: Attendance;
  private readonly now: () => number;
  private readonly limitSource: GuardOptions['limitSource'];
  private readonly startedMs: number;
  private readonly allowedTools: ReadonlySet<string>;
  private readonly files = new Map<string, { added: number; removed: number }>();
  private linesAdded = 0;
  private linesRemoved = 0;
  private tokens = 0;

  constructor(config: ConstraintsConfig, options: GuardOptions = {}) {
    this.config = config;
    this.matcher = compilePatterns(config.allowed_patterns, config.denied_patterns);
    this.mode = options.mode ?? 'headless';
    this.now = options.now ?? Date.now;
    this.limitSource = options.limitSource;
    this.startedMs = this.now();
    this.allowedTools = new Set(config.allowed_tools);
  }

  get timeoutMs(): number {
    return this.config.timeout * 1000;
  }

  /** Agent time: wall time since the start minus the time the run waited for a person (approval prompts). */
  elapsedMs(): number {
    return this.now() - this.startedMs - this.waitedMs;
  }

  /** Time spent waiting for a person is not the agent's time: it is not charged to constraints.timeout. */
  recordWait(ms: number): void {
    if (ms > 0) this.waitedMs += ms;
  }

  private waitedMs = 0;

  /** Time left before the run's deadline (≤ 0 once it has passed). */
  remainingMs(): number {
    return this.timeoutMs - this.elapsedMs();
  }

  totals(): ConstraintTotals {
    return {
      files_modified: this.files.size,
      lines_added: this.linesAdded,
      lines_removed: this.linesRemoved,
      tokens_used: this.tokens,
      elapsed_seconds: round(this.elapsedMs() / 1000, 3),
      waited_for_person_seconds: round(this.waitedMs / 1000, 3),
    };
  }

  /** Files changed so far with their line counts, in first-changed order. */
  changedFiles(): FileChange[] {
    return [...this.files].map(([path, c]) => ({ path, ...c }));
  }

  /** Checked before each call, and again after one that ran long. */
  checkTime(site: CheckSite = {}): Violation | null {
    const elapsed = this.elapsedMs();
    if (elapsed <= this.timeoutMs) return null;
    return this.violation(ViolationType.TIMEOUT, 'timeout', site, {
      limit: this.config.timeout,
      actual: round(elapsed / 1000, 3),
      adr: ADR_ERRORS.timeout(elapsed, this.timeoutMs),
      message: `Timeout: the run has taken ${(elapsed / 1000).toFixed(1)} s, over the limit of ${this.config.timeout} s (${this.keyIn('timeout')}).`,
      hint: `${capital(this.raise('timeout', 'raise constraints.timeout (or --timeout, in seconds)'))}, or give the agent a smaller task.`,
    });
  }

  /** A violation for a call stopped at the deadline while it ran. */
  timeoutDuringCall(site: CheckSite): Violation {
    return this.violation(ViolationType.TIMEOUT, 'timeout', site, {
      limit: this.config.timeout,
      actual: round(this.elapsedMs() / 1000, 3),
      adr: ADR_ERRORS.timeout(this.elapsedMs(), this.timeoutMs),
      message: `Timeout: ${site.tool ?? 'the call'} was still running at the run's deadline of ${this.config.timeout} s (${this.keyIn('timeout')}) and was stopped.`,
      hint: `${capital(this.raise('timeout', 'raise constraints.timeout (or --timeout, in seconds)'))}, or run shorter commands.`,
    });
  }

  /** `needsPerson`: the tool is interactive (its kind, tools/types.ts): always refused in headless mode (the ADR). */
  checkTool(name: string, site: CheckSite, needsPerson: boolean): Violation | null {
    const at = { ...site, tool: name };
    if (this.mode === 'headless' && needsPerson) {
      return this.violation(ViolationType.TOOL_RESTRICTION, 'headless', at, {
        limit: 'headless',
        actual: name,
        adr: ADR_ERRORS.interactive(name),
        message: `Tool restriction: ${name} needs a person and is never allowed in headless mode.`,
        hint: 'Decide without asking: make a reasonable choice, say so in task_completion, or run in interactive mode.',
      });
    }
    if (this.allowedTools.size > 0 && !this.allowedTools.has(name)) {
      return this.violation(ViolationType.TOOL_RESTRICTION, 'allowed_tools', at, {
        limit: [...this.allowedTools],
        actual: name,
        adr: ADR_ERRORS.notAllowed(name),
        message: `Tool restriction: ${name} is not in constraints.allowed_tools (${[...this.allowedTools].join(', ')}).`,
        hint: `Use one of the allowed tools, or add ${name} to constraints.allowed_tools (or --allow-tool ${name}).`,
      });
    }
    return null;
  }

  /** The pattern verdict for one path (denied / not allowed), as a violation. */
  checkPath(relative: string, site: CheckSite = {}, prevented = true): Violation | null {
    const p = normalizeRelative(relative);
    const verdict = this.matcher.check(p);
    if (verdict.ok) return null;
    if (verdict.reason === 'denied') {
      return this.violation(
        ViolationType.PATTERN,
        'denied_patterns',
        { ...site },
        {
          limit: verdict.pattern,
          actual: p,
          path: p,
          prevented,
          adr: ADR_ERRORS.pattern(p),
          message: `Pattern violation: ${p} matches the denied pattern "${verdict.pattern}" (constraints.denied_patterns).`,
          hint: `Leave ${p} alone; change files the task is about. To allow it, remove "${verdict.pattern}" from constraints.denied_patterns.`,
        },
      );
    }
    return this.violation(
      ViolationType.PATTERN,
      'allowed_patterns',
      { ...site },
      {
        limit: [...this.matcher.allowed],
        actual: p,
        path: p,
        prevented,
        adr: ADR_ERRORS.pattern(p),
        message: `Pattern violation: ${p} matches none of constraints.allowed_patterns (${this.matcher.allowed.join(', ')}).`,
        hint: `Change only files under the allowed patterns, or add a pattern for ${p} (--allow GLOB).`,
      },
    );
  }

  /**
   * Would these changes (one call's real diff, before it is written) stay in
   * bounds? Patterns first (the most specific message), then max_files over
   * the union of files changed in the run, then max_lines_changed over the
   * run's total.
   */
  checkChanges(changes: readonly FileChange[], site: CheckSite = {}, prevented = true): Violation | null {
    for (const change of changes) {
      const v = this.checkPath(change.path, site, prevented);
      if (v) return v;
    }
    const union = new Set(this.files.keys());
    for (const change of changes) union.add(normalizeRelative(change.path));
    if (union.size > this.config.max_files) {
      const fresh = changes.map((c) => normalizeRelative(c.path)).filter((p) => !this.files.has(p));
      return this.violation(ViolationType.FILE_MODIFICATION, 'max_files', site, {
        limit: this.config.max_files,
        actual: union.size,
        ...defined({ path: fresh[0] }),
        prevented,
        adr: ADR_ERRORS.maxFiles(union.size, this.config.max_files),
        message: `File limit: this would make ${union.size} files changed in this run, over the limit of ${this.config.max_files} (${this.keyIn('max_files')})${fresh.length > 0 ? `; new: ${fresh.slice(0, 5).join(', ')}` : ''}.`,
        hint: `Finish with the files already changed, ${this.raise('max_files', 'raise constraints.max_files (or --max-files)')}, or split the task into smaller runs.`,
      });
    }
    let added = 0;
    let removed = 0;
    for (const change of changes) {
      added += change.added;
      removed += change.removed;
    }
    const total = this.linesAdded + this.linesRemoved + added + removed;
    if (total > this.config.max_lines_changed) {
      return this.violation(ViolationType.FILE_MODIFICATION, 'max_lines_changed', site, {
        limit: this.config.max_lines_changed,
        actual: total,
        ...defined({ path: changes[0] !== undefined ? normalizeRelative(changes[0].path) : undefined }),
        prevented,
        adr: ADR_ERRORS.maxLines(total, this.config.max_lines_changed),
        message: `Line limit: this would make ${total} lines changed in this run (${this.linesAdded + added} added, ${this.linesRemoved + removed} removed), over the limit of ${this.config.max_lines_changed} (${this.keyIn('max_lines_changed')}).`,
        hint: `Make smaller edits, ${this.raise('max_lines_changed', 'raise constraints.max_lines_changed (or --max-lines)')}, or split the task into smaller runs.`,
      });
    }
    return null;
  }

  /** Counts changes that happened (or are about to, after checkChanges passed). */
  recordChanges(changes: readonly FileChange[]): void {
    for (const change of changes) {
      const p = normalizeRelative(change.path);
      const entry = this.files.get(p) ?? { added: 0, removed: 0 };
      entry.added += change.added;
      entry.removed += change.removed;
      this.files.set(p, entry);
      this.linesAdded += change.added;
      this.linesRemoved += change.removed;
    }
  }

  /**
   * A command changed what governs the run — `.git/` or a config file — which
   * no limit may allow. Always a Pattern violation (the change already
   * happened: the caller has reverted it and says whether it could).
   */
  governingChanged(paths: readonly string[], notReverted: readonly string[], site: CheckSite = {}): Violation {
    const first = paths[0] ?? GIT_DIR;
    const shown = paths.slice(0, 5).join(', ') + (paths.length > 5 ? ` and ${paths.length - 5} more` : '');
    const undone = notReverted.length === 0 ? 'it was reverted' : `it was reverted except ${notReverted.slice(0, 5).join(', ')} (restore by hand)`;
    return this.violation(ViolationType.PATTERN, 'protected_paths', site, {
      limit: '.git/ and the editwarden config',
      actual: first,
      path: first,
      prevented: false,
      adr: ADR_ERRORS.pattern(first),
      message: `Pattern violation: ${site.tool ?? 'a command'} changed ${shown}, which governs git or editwarden and is never the agent's to change; ${undone}.`,
      hint: 'Do not write inside .git/ or to the editwarden config from commands (no hooks, no git config, no moving HEAD or refs); change project files only.',
    });
  }

  /** Records model tokens; the usage that crosses the budget is the violation. */
  recordTokens(tokens: number, site: CheckSite = {}): Violation | null {
    if (!Number.isFinite(tokens) || tokens < 0) throw new RangeError(`token count must be a non-negative number, got ${tokens}`);
    this.tokens += tokens;
    if (this.tokens <= this.config.max_tokens) return null;
    return this.violation(ViolationType.TOKEN_LIMIT, 'max_tokens', site, {
      limit: this.config.max_tokens,
      actual: this.tokens,
      message: `Token limit: ${this.tokens} tokens used, over the budget of ${this.config.max_tokens} (${this.keyIn('max_tokens')}).`,
      hint: `${capital(this.raise('max_tokens', 'raise constraints.max_tokens (or --max-tokens)'))}, or give the agent a smaller task.`,
    });
  }

  /** "constraints.max_files, set in /p/.editwarden.yml": the key, and where its value comes from where known. */
  private keyIn(key: LimitKey): string {
    const source = this.limitSource?.(`constraints.${key}`);
    return source ? `constraints.${key}, ${source.where}` : `constraints.${key}`;
  }

  /** The clause that says how to raise a limit: the file and key where known, else the key and its flag. */
  private raise(key: LimitKey, fallback: string): string {
    return this.limitSource?.(`constraints.${key}`).raise ?? fallback;
  }

  private violation(type: Violation['type'], constraint: ConstraintKey, site: CheckSite, detail: Pick<Violation, 'limit' | 'actual' | 'message' | 'hint'> & { path?: string; prevented?: boolean; adr?: string }): Violation {
    const v: Violation = {
      type,
      constraint,
      limit: detail.limit,
      actual: detail.actual,
      // The ADR's ConstraintViolation.Error(): "constraint violated: <Type> - <detail>".
      message: violationMessage(type, detail.message, detail.adr),
      hint: detail.hint,
      prevented: detail.prevented ?? true,
      at: new Date().toISOString(),
      elapsed_seconds: round(this.elapsedMs() / 1000, 3),
    };
    if (site.call !== undefined) v.call = site.call;
    if (site.tool !== undefined) v.tool = site.tool;
    if (detail.path !== undefined) v.path = detail.path;
    if (detail.adr !== undefined) v.adr_error = detail.adr;
    return v;
  }
}

/**
 * The ADR's `ConstraintViolation.Error()`: `constraint violated: <Type> - <err>`, where err leads with the ADR's own
 * sentence (ADR_ERRORS) and our detail follows; our label ("Pattern violation:", "Timeout:" …) is dropped from it.
 */
function violationMessage(type: Violation['type'], detail: string, adr?: string): string {
  const ours = detail.replace(/^(Pattern violation|Tool restriction|Timeout|File limit|Line limit|Token limit): /, '');
  return `constraint violated: ${type} - ${adr !== undefined ? `${adr} — ${ours}` : ours}`;
}

function capital(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}

function round(x: number, digits: number): number {
  const f = 10 ** digits;
  return Math.round(x * f) / f;
}
