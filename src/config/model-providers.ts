/**
 * The table of model providers: per provider the wire protocol it speaks,
 * its default base URL and the environment variable that holds its key.
 * Pure data, low in the house: agent/providers builds providers from it and
 * the sandbox rules (config/env-names.ts) strip its key variables from every
 * command's environment. It must never read a key itself.
 */
export interface ProviderInfo {
  protocol: 'openai' | 'anthropic';
  /** Default base URL (undefined: the SDK's own). */
  baseUrl?: string;
  /** Variable that may override the base URL. */
  baseUrlEnv?: string;
  /** Variable holding the key. */
  keyEnv?: string;
  /** Whether a request without a key is refused before it is sent. */
  keyRequired: boolean;
}

export const PROVIDERS: Readonly<Record<string, ProviderInfo>> = {
  openai: { protocol: 'openai', baseUrlEnv: 'OPENAI_BASE_URL', keyEnv: 'OPENAI_API_KEY', keyRequired: true },
  anthropic: { protocol: 'anthropic', baseUrlEnv: 'ANTHROPIC_BASE_URL', keyEnv: 'ANTHROPIC_API_KEY', keyRequired: true },
  openrouter: { protocol: 'openai', baseUrl: 'https://openrouter.ai/api/v1', keyEnv: 'OPENROUTER_API_KEY', keyRequired: true },
  ollama: { protocol: 'openai', baseUrl: 'http://127.0.0.1:11434/v1', baseUrlEnv: 'OLLAMA_BASE_URL', keyRequired: false },
  vllm: { protocol: 'openai', baseUrl: 'http://127.0.0.1:8000/v1', baseUrlEnv: 'VLLM_BASE_URL', keyEnv: 'VLLM_API_KEY', keyRequired: false },
  llamacpp: { protocol: 'openai', baseUrl: 'http://127.0.0.1:8080/v1', baseUrlEnv: 'LLAMACPP_BASE_URL', keyRequired: false },
  lmstudio: { protocol: 'openai', baseUrl: 'http://127.0.0.1:1234/v1', baseUrlEnv: 'LMSTUDIO_BASE_URL', keyRequired: false },
  'openai-compatible': { protocol: 'openai', keyEnv: 'OPENAI_COMPATIBLE_API_KEY', keyRequired: false },
};
