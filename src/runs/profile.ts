/**
 * How a run is run, as one value: its mode, what happens to the work when
 * the run fails, who approves each change, and whether anything reaches the
 * disk. The CLI, the MCP server, the demo and library callers each build one
 * `RunProfile` where they read their flags and options, and the layers below
 * read the profile instead of separate flags — so a mode is one value, not a
 * combination of booleans checked in several places. It only describes a
 * run; it never opens a workspace, starts one or renders anything. It lives
 * in runs/, beside the run's outcome and the `Run` that settles by it: the
 * tool runner one floor up holds the Run.
 *
 * The failure policies are the three of DESIGN.md, one mechanism (a
 * transaction with a checkpoint, owned and settled by the `Run`, run.ts)
 * chosen per mode: `rollback` puts every file back (controlled mode; any
 * other mode under on_violation: rollback), `keep` leaves the partial work
 * (on_violation: keep; a dry run, which has nothing on disk), `fix-forward`
 * keeps the work and lets the Editor repair it. `constraints.on_violation`
 * is read here and nowhere else for that decision.
 *
 * The Editor's specification also sets two defaults of its own: "Network
 * Access — Unrestricted" (its commands may reach package registries and
 * documentation: the sandbox's network is on) and "'Minimal' is a
 * qualitative judgment — no hard size limits" (max_files and
 * max_lines_changed apply only when the user set them). Both give way to
 * what the user configured.
 *
 * Limits by mode (DESIGN.md, "Defaults by mode"): a headless run (`exec`,
 * `run`, the Action, `mcp --headless`) and controlled mode are bounded by the
 * ADR's limits (files, lines, tokens, time); an interactive session — a
 * client's session through its hooks and guarded shell, the MCP server a
 * client starts, editwarden's own interactive mode — is watched by a person
 * and covered by undo, so it has no such caps but the ones a layer of the
 * config set (config/layers.ts: the person's own config, the repository's
 * file, flags). The other modes keep the network off.
 */
import type { Config } from '../config/config.js';
import type { RunMode } from '../config/modes.js';
import { type ConfigLayers, type LimitSource, limitSource } from '../config/layers.js';
import { DEFAULT_CONFIG } from '../config/defaults.js';
import type { FailurePolicy } from '../workspace/transaction.js';
import type { NetworkSetting } from '../config/network-setting.js';

export type { RunMode };
/** constraints: the limits alone decide (nobody is asked); person: each change is shown to a person who approves it. */
export type ApprovalPolicy = 'constraints' | 'person';

export interface RunProfile {
  readonly mode: RunMode;
  readonly failure: FailurePolicy;
  readonly approval: ApprovalPolicy;
  /** Nothing reaches the project's files: the Editor works on an overlay and leaves a proposal. */
  readonly dryRun: boolean;
  /** What network the commands of the run (verification, scouts, execute_command) may reach: off, on, or the listed hosts. */
  readonly network: NetworkSetting;
  /** The size limits in force; null: none (the Editor's and an interactive session's, unless the user set one). */
  readonly sizeLimits: SizeLimits;
  /** The token budget and the run's time limit in force; null: none (an interactive session's, unless set). */
  readonly budget: Budget;
  /** Where each limit was set and how to raise it (config/layers.ts), when the config's layers are known: a refusal names the file. */
  readonly limitSource?: (key: string) => LimitSource;
}

interface SizeLimits {
  max_files: number | null;
  max_lines_changed: number | null;
}

interface Budget {
  max_tokens: number | null;
  timeout: number | null;
}

export interface ProfileChoice {
  config: Pick<Config, 'constraints'> & { sandbox?: Pick<Config['sandbox'], 'network'> | undefined };
  dryRun?: boolean | undefined;
  /**
   * The config keys the user set, dotted (`constraints.max_files`,
   * `sandbox.network`): from the config file and the flags
   * (config/configured.ts reads them). Without the list, a key whose value
   * differs from the default counts as set.
   */
  configured?: readonly string[] | undefined;
  /** What the loader found in each layer (config/layers.ts): the configured keys when `configured` is absent, and where each limit was set. */
  layers?: ConfigLayers | null | undefined;
}

/** The keys the Editor's own defaults give way to. */
const EDITOR_YIELDS_TO = ['sandbox.network', 'constraints.max_files', 'constraints.max_lines_changed'] as const;
/** The limits an interactive session has only where a layer of the config set them. */
const SESSION_CAPS = ['constraints.max_files', 'constraints.max_lines_changed', 'constraints.max_tokens', 'constraints.timeout'] as const;
type YieldingKey = (typeof EDITOR_YIELDS_TO)[number] | (typeof SESSION_CAPS)[number];

