/**
 * What the two SDK-backed providers (OpenAI chat completions, Anthropic
 * Messages) share: their connection options, the SDK client created on the
 * first turn (commands that never talk to a model do not pay for loading
 * the SDK), the mapping of an SDK error to a provider failure, and how a
 * whole (non-streamed) reply is reported as events. Each subclass only
 * translates its wire protocol; none retries beyond its SDK or runs a tool.
 */
import { AgentError, AgentErrorCode, providerFailure } from './errors.js';
import type { CompleteOptions, ModelProvider, ModelRequest, ModelToolCall, ModelTurn, StopReason } from './types.js';

export interface SdkProviderOptions {
  id: string;
  model: string;
  apiKey: string;
  baseURL?: string;
  stream?: boolean;
  /** SDK retries on 429/5xx (default 2). */
  maxRetries?: number;
  /** Per-request timeout in ms. */
  timeoutMs?: number;
}

/**
 * Loads a provider's SDK. The SDKs are optional peers of the library (a third
 * of an install, needed only to talk to a model): the `editwarden` command
 * carries its own bundled copy, a library caller who builds a provider
 * installs the one it uses. A missing SDK is refused by name, with the
 * install command, instead of Node's bare "Cannot find package".
 */
export async function loadSdk<T>(pkg: string, range: string, load: () => Promise<T>): Promise<T> {
  try {
    return await load();
  } catch (error) {
    const code = (error as { code?: unknown } | null)?.code;
    if (code !== 'ERR_MODULE_NOT_FOUND' || !String((error as Error).message).includes(pkg)) throw error;
    throw new AgentError({
      code: AgentErrorCode.MISSING_SDK,
      message: `The model SDK ${pkg} is not installed: it is an optional peer dependency of the editwarden library.`,
      hint: `Install it next to editwarden: npm install ${pkg}@${range} (the editwarden command needs nothing: it carries its own copy).`,
    });
  }
}

/** The options both SDKs' client constructors take, under the same names. */
export interface SdkClientSettings {
  apiKey: string;
  baseURL?: string;
  maxRetries: number;
  timeout?: number;
}

export abstract class SdkProvider<Client, Options extends SdkProviderOptions> implements ModelProvider {
  readonly id: string;
  readonly streaming: boolean;
  private client: Client | null = null;

  constructor(protected readonly options: Options) {
    this.id = options.id;
    this.streaming = options.stream ?? true;
  }

  /** Loads the SDK and makes its client (called once, on the first turn). */
  protected abstract createClient(settings: SdkClientSettings): Promise<Client>;

  /** One model turn over the wire (streamed when `this.streaming`). */
  protected abstract turn(client: Client, request: ModelRequest, options: CompleteOptions): Promise<ModelTurn>;

  async complete(request: ModelRequest, options: CompleteOptions = {}): Promise<ModelTurn> {
    this.client ??= await this.createClient({
      apiKey: this.options.apiKey,
      ...(this.options.baseURL ? { baseURL: this.options.baseURL } : {}),
      maxRetries: this.options.maxRetries ?? 2,
      ...(this.options.timeoutMs !== undefined ? { timeout: this.options.timeoutMs } : {}),
    });
    try {
      return await this.turn(this.client, request, options);
    } catch (error) {
      // A cancelled turn is the caller's own abort, not the provider failing.
      if (options.signal?.aborted) throw error;
      throw providerFailure(this.id, error);
    }
  }
}

/** A whole reply reported as a streamed one would be: its text, then each tool call. */
export function reportWholeReply(options: CompleteOptions, text: string, toolCalls: readonly ModelToolCall[]): void {
  if (text) options.onEvent?.({ type: 'text', delta: text });
  toolCalls.forEach((c, index) => options.onEvent?.({ type: 'tool-call', index, name: c.name }));
}

/** A wire stop reason through a provider's table; one the table does not know is 'other'. */
export function stopReasonFrom(table: Readonly<Record<string, StopReason>>, wire: string | null | undefined): StopReason {
  return (wire != null && Object.hasOwn(table, wire) ? table[wire] : undefined) ?? 'other';
}

/** The exhaustive check of a message translation: a role added to ChatMessage fails to compile here. */
export function unknownMessage(message: never): never {
  throw new Error(`unknown message ${JSON.stringify(message)}`);
}
