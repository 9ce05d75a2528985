/**
 * The model flags the agent commands share (`--model`, `--base-url`,
 * `--api-key-env`, `--no-stream`) turned into a provider, in one place so
 * that `run` and `apply-proposal` cannot drift apart. The model layer (and
 * its SDKs) loads only when a command asks for a provider. A bad spec or a
 * missing key throws the provider layer's own error for the command to show.
 */
import type { ModelProvider } from '../agent/providers/types.js';
import { isAllowlisted } from '../sandbox/env.js';
import { defined } from '../defined.js';

export interface ModelFlags {
  baseUrl?: string;
  apiKeyEnv?: string;
  stream?: boolean;
}

export async function providerFromFlags(model: string, flags: ModelFlags, env: NodeJS.ProcessEnv, maxOutputTokens?: number): Promise<ModelProvider> {
  const { createProvider } = await import('../agent/providers/spec.js');
  return createProvider(model, {
    env,
    ...defined({ baseUrl: flags.baseUrl || undefined, apiKeyEnv: flags.apiKeyEnv || undefined }),
    stream: flags.stream !== false,
    ...defined({ maxOutputTokens }),
  });
}

/**
 * Why `--api-key-env NAME` cannot be used, or null. Attack: a key held in a
 * variable on the environment allowlist (PATH, HOME, a `sandbox.env` name)
 * reaches every command the agent runs, which can print it to the model.
 */
export function apiKeyEnvProblem(name: string | undefined, configAllow: readonly string[]): string | null {
  if (!name || !isAllowlisted(name, configAllow)) return null;
  return `--api-key-env ${name} names a variable every command receives (the environment allowlist, docs/sandbox.md); the key would reach the agent's commands.`;
}
