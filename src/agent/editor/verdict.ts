/**
 * How an Editor session ended, judged from the model loop's outcome and the
 * session's own state, and — at a hard stop — the Editor's hypotheses asked
 * for once, so the stuck report is never empty. It writes nothing: the
 * closing (closing.ts) records what this decides.
 */
import type { AgentOutcome } from '../loop.js';
import type { ModelProvider } from '../providers/types.js';
import type { EditorSession } from './session.js';
import type { EditorStatus } from './state.js';

/** The conversation the hypotheses question follows: the task and how the loop ended (the model's own turns are in the transcript). */
export function messageHistory(task: string, outcome: AgentOutcome): string {
  return `${task}\n\n(The session has ended: ${outcome.reason})`;
}

/**
 * The design's stuck report carries "Editor-generated diagnostic theories": at a hard stop with no
 * hypothesis recorded, the Editor is asked once, without tools, for its hypotheses. When it cannot
 * answer, the last failing verification stands in, named as such — the report is never empty.
 */
export async function askForHypotheses(provider: ModelProvider, system: string, task: string, session: EditorSession, reason: string, signal?: AbortSignal): Promise<void> {
  if (session.hypotheses.some((h) => h.source === undefined || h.source === 'record_hypothesis')) return;
  const failures = session.verifications.filter((v) => !v.passed);
  const evidence = failures.map((v) => `- verification ${v.n} (run ${v.run_id}): ${v.first_errors.slice(0, 3).join(' | ') || 'failed'}`).join('\n');
  try {
    if (signal?.aborted) throw new Error('cancelled');
    const turn = await provider.complete(
      {
        system,
        messages: [
          { role: 'user', content: task },
          {
            role: 'user',
            content: `HARD STOP: ${reason}\nYou recorded no hypothesis. In a few numbered sentences, give your hypotheses: why the task is not done, and what a next session should try first. No tools are available; answer in text only.${evidence ? `\n\nFailed verifications:\n${evidence}` : ''}`,
          },
        ],
        tools: [],
      },
      signal ? { signal } : {},
    );
    const text = turn.text.trim();
    if (text) {
      session.hypotheses.push({ strategy: session.strategy, hypothesis: text, after_verification: session.verifications.length, source: 'asked-at-hard-stop' });
      return;
    }
  } catch {
    // The model could not answer (provider down, script exhausted): the evidence below stands in.
  }
  const last = failures.at(-1);
  const fallback = last
    ? `The Editor gave no hypothesis; the last failing verification (run ${last.run_id}) reported: ${last.first_errors.slice(0, 3).join(' | ') || 'a failure without a parsed error'}.`
    : `The Editor gave no hypothesis; the session stopped because: ${reason}`;
  session.hypotheses.push({ strategy: session.strategy, hypothesis: fallback, after_verification: session.verifications.length, source: 'last-failure' });
}

/** How the session ended, from the loop's outcome and the session's own state. */
export function judge(outcome: AgentOutcome, session: EditorSession, dryRun: boolean): [EditorStatus, string] {
  if (session.hardStop) return ['hard-stop', `${session.hardStop}.`];
  switch (outcome.status) {
    case 'violation':
      return ['violation', outcome.reason];
    case 'interrupted':
      return ['cancelled', 'Cancelled (Ctrl-C): the partial changes are kept; no summary or report is written.'];
    case 'completed':
      if (session.blocked) return ['hard-stop', `The Editor declared itself blocked: ${session.blocked}`];
      if (session.completion) return dryRun ? ['proposal', 'Dry run finished: the proposal is saved.'] : ['success', `Verified green (run ${session.greenRunId ?? 'none: nothing to verify with'}).`];
      return ['failed', outcome.reason];
    case 'stuck':
    case 'turn-limit':
    case 'no-completion':
      return ['hard-stop', `The Editor stopped without finishing: ${outcome.reason}`];
    case 'quit':
    case 'provider-error':
      return ['failed', outcome.reason];
    // Endings of other modes (an afterCall stop the Editor never gives): the run failed.
    case 'controlled':
    case 'success':
    case 'proposal':
    case 'hard-stop':
    case 'cancelled':
    case 'verify-failed':
    case 'failed':
      return ['failed', outcome.reason];
    default: {
      const never: never = outcome.status;
      return ['failed', String(never)];
    }
  }
}
