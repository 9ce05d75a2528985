/**
 * `editwarden mcp --http PORT`: Streamable HTTP on 127.0.0.1 only, one
 * McpSession per MCP session (each with its own roots and run), at `/mcp`.
 * It defends the local port against the web: it binds the loopback address
 * only (nothing on the network can connect), refuses a Host header other
 * than 127.0.0.1/localhost:PORT (DNS rebinding: a page on evil.example
 * whose name now resolves to 127.0.0.1), and refuses browser Origins other
 * than its own (a page calling http://127.0.0.1:PORT directly). And it
 * defends against the other accounts of the machine, to which 127.0.0.1 is
 * just as open: every request must carry `Authorization: Bearer <token>`
 * (http-token.ts), checked before anything else is read; without it, 401.
 */
import { randomUUID } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { isInitializeRequest } from '@modelcontextprotocol/sdk/types.js';
import { authorized } from './http-token.js';
import { createMcpServer, MAX_MESSAGE_BYTES } from './server.js';
import type { McpSession } from './session.js';

const HTTP_HOST = '127.0.0.1';
const HTTP_PATH = '/mcp';

export interface HttpOptions {
  port: number;
  makeSession: () => McpSession;
  log: (line: string) => void;
  /** The bearer token every request must carry (http-token.ts). */
  token: string;
}

export interface HttpServerHandle {
  url: string;
  port: number;
  /** Resolves once the server has stopped and every session's run is finished. */
  closed: Promise<void>;
  close(): Promise<void>;
}

interface Live {
  transport: StreamableHTTPServerTransport;
  session: McpSession;
}

export async function serveHttp(options: HttpOptions): Promise<HttpServerHandle> {
  const sessions = new Map<string, Live>();
  let port = options.port;
  const allowedHosts = (): string[] => [`${HTTP_HOST}:${port}`, `localhost:${port}`];
  const allowedOrigins = (): string[] => [`http://${HTTP_HOST}:${port}`, `http://localhost:${port}`];

  const httpServer = http.createServer((req, res) => {
    handle(req, res).catch((error: unknown) => {
      options.log(`editwarden mcp: HTTP request failed: ${(error as Error).message}`);
      if (!res.headersSent) jsonRpcError(res, 500, -32603, 'Internal server error');
      else res.end();
    });
  });

  async function handle(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', `http://${HTTP_HOST}`);
    if (url.pathname !== HTTP_PATH) return jsonRpcError(res, 404, -32000, `Not found: the MCP endpoint is ${HTTP_PATH}`);
    if (!authorized(req.headers.authorization, options.token)) {
      res.setHeader('www-authenticate', 'Bearer realm="editwarden"');
      return jsonRpcError(res, 401, -32001, "Unauthorized: send the server's token as `Authorization: Bearer <token>` (printed at start and kept in its 0600 token file)");
    }
    if (!allowedHosts().includes(req.headers.host ?? '')) return jsonRpcError(res, 403, -32000, 'Forbidden: unexpected Host header');
    const origin = req.headers.origin;
    if (origin !== undefined && !allowedOrigins().includes(origin)) return jsonRpcError(res, 403, -32000, 'Forbidden: unexpected Origin');

    const id = req.headers['mcp-session-id'];
    const sessionId = Array.isArray(id) ? id[0] : id;
    if (sessionId !== undefined) {
      const live = sessions.get(sessionId);
      if (!live) return jsonRpcError(res, 404, -32001, 'Session not found: initialize a new session');
      return live.transport.handleRequest(req, res);
    }
    if (req.method !== 'POST') return jsonRpcError(res, 400, -32000, 'Bad request: no mcp-session-id; initialize with a POST first');

    const body = await readJson(req);
    if (!body.ok) return jsonRpcError(res, body.status, body.code, body.message);
    if (!isInitializeRequest(body.value)) return jsonRpcError(res, 400, -32000, 'Bad request: no mcp-session-id; the first request must be initialize');

    const session = options.makeSession();
    const transport = new StreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      onsessioninitialized: (sid) => {
        sessions.set(sid, { transport, session });
      },
      enableDnsRebindingProtection: true,
      allowedHosts: allowedHosts(),
      allowedOrigins: allowedOrigins(),
      maxRequestBodySize: MAX_MESSAGE_BYTES,
    });
    const server = createMcpServer(session, options.log);
    server.onerror = (error) => options.log(`editwarden mcp: ${error.message}`);
    server.onclose = () => {
      if (transport.sessionId) sessions.delete(transport.sessionId);
      session.close().catch(() => undefined);
    };
    await server.connect(transport);
    await transport.handleRequest(req, res, body.value);
  }

  await new Promise<void>((resolve, reject) => {
    httpServer.once('error', reject);
    // Loopback only: the server must not be reachable from the network.
    httpServer.listen(options.port, HTTP_HOST, () => {
      httpServer.off('error', reject);
      resolve();
    });
  });
  port = (httpServer.address() as AddressInfo).port;

  let resolveClosed: () => void = () => undefined;
  const closed = new Promise<void>((resolve) => {
    resolveClosed = resolve;
  });
  let closing: Promise<void> | null = null;
  const close = (): Promise<void> => {
    closing ??= (async () => {
      const live = [...sessions.values()];
      sessions.clear();
      for (const { transport, session } of live) {
        await transport.close().catch(() => undefined);
        await session.close();
      }
      await new Promise<void>((resolve) => httpServer.close(() => resolve()));
      httpServer.closeAllConnections();
      resolveClosed();
    })();
    return closing;
  };
  return { url: `http://${HTTP_HOST}:${port}${HTTP_PATH}`, port, closed, close };
}

type JsonBody = { ok: true; value: unknown } | { ok: false; status: number; code: number; message: string };

async function readJson(req: http.IncomingMessage): Promise<JsonBody> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > MAX_MESSAGE_BYTES) return { ok: false, status: 413, code: -32000, message: `Request body larger than ${MAX_MESSAGE_BYTES} bytes` };
    chunks.push(chunk as Buffer);
  }
  try {
    return { ok: true, value: JSON.parse(Buffer.concat(chunks).toString('utf8')) };
  } catch {
    return { ok: false, status: 400, code: -32700, message: 'Parse error: the body is not JSON' };
  }
}

function jsonRpcError(res: http.ServerResponse, status: number, code: number, message: string): void {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify({ jsonrpc: '2.0', error: { code, message }, id: null }));
}
