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
import { loadSdk, reportWholeReply, SdkProvider, stopReasonFrom, unknownMessage, type SdkClientSettings, type SdkProviderOptions } from './sdk-provider.js';
import { argumentsObject } from './arguments.js';
import { estimateTokens, type ChatMessage, type CompleteOptions, type ModelRequest, type ModelToolCall, type ModelTurn, type StopReason, type TokenUsage } from './types.js';

export type OpenAiProviderOptions = SdkProviderOptions;

type WireMessage = OpenAI.Chat.Completions.ChatCompletionMessageParam;

/** The neutral conversation in chat-completions messages. */
function toOpenAiMessages(system: string, messages: readonly ChatMessage[]): WireMessage[] {
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
      default:
        unknownMessage(m);
    }
  }
  return out;
}

/** The API's finish reasons in the neutral vocabulary (anything else is 'other'). */
const STOP_REASONS: Readonly<Record<string, StopReason>> = { tool_calls: 'tool_calls', function_call: 'tool_calls', stop: 'end', length: 'length' };

function usageOf(reported: { prompt_tokens?: number; completion_tokens?: number } | null | undefined, request: ModelRequest, text: string, calls: ModelToolCall[]): TokenUsage {
  if (reported && typeof reported.prompt_tokens === 'number') {
    return { input: reported.prompt_tokens, output: reported.completion_tokens ?? 0 };
  }
  return {
    input: estimateTokens(request.system + JSON.stringify(request.messages) + JSON.stringify(request.tools)),
    output: estimateTokens(text + calls.map((c) => c.name + c.arguments).join('')),
    estimated: true,
  };
}

export class OpenAiProvider extends SdkProvider<OpenAI, OpenAiProviderOptions> {
  protected async createClient(settings: SdkClientSettings): Promise<OpenAI> {
    const { default: OpenAIClient } = await loadSdk('openai', '^6.49.0', () => import('openai'));
    return new OpenAIClient(settings);
  }

  protected async turn(client: OpenAI, request: ModelRequest, options: CompleteOptions): Promise<ModelTurn> {
    const body = {
      model: this.options.model,
      messages: toOpenAiMessages(request.system, request.messages),
      ...(request.tools.length > 0 ? { tools: request.tools.map((t) => ({ type: 'function' as const, function: { name: t.name, description: t.description, parameters: t.parameters } })) } : {}),
      ...(request.maxOutputTokens !== undefined ? { max_tokens: request.maxOutputTokens } : {}),
    };
    if (!this.streaming) {
      const res = await client.chat.completions.create({ ...body, stream: false }, { ...(options.signal ? { signal: options.signal } : {}) });
      const choice = res.choices[0];
      const text = choice?.message.content ?? '';
      const toolCalls: ModelToolCall[] = (choice?.message.tool_calls ?? []).flatMap((c, i) => (c.type === 'function' ? [{ id: c.id || `call_${i}`, name: c.function.name, arguments: c.function.arguments ?? '' }] : []));
      reportWholeReply(options, text, toolCalls);
      return { text, toolCalls, usage: usageOf(res.usage, request, text, toolCalls), stopReason: stopReasonFrom(STOP_REASONS, choice?.finish_reason) };
    }
    const stream = await client.chat.completions.create({ ...body, stream: true, stream_options: { include_usage: true } }, { ...(options.signal ? { signal: options.signal } : {}) });
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
    return { text, toolCalls, usage: usageOf(usage, request, text, toolCalls), stopReason: stopReasonFrom(STOP_REASONS, finish) };
  }
}
