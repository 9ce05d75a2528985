/**
 * The tools only the Editor has, registered with the ToolRunner beside the
 * file tools so every call is validated, gated and recorded like any other:
 *
 *   scout_codebase     Scout A: relevant files, risk zones, conventions
 *   scout_environment  Scout B: commands, framework, toolchain, baseline;
 *                      with run_id: the interpretation of a verification
 *   verify             full verification (build, then tests) + debug loop
 *   record_hypothesis  what the Editor believes, and its current approach
 *   task_completion    the Editor's: ends the session only on green
 *
 * and, in a dry run, list_files / search_files that see the overlay. Each
 * tool holds only its schema and description; the work is the session's
 * (EditorHost), so the tools stay thin and the loop logic lives in one place.
 */
import path from 'node:path';
import picomatch from 'picomatch';
import { z } from 'zod';
import { ListFilesArgs } from '../../tools/list-files.js';
import { SearchFilesArgs } from '../../tools/search-files.js';
import { defineTool, guarded, type AnyTool, type ToolResult } from '../../tools/types.js';
import type { FileSource } from './file-source.js';

const ScoutCodebaseArgs = z
  .object({
    query: z.string().min(1).describe('What you are looking for, in words or identifiers ("where the greeting is built", "parseConfig").'),
    paths: z.array(z.string().min(1)).optional().describe('Files you already know matter (e.g. from a failing build); ranked first, and their imports followed.'),
    limit: z.number().int().positive().max(100).default(15).describe('Relevant files to return (default 15).'),
  })
  .strict();

export const ScoutEnvironmentArgs = z
  .object({
    run_id: z.string().optional().describe('A verification run_id: its diagnostics, new vs old failures and the log tail. Without it: the environment (commands, framework, toolchain, baseline).'),
    // Not capped below what the log holds: the Editor may ask for the whole log (read_file reads it too).
    log_lines: z.number().int().positive().default(40).describe('Lines of the log tail per step when run_id is given (default 40; any number, up to the whole log).'),
  })
  .strict();

const VerifyArgs = z.object({}).strict();

const RecordHypothesisArgs = z
  .object({
    hypothesis: z.string().min(1).describe('What you believe is wrong, or why your next change should work.'),
    approach: z.string().min(1).optional().describe('The approach you are taking now (required in spirit after a REPLAN: a new one).'),
  })
  .strict();

const EditorCompletionArgs = z
  .object({
    summary: z.string().min(1).describe('In prose: what you changed and why. Not a commit message.'),
    status: z.enum(['done', 'blocked']).default('done').describe('done (default): verified green before the session ends; blocked: you cannot finish (the session stops with a stuck report).'),
  })
  .strict();

/** What the tools ask of the session. */
export interface EditorHost {
  readonly dryRun: boolean;
  scoutCodebase(args: z.output<typeof ScoutCodebaseArgs>): Promise<ToolResult>;
  scoutEnvironment(args: z.output<typeof ScoutEnvironmentArgs>): Promise<ToolResult>;
  verify(signal: AbortSignal): Promise<ToolResult>;
  recordHypothesis(args: z.output<typeof RecordHypothesisArgs>): ToolResult;
  complete(args: z.output<typeof EditorCompletionArgs>, signal: AbortSignal): Promise<ToolResult>;
}

export function editorTools(host: EditorHost): AnyTool[] {
  const tools: AnyTool[] = [
    defineTool({
      name: 'scout_codebase',
      kind: 'read',
      description:
        'Scout A (codebase), answered at once from the repository: the files most relevant to a query (path and content search, then the import graph around the best hits) with reasons, the risk zones (files many others import, generated or vendored files, public API surfaces, relevant files without tests) and the conventions sampled from existing files (indentation, quotes, naming, test layout). Ask it before reading files one by one.',
      schema: ScoutCodebaseArgs,
      execute: (args) => guarded(() => host.scoutCodebase(args)),
    }),
    defineTool({
      name: 'scout_environment',
      kind: 'read',
      description:
        'Scout B (environment): build and test commands and the test framework, toolchain versions, whether a test suite exists, and the baseline of failures before any edit. With run_id: the interpretation of that verification run (diagnostics, failures new since the baseline vs old ones, the log tail). The full logs are readable (read-only) with read_file: .editwarden/runs/<run_id>/verify/<n>/combined.log.',
      schema: ScoutEnvironmentArgs,
      execute: (args) => guarded(() => host.scoutEnvironment(args)),
    }),
    defineTool({
      name: 'record_hypothesis',
      kind: 'control',
      description:
        'Record what you believe (why the build fails, why your change will work) and, when it changes, your approach. Do it before each fix and after every REPLAN: the hypotheses are the stuck report if the session hard-stops, and the "why" of the summary if it succeeds.',
      schema: RecordHypothesisArgs,
      execute: (args) => guarded(() => host.recordHypothesis(args)),
    }),
    defineTool({
      name: 'task_completion',
      kind: 'control',
      description: host.dryRun
        ? 'Call once when the task is done in this dry run: your changes become one unified diff saved as a proposal. Give a prose summary of what you changed and why. status "blocked" ends the session without a proposal.'
        : 'Call once when the task is done: give a prose summary of what you changed and why. If your latest changes are not verified green yet, they are verified first: on FAIL the session goes on (fix forward), on PASS it ends with the summary. status "blocked" ends the session with a stuck report.',
      schema: EditorCompletionArgs,
      execute: (args, ctx) => guarded(() => host.complete(args, ctx.signal)),
    }),
  ];
  if (!host.dryRun) {
    tools.push(
      defineTool({
        name: 'verify',
        kind: 'control',
        description:
          "Run the full verification now: the build, then the tests (the project's own commands). Answers PASS or FAIL with the run_id, what failed (new failures vs those already failing before any edit), the log tail, and the debug-loop counters. On FAIL nothing is reverted: fix forward and verify again.",
        schema: VerifyArgs,
        execute: (_args, ctx) => guarded(() => host.verify(ctx.signal)),
      }),
    );
  }
  return tools;
}

