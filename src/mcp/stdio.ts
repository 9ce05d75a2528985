/**
 * `editwarden mcp` over stdio: one session on this process's stdin and
 * stdout. stdout carries only protocol messages (notices go to stderr). The
 * server ends when the client closes stdin, when its reader closes stdout
 * (EPIPE: nobody is left to answer), or on SIGINT/SIGTERM/SIGHUP, and
 * always finishes its run first (metrics and reports written): a call still
 * running is cancelled (the SDK aborts every open request when the server
 * closes), and a second signal during the finish is absorbed.
 *
 * Nothing a client sends ends the server: a frame over MAX_MESSAGE_BYTES
 * gets an Invalid Request error under its own id (when its first bytes name
 * one), a line that is not JSON a Parse error (-32700), JSON that is no
 * JSON-RPC message an Invalid Request (-32600) — and the next line is read
 * as usual. The SDK's own StdioServerTransport closes the session on the
 * first oversize frame; this transport replaces it.
 */
import type { Readable, Writable } from 'node:stream';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { JSONRPCMessageSchema, type JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { ErrorCode } from '../errors.js';
import { createMcpServer, MAX_MESSAGE_BYTES } from './server.js';
import type { McpSession } from './session.js';
import { FrameReader, sniffRequestId, type Frame, type RequestId } from './stdio-framing.js';

/** JSON-RPC 2.0's own error codes. */
const JsonRpcError = { PARSE: -32700, INVALID_REQUEST: -32600 } as const;

/** Errors on stdout that mean the reader is gone, not that something is broken. */
const READER_GONE = new Set(['EPIPE', 'ERR_STREAM_DESTROYED', 'ECONNRESET']);

class GuardedStdioTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;
  private readonly reader: FrameReader;
  private closed = false;

  constructor(
    private readonly stdin: Readable,
    private readonly stdout: Writable,
    private readonly maxFrameBytes = MAX_MESSAGE_BYTES,
  ) {
    this.reader = new FrameReader(maxFrameBytes);
  }

  async start(): Promise<void> {
    this.stdin.on('data', this.onData);
    this.stdin.on('error', this.onInputError);
    this.stdout.on('error', this.onOutputError);
  }

  send(message: JSONRPCMessage): Promise<void> {
    return this.write(`${JSON.stringify(message)}\n`);
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.stdin.off('data', this.onData);
    this.stdin.off('error', this.onInputError);
    if (this.stdin.listenerCount('data') === 0) this.stdin.pause();
    this.onclose?.();
  }

  private readonly onData = (chunk: Buffer | string): void => {
    const frames = this.reader.push(typeof chunk === 'string' ? Buffer.from(chunk, 'utf8') : chunk);
    for (const frame of frames) this.handle(frame);
  };

  private readonly onInputError = (error: Error): void => {
    this.onerror?.(error);
  };

  private readonly onOutputError = (error: NodeJS.ErrnoException): void => {
    // A client that closed its end cannot be answered: end the session quietly (its run is still finished).
    if (READER_GONE.has(error.code ?? '')) {
      this.close().catch(() => undefined);
      return;
    }
    this.onerror?.(error);
  };

  private handle(frame: Frame): void {
    if (this.closed) return;
    if (frame.kind === 'oversize') {
      // Attack: one huge frame used to end the whole session (the SDK closed its transport). It is refused alone.
      this.replyError(sniffRequestId(frame.head), JsonRpcError.INVALID_REQUEST, `Message too large: ${frame.bytes} bytes, over the limit of ${this.maxFrameBytes} bytes; it was not read.`, {
        code: ErrorCode.TOO_LARGE,
        hint: 'Send less per call: write a large file in parts (write_file, then edit_file with mode append), or edit it instead of rewriting it.',
        limit: this.maxFrameBytes,
      });
      return;
    }
    if (frame.text.trim() === '') return;
    let data: unknown;
    try {
      data = JSON.parse(frame.text);
    } catch (error) {
      // Not JSON: JSON-RPC's parse error under id null, instead of silence the client would wait on.
      this.replyError(sniffRequestId(frame.text.slice(0, 4096)), JsonRpcError.PARSE, `Parse error: ${(error as Error).message}`, { code: ErrorCode.PARSE, hint: 'Send one JSON-RPC message per line, as JSON.' });
      return;
    }
    const parsed = JSONRPCMessageSchema.safeParse(data);
    if (!parsed.success) {
      const id = typeof data === 'object' && data !== null && !Array.isArray(data) ? (data as { id?: unknown }).id : undefined;
      this.replyError(typeof id === 'string' || typeof id === 'number' ? id : null, JsonRpcError.INVALID_REQUEST, 'Invalid Request: the line is JSON but not a JSON-RPC 2.0 message.', {
        code: ErrorCode.PARSE,
        hint: 'Send {"jsonrpc":"2.0","id":…,"method":…,"params":{…}} (batches are not accepted).',
      });
      return;
    }
    this.onmessage?.(parsed.data);
  }

  private replyError(id: RequestId | null, code: number, message: string, data: Record<string, unknown>): void {
    this.write(`${JSON.stringify({ jsonrpc: '2.0', id, error: { code, message, data } })}\n`).catch(() => undefined);
  }

  private write(line: string): Promise<void> {
    return new Promise((resolve) => {
      if (this.closed || this.stdout.destroyed || this.stdout.writableEnded) {
        resolve();
        return;
      }
      if (this.stdout.write(line)) resolve();
      else {
        // A reader that stops reading must not hold the writer forever once the stream is gone.
        const done = (): void => {
          this.stdout.off('drain', done);
          this.stdout.off('close', done);
          resolve();
        };
        this.stdout.once('drain', done);
        this.stdout.once('close', done);
      }
    });
  }
}

/** The signals a client (or its terminal) ends the server with: each one finishes the run first. */
const EXIT_SIGNALS: readonly NodeJS.Signals[] = ['SIGINT', 'SIGTERM', 'SIGHUP'];

export async function serveStdio(session: McpSession, log: (line: string) => void): Promise<void> {
  const server = createMcpServer(session, log);
  const transport = new GuardedStdioTransport(process.stdin, process.stdout);
  const closed = new Promise<void>((resolve) => {
    server.onclose = () => resolve();
  });
  server.onerror = (error) => log(`editwarden mcp: ${error.message}`);
  await server.connect(transport);
  const stop = (): void => {
    server.close().catch(() => undefined);
  };
  // The transport closing itself (stdout gone) closes the server through onclose.
  process.stdin.once('end', stop);
  process.stdin.once('close', stop);
  // SIGHUP: a client in a terminal that closes (its process group gets the hang-up) ended the server without a word.
  for (const signal of EXIT_SIGNALS) process.on(signal, stop);
  try {
    await closed;
  } finally {
    process.stdin.off('end', stop);
    process.stdin.off('close', stop);
    try {
      // The handlers stay until the run is finished: a client escalating SIGINT → SIGTERM must not kill it mid-write.
      await session.close();
    } finally {
      for (const signal of EXIT_SIGNALS) process.off(signal, stop);
    }
    // A paused stdin would keep the process alive after a signal.
    process.stdin.destroy();
  }
}
