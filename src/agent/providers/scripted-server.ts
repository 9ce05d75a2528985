/**
 * A small model server on 127.0.0.1 (ephemeral port) that answers from a
 * script, speaking two wire protocols so the real SDK clients can be tested
 * end to end without a key or a network:
 *
 *   POST …/chat/completions   OpenAI chat completions (JSON, or SSE chunks
 *                             ending in `data: [DONE]` when `stream` is set;
 *                             tool-call arguments are split across chunks;
 *                             a usage chunk when `stream_options.include_usage`)
 *   POST …/messages           Anthropic Messages (JSON, or the SSE events
 *                             message_start → content_block_* → message_delta
 *                             → message_stop; tool input as input_json_delta)
 *   POST …/models/M:generateContent, …:streamGenerateContent?alt=sse
 *                             the Gemini API (JSON, or one SSE chunk; tool
 *                             calls as functionCall parts) — for Gemini CLI
 *   GET  …/models             a one-model list (some clients probe it)
 *
 * Every request is recorded (protocol, body, headers) for tests to inspect —
 * e.g. which tools were offered, or that no further turn was requested. The
 * server binds to the loopback interface only and never forwards anything.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { argumentsText, turnFor, type ScriptSource, type ScriptedTurn } from './script.js';
import { estimateTokens } from './types.js';

export interface RecordedRequest {
  protocol: 'openai' | 'anthropic' | 'gemini';
  index: number;
  stream: boolean;
  // The body is whatever the client sent; tests read the fields they care about.
  body: Record<string, unknown>;
  headers: http.IncomingHttpHeaders;
}

export interface ScriptedServer {
  /** http://127.0.0.1:PORT */
  url: string;
  /** Base URL for OpenAI-compatible clients (…/v1). */
  openaiBaseUrl: string;
  /** Base URL for the Anthropic client (it appends /v1/messages). */
  anthropicBaseUrl: string;
  /** Base URL for Gemini API clients (GOOGLE_GEMINI_BASE_URL; they append /v1beta/models/…). */
  geminiBaseUrl: string;
  requests: RecordedRequest[];
  close(): Promise<void>;
}

export interface ScriptedServerOptions {
  /** Characters per streamed text piece (default 16); tool arguments go in pieces of the same size. */
  chunk?: number;
  model?: string;
}

function pieces(text: string, size: number): string[] {
  if (text === '') return [];
  const out: string[] = [];
  for (let i = 0; i < text.length; i += size) out.push(text.slice(i, i + size));
  return out;
}

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

interface Reply {
  text: string;
  calls: Array<{ id: string; name: string; arguments: string }>;
  usage: { input: number; output: number };
}

function replyOf(turn: ScriptedTurn, index: number, rawBody: string, prefix: string): Reply {
  const text = turn.text ?? '';
  const calls = (turn.tool_calls ?? []).map((c, i) => ({ id: c.id ?? `${prefix}_${index}_${i}`, name: c.name, arguments: argumentsText(c) }));
  const usage = turn.usage ?? { input: estimateTokens(rawBody), output: estimateTokens(text + calls.map((c) => c.name + c.arguments).join('')) };
  return { text, calls, usage };
}

