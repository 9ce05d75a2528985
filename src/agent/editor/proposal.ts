/**
 * Proposal files: the result of a dry run, one git-style unified diff with
 * a commented header (task, run id) that diff tools and the unified-diff
 * parser skip as prose. Writing one goes to the run folder; applying one
 * goes through the same parse-and-apply path as `editwarden apply` (udiff
 * only, all or nothing), so its paths meet the same sandbox: a diff that
 * names `.editwarden/`, `.git/` or a path outside the root writes nothing.
 */
import type { ApplyOptions } from '../../apply/pipeline.js';
import { applyReply, type ReplyOutcome } from '../../apply/apply-reply.js';
import type { Workspace } from '../../workspace/workspace.js';
import { udiffFormat } from '../../formats/udiff-format.js';

const PROPOSAL_MARK = '# editwarden proposal';

export interface ProposalHeader {
  task: string | null;
  runId: string | null;
}

export function renderProposal(task: string, runId: string, diff: string): string {
  const taskLines = task
    .trim()
    .split('\n')
    .map((l) => `# task: ${l}`);
  return [PROPOSAL_MARK, `# run_id: ${runId}`, ...taskLines, '# apply with: editwarden apply-proposal <this file>', '', diff].join('\n');
}

export function readProposalHeader(text: string): ProposalHeader {
  const task: string[] = [];
  let runId: string | null = null;
  for (const line of text.split('\n')) {
    if (!line.startsWith('#')) break;
    if (line.startsWith('# task: ')) task.push(line.slice('# task: '.length));
    else if (line.startsWith('# run_id: ')) runId = line.slice('# run_id: '.length).trim();
  }
  return { task: task.length > 0 ? task.join('\n') : null, runId };
}

export async function applyProposal(ws: Workspace, text: string, options: Pick<ApplyOptions, 'edit' | 'hooks' | 'prepareHooks' | 'dryRun'> = {}): Promise<ReplyOutcome> {
  return applyReply(ws, text, { ...options, format: udiffFormat.name });
}
