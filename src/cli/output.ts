/**
 * Printing for the CLI: JSON for machines, colour only for people on a TTY
 * (NO_COLOR respected). Commands return data; this module decides how it looks.
 */
import { exitCodeFor, formatRefusal, refusalEnvelope, toErrorInfo, type ErrorInfo, type ExitCode } from '../errors.js';
import type { EditResult } from '../edit/types.js';

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

/** errors.ts's one refusal text, with the code in red and the hint label dimmed on a colour terminal. */
export function formatError(error: ErrorInfo, color: boolean): string {
  return formatRefusal(error, { code: (t) => paint(color, 'red', t), label: (t) => paint(color, 'dim', t) });
}

export function writeJson(io: Io, value: unknown): void {
  io.stdout.write(`${JSON.stringify(value, null, 2)}\n`);
}

export async function readAll(stream: NodeJS.ReadableStream): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(typeof chunk === 'string' ? Buffer.from(chunk) : (chunk as Buffer));
  return Buffer.concat(chunks).toString('utf8');
}

/**
 * A refusal: printed as errors.ts's one envelope (`--json`, with `extra` such
 * as an empty `results`) or its one text (stderr), and mapped to its exit
 * code by errors.ts's one table.
 */
export function refuseCommand(error: unknown, json: boolean, io: Io, extra?: Record<string, unknown>): ExitCode {
  const info = toErrorInfo(error);
  if (json) writeJson(io, refusalEnvelope(info, extra));
  else io.stderr.write(`${formatError(info, useColor(io, 'stderr'))}\n`);
  return exitCodeFor(info.code);
}

/** One line per edit result (status, action, path, strategy, counts), its notes, and its error or diff. */
export function printResults(results: readonly EditResult[], io: Io, options: { diffs: boolean; sources: boolean }): void {
  const color = useColor(io);
  for (const result of results) {
    const label = result.status === 'applied' ? paint(color, 'green', 'applied') : result.status === 'dry-run' ? paint(color, 'cyan', 'dry-run') : paint(color, 'red', result.status);
    const where = options.sources && result.source ? ` [#${result.source.index + 1}${result.source.line !== undefined ? `, line ${result.source.line}` : ''}]` : '';
    const how = result.strategy && result.strategy !== 'exact' && result.strategy !== 'whole-file' ? ` (${result.strategy})` : '';
    const counts = result.status === 'rejected' ? '' : ` +${result.added} -${result.removed}`;
    const moved = result.movedTo ? ` → ${result.movedTo}` : '';
    io.stdout.write(`${label} ${result.action} ${result.path || '(no file)'}${moved}${how}${counts}${where}\n`);
    for (const note of result.notes ?? []) io.stdout.write(`  note: ${note}\n`);
    if (result.error) io.stdout.write(`${formatError(result.error, color)}\n`);
    else if (options.diffs && result.diff) io.stdout.write(paintDiff(color, result.diff));
  }
}
