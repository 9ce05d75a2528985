/**
 * What limits apply in a project, by mode, and where a person changes them:
 * the lines `init` prints after wiring a client and `doctor` shows. The
 * values come from the one loader (its layers) and the run profiles
 * (runs/profile.ts), so the summary says what the hooks and runs enforce —
 * it never computes a limit of its own.
 *
 * Must never fail the command that prints it: a config that cannot be read
 * is reported as such (the hooks refuse under it, and say why).
 */
import type { Config } from '../config/config.js';
import { configuredOf, type ConfigLayers, ignoredNotice } from '../config/layers.js';
import { inspectConfig } from '../config/load.js';
import { toErrorInfo } from '../errors.js';
import { configUnder, runProfile } from '../runs/profile.js';
import { CONFIG_FILE } from '../config/protected-set.js';

const CAPS = [
  ['max_files', 'max_files', ''],
  ['max_lines_changed', 'max_lines_changed', ''],
  ['max_tokens', 'max_tokens', ''],
  ['timeout', 'timeout', ' s'],
] as const;

/** "max_files 10, max_lines_changed 500, …" of the caps in force (Infinity: none); "no caps" when there are none. */
function caps(config: Config): string {
  const c = config.constraints;
  const set = CAPS.filter(([key]) => Number.isFinite(c[key])).map(([key, name, unit]) => `${name} ${c[key]}${unit}`);
  return set.length === 0 ? 'no file, line, token or time caps' : set.join(', ');
}

/** The summary of `config` as `layers` found it: one line per mode, where to change, and what was not applied. */
export function limitsLines(config: Config, layers: ConfigLayers, client: string): string[] {
  const configured = configuredOf(layers);
  const interactive = configUnder(config, runProfile('interactive', { config, configured }));
  const headless = configUnder(config, runProfile('headless', { config, configured }));
  const yours = layers.userFile ?? '~/.config/editwarden/config.yml';
  const repository = layers.repositoryFile ?? CONFIG_FILE;
  const out = [
    'Limits in this project:',
    `  ${client} sessions (its edit tools, its shell, editwarden's MCP tools; a person watches and undo covers them): ${caps(interactive)}`,
    `  headless runs (editwarden exec, run, the GitHub Action, mcp --headless): ${caps(headless)}`,
    `Change them in your own config ${yours} (yours: no trust needed, and it wins over the repository's file for you), or in ${repository} for everyone (it may lower them; a raise there applies once you run \`editwarden trust\`).`,
  ];
  for (const y of layers.yoursOver) out.push(`Your own config sets ${y.key}: ${y.yours}; ${repository} sets ${y.repository}: yours applies to you.`);
  const notice = ignoredNotice(layers);
  if (notice) out.push(`Not applied: ${notice}`);
  return out;
}

/** The summary for the project at `root` (`configFile`: an explicit --config), read by the one loader. */
export function projectLimitsLines(root: string, client: string, configFile?: string): string[] {
  try {
    const inspection = inspectConfig(root, configFile);
    const refused = inspection.refusal ? [`Refused: ${inspection.refusal.message} ${inspection.refusal.hint}`] : [];
    return [...limitsLines(inspection.config, inspection.layers, client), ...refused];
  } catch (error) {
    const info = toErrorInfo(error);
    return [`Limits in this project: unknown — the config cannot be read (${info.code}: ${info.message}); the hooks refuse every edit until it is fixed.`];
  }
}
