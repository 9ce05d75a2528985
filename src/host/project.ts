/**
 * Opening a project: the one composition every entry point uses (the CLI
 * commands, the MCP server, the demo, a library caller). It opens the
 * workspace with the config's limits and the project's one `Policy` (the
 * protected set: workspace/policy.ts, computed here once, never per call),
 * rolls back transactions a killed process left unfinished, installs the
 * transactional committer and wires the language hooks (AST paths, syntax
 * guard), so no caller can forget a step. It must never print or prompt:
 * what it found (the rolled-back transactions) is returned for the caller
 * to show in its own way.
 */
import type { ApplyOptions } from '../apply/pipeline.js';
import type { Config } from '../config/config.js';
import { editOptionsFromConfig } from '../config/edit-options.js';
import { type ConfigTrust, trustRefusal } from '../config/trust-state.js';
import type { ConfigLayers } from '../config/layers.js';
import { isLongLived } from '../workspace/durable.js';
import { openWorkspace, type RecoveryNotice } from '../workspace/open.js';
import type { Policy, PolicyOptions } from '../workspace/policy.js';
import { KeptLinkLooks } from '../workspace/policy-links.js';
import type { TransactionLayer } from '../workspace/transaction.js';
import type { IgnoredCoverage } from '../workspace/checkpoints/ignored.js';
import type { Workspace } from '../workspace/workspace.js';
import { prepareLanguageHooks, SessionLanguageHooks } from './language-hooks.js';
import { defined } from '../defined.js';
import { recordEvent } from '../runs/events.js';

/** An opened project: everything a run needs, built once at the door. */
export interface Project {
  ws: Workspace;
  transactions: TransactionLayer;
  /** The config the project was opened with. */
  config: Config;
  /**
   * Which layer set each key in force, and the bounds not applied (config/layers.ts): a mode's defaults give way
   * to these; refusals name the file. null: the config was not read by the loader (a library caller's own Config),
   * so a value that differs from the default counts as set (runs/profile.ts).
   */
  layers: ConfigLayers | null;
  /** The protected set of this project (the same value as `ws.policy`): every layer reads it. */
  policy: Policy;
  /** Transactions of dead processes that were rolled back; the caller shows them (`message`). */
  recovered: RecoveryNotice[];
  /**
   * The options every plan of this project takes: the config's edit options and the language hooks, made here
   * once (the only call of `editOptionsFromConfig`; test/package/architecture.test.ts): every route plans with
   * this value — the runner, controlled mode, the Editor, the CLI's edit and apply, the hooks.
   */
  applyOptions: Pick<ApplyOptions, 'edit' | 'prepareHooks' | 'hooks'>;
  /** Only the language hooks (a caller's plan that takes the engine's default edit options). */
  applyHooks: Pick<ApplyOptions, 'prepareHooks' | 'hooks'>;
}

/** The name callers knew first. */
export type OpenedProject = Project;

export interface OpenProjectOptions {
  /**
   * `fresh` (default): a new AST service per request, right for a process that edits once.
   * `session`: one cached service and the last verdict kept, for a long-lived server (MCP).
   */
  languageHooks?: 'fresh' | 'session' | undefined;
  /** Configuration files read besides the default name (an explicit --config): protected like it. */
  configFiles?: readonly string[] | undefined;
  /** The trust state the loader judged for `config` (load.ts `loadProjectConfig`), carried by the Policy; absent: no repository config was read. */
  trust?: ConfigTrust | undefined;
  /** What the loader found in each layer (load.ts `loadProjectConfig`); absent: none read (a library caller's own Config). */
  layers?: ConfigLayers | undefined;
  /** The warm nested-repository search of a process that opens this project again and again (workspace/policy.ts `PolicyOptions`). */
  nestedSearch?: PolicyOptions['nestedSearch'];
}

