/**
 * A scripted OpenAI Responses API on 127.0.0.1 for driving the real Codex
 * CLI (its custom provider speaks `wire_api = "responses"` over SSE): each
 * request with tools gets the next scripted call — a function call
 * (`exec_command`) or a freeform custom tool call (`apply_patch`) — and,
 * once the script is spent, a final message. Every request body is kept.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export type ResponsesCall = { name: string; args: Record<string, unknown> } | { name: string; input: string };

export interface ResponsesServer {
  baseUrl: string;
  requests: Array<{ tools: string[]; input: Array<Record<string, unknown>> }>;
  close(): Promise<void>;
}

export async function startResponsesServer(calls: readonly ResponsesCall[]): Promise<ResponsesServer> {
  const requests: ResponsesServer['requests'] = [];
  let n = 0;
  const server = http.createServer((req, res) => {
    let body = '';
    req.on('data', (d: Buffer) => (body += d.toString()));
    req.on('end', () => {
      if (req.method !== 'POST' || !req.url?.endsWith('/responses')) {
        res.writeHead(404, { 'content-type': 'application/json' });
        res.end('{}');
        return;
      }
      const parsed = JSON.parse(body || '{}') as { tools?: Array<{ name?: string; type?: string }>; input?: Array<Record<string, unknown>> };
      const input = parsed.input ?? [];
      requests.push({ tools: (parsed.tools ?? []).map((t) => t.name ?? t.type ?? ''), input });
      // The step is how many tool results the client has sent back so far.
      const step = input.filter((i) => i.type === 'function_call_output' || i.type === 'custom_tool_call_output').length;
      const call = calls[step];
      const id = `resp_${++n}`;
      const item = !call
        ? { type: 'message', role: 'assistant', id: `msg_${n}`, content: [{ type: 'output_text', text: 'done' }] }
        : 'input' in call
          ? { type: 'custom_tool_call', id: `ctc_${n}`, call_id: `call_${n}`, name: call.name, input: call.input, status: 'completed' }
          : { type: 'function_call', id: `fc_${n}`, call_id: `call_${n}`, name: call.name, arguments: JSON.stringify(call.args) };
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      const send = (ev: Record<string, unknown>): void => {
        res.write(`event: ${String(ev.type)}\ndata: ${JSON.stringify(ev)}\n\n`);
      };
      send({ type: 'response.created', response: { id } });
      send({ type: 'response.output_item.done', output_index: 0, item });
      const usage = { input_tokens: 1, output_tokens: 1, total_tokens: 2, input_tokens_details: { cached_tokens: 0 }, output_tokens_details: { reasoning_tokens: 0 } };
      send({ type: 'response.completed', response: { id, usage } });
      res.end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseUrl: `http://127.0.0.1:${port}/v1`,
    requests,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** The text of every tool result Codex sent back, in order. */
export function codexToolOutputs(requests: ResponsesServer['requests']): string[] {
  const last = requests[requests.length - 1];
  return (last?.input ?? []).filter((i) => i.type === 'function_call_output' || i.type === 'custom_tool_call_output').map((i) => (typeof i.output === 'string' ? i.output : JSON.stringify(i.output)));
}
