/**
 * A bounded tail of a byte stream, line by line: the last `maxLines` lines,
 * each cut at `maxLineBytes`. Whatever a build prints (100 MB, one endless
 * line, invalid UTF-8), memory stays below maxLines × maxLineBytes. It must
 * never keep a reference to the chunks it is fed (they may be 64 KB each).
 */

const NEWLINE = 0x0a;

export interface TailOptions {
  /** Lines kept; at least 1. */
  maxLines?: number;
  /** Bytes kept of one line; the rest is counted and cut. */
  maxLineBytes?: number;
}

export const DEFAULT_TAIL_LINES = 200;
const DEFAULT_MAX_LINE_BYTES = 4096;

interface Line {
  bytes: Buffer;
  /** Bytes of the line that were cut off. */
  cut: number;
}

/** Lenient: invalid bytes become U+FFFD instead of throwing. */
const decoder = new TextDecoder('utf-8', { fatal: false });

export class LineTail {
  readonly maxLines: number;
  readonly maxLineBytes: number;
  /** Ring of complete lines; `start` is the oldest. */
  private ring: Line[] = [];
  private start = 0;
  private partial: Buffer[] = [];
  private partialBytes = 0;
  private partialCut = 0;
  /** Total bytes seen. */
  bytes = 0;

  constructor(options: TailOptions = {}) {
    this.maxLines = Math.max(1, Math.floor(options.maxLines ?? DEFAULT_TAIL_LINES));
    this.maxLineBytes = Math.max(1, Math.floor(options.maxLineBytes ?? DEFAULT_MAX_LINE_BYTES));
  }

  push(chunk: Uint8Array): void {
    const buf = Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength);
    this.bytes += buf.length;
    // Look only at the last maxLines+1 newlines: with more, everything before them is dropped anyway,
    // so 50 million short lines cost 200 line copies per chunk, not 50 million.
    const cuts: number[] = [];
    let pos = buf.length - 1;
    while (cuts.length <= this.maxLines && pos >= 0) {
      const at = buf.lastIndexOf(NEWLINE, pos);
      if (at < 0) break;
      cuts.push(at);
      pos = at - 1;
    }
    cuts.reverse();
    if (cuts.length > this.maxLines) {
      // The chunk alone fills the tail: forget the old lines and the old partial.
      this.ring = [];
      this.start = 0;
      this.resetPartial();
      for (let i = 1; i < cuts.length; i++) this.addLine(buf.subarray((cuts[i - 1] as number) + 1, cuts[i]), 0);
    } else {
      let from = 0;
      for (const at of cuts) {
        this.appendPartial(buf.subarray(from, at));
        this.finishPartial();
        from = at + 1;
      }
      if (from < buf.length) this.appendPartial(buf.subarray(from));
      return;
    }
    const last = cuts[cuts.length - 1] as number;
    if (last + 1 < buf.length) this.appendPartial(buf.subarray(last + 1));
  }

  /** The kept lines, decoded leniently, a trailing "\r" removed, cut lines marked. */
  lines(): string[] {
    const out: string[] = [];
    for (let i = 0; i < this.ring.length; i++) out.push(render(this.ring[(this.start + i) % this.ring.length] as Line));
    if (this.partialBytes > 0 || this.partialCut > 0) {
      out.push(render({ bytes: Buffer.concat(this.partial), cut: this.partialCut }));
      if (out.length > this.maxLines) out.shift();
    }
    return out;
  }

  text(): string {
    return this.lines().join('\n');
  }

  /** The last non-empty line, as a progress display would show it (after the last "\r"). */
  lastLine(): string {
    const lines = this.lines();
    for (let i = lines.length - 1; i >= 0; i--) {
      const segments = (lines[i] as string).split('\r').filter((s) => s.trim() !== '');
      if (segments.length > 0) return segments[segments.length - 1] as string;
    }
    return '';
  }

  private appendPartial(part: Buffer): void {
    if (part.length === 0) return;
    const room = this.maxLineBytes - this.partialBytes;
    if (room <= 0) {
      this.partialCut += part.length;
      return;
    }
    // Copy: a subarray would pin the whole chunk in memory.
    const kept = Buffer.from(part.subarray(0, room));
    this.partial.push(kept);
    this.partialBytes += kept.length;
    this.partialCut += part.length - kept.length;
  }

  private finishPartial(): void {
    const bytes = this.partial.length === 1 ? (this.partial[0] as Buffer) : Buffer.concat(this.partial);
    this.pushLine({ bytes, cut: this.partialCut });
    this.resetPartial();
  }

  private addLine(slice: Buffer, cut: number): void {
    const kept = Buffer.from(slice.subarray(0, this.maxLineBytes));
    this.pushLine({ bytes: kept, cut: cut + slice.length - kept.length });
  }

  private pushLine(line: Line): void {
    if (this.ring.length < this.maxLines) {
      this.ring.push(line);
      return;
    }
    this.ring[this.start] = line;
    this.start = (this.start + 1) % this.maxLines;
  }

  private resetPartial(): void {
    this.partial = [];
    this.partialBytes = 0;
    this.partialCut = 0;
  }
}

function render(line: Line): string {
  let text = decoder.decode(line.bytes);
  if (text.endsWith('\r')) text = text.slice(0, -1);
  return line.cut > 0 ? `${text}… [${line.cut} bytes cut]` : text;
}
