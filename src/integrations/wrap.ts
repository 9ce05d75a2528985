/**
 * `editwarden wrap -- <agent command…>`: an agent with no hooks (Aider, a
 * home-made script, next month's new one) run whole inside the sandbox —
 * the project writable, the protected set read-only (and a protected path
 * it creates put back), its home a throw-away folder, no network but the
 * model endpoint and hosts the person names (through the filtering proxy:
 * wrap-network.ts), the environment filtered by the allowlist (a model key
 * passes only when the person names it: `--pass-env ANTHROPIC_API_KEY`) —
 * with the terminal attached (verify/attached.ts), what it changes recorded
 * in the event log while it runs and kept as undo steps, one per quiet
 * period (wrap-steps.ts; when a period ends is told by wrap-activity.ts).
 *
 * What it cannot do that a client's hooks can (docs/wrap.md): nothing is
 * refused before it happens with an E_ code the model reads — the model
 * sees only the OS error (EROFS, ECONNREFUSED) its tool call met — and no
 * limit applies per call.
 *
 * It must never start the agent without bubblewrap (no sandbox, no wrap:
 * E_UNSANDBOXED, whatever the config allows for commands), and never
 * without the first index taken (no undo, no start).
 */
import os from 'node:os';
import { modelKeyEnvNames } from '../config/env-names.js';
import { EditwardenError, ErrorCode, toErrorInfo, type ErrorInfo } from '../errors.js';
import { openProjectAt } from '../host/project-at.js';
import type { Project } from '../host/project.js';
import type { EventRoute } from '../runs/events.js';
import { detectSandbox } from '../sandbox/detect.js';
import { commandSandbox } from '../sandbox/for-workspace.js';
import type { SandboxPolicy } from '../sandbox/policy.js';
import { isWithin } from '../config/path-within.js';
import { runAttached } from '../verify/attached.js';
import { displayCommand } from '../verify/runner.js';
import { ActivityWatcher } from './wrap-activity.js';
import { allowedHosts, noProxyFor, WrapNetwork } from './wrap-network.js';
import { formatHostPattern, type HostPattern } from '../config/host-patterns.js';
import { captureFailure, WrapSteps, type WrapStep } from './wrap-steps.js';
import { STATE_DIR } from '../workspace/paths.js';
import { defined } from '../defined.js';

/** The default quiet period that ends a step: longer than the pauses inside one burst of edits, shorter than a person's turn. */
export const DEFAULT_STEP_AFTER_MS = 10_000;

export interface WrapRequest {
  root: string;
  /** The agent's working folder (inside the root; else the root). */
  cwd: string;
  argv: readonly string[];
  /** Environment names passed in whatever the allowlist says (the model's key), by the person's choice. */
  passEnv: readonly string[];
  /** Hosts the agent may reach through the filtering proxy (`sandbox.network` patterns: HOST or HOST:PORT). */
  allowHosts?: readonly string[];
  /** Model endpoints (URLs) the agent may reach: each one's host and port (wrap-network.ts). */
  modelUrls?: readonly string[];
  /** Quiet time (ms) that ends a step; 0: the whole run is one step (a protected path put back still closes one). */
  stepAfterMs: number;
  /** An explicit config file (absolute): loaded instead of .editwarden.yml and protected with it. */
  configFile?: string;
  /** The session id for the event log (default: made from the time). */
  session?: string;
}

export interface WrapIo {
  /** editwarden's own lines (stderr): never mixed into the agent's stdout. */
  say(line: string): void;
  /** Where the environment comes from (default process.env). */
  env?: NodeJS.ProcessEnv;
}

export interface WrapOutcome {
  /** The agent's exit code (128 + signal number when a signal ended it); null when it never started. */
  exitCode: number | null;
  session: string;
  steps: WrapStep[];
  /** Why it was not started, or why what it changed could not all be recorded. */
  refusal: ErrorInfo | null;
}

/** Refusal before the agent starts: nothing ran. */
function notStarted(session: string, error: unknown): WrapOutcome {
  return { exitCode: null, session, steps: [], refusal: toErrorInfo(error) };
}

