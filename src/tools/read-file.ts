/**
 * read_file: a file's text with line numbers and its sha256 content hash —
 * the hash an edit sends back as `expected_hash` so an edit based on an old
 * read is refused as stale. Reads through the workspace sandbox only; never
 * writes.
 */
import { z } from 'zod';
import { EditwardenError, ErrorCode, toErrorInfo } from '../errors.js';
import { decodeText } from '../edit/text.js';
import { defineTool, failure } from './types.js';
import { targetArg } from './call-args.js';
import { readFileDescription } from './descriptions/read_file.js';

/** Lines returned when no range is asked for: enough to see most files, not enough to flood a context. */
export const DEFAULT_READ_LINES = 2000;

export const ReadFileArgs = z
  .object({
    path: z.string().min(1).describe('File path relative to the workspace root.'),
    start_line: z.number().int().positive().optional().describe('First line to return (1-based, default 1).'),
    end_line: z
      .number()
      .int()
      .positive()
      .optional()
      .describe(`Last line to return (inclusive; default start_line + ${DEFAULT_READ_LINES - 1}).`),
    line_numbers: z.boolean().default(true).describe('Prefix each line with its number and a tab (default true). The numbers are NOT part of the file.'),
  })
  .strict();

export const readFileTool = defineTool({
  name: 'read_file',
  kind: 'read',
  description: readFileDescription(DEFAULT_READ_LINES),
  describe: (a) => `read_file ${targetArg(a)}${a.start_line ? `:${String(a.start_line)}${a.end_line ? `-${String(a.end_line)}` : ''}` : ''}`,
  // The file's text is the result's text.
  slim: ({ content: _content, ...rest }) => rest,
  schema: ReadFileArgs,
  async execute(args, ctx) {
    try {
      if (args.start_line !== undefined && args.end_line !== undefined && args.end_line < args.start_line) {
        throw new EditwardenError({
          code: ErrorCode.PARSE,
          message: `end_line ${args.end_line} is before start_line ${args.start_line}.`,
          hint: 'Give end_line ≥ start_line, or leave end_line out.',
        });
      }
      const snapshot = ctx.ws.read(args.path);
      if (!snapshot) {
        throw new EditwardenError({
          code: ErrorCode.NO_FILE,
          message: `${args.path} does not exist.`,
          hint: 'Check the path with list_files or search_files; paths are relative to the workspace root.',
          path: args.path,
        });
      }
      const doc = decodeText(snapshot.bytes, snapshot.path);
      const all = doc.text.length === 0 ? [] : doc.text.split('\n');
      if (all.length > 0 && all[all.length - 1] === '') all.pop();
      const total = all.length;
      const start = args.start_line ?? 1;
      const end = Math.min(total, args.end_line ?? start + DEFAULT_READ_LINES - 1);
      if (start > Math.max(total, 1)) {
        throw new EditwardenError({
          code: ErrorCode.PARSE,
          message: `start_line ${start} is past the end of ${snapshot.path} (${total} lines).`,
          hint: `Ask for a range within 1..${total}.`,
          path: snapshot.path,
        });
      }
      const slice = all.slice(start - 1, end);
      const width = String(end).length;
      const body = args.line_numbers ? slice.map((line, i) => `${String(start + i).padStart(width, ' ')}\t${line}`).join('\n') : slice.join('\n');
      const more = end < total ? `\n[lines ${end + 1}-${total} not shown; read them with start_line: ${end + 1}]` : '';
      const range = total === 0 ? 'empty file' : `lines ${start}-${end} of ${total}`;
      return {
        ok: true,
        output: `${snapshot.path} (${range}; sha256 ${snapshot.hash})\n${body}${more}`,
        data: { path: snapshot.path, hash: snapshot.hash, total_lines: total, start_line: start, end_line: end, truncated: end < total, content: slice.join('\n') },
      };
    } catch (error) {
      return failure(toErrorInfo(error, args.path));
    }
  },
});