/**
 * The names of the Editor's own tools, read from their definitions (a
 * definition reaches its host only when it runs). All of them: a dry run
 * leaves verify out of the model's list, not out of allowed_tools.
 */
export function editorToolNames(): string[] {
  const unreachable = (): never => {
    throw new Error('an Editor tool built for its name was run');
  };
  return editorTools({ dryRun: false, scoutCodebase: unreachable, scoutEnvironment: unreachable, verify: unreachable, recordHypothesis: unreachable, complete: unreachable }).map((t) => t.name);
}

/** list_files and search_files over a FileSource (the dry-run overlay's view), with the built-in tools' schemas. */
export function overlayReadTools(source: FileSource, resolve: (p: string) => string): AnyTool[] {
  const under = (start: string, file: string): boolean => start === '' || file === start || file.startsWith(`${start}/`);
  return [
    defineTool({
      name: 'list_files',
      kind: 'read',
      description: 'List the files of the workspace as this dry run sees them (proposed new files included, proposed deletions left out); paths are relative to the root.',
      schema: ListFilesArgs,
      execute: (args) =>
        guarded(() => {
          const start = resolve(args.path);
          const entries: string[] = [];
          const dirs = new Set<string>();
          for (const f of source.files()) {
            if (!under(start, f) || f === start) continue;
            const rest = start === '' ? f : f.slice(start.length + 1);
            if (!args.recursive && rest.includes('/')) {
              dirs.add(`${start === '' ? '' : `${start}/`}${rest.split('/')[0]}/`);
              continue;
            }
            if (args.recursive) {
              const parts = rest.split('/');
              for (let i = 1; i < parts.length; i++) dirs.add(`${start === '' ? '' : `${start}/`}${parts.slice(0, i).join('/')}/`);
            }
            entries.push(f);
          }
          const all = [...dirs, ...entries].sort().slice(0, args.max_entries);
          return { ok: true, output: all.length === 0 ? `${start || '.'} is empty.` : all.join('\n'), data: { path: start, entries: all, truncated: false } };
        }, args.path),
    }),
    defineTool({
      name: 'search_files',
      kind: 'read',
      description: 'Search the files as this dry run sees them (proposed changes included) for text, or a regex with regex: true; returns path:line:text per matching line.',
      schema: SearchFilesArgs,
      execute: (args) =>
        guarded(() => {
          const start = resolve(args.path);
          const flags = args.case_sensitive ? '' : 'i';
          const re = args.regex ? new RegExp(args.pattern, flags) : new RegExp(args.pattern.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'), flags);
          const globs = args.glob === undefined ? [] : Array.isArray(args.glob) ? args.glob : [args.glob];
          const matchers = globs.map((g) => (g.includes('/') ? picomatch(g, { dot: true }) : (p: string) => picomatch.isMatch(path.posix.basename(p), g, { dot: true })));
          const lines: string[] = [];
          let searched = 0;
          for (const f of source.files()) {
            if (!under(start, f) || (matchers.length > 0 && !matchers.some((m) => m(f)))) continue;
            const text = source.text(f);
            if (text === null) continue;
            searched++;
            text.split('\n').forEach((line, i) => {
              if (lines.length < args.max_results && re.test(line)) lines.push(`${f}:${i + 1}:${line.slice(0, 300)}`);
            });
          }
          return { ok: true, output: lines.length === 0 ? `No matches in ${searched} file(s).` : lines.join('\n'), data: { matches: lines.length, files_searched: searched } };
        }, args.path),
    }),
  ];
}
