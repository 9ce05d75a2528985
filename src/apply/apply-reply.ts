/**
 * A model's reply → parsed requests → one transaction. The library entry
 * point behind `editwarden apply`, the demo and the agent's active-edit mode:
 * items that could not be parsed become rejected results (E_PARSE, with their
 * index and line) in reply order, and never stop the other items.
 */
import { applyRequests, type ApplyOptions, type ApplyOutcome } from './apply-requests.js';
import { parseEdits, type FormatName } from '../formats/index.js';
import type { FileView } from '../workspace/view.js';

export interface ApplyReplyOptions extends Omit<ApplyOptions, 'parseErrors'> {
  format?: FormatName | 'auto';
}

export interface ReplyOutcome extends ApplyOutcome {
  /** The format the reply was read as; undefined when none was recognised. */
  format: FormatName | undefined;
}

export async function applyReply(ws: FileView, text: string, options: ApplyReplyOptions = {}): Promise<ReplyOutcome> {
  const { format: wanted, ...rest } = options;
  const parsed = parseEdits(text, wanted ?? 'auto', { fileExists: (path) => ws.exists(path) });
  const outcome = await applyRequests(ws, parsed.requests, {
    ...rest,
    parseErrors: parsed.errors.map((e) => ({
      index: e.index,
      line: e.line,
      format: parsed.format ?? 'json',
      ...(e.path !== undefined ? { path: e.path } : {}),
      error: e.error.toJSON(),
    })),
  });
  return { ...outcome, format: parsed.format };
}
