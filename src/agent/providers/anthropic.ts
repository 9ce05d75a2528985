/**
 * The Anthropic Messages provider, through the official `@anthropic-ai/sdk`.
 * It reads the raw event stream itself (message_start → content blocks →
 * message_delta) so that tool input arrives as the JSON text the model
 * wrote — a malformed input reaches the loop as it was instead of failing
 * inside the SDK. Consecutive user-side messages are merged (the API wants
 * roles to alternate). It translates and nothing more.
 */
import type Anthropic from '@anthropic-ai/sdk';
import { loadSdk, reportWholeReply, SdkProvider, stopReasonFrom, unknownMessage, type SdkClientSettings, type SdkProviderOptions } from './sdk-provider.js';
import { argumentsObject } from './arguments.js';
import { estimateTokens, type ChatMessage, type CompleteOptions, type ModelRequest, type ModelToolCall, type ModelTurn, type StopReason } from './types.js';
import { appendAll } from '../../arrays.js';

export interface AnthropicProviderOptions extends SdkProviderOptions {
  /** Output cap per turn (the API requires one; default 4096). */
  maxOutputTokens?: number;
}

type WireMessage = Anthropic.Messages.MessageParam;
type UserBlock = Anthropic.Messages.ToolResultBlockParam | Anthropic.Messages.TextBlockParam;

function toAnthropicMessages(messages: readonly ChatMessage[]): WireMessage[] {
  const out: WireMessage[] = [];
  const pushUser = (blocks: UserBlock[]): void => {
    const last = out[out.length - 1];
    if (last && last.role === 'user' && Array.isArray(last.content)) {
      appendAll(last.content as UserBlock[], blocks);
    } else {
      out.push({ role: 'user', content: blocks });
    }
  };
  for (const m of messages) {
    switch (m.role) {
      case 'user':
        pushUser([{ type: 'text', text: m.content }]);
        break;
      case 'assistant': {
        const content: Anthropic.Messages.ContentBlockParam[] = [];
        if (m.text !== '') content.push({ type: 'text', text: m.text });
        for (const c of m.toolCalls) {
          // tool_use input must be an object; a malformed call goes back as {} (its error says what was wrong).
          content.push({ type: 'tool_use', id: c.id, name: c.name, input: argumentsObject(c.arguments) ?? {} });
        }
        if (content.length === 0) content.push({ type: 'text', text: '(no reply)' });
        out.push({ role: 'assistant', content });
        break;
      }
      case 'tool': {
        const blocks: UserBlock[] = m.results.map((r) => ({ type: 'tool_result', tool_use_id: r.callId, content: r.content, ...(r.isError ? { is_error: true } : {}) }));
        if (m.text) blocks.push({ type: 'text', text: m.text });
        pushUser(blocks);
        break;
      }
      default:
        unknownMessage(m);
    }
  }
  return out;
}

/** The API's stop reasons in the neutral vocabulary (anything else is 'other'). */
const STOP_REASONS: Readonly<Record<string, StopReason>> = { tool_use: 'tool_calls', end_turn: 'end', stop_sequence: 'end', max_tokens: 'length' };

export class AnthropicProvider extends SdkProvider<Anthropic, AnthropicProviderOptions> {
  protected async createClient(settings: SdkClientSettings): Promise<Anthropic> {
    const { default: AnthropicClient } = await loadSdk('@anthropic-ai/sdk', '^1.12.0', () => import('@anthropic-ai/sdk'));
    return new AnthropicClient(settings);
  }

  protected async turn(client: Anthropic, request: ModelRequest, options: CompleteOptions): Promise<ModelTurn> {
    const body = {
      model: this.options.model,
      system: request.system,
      messages: toAnthropicMessages(request.messages),
      max_tokens: request.maxOutputTokens ?? this.options.maxOutputTokens ?? 4096,
      ...(request.tools.length > 0 ? { tools: request.tools.map((t) => ({ name: t.name, description: t.description, input_schema: t.parameters as Anthropic.Messages.Tool.InputSchema })) } : {}),
    };
    const reqOptions = options.signal ? { signal: options.signal } : {};
    if (!this.streaming) {
      const res = await client.messages.create({ ...body, stream: false }, reqOptions);
      let text = '';
      const toolCalls: ModelToolCall[] = [];
      for (const block of res.content) {
        if (block.type === 'text') text += block.text;
        else if (block.type === 'tool_use') toolCalls.push({ id: block.id, name: block.name, arguments: JSON.stringify(block.input) });
      }
      reportWholeReply(options, text, toolCalls);
      return { text, toolCalls, usage: { input: res.usage.input_tokens, output: res.usage.output_tokens }, stopReason: stopReasonFrom(STOP_REASONS, res.stop_reason) };
    }
    const stream = await client.messages.create({ ...body, stream: true }, reqOptions);
    let text = '';
    let stop: string | null | undefined;
    let input: number | undefined;
    let output: number | undefined;
    const blocks = new Map<number, { kind: 'text' } | { kind: 'tool'; call: ModelToolCall }>();
    for await (const event of stream) {
      switch (event.type) {
        case 'message_start':
          input = event.message.usage.input_tokens + (event.message.usage.cache_read_input_tokens ?? 0) + (event.message.usage.cache_creation_input_tokens ?? 0);
          output = event.message.usage.output_tokens;
          break;
        case 'content_block_start': {
          const b = event.content_block;
          if (b.type === 'tool_use') {
            blocks.set(event.index, { kind: 'tool', call: { id: b.id, name: b.name, arguments: '' } });
            options.onEvent?.({ type: 'tool-call', index: event.index, name: b.name });
          } else if (b.type === 'text') {
            blocks.set(event.index, { kind: 'text' });
            if (b.text) {
              text += b.text;
              options.onEvent?.({ type: 'text', delta: b.text });
            }
          }
          break;
        }
        case 'content_block_delta': {
          const d = event.delta;
          if (d.type === 'text_delta') {
            text += d.text;
            options.onEvent?.({ type: 'text', delta: d.text });
          } else if (d.type === 'input_json_delta') {
            const b = blocks.get(event.index);
            if (b?.kind === 'tool') b.call.arguments += d.partial_json;
          }
          break;
        }
        case 'message_delta':
          if (event.delta.stop_reason) stop = event.delta.stop_reason;
          if (typeof event.usage.output_tokens === 'number') output = event.usage.output_tokens;
          break;
        default:
          break;
      }
    }
    const toolCalls = [...blocks.entries()].sort(([a], [b]) => a - b).flatMap(([, b]) => (b.kind === 'tool' ? [{ ...b.call, arguments: b.call.arguments === '' ? '{}' : b.call.arguments }] : []));
    const usage = input !== undefined ? { input, output: output ?? 0 } : { input: estimateTokens(request.system + JSON.stringify(request.messages)), output: estimateTokens(text), estimated: true };
    return { text, toolCalls, usage, stopReason: stopReasonFrom(STOP_REASONS, stop) };
  }
}
