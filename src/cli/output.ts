/**
 * Printing for the CLI: JSON for machines, colour only for people on a TTY
 * (NO_COLOR respected). Commands return data; this module decides how it looks.
 */
import type { ErrorInfo } from '../errors.js';

export interface Io {
  stdout: NodeJS.WritableStream & { isTTY?: boolean };
  stderr: NodeJS.WritableStream & { isTTY?: boolean };
  stdin: NodeJS.ReadableStream;
  env: NodeJS.ProcessEnv;
}

export function defaultIo(): Io {
  return { stdout: process.stdout, stderr: process.stderr, stdin: process.stdin, env: process.env };
}

export function useColor(io: Io, stream: 'stdout' | 'stderr' = 'stdout'): boolean {
  if (io.env.NO_COLOR !== undefined && io.env.NO_COLOR !== '') return false;
  if (io.env.FORCE_COLOR !== undefined && io.env.FORCE_COLOR !== '' && io.env.FORCE_COLOR !== '0') return true;
  return Boolean(io[stream].isTTY);
}

const codes = { red: [31, 39], green: [32, 39], yellow: [33, 39], cyan: [36, 39], bold: [1, 22], dim: [2, 22] } as const;
export type Style = keyof typeof codes;

export function paint(enabled: boolean, style: Style, text: string): string {
  if (!enabled) return text;
  const [open, close] = codes[style];
  return `\u001b[${open}m${text}\u001b[${close}m`;
}

/** Colours a unified diff line by line. */
export function paintDiff(enabled: boolean, diff: string): string {
  if (!enabled) return diff;
  return diff
    .split('\n')
    .map((line) => {
      if (line.startsWith('+++') || line.startsWith('---')) return paint(true, 'bold', line);
      if (line.startsWith('@@')) return paint(true, 'cyan', line);
      if (line.startsWith('+')) return paint(true, 'green', line);
      if (line.startsWith('-')) return paint(true, 'red', line);
      return line;
    })
    .join('\n');
}

export function formatError(error: ErrorInfo, color: boolean): string {
  const where = error.path ? `${error.path}${error.line ? `:${error.line}` : ''}: ` : '';
  return `${paint(color, 'red', `${error.code}`)} ${where}${error.message}\n  ${paint(color, 'dim', 'hint:')} ${error.hint}`;
}

export function writeJson(io: Io, value: unknown): void {
  io.stdout.write(`${JSON.stringify(value, null, 2)}\n`);
}

export async function readAll(stream: NodeJS.ReadableStream): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(typeof chunk === 'string' ? Buffer.from(chunk) : (chunk as Buffer));
  return Buffer.concat(chunks).toString('utf8');
}