export async function startScriptedServer(script: ScriptSource, options: ScriptedServerOptions = {}): Promise<ScriptedServer> {
  const size = options.chunk ?? 16;
  const model = options.model ?? 'scripted';
  const requests: RecordedRequest[] = [];
  let counter = 0;

  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      handle(req, res, Buffer.concat(chunks).toString('utf8')).catch((error: unknown) => {
        if (!res.headersSent) res.writeHead(500, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ error: { message: String(error) } }));
      });
    });
  });

  async function handle(req: http.IncomingMessage, res: http.ServerResponse, raw: string): Promise<void> {
    const url = (req.url ?? '').split('?')[0] ?? '';
    if (req.method === 'GET' && url.endsWith('/models')) {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ object: 'list', data: [{ id: model, object: 'model', owned_by: 'editwarden' }] }));
      return;
    }
    const gemini = req.method === 'POST' && /:(stream)?[gG]enerateContent$/.test(url);
    const protocol = req.method === 'POST' && url.endsWith('/chat/completions') ? 'openai' : req.method === 'POST' && url.endsWith('/messages') ? 'anthropic' : gemini ? 'gemini' : null;
    if (!protocol) {
      res.writeHead(404, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ error: { message: `no route ${req.method} ${url}` } }));
      return;
    }
    let body: Record<string, unknown>;
    try {
      body = JSON.parse(raw) as Record<string, unknown>;
    } catch {
      res.writeHead(400, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ error: { message: 'request body is not JSON' } }));
      return;
    }
    const index = counter++;
    const stream = body.stream === true || url.endsWith(':streamGenerateContent');
    requests.push({ protocol, index, stream, body, headers: req.headers });
    const turn = turnFor(script, { protocol, index, body });
    if (!turn || turn.error) {
      // 400, not 5xx: SDKs retry server errors, and an exhausted script must fail once, plainly.
      const status = turn?.error?.status ?? 400;
      const message = turn?.error?.message ?? `the script has no turn ${index + 1}`;
      res.writeHead(status, { 'content-type': 'application/json' });
      res.end(JSON.stringify(protocol === 'openai' ? { error: { message, type: 'invalid_request_error' } } : { type: 'error', error: { type: 'invalid_request_error', message } }));
      return;
    }
    if (protocol === 'openai') await answerOpenAi(res, turn, index, raw, stream, body);
    else if (protocol === 'gemini') answerGemini(res, turn, index, raw, stream);
    else await answerAnthropic(res, turn, index, raw, stream);
  }

  async function answerOpenAi(res: http.ServerResponse, turn: ScriptedTurn, index: number, raw: string, stream: boolean, body: Record<string, unknown>): Promise<void> {
    const reply = replyOf(turn, index, raw, 'call');
    const id = `chatcmpl-${index}`;
    const created = Math.floor(Date.now() / 1000);
    const finish = reply.calls.length > 0 ? 'tool_calls' : 'stop';
    const usage = { prompt_tokens: reply.usage.input, completion_tokens: reply.usage.output, total_tokens: reply.usage.input + reply.usage.output };
    if (!stream) {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(
        JSON.stringify({
          id,
          object: 'chat.completion',
          created,
          model,
          choices: [
            {
              index: 0,
              message: {
                role: 'assistant',
                content: reply.text === '' ? null : reply.text,
                ...(reply.calls.length > 0 ? { tool_calls: reply.calls.map((c) => ({ id: c.id, type: 'function', function: { name: c.name, arguments: c.arguments } })) } : {}),
              },
              finish_reason: finish,
            },
          ],
          usage,
        }),
      );
      return;
    }
    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', connection: 'keep-alive' });
    const send = (choices: unknown[], extra: Record<string, unknown> = {}): void => {
      res.write(`data: ${JSON.stringify({ id, object: 'chat.completion.chunk', created, model, choices, ...extra })}\n\n`);
    };
    send([{ index: 0, delta: { role: 'assistant', content: '' }, finish_reason: null }]);
    let first = true;
    for (const piece of pieces(reply.text, size)) {
      send([{ index: 0, delta: { content: piece }, finish_reason: null }]);
      if (first && turn.delay_ms) await sleep(turn.delay_ms);
      first = false;
    }
    reply.calls.forEach((c, i) => {
      send([{ index: 0, delta: { tool_calls: [{ index: i, id: c.id, type: 'function', function: { name: c.name, arguments: '' } }] }, finish_reason: null }]);
      for (const piece of pieces(c.arguments, size)) send([{ index: 0, delta: { tool_calls: [{ index: i, function: { arguments: piece } }] }, finish_reason: null }]);
    });
    send([{ index: 0, delta: {}, finish_reason: finish }]);
    const streamOptions = body.stream_options as { include_usage?: boolean } | undefined;
    if (streamOptions?.include_usage) send([], { usage });
    res.end('data: [DONE]\n\n');
  }

  function answerGemini(res: http.ServerResponse, turn: ScriptedTurn, index: number, raw: string, stream: boolean): void {
    const reply = replyOf(turn, index, raw, 'call');
    const parts: unknown[] = [];
    if (reply.text !== '') parts.push({ text: reply.text });
    for (const c of reply.calls) {
      let args: unknown;
      try {
        args = JSON.parse(c.arguments);
      } catch {
        args = {};
      }
      parts.push({ functionCall: { name: c.name, args } });
    }
    const payload = {
      candidates: [{ content: { role: 'model', parts }, finishReason: 'STOP', index: 0 }],
      usageMetadata: { promptTokenCount: reply.usage.input, candidatesTokenCount: reply.usage.output, totalTokenCount: reply.usage.input + reply.usage.output },
      modelVersion: model,
    };
    if (!stream) {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify(payload));
      return;
    }
    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', connection: 'keep-alive' });
    res.end(`data: ${JSON.stringify(payload)}\r\n\r\n`);
  }

  async function answerAnthropic(res: http.ServerResponse, turn: ScriptedTurn, index: number, raw: string, stream: boolean): Promise<void> {
    const reply = replyOf(turn, index, raw, 'toolu');
    const id = `msg_${index}`;
    const stopReason = reply.calls.length > 0 ? 'tool_use' : 'end_turn';
    if (!stream) {
      const content: unknown[] = [];
      if (reply.text !== '') content.push({ type: 'text', text: reply.text });
      for (const c of reply.calls) {
        let input: unknown;
        try {
          input = JSON.parse(c.arguments);
        } catch {
          // Not expressible as a tool_use object: pass the raw text along so the client sees the malformed call.
          input = c.arguments;
        }
        content.push({ type: 'tool_use', id: c.id, name: c.name, input });
      }
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(
        JSON.stringify({
          id,
          type: 'message',
          role: 'assistant',
          model,
          content,
          stop_reason: stopReason,
          stop_sequence: null,
          usage: { input_tokens: reply.usage.input, output_tokens: reply.usage.output },
        }),
      );
      return;
    }
    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', connection: 'keep-alive' });
    const send = (event: string, data: Record<string, unknown>): void => {
      res.write(`event: ${event}\ndata: ${JSON.stringify({ type: event, ...data })}\n\n`);
    };
    send('message_start', {
      message: { id, type: 'message', role: 'assistant', model, content: [], stop_reason: null, stop_sequence: null, usage: { input_tokens: reply.usage.input, output_tokens: 1 } },
    });
    let block = 0;
    if (reply.text !== '') {
      send('content_block_start', { index: block, content_block: { type: 'text', text: '' } });
      let first = true;
      for (const piece of pieces(reply.text, size)) {
        send('content_block_delta', { index: block, delta: { type: 'text_delta', text: piece } });
        if (first && turn.delay_ms) await sleep(turn.delay_ms);
        first = false;
      }
      send('content_block_stop', { index: block });
      block++;
    }
    for (const c of reply.calls) {
      send('content_block_start', { index: block, content_block: { type: 'tool_use', id: c.id, name: c.name, input: {} } });
      for (const piece of pieces(c.arguments, size)) send('content_block_delta', { index: block, delta: { type: 'input_json_delta', partial_json: piece } });
      send('content_block_stop', { index: block });
      block++;
    }
    send('message_delta', { delta: { stop_reason: stopReason, stop_sequence: null }, usage: { output_tokens: reply.usage.output } });
    send('message_stop', {});
    res.end();
  }

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const port = (server.address() as AddressInfo).port;
  const url = `http://127.0.0.1:${port}`;
  return {
    url,
    openaiBaseUrl: `${url}/v1`,
    anthropicBaseUrl: url,
    geminiBaseUrl: url,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
