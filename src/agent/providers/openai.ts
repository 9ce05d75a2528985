/**
 * The OpenAI chat-completions provider, through the official `openai` SDK:
 * OpenAI itself and every server that speaks the same protocol (Ollama,
 * vLLM, llama.cpp server, LM Studio, OpenRouter) via the base URL.
 * Streaming assembles tool-call fragments by their index; usage comes from
 * the final chunk (`stream_options.include_usage`) and is estimated when a
 * server sends none. It translates and nothing more: no retries beyond the
 * SDK's, no tool execution.
 */
import type OpenAI from 'openai';
import { providerFailure } from './errors.js';
import { argumentsObject } from './arguments.js';
import {
  estimateTokens,
  type ChatMessage,
  type CompleteOptions,
  type ModelProvider,
  type ModelRequest,
  type ModelToolCall,
  type ModelTurn,
  type StopReason,
  type TokenUsage,
} from './types.js';

export interface OpenAiProviderOptions {
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

type WireMessage = OpenAI.Chat.Completions.ChatCompletionMessageParam;

/** The neutral conversation in chat-completions messages. */
export function toOpenAiMessages(system: string, messages: readonly ChatMessage[]): WireMessage[] {
  const out: WireMessage[] = [{ role: 'system', content: system }];
  for (const m of messages) {
    switch (m.role) {
      case 'user':
        out.push({ role: 'user', content: m.content });
        break;
      case 'assistant':
        out.push({
          role: 'assistant',
          content: m.text === '' ? null : m.text,
          ...(m.toolCalls.length > 0
            ? {
                tool_calls: m.toolCalls.map((c) => ({
                  id: c.id,
                  type: 'function' as const,
                  // Servers that render chat templates parse these; a malformed call goes back as {} (its error says what was wrong).
                  function: { name: c.name, arguments: JSON.stringify(argumentsObject(c.arguments) ?? {}) },
                })),
              }
            : {}),
        });
        break;
      case 'tool':
        for (const r of m.results) out.push({ role: 'tool', tool_call_id: r.callId, content: r.content });
        if (m.text) out.push({ role: 'user', content: m.text });
        break;
      default: {
        const never: never = m;
        throw new Error(`unknown message ${JSON.stringify(never)}`);
      }
    }
  }
  return out;
}

function stopReasonOf(finish: string | null | undefined): StopReason {
  switch (finish) {
    case 'tool_calls':
    case 'function_call':
      return 'tool_calls';
    case 'stop':
      return 'end';
    case 'length':
      return 'length';
    default:
      return 'other';
  }
}

function usageOf(
  reported: { prompt_tokens?: number; completion_tokens?: number } | null | undefined,
  request: ModelRequest,
  text: string,
  calls: ModelToolCall[],
): TokenUsage {
  if (reported && typeof reported.prompt_tokens === 'number') {
    return { input: reported.prompt_tokens, output: reported.completion_tokens ?? 0 };
  }
  return {
    input: estimateTokens(request.system + JSON.stringify(request.messages) + JSON.stringify(request.tools)),
    output: estimateTokens(text + calls.map((c) => c.name + c.arguments).join('')),
    estimated: true,
  };
}

export class OpenAiProvider implements ModelProvider {
  readonly id: string;
  readonly streaming: boolean;
  private client: OpenAI | null = null;

  constructor(private readonly options: OpenAiProviderOptions) {
    this.id = options.id;
    this.streaming = options.stream ?? true;
  }

  private async sdk(): Promise<OpenAI> {
    if (this.client) return this.client;
    // Loaded on first use: commands that never talk to a model do not pay for the SDK.
    const { default: OpenAIClient } = await import('openai');
    this.client = new OpenAIClient({
      apiKey: this.options.apiKey,
      ...(this.options.baseURL ? { baseURL: this.options.baseURL } : {}),
      maxRetries: this.options.maxRetries ?? 2,
      ...(this.options.timeoutMs !== undefined ? { timeout: this.options.timeoutMs } : {}),
    });
    return this.client;
  }

  async complete(request: ModelRequest, options: CompleteOptions = {}): Promise<ModelTurn> {
    const client = await this.sdk();
    const body = {
      model: this.options.model,
      messages: toOpenAiMessages(request.system, request.messages),
      ...(request.tools.length > 0
        ? { tools: request.tools.map((t) => ({ type: 'function' as const, function: { name: t.name, description: t.description, parameters: t.parameters } })) }
        : {}),
      ...(request.maxOutputTokens !== undefined ? { max_tokens: request.maxOutputTokens } : {}),
    };
    try {
      if (!this.streaming) {
        const res = await client.chat.completions.create({ ...body, stream: false }, { ...(options.signal ? { signal: options.signal } : {}) });
        const choice = res.choices[0];
        const text = choice?.message.content ?? '';
        const toolCalls: ModelToolCall[] = (choice?.message.tool_calls ?? []).flatMap((c, i) =>
          c.type === 'function' ? [{ id: c.id || `call_${i}`, name: c.function.name, arguments: c.function.arguments ?? '' }] : [],
        );
        if (text) options.onEvent?.({ type: 'text', delta: text });
        toolCalls.forEach((c, index) => options.onEvent?.({ type: 'tool-call', index, name: c.name }));
        return { text, toolCalls, usage: usageOf(res.usage, request, text, toolCalls), stopReason: stopReasonOf(choice?.finish_reason) };
      }
      const stream = await client.chat.completions.create(
        { ...body, stream: true, stream_options: { include_usage: true } },
        { ...(options.signal ? { signal: options.signal } : {}) },
      );
      let text = '';
      let finish: string | null | undefined;
      let usage: { prompt_tokens?: number; completion_tokens?: number } | null | undefined;
      const calls = new Map<number, { id: string; name: string; arguments: string }>();
      for await (const chunk of stream) {
        if (chunk.usage) usage = chunk.usage;
        const choice = chunk.choices[0];
        if (!choice) continue;
        if (choice.finish_reason) finish = choice.finish_reason;
        const delta = choice.delta;
        if (delta?.content) {
          text += delta.content;
          options.onEvent?.({ type: 'text', delta: delta.content });
        }
        for (const part of delta?.tool_calls ?? []) {
          let call = calls.get(part.index);
          if (!call) {
            call = { id: '', name: '', arguments: '' };
            calls.set(part.index, call);
          }
          if (part.id) call.id = part.id;
          if (part.function?.name) {
            const first = call.name === '';
            call.name += part.function.name;
            if (first) options.onEvent?.({ type: 'tool-call', index: part.index, name: call.name });
          }
          if (part.function?.arguments) call.arguments += part.function.arguments;
        }
      }
      const toolCalls = [...calls.entries()].sort(([a], [b]) => a - b).map(([index, c]) => ({ id: c.id || `call_${index}`, name: c.name, arguments: c.arguments }));
      return { text, toolCalls, usage: usageOf(usage, request, text, toolCalls), stopReason: stopReasonOf(finish) };
    } catch (error) {
      if (options.signal?.aborted) throw error;
      throw providerFailure(this.id, error);
    }
  }
}
