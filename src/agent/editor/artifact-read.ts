/**
 * The Editor's read-only access to the artifact folder (the design's write-authority table:
 * "ARTIFACT_DIR ❌ Read-only (Verifier writes)"): its read_file also reads the Verifier's logs
 * under `.editwarden/runs/<run_id>/verify/**`. Everything else goes to the ordinary read_file
 * (through the workspace sandbox). It must never write, never read outside a run's verify folder,
 * and never follow a symlink there.
 */
import fs from 'node:fs';
import path from 'node:path';
import { EditwardenError, ErrorCode, toErrorInfo } from '../../errors.js';
import { isRunId, runsRoot } from '../../runs/runs.js';
import { ReadFileArgs, DEFAULT_READ_LINES } from '../../tools/read-file.js';
import { defineTool, failure, type ActingTool, type AnyTool } from '../../tools/types.js';
import type { Workspace } from '../../workspace/workspace.js';

/** `.editwarden/runs/<run_id>/verify/<n>/<file>` and nothing else (no `..`, no other folder of the state dir). */
const ARTIFACT = /^\.editwarden\/runs\/([^/]+)\/verify\/(\d+)\/([A-Za-z0-9_.-]+)$/;

/** Logs the Verifier writes are text; a cap keeps one read from flooding the model (ranges read the rest). */
const MAX_ARTIFACT_BYTES = 64 * 1024 * 1024;

/** @knipignore unused (editorReadFile matches ARTIFACT itself); kept only while agent/ is restructured on another branch (issue 30 §1): remove after that merge. */
export function isVerifyArtifactPath(p: string): boolean {
  return ARTIFACT.test(p.replace(/^\.\//, ''));
}

/** read_file for the Editor: the workspace's files as usual, plus the verification logs, read-only. */
export function editorReadFile(base: ActingTool<typeof ReadFileArgs>, ws: Workspace): AnyTool {
  return defineTool({
    ...base,
    description: `${base.description} The Verifier's evidence is readable too (read-only): .editwarden/runs/<run_id>/verify/<n>/combined.log, stdout.log, stderr.log, result.json.`,
    schema: ReadFileArgs,
    async execute(args, ctx) {
      const m = ARTIFACT.exec(args.path.replace(/^\.\//, ''));
      if (!m) return base.execute(args, ctx);
      try {
        const [, runId, n, name] = m as unknown as [string, string, string, string];
        // A run id is checked before it becomes a path: "../" in it must not pick another folder.
        if (!isRunId(runId) || name === '.' || name === '..') throw notArtifact(args.path);
        const file = path.join(runsRoot(ws), runId, 'verify', n, name);
        // Symlink swapped into the evidence folder: the real path must be the path itself.
        if (fs.realpathSync(file) !== file) throw notArtifact(args.path);
        const fd = fs.openSync(file, fs.constants.O_RDONLY | fs.constants.O_NOFOLLOW);
        let text: string;
        try {
          const size = fs.fstatSync(fd).size;
          const buf = Buffer.alloc(Math.min(size, MAX_ARTIFACT_BYTES));
          fs.readSync(fd, buf, 0, buf.length, 0);
          text = buf.toString('utf8');
        } finally {
          fs.closeSync(fd);
        }
        const all = text.length === 0 ? [] : text.split('\n');
        if (all.length > 0 && all[all.length - 1] === '') all.pop();
        const total = all.length;
        const start = args.start_line ?? 1;
        const end = Math.min(total, args.end_line ?? start + DEFAULT_READ_LINES - 1);
        const slice = all.slice(start - 1, end);
        const width = String(Math.max(end, 1)).length;
        const body = args.line_numbers ? slice.map((line, i) => `${String(start + i).padStart(width, ' ')}\t${line}`).join('\n') : slice.join('\n');
        const more = end < total ? `\n[lines ${end + 1}-${total} not shown; read them with start_line: ${end + 1}]` : '';
        return { ok: true, output: `${args.path} (verification evidence, read-only; lines ${total === 0 ? 0 : start}-${end} of ${total})\n${body}${more}`, data: { path: args.path, total_lines: total } };
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code === 'ENOENT' || (error as NodeJS.ErrnoException).code === 'ELOOP') return failure(notArtifact(args.path).toJSON());
        return failure(error instanceof EditwardenError ? error.toJSON() : toErrorInfo(error, args.path));
      }
    },
  });
}

function notArtifact(p: string): EditwardenError {
  return new EditwardenError({
    code: ErrorCode.NO_FILE,
    message: `${p} is not a verification log of this project.`,
    hint: 'Use the run_id a verify result gave you: .editwarden/runs/<run_id>/verify/<n>/combined.log (n = 1 for the first step).',
    path: p,
  });
}
