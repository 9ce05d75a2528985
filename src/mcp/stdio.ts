/**
 * `editwarden mcp` over stdio: one session on this process's stdin and
 * stdout. stdout carries only protocol messages (notices go to stderr). The
 * server ends when the client closes stdin or on SIGINT/SIGTERM, and always
 * finishes its run first (metrics and reports written). A malformed line is
 * reported and skipped; it never stops the server.
 */
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { createMcpServer, MAX_MESSAGE_BYTES } from './server.js';
import type { McpSession } from './session.js';

export async function serveStdio(session: McpSession, log: (line: string) => void): Promise<void> {
  const server = createMcpServer(session, log);
  const transport = new StdioServerTransport(process.stdin, process.stdout, { maxBufferSize: MAX_MESSAGE_BYTES });
  const closed = new Promise<void>((resolve) => {
    server.onclose = () => resolve();
  });
  server.onerror = (error) => log(`editwarden mcp: ${error.message}`);
  await server.connect(transport);
  const stop = (): void => {
    server.close().catch(() => undefined);
  };
  process.stdin.once('end', stop);
  process.stdin.once('close', stop);
  process.once('SIGTERM', stop);
  process.once('SIGINT', stop);
  try {
    await closed;
  } finally {
    process.stdin.off('end', stop);
    process.stdin.off('close', stop);
    process.off('SIGTERM', stop);
    process.off('SIGINT', stop);
    await session.close();
    // A paused stdin would keep the process alive after a signal.
    process.stdin.destroy();
  }
}
