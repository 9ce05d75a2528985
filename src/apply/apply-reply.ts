/**
 * A model's reply → parsed requests → one transaction. The library entry
 * point behind `editwarden apply`, the demo and the agent's active-edit mode:
 * items that could not be parsed become rejected results (E_PARSE, with their
 * index and line) in reply order, and never stop the other items.
 *
 * All or nothing is the default for every format whose record does not say
 * `eachOnItsOwn` (formats/list.ts; active edit does, as the Active Edit Tool
 * design asks: "Continue processing other edits if one fails … Report
 * success/failure for each edit directive"); `atomic: true` makes every
 * format all or nothing, `partial: true` makes any format per request. This
 * is the one place the format's default is applied, for the CLI, the library
 * and the demo.
 */
import { applyRequests, plan, type ApplyOutcome, type Plan, type PlanOptions } from './pipeline.js';
import type { EditRequest } from '../edit/types.js';
import { eachOnItsOwnByDefault, FALLBACK_FORMAT, parseEdits, type FormatName } from '../formats/index.js';
import { walkFiles } from '../workspace/file-walk.js';
import type { FileView } from '../workspace/view.js';

export interface ApplyReplyOptions extends Omit<PlanOptions, 'parseErrors'> {
  format?: FormatName | 'auto';
  /** All or nothing whatever the format (active edit included); wins over `partial`. */
  atomic?: boolean;
}

/** Whether the requests of a reply read as `format` are applied each on its own (see the module comment). */
function appliesEachOnItsOwn(format: FormatName | undefined, options: Pick<ApplyReplyOptions, 'atomic' | 'partial'>): boolean {
  if (options.atomic === true) return false;
  return options.partial ?? (format !== undefined && eachOnItsOwnByDefault(format));
}

export interface ReplyOutcome extends ApplyOutcome {
  /** The format the reply was read as; undefined when none was recognised. */
  format: FormatName | undefined;
}

/** A reply's plan (the change pipeline's `plan`, after parsing): `commit(plan)` it, or show it. */
export interface ReplyPlan {
  /** The plan itself, as `plan` made it (`commit` takes only that very object). */
  plan: Plan;
  /** The format the reply was read as; undefined when none was recognised. */
  format: FormatName | undefined;
}

/** A reply parsed: its requests and how the pipeline takes them (each on its own or all or nothing; unparsable items as rejected results). */
function parsedReply(ws: FileView, text: string, options: ApplyReplyOptions): { requests: EditRequest[]; options: PlanOptions; format: FormatName | undefined } {
  const { format: wanted, atomic: _atomic, partial: _partial, ...rest } = options;
  const parsed = parseEdits(text, wanted ?? 'auto', { fileExists: (path) => ws.exists(path), filesNamed: filesNamedIn(ws) });
  return {
    requests: parsed.requests,
    format: parsed.format,
    options: {
      ...rest,
      partial: appliesEachOnItsOwn(parsed.format, options),
      parseErrors: parsed.errors.map((e) => ({
        index: e.index,
        line: e.line,
        format: parsed.format ?? FALLBACK_FORMAT,
        ...(e.path !== undefined ? { path: e.path } : {}),
        error: e.error.toJSON(),
      })),
    },
  };
}

/** Files looked at before a bare file name is given up on: past that, the project is too big to say "the one file". */
const NAME_WALK_LIMIT = 200_000;

/**
 * The files of the project with a given name (block-tolerance.ts: a SEARCH/REPLACE block naming a bare file that
 * is not at the root), found by the walk list_files uses — git-ignored files, `.git/` and the state folder never —
 * once per name and reply, only when a block asks. Stops at a sixth match; an unfinished walk answers nothing.
 */
function filesNamedIn(ws: FileView): (name: string) => string[] {
  const seen = new Map<string, string[]>();
  return (name) => {
    const known = seen.get(name);
    if (known) return known;
    const found: string[] = [];
    let visited = 0;
    let finished = true;
    walkFiles(ws.root, (relative, type) => {
      if (++visited > NAME_WALK_LIMIT) {
        finished = false;
        return false;
      }
      if (type === 'file' && (relative === name || relative.endsWith(`/${name}`))) found.push(relative);
      return found.length > 5 ? false : undefined;
    });
    const answer = finished ? found : [];
    seen.set(name, answer);
    return answer;
  };
}

/** Parses a reply and plans its requests on `ws` (nothing written); its unparsable items are rejected results of the plan. */
export async function planReply(ws: FileView, text: string, options: ApplyReplyOptions = {}): Promise<ReplyPlan> {
  const reply = parsedReply(ws, text, options);
  return { plan: await plan(ws, reply.requests, reply.options), format: reply.format };
}

/** Parse, then plan and commit in one step (the pipeline's `applyRequests`; a dry run only plans). */
export async function applyReply(ws: FileView, text: string, options: ApplyReplyOptions = {}): Promise<ReplyOutcome> {
  const reply = parsedReply(ws, text, options);
  return { ...(await applyRequests(ws, reply.requests, reply.options)), format: reply.format };
}
