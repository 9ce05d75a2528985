import { afterEach, describe, expect, it } from 'vitest';
import { startScriptedServer, type ScriptedServer } from '../../src/agent/providers/scripted-server.js';
import { createProvider, parseModelSpec } from '../../src/agent/providers/spec.js';
import { AgentError } from '../../src/agent/providers/errors.js';
import type { ModelRequest } from '../../src/agent/providers/types.js';

const request: ModelRequest = {
  system: 'You are a test.',
  messages: [{ role: 'user', content: 'hi' }],
  tools: [{ name: 'read_file', description: 'Read a file.', parameters: { type: 'object', properties: { path: { type: 'string' } }, required: ['path'] } }],
};

let server: ScriptedServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

const turn = { text: 'Reading the file to see what it holds first.', tool_calls: [{ name: 'read_file', arguments: { path: 'src/a.ts' } }], usage: { input: 120, output: 33 } };

describe('providers through the real SDK clients against the scripted server', () => {
  for (const [protocol, spec] of [
    ['openai', 'openai-compatible:scripted'],
    ['anthropic', 'anthropic:scripted'],
  ] as const) {
    for (const stream of [true, false]) {
      it(`${protocol} ${stream ? 'streaming' : 'non-streaming'}: text, tool call with its raw arguments, usage`, async () => {
        server = await startScriptedServer({ turns: [turn] }, { chunk: 7 });
        const baseUrl = protocol === 'openai' ? server.openaiBaseUrl : server.anthropicBaseUrl;
        const provider = createProvider(spec, { baseUrl, env: { ANTHROPIC_API_KEY: 'test-key' }, stream });
        const deltas: string[] = [];
        const named: string[] = [];
        const out = await provider.complete(request, {
          onEvent: (e) => (e.type === 'text' ? deltas.push(e.delta) : named.push(e.name)),
        });
        expect(out.text).toBe(turn.text);
        expect(out.toolCalls).toHaveLength(1);
        expect(out.toolCalls[0]?.name).toBe('read_file');
        expect(JSON.parse(out.toolCalls[0]?.arguments ?? '')).toEqual({ path: 'src/a.ts' });
        expect(out.usage).toEqual({ input: 120, output: 33 });
        expect(out.stopReason).toBe('tool_calls');
        expect(named).toEqual(['read_file']);
        // Streaming: the text arrived in several pieces; not streaming: in one.
        if (stream) expect(deltas.length).toBeGreaterThan(3);
        else expect(deltas).toEqual([turn.text]);
        const seen = server.requests[0];
        expect(seen?.protocol).toBe(protocol);
        expect(seen?.stream).toBe(stream);
        if (protocol === 'anthropic') {
          // The SDK sends the key as x-api-key or as a bearer token, depending on its version.
          expect(`${seen?.headers['x-api-key'] ?? ''} ${seen?.headers.authorization ?? ''}`).toContain('test-key');
          expect(seen?.body.system).toBe('You are a test.');
          expect((seen?.body.tools as Array<{ name: string; input_schema: unknown }>)[0]?.input_schema).toBeTruthy();
        } else {
          expect((seen?.body.messages as Array<{ role: string }>)[0]?.role).toBe('system');
          expect((seen?.body.tools as Array<{ type: string }>)[0]?.type).toBe('function');
        }
      });
    }

    it(`${protocol}: a malformed argument text reaches the caller as written (streaming)`, async () => {
      server = await startScriptedServer({ turns: [{ tool_calls: [{ name: 'read_file', arguments: '{"path": "a.ts"' }] }] });
      const baseUrl = protocol === 'openai' ? server.openaiBaseUrl : server.anthropicBaseUrl;
      const provider = createProvider(spec, { baseUrl, env: { ANTHROPIC_API_KEY: 'k' } });
      const out = await provider.complete(request);
      expect(out.toolCalls[0]?.arguments).toBe('{"path": "a.ts"');
      // No usage in the script: the server estimates, and it is still reported as reported usage.
      expect(out.usage.input).toBeGreaterThan(0);
    });

    it(`${protocol}: a server error becomes E_PROVIDER naming the provider and status`, async () => {
      server = await startScriptedServer({ turns: [] });
      const baseUrl = protocol === 'openai' ? server.openaiBaseUrl : server.anthropicBaseUrl;
      const provider = createProvider(spec, { baseUrl, env: { ANTHROPIC_API_KEY: 'k' } });
      const error = await provider.complete(request).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(AgentError);
      expect((error as AgentError).code).toBe('E_PROVIDER');
      expect((error as AgentError).message).toContain(spec);
      expect((error as AgentError).message).toContain('HTTP 400');
      expect((error as AgentError).message).toContain('no turn 1');
    });
  }
});

describe('--model provider:model', () => {
  it('parses provider and model (the model may contain colons)', () => {
    expect(parseModelSpec('ollama:qwen2.5-coder:7b')).toEqual({ provider: 'ollama', model: 'qwen2.5-coder:7b' });
  });

  it('refuses a spec without a provider, and an unknown provider, listing the known ones', () => {
    expect(() => parseModelSpec('gpt-4.1')).toThrow(/not provider:model/);
    const e = (() => {
      try {
        parseModelSpec('acme:x');
      } catch (error) {
        return error as AgentError;
      }
      return undefined;
    })();
    expect(e?.code).toBe('E_MODEL_SPEC');
    expect(e?.hint).toContain('anthropic');
  });

  it('names the missing key variable: OPENAI_API_KEY, ANTHROPIC_API_KEY, OPENROUTER_API_KEY', () => {
    for (const [spec, variable] of [
      ['openai:gpt-4.1', 'OPENAI_API_KEY'],
      ['anthropic:claude-x', 'ANTHROPIC_API_KEY'],
      ['openrouter:some/model', 'OPENROUTER_API_KEY'],
    ] as const) {
      expect(() => createProvider(spec, { env: {} })).toThrow(new RegExp(`^${variable} is not set`));
    }
  });

  it('local servers need no key; openai-compatible needs --base-url', () => {
    expect(createProvider('ollama:qwen', { env: {} }).id).toBe('ollama:qwen');
    expect(() => createProvider('openai-compatible:x', { env: {} })).toThrow(/--base-url is missing/);
    expect(() => createProvider('openai-compatible:x', { env: {}, baseUrl: 'http://127.0.0.1:1/v1', apiKeyEnv: 'MY_KEY' })).toThrow(/^MY_KEY is not set/);
  });
});
