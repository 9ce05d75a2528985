/**
 * One MCP session (a stdio server, or one Streamable HTTP session): its
 * workspace root (from the client's roots or --root), its config, and the
 * ToolRunner that every call goes through. Calls run in arrival order, one
 * at a time, so a write is always planned and applied against the state the
 * previous call left — except that read-only calls (a tool whose readOnlyHint is true) run
 * alongside the read-only calls next to them in the queue: a slow search
 * (a regular expression running to its budget) must not hold up a
 * read_file. A write still waits for every call before it.
 *
 * Runs. A run begins with the first call. With --headless the session is one
 * run exactly as in `editwarden exec`: a violation (or the run's timeout)
 * ends it, its report is written and on_violation applied, and every later
 * call is refused (E_RUN_ENDED). Without --headless a person is at the
 * client: the session is interactive (runs/profile.ts: no caps but the ones
 * the config sets); a violation still refuses the call and ends the run the
 * same way, but the next call begins a new run; where a timeout is set, a
 * run also ends, quietly, once less than half of it is left, so no call is
 * cut short by a deadline the person never saw coming. Limits therefore
 * count per run.
 *
 * A client that cancels a request (notifications/cancelled) cancels that
 * call only: a running build is killed at once, a queued call never starts,
 * and the run goes on for the next call.
 *
 * It never writes a file itself and never runs a tool outside the runner.
 */
import { runProfile } from '../runs/profile.js';
import { Run } from '../runs/run.js';
import { loadProjectConfig } from '../config/load.js';
import { ignoredNotice } from '../config/layers.js';
import { ErrorCode, toErrorInfo } from '../errors.js';
import type { Attendance } from '../config/modes.js';
import { ToolRunner, type RunSummary } from '../tools/runner.js';
import { toolAliases, toolsetFor, type Toolset } from '../tools/toolset.js';
import { openProject, type Project } from '../host/project.js';
import { buildCatalog, type McpToolEntry } from './catalog.js';
import { chooseRoot, type RootChoice } from './roots.js';
import { errorResult, recordResult, type McpToolResult } from './results.js';
import { defined } from '../defined.js';

export interface SessionOptions {
  /** --root, or the working folder. */
  cliRoot: string;
  cliRootExplicit: boolean;
  /** --config, as an absolute path. */
  configFile?: string;
  mode: Attendance;
  /** Over HTTP: the client's roots count only inside the server's own root (roots.ts `confine`). */
  confineRoots?: boolean;
  /** --unsandboxed: commands may run where no OS sandbox is available (sandbox.allow_unsandboxed). */
  unsandboxed?: boolean;
  /** Where notices go (stderr: stdout belongs to the protocol). */
  log: (line: string) => void;
  /** Characters of file text per read_file page. */
  pageChars?: number;
}

/** What the client sees of a tool in tools/list. */
export interface ListedTool {
  name: string;
  description: string;
  inputSchema: Record<string, unknown>;
  annotations: McpToolEntry['annotations'];
}

/** The root the session serves: where it was chosen from, the project opened there (whole), and what its config offers and serves. */
interface ServedRoot {
  choice: RootChoice;
  project: Project;
  /** tools/toolset.ts, client mcp. */
  toolset: Toolset;
}

export class McpSession {
  private readonly options: SessionOptions;
  private readonly catalog = buildCatalog();
  private clientRoots: Promise<readonly string[] | undefined> = Promise.resolve(undefined);
  private open: ServedRoot | null = null;
  private runner: ToolRunner | null = null;
  private queue: Promise<unknown> = Promise.resolve();
  /** Read-only calls in flight since the last exclusive step; the next exclusive step waits for them. */
  private reads = new Set<Promise<unknown>>();
  /** The root being opened, shared by calls that overlap. */
  private opening: Promise<ServedRoot> | null = null;
  private closed = false;
  private clientName: string | undefined;
  /** Runs that have ended in this session, oldest first. */
  readonly finished: RunSummary[] = [];

  constructor(options: SessionOptions) {
    this.options = options;
  }

  /** The client's name from its initialize request (clientInfo.name), for the event log's route. */
  setClientName(name: string | undefined): void {
    if (typeof name === 'string' && name !== '') this.clientName = name.slice(0, 100);
  }

  /** The client's root URIs (a pending roots/list answer); undefined when it offers none. */
  setClientRoots(roots: Promise<readonly string[] | undefined>): void {
    this.clientRoots = roots;
  }

  /** Resolves the root again; true when it moved (the old run is finished; the tool list may differ). */
  async refreshRoot(): Promise<boolean> {
    return this.enqueue(async () => {
      const before = this.open?.choice.root;
      try {
        await this.workspace();
      } catch (error) {
        this.options.log(`editwarden mcp: ${toErrorInfo(error).message}`);
        this.release();
      }
      return this.open?.choice.root !== before;
    });
  }

