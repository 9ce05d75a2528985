/**
 * Which config keys the user set — in the config file or with flags — as
 * opposed to values that are only defaults. A mode with defaults of its own
 * needs the difference: the Editor's network is on and its size limits are
 * off by default (runs/profile.ts), and a value the user wrote wins over
 * those defaults even when it equals the general default (`max_files: 10`
 * written down is a limit; the same 10 as a default is not).
 *
 * It reads the file loadConfig reads (after loadConfig has validated it) and
 * never judges a value; must never fail on a file loadConfig accepted.
 */
import path from 'node:path';
import YAML from 'yaml';
import { readSmallFile } from '../small-file.js';
import { CONFIG_FILE, MAX_CONFIG_BYTES } from './names.js';
import { userConfigFile } from './trust-store.js';

/** The dotted paths of the leaves of a config-shaped value (`{constraints: {max_files: 3}}` → `constraints.max_files`); lists are leaves. */
export function leafKeys(data: unknown, prefix = ''): string[] {
  if (data === null || typeof data !== 'object' || Array.isArray(data)) return prefix === '' ? [] : [prefix];
  const out: string[] = [];
  for (const [key, value] of Object.entries(data)) {
    if (value === undefined) continue;
    out.push(...leafKeys(value, prefix === '' ? key : `${prefix}.${key}`));
  }
  return out;
}

/**
 * The keys set in the person's own config (`$XDG_CONFIG_HOME/editwarden/config.yml`), in the
 * repository's file (`<root>/.editwarden.yml` or the explicit one) and in the flags' overrides, sorted.
 */
export function configuredKeys(root: string, explicitFile?: string, overrides: unknown = {}, env: NodeJS.ProcessEnv = process.env): string[] {
  const file = explicitFile ? path.resolve(explicitFile) : path.join(root, CONFIG_FILE);
  const user = userConfigFile(env);
  return [...new Set([...(user === null ? [] : leafKeys(readYaml(user))), ...leafKeys(readYaml(file)), ...leafKeys(overrides)])].sort();
}

function readYaml(file: string): unknown {
  try {
    return YAML.parse(readSmallFile(file, { maxBytes: MAX_CONFIG_BYTES, follow: true }).toString('utf8')) ?? {};
  } catch {
    // No file (defaults only), or one loadConfig has already refused: nothing set there.
    return {};
  }
}
