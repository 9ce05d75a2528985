/**
 * search_files: find a literal or a regular expression in the workspace's
 * files (what git would not ignore), `path:line:text` per matching line,
 * optionally only in files matching globs. Read-only.
 */
import { z } from 'zod';
import { EditwardenError, ErrorCode, toErrorInfo } from '../errors.js';
import { SearchPool } from './search-worker.js';
import { defineTool, failure } from './types.js';
import { targetArg, textArg } from './call-args.js';
import { searchFilesDescription } from './descriptions/search_files.js';

/**
 * One pool for the process, as libuv keeps one thread pool: its threads are
 * the costly part of a search to start, and an idle one never holds the
 * process open.
 */
const pool = new SearchPool();

export const SearchFilesArgs = z
  .object({
    pattern: z.string().min(1).describe('Text to find (literal by default).'),
    regex: z.boolean().default(false).describe('Treat pattern as a JavaScript regular expression (default false: literal text).'),
    case_sensitive: z.boolean().default(true).describe('Match case (default true).'),
    path: z.string().default('.').describe('Folder to search, relative to the root (default: the root).'),
    glob: z
      .union([z.string().min(1), z.array(z.string().min(1))])
      .optional()
      .describe('Only files matching this glob (or any of these). Without "/", it matches the file name at any depth: "*.ts". With "/", the path: "src/**/*.ts".'),
    max_results: z.number().int().positive().max(10_000).default(200).describe('Stop after this many matching lines (default 200).'),
  })
  .strict();

export const searchFilesTool = defineTool({
  name: 'search_files',
  kind: 'read',
  description: searchFilesDescription,
  describe: (a) => `search_files ${JSON.stringify(textArg(a.pattern))}${targetArg(a) ? ` in ${targetArg(a)}` : ''}`,
  // The matched lines are the result's text: a program gets where they are.
  slim: ({ matches, ...rest }) => {
    const list = Array.isArray(matches) ? (matches as Array<Record<string, unknown>>) : [];
    return { ...rest, count: list.length, matches: list.map((m) => ({ path: m.path, line: m.line })) };
  },
  schema: SearchFilesArgs,
  async execute(args, ctx) {
    try {
      if (args.regex) {
        try {
          new RegExp(args.pattern);
        } catch (error) {
          throw new EditwardenError({
            code: ErrorCode.PARSE,
            message: `pattern is not a valid regular expression: ${(error as Error).message}.`,
            hint: 'Fix the expression, or send regex: false to search for the literal text.',
          });
        }
      }
      const info = ctx.ws.info(args.path);
      const resolved = { relative: info.relative, exists: info.type !== 'absent' };
      if (info.type !== 'dir') {
        throw new EditwardenError({
          code: ErrorCode.NO_FILE,
          message: `Folder ${args.path} does not exist.`,
          hint: 'Give a folder relative to the workspace root ("." for the root).',
          path: args.path,
        });
      }
      const globs = args.glob === undefined ? [] : Array.isArray(args.glob) ? args.glob : [args.glob];
      // A regular expression is stopped at its own budget, and never later than the run's deadline.
      const budgetMs = Math.min(ctx.config.search.timeout * 1000, ctx.remainingMs());
      const found = await pool.search(
        ctx.ws.root,
        {
          pattern: args.pattern,
          regex: args.regex,
          caseSensitive: args.case_sensitive,
          start: resolved.relative,
          globs,
          maxResults: args.max_results,
          maxFileBytes: ctx.config.edit.max_file_bytes,
          signal: ctx.signal,
        },
        budgetMs,
      );
      const lines = found.matches.map((m) => `${m.path}:${m.line}:${m.text}`);
      const notes: string[] = [];
      if (found.truncated) notes.push(`[stopped at ${args.max_results} matches; narrow the search with path or glob]`);
      if (found.skippedBinary > 0) notes.push(`[${found.skippedBinary} binary file(s) matched and were skipped]`);
      if (found.skippedLarge > 0) notes.push(`[${found.skippedLarge} file(s) larger than ${ctx.config.edit.max_file_bytes} bytes were not searched]`);
      const output = lines.length === 0 ? `No matches in ${found.filesSearched} file(s).` : lines.join('\n');
      return {
        ok: true,
        output: [output, ...notes].join('\n'),
        data: found,
      };
    } catch (error) {
      return failure(toErrorInfo(error, args.path));
    }
  },
});