  async listTools(): Promise<ListedTool[]> {
    let offered: readonly string[] | null = null;
    try {
      // Read-only: listing the tools must not wait behind a slow search.
      offered = (await this.enqueueShared(() => this.workspace())).toolset.offered;
    } catch {
      // No usable root yet: list everything; each call then explains what is wrong with the root.
    }
    const entries = offered ? this.catalog.filter((e) => offered.includes(e.name)) : this.catalog;
    return entries.map((e) => ({ name: e.name, description: e.description, inputSchema: e.inputSchema, annotations: e.annotations }));
  }

  /** One tool call; never throws: every failure is a tool result with isError. `signal`: the request's cancellation. */
  call(name: string, args: unknown, signal?: AbortSignal): Promise<McpToolResult> {
    const work = async (): Promise<McpToolResult> => {
      try {
        // Cancelled while it waited its turn: it never starts (the SDK sends no answer to a cancelled request).
        if (signal?.aborted) return errorResult({ code: ErrorCode.ABORTED, message: `The ${name} call was cancelled by the client before it started.`, hint: 'Call it again if it is still wanted.' });
        return await this.callNow(name, args, signal);
      } catch (error) {
        return errorResult(toErrorInfo(error));
      }
    };
    // Calls that never change the disk may overlap with each other (never with a write).
    return this.entry(name)?.annotations.readOnlyHint ? this.enqueueShared(work) : this.enqueue(work);
  }

  /** Ends the current run (metrics and reports written). Idempotent. */
  async close(): Promise<void> {
    await this.enqueue(async () => {
      this.closed = true;
      this.endRun();
    });
  }

  /** The catalog entry a call names; the headless ADR's tool names (apply_diff → apply_patch) are call names here too, unlisted. */
  private entry(name: string): McpToolEntry | undefined {
    const aliases = toolAliases();
    return this.catalog.find((e) => e.name === name) ?? (Object.hasOwn(aliases, name) ? this.catalog.find((e) => e.name === aliases[name]) : undefined);
  }

  private async callNow(name: string, rawArgs: unknown, signal?: AbortSignal): Promise<McpToolResult> {
    if (this.closed) return errorResult({ code: ErrorCode.USAGE, message: 'The MCP session is closed.', hint: 'Reconnect to the server.' });
    const entry = this.entry(name);
    if (!entry) {
      return errorResult({
        code: 'E_UNKNOWN_TOOL',
        message: `There is no tool named ${JSON.stringify(name)}.`,
        hint: `Available tools: ${this.catalog.map((e) => e.name).join(', ')}.`,
      });
    }
    if (typeof rawArgs !== 'object' || rawArgs === null || Array.isArray(rawArgs)) {
      return errorResult({ code: ErrorCode.PARSE, message: `${name} arguments must be a JSON object.`, hint: `Send the arguments of ${name} as an object.` });
    }
    const routed = entry.route(rawArgs as Record<string, unknown>);
    if (!routed.ok) return errorResult(routed.error);

    let open: ServedRoot;
    try {
      open = await this.workspace();
    } catch (error) {
      return errorResult(toErrorInfo(error));
    }
    const runner = this.currentRunner(open);
    const record = await runner.call({ tool: routed.tool, args: routed.args, ...defined({ signal }) });
    const result = recordResult(record, { ...defined({ read: routed.read }), ...defined({ pageChars: this.options.pageChars || undefined }) });

    if (record.ok && routed.tool !== entry.name) this.warnIfPreviewWouldViolate(runner, record.data, result);
    if (runner.state === 'aborted') this.reportEndedRun(runner, result);
    return result;
  }

  /** A dry run is a read and is never charged; still, say if doing it for real would break a limit. */
  private warnIfPreviewWouldViolate(runner: ToolRunner, data: unknown, result: McpToolResult): void {
    const changes = (data as { changes?: unknown } | undefined)?.changes;
    if (!Array.isArray(changes)) return;
    const v = runner.wouldViolate(changes);
    if (!v) return;
    const first = result.content[0];
    if (first) first.text += `\nwarning: doing this for real would be refused — ${v.message}`;
    if (result.structuredContent) result.structuredContent.would_violate = v;
  }

  /** The run this call ended: finish it (reports, on_violation) and tell the model what happens next. */
  private reportEndedRun(runner: ToolRunner, result: McpToolResult): void {
    const summary = this.endRun();
    if (!summary) return;
    const outcome =
      summary.metrics.outcome === 'rolled-back'
        ? `on_violation: rollback — every change of this run was undone (${summary.rollback?.written.length ?? 0} file(s) put back, ${summary.rollback?.removed.length ?? 0} removed).`
        : summary.metrics.outcome === 'kept'
          ? 'on_violation: keep — the changes made before it are kept.'
          : 'The rollback did not finish; the next editwarden command in this root completes it.';
    const next = this.options.mode === 'headless' ? 'This headless session accepts no more tool calls; report what you did and stop.' : 'The next tool call starts a new run with fresh limits.';
    const report = summary.reports.violationMarkdown ? ` Report: ${summary.reports.violationMarkdown}.` : '';
    const first = result.content[0];
    if (first) first.text += `\nThe run ${summary.runId} ended with this violation. ${outcome}${report} ${next}`;
    if (result.structuredContent) {
      result.structuredContent.run = { run_id: summary.runId, status: summary.status, outcome: summary.metrics.outcome, report: summary.reports.violationMarkdown ?? null, accepts_more_calls: this.options.mode !== 'headless' };
    }
    // A headless session keeps the ended runner: it refuses every later call with E_RUN_ENDED.
    if (this.options.mode === 'headless') this.runner = runner;
  }