export function openProject(root: string, config: Config, options: OpenProjectOptions = {}): Project {
  // A project never opens under a repository config that loosens the guard untrusted, whoever forgot to refuse it.
  const refused = options.trust ? trustRefusal(options.trust) : null;
  if (refused) throw refused;
  const opened = openWorkspace(root, {
    maxFileBytes: config.edit.max_file_bytes,
    keepLast: config.checkpoints.keep_last,
    allowHardLinks: config.workspace.allow_hardlinks,
    checkpointLimits: { maxFileBytes: config.checkpoints.max_file_bytes, maxTotalBytes: config.checkpoints.max_total_bytes },
    ignoredCoverage: ignoredCoverageOf(config.checkpoints.ignored),
    policy: { gitWritable: config.sandbox.git_writable, ...defined({ configFiles: options.configFiles, trust: options.trust, nestedSearch: options.nestedSearch, keptLinks: linkLooks() }) },
    // A long-lived server takes the lock on every call: it keeps the lock file's inode instead of creating one each time.
    lock: { keepSpare: isLongLived() },
  });
  // A long-lived server answers a lone edit before its checkpoint's fsync, which it settles right after (durable.ts).
  opened.transactions.durability = isLongLived() ? config.checkpoints.durability : 'strict';
  // The record shows what editwarden itself wrote: each recovery is an event, with the step that takes it back.
  for (const n of opened.recovered) recordRecovery(opened.ws.stateDir, n);
  const guard = config.edit.syntax_guard;
  const prepareHooks = options.languageHooks === 'session' ? new SessionLanguageHooks(guard).prepare : (paths: string[]) => prepareLanguageHooks(paths, guard);
  return projectOver({ ws: opened.ws, transactions: opened.transactions, config, layers: options.layers ?? null, applyHooks: { prepareHooks } }, opened.recovered);
}

/**
 * A long-lived server's looks for links in the protected set (workspace/policy-links.ts), one per process for every
 * project it opens: each is believed only while the disk is as it saw it. A one-shot process opens once: none.
 */
let keptLinks: KeptLinkLooks | undefined;

function linkLooks(): KeptLinkLooks | undefined {
  if (!isLongLived()) return undefined;
  keptLinks ??= new KeptLinkLooks();
  return keptLinks;
}

/**
 * A workspace the caller opened itself, with its config: the library's form
 * before the project travelled whole (`runEditor`'s `project`,
 * `new ControlledEditSession(ws, { config, applyHooks })`). Deprecated: pass
 * `openProject(root, config)` instead.
 */
export interface OpenedParts {
  ws: Workspace;
  config: Config;
  /** Default: the workspace's own layer. */
  transactions?: TransactionLayer | undefined;
  /** Language hooks (the syntax guard); default: none. */
  applyHooks?: Pick<ApplyOptions, 'prepareHooks' | 'hooks'> | undefined;
  layers?: ConfigLayers | null | undefined;
}

/**
 * The Project of a workspace already opened (the deprecated forms' door):
 * nothing is opened, recovered or checked again; its edit options are made
 * as `openProject` makes them.
 */
export function projectOf(parts: OpenedParts): Project {
  return projectOver(parts, []);
}

/** The one assembly of a Project, and the one place its edit options are made. */
function projectOver(parts: OpenedParts, recovered: RecoveryNotice[]): Project {
  const applyHooks = parts.applyHooks ?? {};
  return {
    ws: parts.ws,
    transactions: parts.transactions ?? parts.ws.transactions,
    config: parts.config,
    layers: parts.layers ?? null,
    policy: parts.ws.policy,
    recovered,
    applyOptions: { ...applyHooks, edit: editOptionsFromConfig(parts.config) },
    applyHooks,
  };
}

/** The config's `checkpoints.ignored` as the checkpoint service takes it. */
function ignoredCoverageOf(section: Config['checkpoints']['ignored']): IgnoredCoverage {
  return { enabled: section.enabled, maxFileBytes: section.max_file_bytes, maxTotalBytes: section.max_total_bytes, rebuildable: section.rebuildable };
}

function recordRecovery(stateDir: string, notice: RecoveryNotice): void {
  if (notice.restored.length + notice.removed.length === 0) return;
  // A log that cannot be written changes nothing here: the notice is printed by every command.
  recordEvent(stateDir, {
    kind: 'undo',
    action: 'recovery',
    route: { via: 'recovery' },
    label: `recovery of the interrupted ${notice.name}`,
    written: notice.restored,
    removed: notice.removed,
    paths: [...notice.restored, ...notice.removed],
    ...defined({ bytes: notice.bytes, checkpoint: notice.safety, step: notice.safety }),
  });
}
