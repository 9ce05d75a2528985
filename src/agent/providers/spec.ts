/**
 * `--model provider:model` → a provider. The table says, per provider, which
 * wire protocol it speaks, its default base URL and the environment variable
 * that holds its key; a missing key is refused before anything runs, naming
 * the variable. `replay:FILE` plays a script or a recorded transcript.
 * The SDKs load only when a provider is first asked for a turn.
 */
import { AnthropicProvider } from './anthropic.js';
import { AgentError, AgentErrorCode } from './errors.js';
import { OpenAiProvider } from './openai.js';
import { ReplayProvider } from './replay.js';
import { loadScript } from './script.js';
import type { ModelProvider } from './types.js';
import { PROVIDERS, type ProviderInfo } from '../../config/model-providers.js';

export interface ModelSpec {
  provider: string;
  model: string;
}

const SPEC_HINT = `Use --model provider:model, e.g. openai:gpt-4.1, anthropic:claude-sonnet-4-5, ollama:qwen2.5-coder, openai-compatible:NAME --base-url URL, or replay:FILE. Providers: ${[...Object.keys(PROVIDERS), 'replay'].join(', ')}.`;

export function parseModelSpec(text: string): ModelSpec {
  const colon = text.indexOf(':');
  if (colon <= 0 || colon === text.length - 1) {
    throw new AgentError({ code: AgentErrorCode.MODEL_SPEC, message: `--model ${JSON.stringify(text)} is not provider:model.`, hint: SPEC_HINT });
  }
  const provider = text.slice(0, colon).toLowerCase();
  if (provider !== 'replay' && !(provider in PROVIDERS)) {
    throw new AgentError({ code: AgentErrorCode.MODEL_SPEC, message: `Unknown model provider "${provider}".`, hint: SPEC_HINT });
  }
  return { provider, model: text.slice(colon + 1) };
}

export interface ProviderOptions {
  /** Overrides the provider's base URL (required for openai-compatible). */
  baseUrl?: string;
  /** Variable holding the key, instead of the provider's usual one. */
  apiKeyEnv?: string;
  env: NodeJS.ProcessEnv;
  stream?: boolean;
  maxRetries?: number;
  timeoutMs?: number;
  maxOutputTokens?: number;
}

/** Builds the provider for a spec; refuses a missing key or base URL with the variable or flag named. */
export function createProvider(specText: string, options: ProviderOptions): ModelProvider {
  const spec = parseModelSpec(specText);
  const id = `${spec.provider}:${spec.model}`;
  if (spec.provider === 'replay') return new ReplayProvider(loadScript(spec.model), { id });
  const info = PROVIDERS[spec.provider] as ProviderInfo;
  const baseUrl = options.baseUrl ?? (info.baseUrlEnv ? options.env[info.baseUrlEnv] : undefined) ?? info.baseUrl;
  if (spec.provider === 'openai-compatible' && !baseUrl) {
    throw new AgentError({
      code: AgentErrorCode.MODEL_SPEC,
      message: 'openai-compatible needs the server address: --base-url is missing.',
      hint: "Pass --base-url http://HOST:PORT/v1 (the server's OpenAI-compatible endpoint).",
    });
  }
  const keyEnv = options.apiKeyEnv ?? info.keyEnv;
  const key = keyEnv ? options.env[keyEnv] : undefined;
  if ((info.keyRequired || options.apiKeyEnv !== undefined) && (key === undefined || key.trim() === '')) {
    throw new AgentError({
      code: AgentErrorCode.MISSING_KEY,
      message: `${keyEnv} is not set: ${spec.provider} needs an API key.`,
      hint: `Set it in the environment (export ${keyEnv}=...) and run again.`,
    });
  }
  // Local servers take no key, but the SDKs insist on some string.
  const apiKey = key && key.trim() !== '' ? key : 'not-needed';
  const common = {
    id,
    model: spec.model,
    apiKey,
    ...(baseUrl ? { baseURL: baseUrl } : {}),
    ...(options.stream !== undefined ? { stream: options.stream } : {}),
    ...(options.maxRetries !== undefined ? { maxRetries: options.maxRetries } : {}),
    ...(options.timeoutMs !== undefined ? { timeoutMs: options.timeoutMs } : {}),
  };
  if (info.protocol === 'anthropic') {
    return new AnthropicProvider({ ...common, ...(options.maxOutputTokens !== undefined ? { maxOutputTokens: options.maxOutputTokens } : {}) });
  }
  return new OpenAiProvider(common);
}
