/**
 * Opening a project: the one composition every entry point uses (the CLI
 * commands, the MCP server, the demo, a library caller). It opens the
 * workspace with the config's limits, rolls back transactions a killed
 * process left unfinished, installs the transactional committer and wires
 * the language hooks (AST paths, syntax guard), so no caller can forget a
 * step. It must never print or prompt: what it found (the rolled-back
 * transactions) is returned for the caller to show in its own way.
 */
import type { ApplyOptions } from '../apply/apply-requests.js';
import type { Config } from '../config/config.js';
import { openWorkspace, type RecoveryNotice } from '../workspace/open.js';
import type { TransactionLayer } from '../workspace/transaction.js';
import type { Workspace } from '../workspace/workspace.js';
import { prepareLanguageHooks, SessionLanguageHooks } from './language-hooks.js';

export interface OpenedProject {
  ws: Workspace;
  transactions: TransactionLayer;
  /** Transactions of dead processes that were rolled back; the caller shows them (`message`). */
  recovered: RecoveryNotice[];
  /** Options for applyRequests that wire language support (AST paths, syntax guard). */
  applyHooks: Pick<ApplyOptions, 'prepareHooks'>;
}

export interface OpenProjectOptions {
  /**
   * `fresh` (default): a new AST service per request, right for a process that edits once.
   * `session`: one cached service and the last verdict kept, for a long-lived server (MCP).
   */
  languageHooks?: 'fresh' | 'session' | undefined;
}

export function openProject(root: string, config: Config, options: OpenProjectOptions = {}): OpenedProject {
  const opened = openWorkspace(root, {
    maxFileBytes: config.edit.max_file_bytes,
    keepLast: config.checkpoints.keep_last,
    allowHardLinks: config.workspace.allow_hardlinks,
    checkpointLimits: { maxFileBytes: config.checkpoints.max_file_bytes, maxTotalBytes: config.checkpoints.max_total_bytes },
  });
  const policy = config.edit.syntax_guard;
  const prepareHooks = options.languageHooks === 'session' ? new SessionLanguageHooks(policy).prepare : (paths: string[]) => prepareLanguageHooks(paths, policy);
  return { ws: opened.ws, transactions: opened.transactions, recovered: opened.recovered, applyHooks: { prepareHooks } };
}
