/**
 * How every CLI command opens its project: host/project.ts's openProject
 * (config, recovery, transactions, language hooks), then the rolled-back
 * transactions shown to the person at the terminal (never in --json mode).
 */
import type { Config } from '../config/config.js';
import { openProject, type OpenedProject } from '../host/project.js';
import { paint, useColor, type Io } from './output.js';

/** `configFile`: the --config the command read, protected like the default name. */
export async function openForCommand(root: string, config: Config, io: Io, json: boolean, configFile?: string): Promise<OpenedProject> {
  const opened = openProject(root, config, { configFiles: configFile !== undefined ? [configFile] : undefined });
  if (!json) {
    for (const notice of opened.recovered) io.stderr.write(`${paint(useColor(io, 'stderr'), 'yellow', 'recovered:')} ${notice.message}\n`);
  }
  return opened;
}
