/**
 * list_files: the files and folders of the workspace (or of one folder in
 * it) that git would not ignore, folders marked with a trailing "/". Never
 * lists `.git/` or `.editwarden/`; never follows symlinks. Read-only.
 */
import { z } from 'zod';
import { EditwardenError, ErrorCode, toErrorInfo } from '../errors.js';
import { walkFiles } from '../workspace/file-walk.js';
import { defineTool, failure } from './types.js';
import { targetArg } from './call-args.js';
import { listFilesDescription } from './descriptions/list_files.js';

export const ListFilesArgs = z
  .object({
    path: z.string().default('.').describe('Folder to list, relative to the workspace root (default: the root).'),
    recursive: z.boolean().default(true).describe('Include sub-folders (default true).'),
    max_entries: z.number().int().positive().max(100_000).default(1000).describe('Stop after this many entries (default 1000).'),
  })
  .strict();

export const listFilesTool = defineTool({
  name: 'list_files',
  kind: 'read',
  description: listFilesDescription,
  describe: (a) => `list_files ${targetArg(a) || '.'}`,
  // The entries are the result's text: a program gets how many.
  slim: (d) => ({ path: d.path, count: Array.isArray(d.entries) ? d.entries.length : 0, truncated: d.truncated }),
  schema: ListFilesArgs,
  async execute(args, ctx) {
    try {
      const info = ctx.ws.info(args.path);
      const resolved = { relative: info.relative, exists: info.type !== 'absent' };
      if (info.type !== 'dir') {
        throw new EditwardenError({
          code: resolved.exists ? ErrorCode.NOT_A_FILE : ErrorCode.NO_FILE,
          message: resolved.exists ? `${args.path} is a file, not a folder.` : `Folder ${args.path} does not exist.`,
          hint: 'Give a folder relative to the workspace root ("." for the root).',
          path: args.path,
        });
      }
      const entries: string[] = [];
      let truncated = false;
      walkFiles(
        ctx.ws.root,
        (rel, type) => {
          if (entries.length >= args.max_entries) {
            truncated = true;
            return false;
          }
          entries.push(type === 'dir' ? `${rel}/` : rel);
          return undefined;
        },
        { start: resolved.relative, recursive: args.recursive, signal: ctx.signal },
      );
      const more = truncated ? `\n[stopped at ${args.max_entries} entries; list a sub-folder or raise max_entries]` : '';
      return {
        ok: true,
        output: entries.length === 0 ? `${resolved.relative || '.'} is empty.` : `${entries.join('\n')}${more}`,
        data: { path: resolved.relative, entries, truncated },
      };
    } catch (error) {
      return failure(toErrorInfo(error, args.path));
    }
  },
});