  private currentRunner(open: ServedRoot): ToolRunner {
    const r = this.runner;
    if (r) {
      if (this.options.mode === 'headless') return r;
      // No time limit (an interactive session's, unless set): a run is fresh while it runs.
      const fresh = r.state === 'running' && (!Number.isFinite(r.guard.timeoutMs) || r.guard.remainingMs() > r.guard.timeoutMs / 2);
      if (fresh) return r;
      this.endRun();
    }
    this.runner = ToolRunner.start({
      project: open.project,
      run: new Run({ profile: runProfile(this.options.mode, { config: open.toolset.config, layers: open.project.layers }) }),
      toolset: open.toolset,
      // The event log names the route: an MCP client's calls, whichever mode, and the client where it said its name.
      events: { via: 'mcp', ...defined({ client: this.clientName || undefined }) },
    });
    return this.runner;
  }

  /** Finishes the current run if it has not been; returns its summary. */
  private endRun(): RunSummary | null {
    const r = this.runner;
    if (!r) return null;
    this.runner = null;
    if (r.state === 'finished') return null;
    const summary = r.finish();
    this.finished.push(summary);
    return summary;
  }

  /** Forgets the open root (its run finished): the next call resolves the root again. */
  private release(): void {
    this.endRun();
    this.open = null;
  }

  /** The open root for the client's current roots; overlapping read-only calls share one opening. */
  private workspace(): Promise<ServedRoot> {
    if (this.opening) return this.opening;
    const opening = this.openWorkspace().finally(() => {
      if (this.opening === opening) this.opening = null;
    });
    this.opening = opening;
    return opening;
  }

  /** Opens (and recovers) the root on first use or after a change of the client's roots. */
  private async openWorkspace(): Promise<ServedRoot> {
    const clientRoots = await this.clientRoots;
    const choice = chooseRoot({ clientRoots, cliRoot: this.options.cliRoot, cliRootExplicit: this.options.cliRootExplicit, confine: this.options.confineRoots === true });
    if (this.open && this.open.choice.root === choice.root) return this.open;
    if (this.open) {
      this.options.log(`editwarden mcp: the client's roots changed; workspace ${this.open.choice.root} → ${choice.root}`);
      this.release();
    }
    const { config: file, trust, layers } = loadProjectConfig(choice.root, this.options.configFile);
    const notice = ignoredNotice(layers);
    if (notice) this.options.log(`editwarden mcp: note: ${notice}`);
    const config = this.options.unsandboxed ? { ...file, sandbox: { ...file.sandbox, allow_unsandboxed: true } } : file;
    const project = openProject(choice.root, config, { languageHooks: 'session', configFiles: this.options.configFile !== undefined ? [this.options.configFile] : undefined, trust, layers });
    const toolset = toolsetFor(runProfile(this.options.mode, { config, layers }), config, { client: 'mcp' });
    for (const notice of project.recovered) this.options.log(`editwarden mcp: recovered: ${notice.message}`);
    for (const bad of choice.ignored) this.options.log(`editwarden mcp: ignored client root ${bad}`);
    this.options.log(`editwarden mcp: workspace ${choice.root} (${choice.source === 'client' ? "the client's root" : choice.source === 'flag' ? '--root' : 'working folder'})`);
    this.open = { choice, project, toolset };
    return this.open;
  }

  /** An exclusive step: after every call before it, before every call after it. */
  private enqueue<T>(work: () => Promise<T>): Promise<T> {
    const before = this.reads.size === 0 ? this.queue : Promise.all([this.queue, ...this.reads]);
    this.reads = new Set();
    const next = before.then(work, work);
    // The queue itself never rejects: one failed call must not poison the ones after it.
    this.queue = next.catch(() => undefined);
    return next;
  }

  /** A read-only step: after the last exclusive step, alongside the read-only steps around it. */
  private enqueueShared<T>(work: () => Promise<T>): Promise<T> {
    const next = this.queue.then(work, work);
    const settled = next.catch(() => undefined);
    const reads = this.reads;
    reads.add(settled);
    // A long series of reads must not pile up settled promises.
    void settled.then(() => reads.delete(settled));
    return next;
  }
}
