/**
 * The live status line of a running verification, for people at a terminal:
 * the command, the elapsed time and the last line of output, redrawn in
 * place. Only for a TTY; it must never write when the stream is a pipe (logs
 * and CI get plain lines from the CLI instead).
 */
import { LineTail } from '../verify/tail.js';
import type { OutputEvent } from '../verify/runner.js';

export interface StatusStream {
  write(chunk: string): boolean;
  isTTY?: boolean;
  columns?: number;
}

export interface LiveStatus {
  onOutput(event: OutputEvent): void;
  stop(): void;
}

// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f]|\u001b\[[0-?]*[ -/]*[@-~]/g;

export function startLiveStatus(stream: StatusStream, label: string, intervalMs = 100, now: () => number = Date.now): LiveStatus {
  const started = now();
  const last = new LineTail({ maxLines: 2, maxLineBytes: 512 });
  const draw = () => {
    const width = Math.max(20, (stream.columns ?? 80) - 1);
    const seconds = ((now() - started) / 1000).toFixed(1);
    // The build's own colours and cursor moves would corrupt the redraw.
    const tail = last.lastLine().replace(CONTROL, '').trim();
    const line = `⏵ ${label}  ${seconds}s${tail ? `  │ ${tail}` : ''}`;
    stream.write(`\r\u001b[K${[...line].slice(0, width).join('')}`);
  };
  draw();
  const timer = setInterval(draw, intervalMs);
  return {
    onOutput(event) {
      last.push(event.chunk);
    },
    stop() {
      clearInterval(timer);
      stream.write('\r\u001b[K');
    },
  };
}
