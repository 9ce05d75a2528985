/**
 * How every CLI command opens its project: host/project.ts's openProject
 * (config, recovery, transactions, language hooks), then the rolled-back
 * transactions shown to the person at the terminal (never in --json mode).
 */
import type { Config } from '../config/config.js';
import type { ConfigTrust } from '../config/trust-state.js';
import type { ConfigLayers } from '../config/layers.js';
import { openProject, type OpenedProject } from '../host/project.js';
import { paint, useColor, type Io } from './output.js';

/** `configFile`: the --config the command read, protected like the default name; `trust`: its trust state as the loader judged it (the Policy carries it). */
export async function openForCommand(root: string, config: Config, io: Io, json: boolean, configFile?: string, trust?: ConfigTrust, layers?: ConfigLayers): Promise<OpenedProject> {
  const opened = openProject(root, config, { configFiles: configFile !== undefined ? [configFile] : undefined, trust, layers });
  if (!json) {
    for (const notice of opened.recovered) io.stderr.write(`${paint(useColor(io, 'stderr'), 'yellow', 'recovered:')} ${notice.message}\n`);
  }
  return opened;
}
