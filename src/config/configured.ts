/**
 * Which config keys are set and in force — in the person's own config, in
 * the repository's file (unless a raise there is not applied: load.ts) or
 * with flags — as opposed to values that are only defaults. A mode with
 * defaults of its own needs the difference: an interactive session has no
 * size caps and the Editor's network is on by default (runs/profile.ts),
 * and a value set wins over those defaults even when it equals the general
 * default (`max_files: 10` written down is a limit; the same 10 as a default
 * is not).
 *
 * It asks the one loader (load.ts `inspectConfig`, the layers it found);
 * must never fail on a file loadConfig accepted.
 */
import { configuredOf, leafKeys, withFlagKeys } from './layers.js';
import { inspectConfig } from './load.js';

/** The keys set in force by the person's own config, the repository's file (or the explicit one) and the flags' overrides, sorted. */
export function configuredKeys(root: string, explicitFile?: string, overrides: unknown = {}, env: NodeJS.ProcessEnv = process.env): string[] {
  return configuredOf(withFlagKeys(inspectConfig(root, explicitFile, env).layers, leafKeys(overrides)));
}
