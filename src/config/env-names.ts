/**
 * The rules for environment variable names that config validation and the
 * sandbox share: which names look like secrets, what a valid allowlist entry
 * is, and which variables hold model API keys. Pure data and predicates; it
 * sits in config/ (below sandbox/ and tools/) so that every floor that needs
 * a rule reads the one copy. It must never read the environment itself.
 */
import { PROVIDERS } from './model-providers.js';

/**
 * Names that are secrets whatever a list says: AWS_*, AZURE_*, *_TOKEN,
 * *_KEY, *_SECRET, passwords, credentials, auth sockets and headers.
 */
const SECRET_NAME = /^(AWS|AZURE|ARM)_|TOKEN|SECRET|PASSW(OR)?D|CREDENTIAL|API_?KEY|ACCESS_?KEY|PRIVATE_?KEY|(^|_)KEY(S)?$|(^|_)AUTH(_|$)|COOKIE|SESSION/i;

/** Whether a variable name looks like it holds a secret (such a name never reaches a command). */
export function isSecretEnvName(name: string): boolean {
  return SECRET_NAME.test(name);
}

/** A valid allowlist entry: a variable name, optionally ending in `*` (a prefix). */
export const ENV_PATTERN = /^[A-Za-z_][A-Za-z0-9_]*\*?$/;

/**
 * Environment variables that hold model API keys. Commands an agent runs get
 * them removed, so `env` or a build script cannot hand a key to the model,
 * the transcript or the logs.
 */
export function modelKeyEnvNames(extra: readonly string[] = []): string[] {
  const names = new Set<string>(extra);
  for (const info of Object.values(PROVIDERS)) if (info.keyEnv) names.add(info.keyEnv);
  return [...names];
}
