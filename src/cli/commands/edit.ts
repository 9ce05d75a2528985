/**
 * `editwarden edit`: one file, one request, from flags or a JSON request on
 * stdin. Thin: the flags become the JSON request's fields and go through the
 * JSON's own mapping (edit/request-fields.ts), then applyRequests, print.
 */
import fs from 'node:fs';
import type { Command } from 'commander';
import { applyRequests, type ApplyOutcome } from '../../apply/pipeline.js';
import { EditwardenError, ErrorCode } from '../../errors.js';
import { AST_ACTIONS, EDIT_MODES, editRequestFromFields, type AstAction, type EditRequestFields } from '../../edit/request-fields.js';
import type { EditRequest } from '../../edit/types.js';
import { readAll, writeJson, printResults, type Io } from '../output.js';
import { runWriteCommand } from './write-command.js';

export interface EditFlags {
  old?: string;
  oldFile?: string;
  new?: string;
  newFile?: string;
  mode?: string;
  replaceAll?: boolean;
  force?: boolean;
  strict?: boolean;
  dryRun?: boolean;
  root?: string;
  config?: string;
  json?: boolean;
  request?: string;
  expectedHash?: string;
  line?: string;
  astPath?: string;
  astAction?: string;
}

export function registerEdit(program: Command, io: Io, setExit: (code: number) => void): void {
  program
    .command('edit')
    .description('Edit one file safely: unique anchor, guards, atomic write, a diff of what changed.')
    .argument('[path]', 'file to edit, relative to the root')
    .option('--old <text>', 'text to replace (must occur exactly once unless --replace-all)')
    .option('--old-file <file>', 'read old_text from a file')
    .option('--new <text>', 'replacement text (or content for create/overwrite/append/prepend)')
    .option('--new-file <file>', 'read new_text from a file')
    .option('--mode <mode>', `one of ${EDIT_MODES.join(', ')}`, 'edit')
    .option('--line <n>', 'for --mode insert: insert after this line (0 = top)')
    .option('--ast-path <path>', 'address a declaration instead of --old, e.g. Greeter-greet (docs/ast-paths.md)')
    .option('--ast-action <action>', `with --ast-path: ${AST_ACTIONS.join(', ')} (default replace; --mode remove/append/prepend imply it)`)
    .option('--replace-all', 'replace every occurrence of old_text')
    .option('--force', 'allow a change that leaves a large file with less than a third of its lines')
    .option('--strict', 'exact matches only: no tolerance for whitespace or look-alike characters')
    .option('--dry-run', 'print the diff, write nothing')
    .option('--expected-hash <sha256>', 'refuse with E_STALE if the file no longer has this content hash')
    .option('--request <file>', "read a JSON edit request (or an array) from a file, or '-' for stdin")
    .option('--root <dir>', 'workspace root (default: current folder)')
    .option('--config <file>', 'config file (default: <root>/.editwarden.yml)')
    .option('--json', 'print the JSON result')
    .action(async (path: string | undefined, flags: EditFlags) => {
      setExit(await runEdit(path, flags, io));
    });
}

function runEdit(path: string | undefined, flags: EditFlags, io: Io): Promise<number> {
  return runWriteCommand(flags, io, {
    input: async () => (flags.request !== undefined ? requestsFromJson(flags.request, io) : [requestFromFlags(path, flags)]),
    apply: (opened, requests) => applyRequests(opened.ws, requests, { dryRun: flags.dryRun === true, ...opened.applyOptions }),
    print: (outcome) => printOutcome(outcome, flags, io),
  });
}

/**
 * The flags as the edit_file request's JSON fields (`--old` is old_text,
 * `--new` new_text, `--line` line, …), converted by the one mapping the JSON
 * goes through (edit/request-fields.ts): every JSON mode is a flag away.
 */
export function fieldsFromFlags(path: string | undefined, flags: EditFlags): EditRequestFields {
  if (!path) throw usage('edit needs a <path> (or --request FILE).');
  const mode = flags.mode ?? 'edit';
  if (!isOneOf(EDIT_MODES, mode)) throw usage(`--mode must be one of ${EDIT_MODES.join(', ')}, not ${JSON.stringify(mode)}.`);
  if (flags.astAction !== undefined && !isOneOf(AST_ACTIONS, flags.astAction)) throw usage(`--ast-action must be one of ${AST_ACTIONS.join(', ')}, not ${JSON.stringify(flags.astAction)}.`);
  if (flags.old !== undefined && flags.oldFile !== undefined) throw usage('give --old or --old-file, not both.');
  if (flags.new !== undefined && flags.newFile !== undefined) throw usage('give --new or --new-file, not both.');
  let line: number | undefined;
  if (flags.line !== undefined) {
    line = Number(flags.line);
    if (!/^\d+$/.test(flags.line) || !Number.isSafeInteger(line)) throw usage(`--line must be a whole number (0 = top), not ${JSON.stringify(flags.line)}.`);
  }
  return {
    path,
    mode,
    old_text: flags.oldFile !== undefined ? fs.readFileSync(flags.oldFile, 'utf8') : flags.old,
    new_text: flags.newFile !== undefined ? fs.readFileSync(flags.newFile, 'utf8') : flags.new,
    replace_all: flags.replaceAll === true,
    force: flags.force === true,
    expected_hash: flags.expectedHash,
    ast_path: flags.astPath,
    ast_action: flags.astAction as AstAction | undefined,
    line,
  };
}

function isOneOf<T extends string>(list: readonly T[], value: string): value is T {
  return (list as readonly string[]).includes(value);
}

/** The JSON field names in a refusal of the mapping, as the flags a person typed. */
const FLAG_OF: ReadonlyArray<[RegExp, string]> = [
  [/new_text \(or content\)|new_text/g, '--new (or --new-file)'],
  [/"line"/g, '--line'],
  [/ast_action/g, '--ast-action'],
];

export function requestFromFlags(path: string | undefined, flags: EditFlags): EditRequest {
  return editRequestFromFields(fieldsFromFlags(path, flags), { format: 'cli', index: 0 }, (_where, what) => usage(`${FLAG_OF.reduce((text, [re, flag]) => text.replace(re, flag), what)}.`));
}

async function requestsFromJson(source: string, io: Io): Promise<EditRequest[]> {
  const text = source === '-' ? await readAll(io.stdin) : fs.readFileSync(source, 'utf8');
  // The schema library loads only for JSON requests: flag-driven edits start faster without it.
  const { parseEditRequestJson } = await import('../../edit/request-json.js');
  return parseEditRequestJson(text);
}

function usage(message: string): EditwardenError {
  return new EditwardenError({ code: ErrorCode.USAGE, message, hint: 'Run `editwarden edit --help` for the options.' });
}

function printOutcome(outcome: ApplyOutcome, flags: { json?: boolean }, io: Io): void {
  if (flags.json) writeJson(io, { ok: outcome.ok, results: outcome.results });
  else printResults(outcome.results, io, { diffs: true, sources: false });
}
