/**
 * The replay provider: plays a script (or a recorded transcript) turn by
 * turn, whatever it is asked, streaming the text in small pieces like a real
 * model. For the demo and for tests that do not need the wire; it never
 * opens a socket.
 */
import { AgentError, AgentErrorCode } from './errors.js';
import { argumentsText, turnFor, type ScriptSource } from './script.js';
import { estimateTokens, type CompleteOptions, type ModelProvider, type ModelRequest, type ModelTurn } from './types.js';

export interface ReplayOptions {
  id?: string;
  /** Characters per streamed piece (default 24). */
  chunk?: number;
}

export class ReplayProvider implements ModelProvider {
  readonly id: string;
  readonly streaming = true;
  private index = 0;

  constructor(
    private readonly script: ScriptSource,
    private readonly options: ReplayOptions = {},
  ) {
    this.id = options.id ?? 'replay';
  }

  async complete(request: ModelRequest, options: CompleteOptions = {}): Promise<ModelTurn> {
    const index = this.index++;
    const turn = turnFor(this.script, { protocol: 'replay', index, body: request });
    if (!turn) {
      throw new AgentError({
        code: AgentErrorCode.SCRIPT_EXHAUSTED,
        message: `The replay script has no turn ${index + 1}: the run asked the model more often than the recording did.`,
        hint: 'Record the run again, or add turns to the script.',
      });
    }
    if (turn.error) {
      throw new AgentError({ code: AgentErrorCode.PROVIDER, message: `The model provider ${this.id} failed (HTTP ${turn.error.status}): ${turn.error.message}`, hint: 'Scripted failure.' });
    }
    const text = turn.text ?? '';
    const size = this.options.chunk ?? 24;
    for (let i = 0; i < text.length; i += size) {
      if (options.signal?.aborted) throw options.signal.reason ?? new Error('aborted');
      options.onEvent?.({ type: 'text', delta: text.slice(i, i + size) });
      if (i === 0 && turn.delay_ms) await new Promise((r) => setTimeout(r, turn.delay_ms));
    }
    const toolCalls = (turn.tool_calls ?? []).map((c, i) => ({ id: c.id ?? `replay_${index}_${i}`, name: c.name, arguments: argumentsText(c) }));
    toolCalls.forEach((c, i) => options.onEvent?.({ type: 'tool-call', index: i, name: c.name }));
    const usage = turn.usage
      ? { input: turn.usage.input, output: turn.usage.output }
      : { input: estimateTokens(request.system + JSON.stringify(request.messages)), output: estimateTokens(text + toolCalls.map((c) => c.arguments).join('')), estimated: true };
    return { text, toolCalls, usage, stopReason: toolCalls.length > 0 ? 'tool_calls' : 'end' };
  }
}
