/**
 * Newline-delimited JSON-RPC framing for the stdio server, with a hard cap
 * on one frame. The MCP stdio grammar:
 *
 *   stream  = *( frame LF )
 *   frame   = one JSON-RPC message, UTF-8, no raw LF inside (a CR before the LF is dropped)
 *
 * What the SDK's own reader does with a hostile stream, and what this one
 * does instead:
 *   - a frame over the cap: the SDK closes the transport (the server exits 0,
 *     every later request is lost); here the frame's bytes are discarded as
 *     they arrive, the frame is reported as `oversize` with its first bytes
 *     (to find its request id) and the next frame is read as usual;
 *   - a long frame arriving in small chunks: the SDK concatenates the whole
 *     buffer per chunk (quadratic copying); here chunks are kept in a list
 *     and joined once, when the frame ends.
 * Pure (bytes in, frames out): it never writes, never parses JSON, and never
 * holds more than `maxFrameBytes` + one chunk of one frame.
 */

export type Frame =
  | { kind: 'line'; text: string }
  /** A frame longer than the cap; `head` is its first HEAD_BYTES bytes (decoded), `bytes` its full length. */
  | { kind: 'oversize'; bytes: number; head: string };

/** How much of an oversize frame is kept to look for its request id. */
export const HEAD_BYTES = 4096;
const LF = 0x0a;

export class FrameReader {
  private parts: Buffer[] = [];
  private size = 0;
  /** Bytes of the current frame dropped past the cap (discarding while > 0 or `head` set). */
  private dropped = 0;
  /** The first HEAD_BYTES of an oversize frame (null while the frame is under the cap). */
  private head: Buffer | null = null;

  constructor(private readonly maxFrameBytes: number) {}

  /** Feeds bytes; returns the frames they complete, in order. */
  push(chunk: Buffer): Frame[] {
    const out: Frame[] = [];
    let from = 0;
    while (from <= chunk.length) {
      const lf = chunk.indexOf(LF, from);
      const end = lf === -1 ? chunk.length : lf;
      this.take(chunk.subarray(from, end));
      if (lf === -1) break;
      out.push(this.finish());
      from = lf + 1;
    }
    return out;
  }

  /** True while part of a frame is waiting for its end. */
  get pending(): boolean {
    return this.size > 0 || this.head !== null;
  }

  private take(piece: Buffer): void {
    if (piece.length === 0) return;
    if (this.head !== null) {
      // Oversize frame: its bytes are counted and dropped, but for its head.
      if (this.head.length < HEAD_BYTES) this.head = Buffer.concat([this.head, piece.subarray(0, HEAD_BYTES - this.head.length)]);
      this.dropped += piece.length;
      return;
    }
    if (this.size + piece.length <= this.maxFrameBytes) {
      // Copied: the chunk's buffer may be reused by the stream.
      this.parts.push(Buffer.from(piece));
      this.size += piece.length;
      return;
    }
    // Over the cap: keep the head (the request id is near the start), drop the rest.
    const first: Buffer[] = [];
    let kept = 0;
    for (const part of [...this.parts, piece]) {
      if (kept >= HEAD_BYTES) break;
      first.push(part.subarray(0, HEAD_BYTES - kept));
      kept += Math.min(part.length, HEAD_BYTES - kept);
    }
    this.head = Buffer.concat(first);
    this.dropped = this.size + piece.length;
    this.parts = [];
    this.size = 0;
  }

  private finish(): Frame {
    if (this.head !== null) {
      const frame: Frame = { kind: 'oversize', bytes: this.dropped, head: this.head.toString('utf8') };
      this.head = null;
      this.dropped = 0;
      return frame;
    }
    let text = this.parts.length === 1 ? (this.parts[0] as Buffer).toString('utf8') : Buffer.concat(this.parts, this.size).toString('utf8');
    this.parts = [];
    this.size = 0;
    if (text.endsWith('\r')) text = text.slice(0, -1);
    return { kind: 'line', text };
  }
}

export type RequestId = string | number;

/**
 * The `id` member of a JSON object's top level, read from the start of its
 * text (which may be cut anywhere): so an oversize or malformed request can
 * still be answered under its own id. null when there is none to be sure of.
 */
export function sniffRequestId(head: string): RequestId | null {
  let i = 0;
  const n = head.length;
  const ws = (): void => {
    while (i < n && (head[i] === ' ' || head[i] === '\t' || head[i] === '\r' || head[i] === '\n')) i++;
  };
  /** A JSON string starting at i (a quote); returns its value and moves past it, or null when cut or bad. */
  const str = (): string | null => {
    let j = i + 1;
    let raw = '"';
    while (j < n && head[j] !== '"') {
      if (head[j] === '\\') {
        raw += head.slice(j, j + 2);
        j += 2;
      } else raw += head[j++];
    }
    if (j >= n) return null;
    i = j + 1;
    try {
      return JSON.parse(`${raw}"`) as string;
    } catch {
      return null;
    }
  };
  /** Skips one JSON value at i; false when it is cut off or malformed. */
  const skip = (): boolean => {
    ws();
    if (i >= n) return false;
    const c = head[i];
    if (c === '"') return str() !== null;
    if (c === '{' || c === '[') {
      let depth = 0;
      while (i < n) {
        const d = head[i];
        if (d === '"') {
          if (str() === null) return false;
          continue;
        }
        if (d === '{' || d === '[') depth++;
        else if (d === '}' || d === ']') depth--;
        i++;
        if (depth === 0) return true;
      }
      return false;
    }
    const m = /^[^,}\]\s]+/.exec(head.slice(i, i + 64));
    if (!m) return false;
    i += m[0].length;
    return i < n;
  };
  ws();
  if (head[i] !== '{') return null;
  i++;
  for (;;) {
    ws();
    if (head[i] !== '"') return null;
    const key = str();
    if (key === null) return null;
    ws();
    if (head[i] !== ':') return null;
    i++;
    ws();
    if (key === 'id') {
      if (head[i] === '"') return str();
      const m = /^-?\d{1,15}(?=[\s,}])/.exec(head.slice(i, i + 24));
      return m ? Number(m[0]) : null;
    }
    if (!skip()) return null;
    ws();
    if (head[i] !== ',') return null;
    i++;
  }
}