export async function runWrap(req: WrapRequest, io: WrapIo): Promise<WrapOutcome> {
  const session = req.session ?? `wrap-${new Date().toISOString().replace(/[-:]/g, '').replace(/\..*/, '')}-${process.pid}`;
  const env = io.env ?? process.env;
  let opened: Project;
  let sandbox: SandboxPolicy;
  let passed: Record<string, string | undefined>;
  let hosts: HostPattern[];
  try {
    if (req.argv.length === 0) throw new EditwardenError({ code: ErrorCode.USAGE, message: 'No agent command was given.', hint: 'editwarden wrap -- <agent command…>, e.g. editwarden wrap -- aider --model sonnet' });
    opened = openProjectAt(req.root, defined({ configFile: req.configFile }));
    passed = passedEnv(req.passEnv, env);
    hosts = allowedHosts(req.allowHosts ?? [], req.modelUrls ?? []);
    // Model keys are out unless named; every other name by the allowlist (sandbox/env.ts).
    sandbox = commandSandbox(opened.ws, opened.config, { envDeny: modelKeyEnvNames().filter((n) => !req.passEnv.includes(n)) });
    refuseWithoutBwrap(sandbox);
  } catch (error) {
    return notStarted(session, error);
  }
  // The agent's network: the hosts the person named on the command line, through the proxy; none (a private loopback) else.
  sandbox = { ...sandbox, networkAccess: hosts.length > 0 ? { mode: 'hosts', hosts } : { mode: 'off' } };
  const route: EventRoute = { via: 'wrap', client: agentName(req.argv), session };
  const command = displayCommand(req.argv);
  const steps = new WrapSteps({ project: opened, sandbox, route, command, say: io.say });
  let network: WrapNetwork | null = null;
  try {
    steps.begin();
    network = hosts.length > 0 ? await startNetwork(hosts) : null;
  } catch (error) {
    return notStarted(session, error);
  }
  // Refused connections reach the log at each step, not only at the end.
  const flushNetwork = (): void => {
    const failed = network?.flush(opened.ws.stateDir, { route, command });
    if (failed) io.say(`[editwarden] could not log the refused connections: ${failed.message}`);
  };

  let failure: ErrorInfo | null = null;
  const capture = (): void => {
    steps.capture().then(flushNetwork, (error: unknown) => {
      failure ??= captureFailure(error);
      io.say(`[editwarden] ${failure.code}: ${failure.message}`);
    });
  };
  const timers = stepTimers(req.stepAfterMs, capture);
  const policy = opened.ws.policy;
  const watcher = new ActivityWatcher(sandbox.root, [STATE_DIR], (rel) => {
    // A protected path touched: put back now, not at the end of the period (a client could read its new settings meanwhile).
    if (policy.protectedBy(rel) !== null) timers.now();
    else timers.wrote();
  });
  if (watcher.degraded !== null && req.stepAfterMs > 0) {
    io.say(`[editwarden] the change watcher cannot see every folder (${watcher.degraded}): a step also ends every ${req.stepAfterMs / 1000} s.`);
    timers.poll(req.stepAfterMs);
  }
  io.say(
    `[editwarden] wrap session ${session}: ${displayCommand(req.argv)} runs sandboxed in ${sandbox.root} (${hosts.length > 0 ? `network: ${hosts.map(formatHostPattern).join(', ')} only` : 'no network'}; ${req.stepAfterMs > 0 ? `one undo step per ${req.stepAfterMs / 1000} s quiet` : 'one undo step'}).`,
  );

  let exitCode: number | null;
  try {
    const ran = await runAttached({
      argv: req.argv,
      cwd: isWithin(req.cwd, sandbox.root) ? req.cwd : sandbox.root,
      sandbox,
      // The proxy's exceptions first, so a name the person passed still wins.
      env: { ...noProxyFor(hosts), ...passed },
      proxySocket: network?.socketPath ?? null,
      onStart: (pid) => {
        steps.tree = pid;
      },
    });
    if (ran.spawnError !== undefined) io.say(`[editwarden] the agent could not start: ${ran.spawnError}`);
    exitCode = ran.exitCode ?? (ran.signal ? 128 + signalNumber(ran.signal) : null);
  } finally {
    watcher.close();
    timers.stop();
    steps.tree = null;
    await network?.close();
  }
  try {
    await steps.capture(true);
  } catch (error) {
    failure ??= captureFailure(error);
  }
  flushNetwork();
  steps.finish(exitCode, failure);
  return { exitCode, session, steps: steps.steps, refusal: failure };
}

