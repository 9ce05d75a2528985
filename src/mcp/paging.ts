/**
 * read_file pages for MCP clients. The runner's read_file pages by lines;
 * an MCP client also caps the size of one message (Claude Code cuts tool
 * output at ~25k tokens, the SDK's stdio buffer at 10 MiB), and a page of
 * 2,000 long lines — or one minified line — would blow through that. This
 * module maps `offset`/`limit` onto the runner's `start_line`/`end_line`
 * and cuts a page that is still too large at a line boundary, saying where
 * the next page starts. Pure: it reshapes what the runner read, never reads.
 * The page's size is the one output rule's (tools/output.ts).
 */
import { OUTPUT_LIMITS } from '../tools/output.js';
import { defined } from '../defined.js';

/** Where a read's lines sit in the file: the runner's read_file data and a page's metadata share it. */
interface LineWindow {
  path: string;
  hash: string;
  total_lines: number;
  start_line: number;
  end_line: number;
  truncated: boolean;
}

/** What the runner's read_file returns as data. */
export interface ReadData extends LineWindow {
  content: string;
}

export interface Page {
  text: string;
  /** Metadata only: the file text travels once, in `text`. */
  structured: LineWindow & {
    next_offset?: number;
    /** A line longer than a whole page: only its start is shown. */
    cut_line?: number;
  };
}

export function isReadData(value: unknown): value is ReadData {
  const v = value as Partial<ReadData> | null;
  return typeof v === 'object' && v !== null && typeof v.path === 'string' && typeof v.content === 'string' && typeof v.start_line === 'number' && typeof v.end_line === 'number';
}

/**
 * The page to send for one read: the runner's own text when it fits the
 * budget, else the same format cut at the last whole line that fits.
 */
export function pageOf(output: string, data: ReadData, lineNumbers: boolean, budget: number = OUTPUT_LIMITS.page): Page {
  const meta = { path: data.path, hash: data.hash, total_lines: data.total_lines, start_line: data.start_line };
  if (output.length <= budget) {
    return {
      text: output,
      structured: { ...meta, end_line: data.end_line, truncated: data.truncated, ...defined({ next_offset: data.truncated ? data.end_line + 1 : undefined }) },
    };
  }
  const lines = data.content.split('\n');
  const width = String(data.end_line).length;
  const prefix = (n: number): string => (lineNumbers ? `${String(n).padStart(width, ' ')}\t` : '');
  const kept: string[] = [];
  let used = 0;
  let cutLine: number | undefined;
  for (let i = 0; i < lines.length; i++) {
    const n = data.start_line + i;
    const line = `${prefix(n)}${lines[i] as string}`;
    if (used + line.length + 1 > budget) {
      if (kept.length === 0) {
        // One line longer than a page: show its start rather than nothing, and move on past it.
        const shown = Math.max(0, budget - prefix(n).length);
        kept.push(`${prefix(n)}${(lines[i] as string).slice(0, shown)}…[line ${n} continues: ${(lines[i] as string).length - shown} more characters not shown]`);
        cutLine = n;
      }
      break;
    }
    kept.push(line);
    used += line.length + 1;
  }
  const end = data.start_line + kept.length - 1;
  const next = end < data.total_lines ? end + 1 : undefined;
  const header = `${data.path} (lines ${data.start_line}-${end} of ${data.total_lines}; sha256 ${data.hash})`;
  const more = next !== undefined ? `\n[lines ${next}-${data.total_lines} not shown: this page is cut at ${budget} characters; read on with offset: ${next}]` : '';
  return {
    text: `${header}\n${kept.join('\n')}${more}`,
    structured: { ...meta, end_line: end, truncated: next !== undefined, ...defined({ next_offset: next, cut_line: cutLine }) },
  };
}
