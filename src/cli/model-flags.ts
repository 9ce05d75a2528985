/**
 * The model flags the agent commands share (`--model`, `--base-url`,
 * `--api-key-env`, `--no-stream`) turned into a provider, in one place so
 * that `run` and `apply-proposal` cannot drift apart. The model layer (and
 * its SDKs) loads only when a command asks for a provider. A bad spec or a
 * missing key throws the provider layer's own error for the command to show.
 */
import type { ModelProvider } from '../agent/providers/types.js';

export interface ModelFlags {
  baseUrl?: string;
  apiKeyEnv?: string;
  stream?: boolean;
}

export async function providerFromFlags(model: string, flags: ModelFlags, env: NodeJS.ProcessEnv, maxOutputTokens?: number): Promise<ModelProvider> {
  const { createProvider } = await import('../agent/providers/spec.js');
  return createProvider(model, {
    env,
    ...(flags.baseUrl ? { baseUrl: flags.baseUrl } : {}),
    ...(flags.apiKeyEnv ? { apiKeyEnv: flags.apiKeyEnv } : {}),
    stream: flags.stream !== false,
    ...(maxOutputTokens !== undefined ? { maxOutputTokens } : {}),
  });
}