/** The proxy for the named hosts; one that cannot start is a refusal (the agent would run without the model it was started for). */
async function startNetwork(hosts: readonly HostPattern[]): Promise<WrapNetwork> {
  try {
    return await WrapNetwork.start(hosts);
  } catch (error) {
    throw new EditwardenError({
      code: ErrorCode.IO,
      message: `editwarden wrap could not start the network proxy for ${hosts.map(formatHostPattern).join(', ')}: ${toErrorInfo(error).message}`,
      hint: 'Check that TMPDIR (or /tmp) is writable, then run it again; without --allow-host and --model-url the agent runs with no network.',
    });
  }
}

/** The values of the names the person passed (`--pass-env`); a name that is not set is refused (a typo would leave the agent keyless). */
function passedEnv(names: readonly string[], env: NodeJS.ProcessEnv): Record<string, string | undefined> {
  const out: Record<string, string | undefined> = {};
  for (const name of names) {
    const value = env[name];
    if (value === undefined) {
      throw new EditwardenError({ code: ErrorCode.USAGE, message: `--pass-env ${name}: ${name} is not set in this environment.`, hint: `Set ${name} first, or leave --pass-env ${name} out.` });
    }
    out[name] = value;
  }
  return out;
}

/** wrap is the sandbox: without bubblewrap there is nothing to wrap the agent in, so nothing runs. */
function refuseWithoutBwrap(sandbox: SandboxPolicy): void {
  const info = detectSandbox();
  if (sandbox.enabled && info.kind === 'bwrap') return;
  const why = !sandbox.enabled
    ? 'the sandbox is turned off (sandbox.enabled: false)'
    : info.kind === 'sandbox-exec'
      ? 'wrap needs bubblewrap (Linux); sandbox-exec cannot hold the agent'
      : `no bubblewrap sandbox is available (${info.detail})`;
  throw new EditwardenError({
    code: ErrorCode.UNSANDBOXED,
    message: `editwarden wrap refused to start the agent: ${why}. Unguarded, it could read and write anything you can.`,
    hint: !sandbox.enabled ? 'Remove sandbox.enabled: false from the config (wrap has no unsandboxed mode), or run the agent without editwarden.' : `${info.fix ?? 'Install bubblewrap.'} Then run \`editwarden doctor\` to check.`,
  });
}

/** The client name the log shows: the program's base name (`aider`, `node`). */
function agentName(argv: readonly string[]): string {
  const first = argv[0] ?? 'agent';
  return first.split('/').pop() || 'agent';
}

interface StepTimers {
  /** Something was written: the period restarts. */
  wrote(): void;
  /** Capture at once (a protected path). */
  now(): void;
  /** Capture every `ms` whatever the watcher saw (it cannot see everything). */
  poll(ms: number): void;
  stop(): void;
}

function stepTimers(stepAfterMs: number, capture: () => void): StepTimers {
  let quiet: NodeJS.Timeout | undefined;
  let soon: NodeJS.Timeout | undefined;
  let every: NodeJS.Timeout | undefined;
  return {
    wrote() {
      if (stepAfterMs <= 0) return;
      clearTimeout(quiet);
      quiet = setTimeout(capture, stepAfterMs);
    },
    now() {
      // A burst of writes to protected paths is one capture.
      if (soon !== undefined) return;
      soon = setTimeout(() => {
        soon = undefined;
        capture();
      }, 50);
    },
    poll(ms) {
      every = setInterval(capture, ms);
    },
    stop() {
      clearTimeout(quiet);
      clearTimeout(soon);
      clearInterval(every);
    },
  };
}

function signalNumber(signal: NodeJS.Signals): number {
  return os.constants.signals[signal] ?? 1;
}
