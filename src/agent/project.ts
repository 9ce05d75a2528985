/**
 * What every agent-side run (the agent session, the Editor) is handed, built
 * once at the entry and passed down as values — execa's habit: normalise the
 * options at the door, pass one value down. The project is what the entry
 * opened (host/'s `Project` has these fields, so it passes as one); the
 * control names the run and cancels it. Types only.
 */
import type { ConfigLayers } from '../config/layers.js';
import type { ApplyOptions } from '../apply/pipeline.js';
import type { Config } from '../config/config.js';
import type { TransactionLayer } from '../workspace/transaction.js';
import type { Workspace } from '../workspace/workspace.js';

/** The project a run works in, as the entry opened it. */
export interface AgentProject {
  ws: Workspace;
  config: Config;
  /** Default: the workspace's own layer. */
  transactions?: TransactionLayer;
  /** Language hooks (the syntax guard) for the write tools. */
  applyHooks?: Pick<ApplyOptions, 'prepareHooks' | 'hooks'>;
  /** Which layer of the config set each key (config/layers.ts); absent or null: a value that differs from the default counts as set. */
  layers?: ConfigLayers | null;
}

/** The run's name, cancellation and clock, as the caller gives them (default: a new id, no signal, the system clock). */
export interface RunControl {
  id?: string;
  /** Ctrl-C: the running call stops at once, no later call runs; the work so far is kept. */
  signal?: AbortSignal;
  now?: () => Date;
}