function valueOf(config: ProfileChoice['config'], key: YieldingKey): unknown {
  switch (key) {
    case 'sandbox.network':
      return config.sandbox?.network ?? DEFAULT_CONFIG.sandbox.network;
    case 'constraints.max_files':
      return config.constraints.max_files;
    case 'constraints.max_lines_changed':
      return config.constraints.max_lines_changed;
    case 'constraints.max_tokens':
      return config.constraints.max_tokens;
    case 'constraints.timeout':
      return config.constraints.timeout;
    default: {
      const never: never = key;
      throw new Error(`unknown key ${String(never)}`);
    }
  }
}

function userSet(choice: ProfileChoice, key: YieldingKey): boolean {
  if (choice.configured) return choice.configured.includes(key);
  if (choice.layers) return key in choice.layers.setBy;
  return valueOf(choice.config, key) !== valueOf(DEFAULT_CONFIG, key);
}

/** The profile of a mode under a config: the one place a mode's policies are chosen. */
export function runProfile(mode: RunMode, choice: ProfileChoice): RunProfile {
  const profile = profileOf(mode, choice);
  const layers = choice.layers;
  return layers ? { ...profile, limitSource: (key: string) => limitSource(layers, key) } : profile;
}

function profileOf(mode: RunMode, choice: ProfileChoice): RunProfile {
  const dryRun = choice.dryRun === true;
  const c = choice.config.constraints;
  const onViolation = c.on_violation;
  // Every mode but the Editor: the network as configured (default off), the limits as configured (default: the ADR's).
  const configured = {
    network: choice.config.sandbox?.network ?? DEFAULT_CONFIG.sandbox.network,
    sizeLimits: { max_files: c.max_files, max_lines_changed: c.max_lines_changed },
    budget: { max_tokens: c.max_tokens, timeout: c.timeout },
  };
  const ifSet = (key: (typeof SESSION_CAPS)[number]): number | null => (userSet(choice, key) ? (valueOf(choice.config, key) as number) : null);
  switch (mode) {
    case 'headless':
      return { mode, failure: onViolation, approval: 'constraints', dryRun: false, ...configured };
    case 'interactive':
      // A person watches and undo covers everything: only the caps a layer of the config set.
      return {
        mode,
        failure: onViolation,
        approval: 'person',
        dryRun: false,
        network: configured.network,
        sizeLimits: { max_files: ifSet('constraints.max_files'), max_lines_changed: ifSet('constraints.max_lines_changed') },
        budget: { max_tokens: ifSet('constraints.max_tokens'), timeout: ifSet('constraints.timeout') },
      };
    case 'controlled':
      // Exactly one edit; a failed build restores the file.
      return { mode, failure: 'rollback', approval: 'constraints', dryRun: false, ...configured };
    case 'editor':
      return {
        mode,
        // A violation under on_violation: rollback undoes the session; otherwise the Editor fixes forward.
        failure: dryRun ? 'keep' : onViolation === 'rollback' ? 'rollback' : 'fix-forward',
        approval: 'constraints',
        dryRun,
        // "Network Access: Unrestricted", unless the user turned it off.
        network: userSet(choice, 'sandbox.network') ? configured.network : 'on',
        // "no hard size limits": only a limit the user set.
        sizeLimits: { max_files: ifSet('constraints.max_files'), max_lines_changed: ifSet('constraints.max_lines_changed') },
        budget: configured.budget,
      };
    default: {
      const never: never = mode;
      throw new Error(`unknown run mode ${String(never)}`);
    }
  }
}

/** The Editor's three flavours are one profile (mode editor) and its input: a dry run, a proposal to apply first, or the task alone. */
export type EditorFlavour = 'editor' | 'dry-run' | 'apply-proposal';

export function editorFlavour(profile: RunProfile, applyingProposal: boolean): EditorFlavour {
  if (profile.dryRun) return 'dry-run';
  return applyingProposal ? 'apply-proposal' : 'editor';
}

/** The config a run under `profile` works with: its network, size limits and budget (no limit: Infinity, which every check passes). */
export function configUnder<T extends Pick<Config, 'constraints'> & { sandbox?: Pick<Config['sandbox'], 'network'> }>(config: T, profile: RunProfile): T {
  const none = Number.POSITIVE_INFINITY;
  return {
    ...config,
    ...(config.sandbox ? { sandbox: { ...config.sandbox, network: profile.network } } : {}),
    constraints: {
      ...config.constraints,
      max_files: profile.sizeLimits.max_files ?? none,
      max_lines_changed: profile.sizeLimits.max_lines_changed ?? none,
      max_tokens: profile.budget.max_tokens ?? none,
      timeout: profile.budget.timeout ?? none,
    },
  };
}
