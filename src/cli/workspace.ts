/**
 * How every CLI command opens its workspace: one place that applies the
 * config, rolls back transactions a killed process left unfinished (and says
 * so), installs the transactional committer and prepares language hooks, so
 * commands cannot forget a step.
 */
import type { Config } from '../config/config.js';
import type { ApplyOptions } from '../apply/apply-requests.js';
import type { EngineHooks } from '../edit/types.js';
import { openWorkspace, type RecoveryNotice } from '../workspace/open.js';
import type { TransactionLayer } from '../workspace/transaction.js';
import type { Workspace } from '../workspace/workspace.js';
import { paint, useColor, type Io } from './output.js';

export interface OpenedForCommand {
  ws: Workspace;
  transactions: TransactionLayer;
  recovered: RecoveryNotice[];
  /** Options for applyRequests that wire language support (AST paths, syntax guard). */
  applyHooks: Pick<ApplyOptions, 'prepareHooks'>;
}

export async function openForCommand(root: string, config: Config, io: Io, json: boolean): Promise<OpenedForCommand> {
  const opened = openWorkspace(root, { maxFileBytes: config.edit.max_file_bytes, keepLast: config.checkpoints.keep_last, allowHardLinks: config.workspace.allow_hardlinks, checkpointLimits: { maxFileBytes: config.checkpoints.max_file_bytes, maxTotalBytes: config.checkpoints.max_total_bytes } });
  if (!json) {
    for (const notice of opened.recovered) io.stderr.write(`${paint(useColor(io, 'stderr'), 'yellow', 'recovered:')} ${notice.message}\n`);
  }
  const policy = config.edit.syntax_guard;
  return {
    ws: opened.ws,
    transactions: opened.transactions,
    recovered: opened.recovered,
    applyHooks: { prepareHooks: (paths) => prepareLanguageHooks(paths, policy) },
  };
}

/** Loads tree-sitter only when a request touches a code file (the AST module decides). */
export async function prepareLanguageHooks(paths: string[], policy: 'refuse' | 'warn' | 'off'): Promise<EngineHooks> {
  if (policy === 'off' && paths.length === 0) return {};
  // The language table is light; the tree-sitter modules load only for code files.
  const { languageForPath } = await import('../ast/languages/index.js');
  if (!paths.some((p) => languageForPath(p) !== undefined)) return {};
  const { prepareAstHooks } = await import('../ast/hooks.js');
  return prepareAstHooks(paths, policy);
}
