/**
 * The Editor's two closing documents, rendered from its record (pure: data
 * in, markdown out):
 *
 * - the success summary: prose on what changed, why, and how it was
 *   verified, naming the green verification's run_id. Not a commit message
 *   and not a pull-request text: it is written for the person reviewing the
 *   uncommitted changes.
 * - the stuck report, after a hard stop: the Editor's hypotheses in the
 *   order it had them, and the run_id of every failed verification with
 *   what failed — all a next session needs (and all `--retry` gives it).
 */
import { attemptLines } from './counters.js';
import type { EditorRecord, FileChangeEntry, VerificationEntry } from './state.js';
import { appendAll } from '../../arrays.js';

function files(changed: readonly FileChangeEntry[]): string {
  if (changed.length === 0) return 'no project file';
  const one = (f: FileChangeEntry): string => `\`${f.path}\` (${f.created ? 'new file, ' : ''}+${f.added} −${f.removed})`;
  const list = changed.map(one);
  const head = list.length === 1 ? list[0] : `${list.slice(0, -1).join(', ')} and ${list[list.length - 1]}`;
  return `${changed.length} file${changed.length === 1 ? '' : 's'}: ${head}`;
}

function sentence(text: string): string {
  const t = text.trim();
  return t === '' ? t : /[.!?]$/.test(t) ? t : `${t}.`;
}

function runIds(entries: readonly VerificationEntry[]): string {
  return entries.map((e) => `\`${e.run_id}\``).join(', ');
}

export function renderSummary(r: EditorRecord): string {
  const green = r.verifications.find((v) => v.run_id === r.green_run_id);
  const failedBefore = r.verifications.filter((v) => !v.passed);
  const out: string[] = ['# Editor summary', '', `**Task.** ${sentence(r.task)}`, ''];

  out.push('## What changed', '');
  out.push(`The Editor changed ${files(r.files_changed)}.${r.completion ? ` In its own words: ${sentence(r.completion.summary)}` : ''}`, '');

  out.push('## Why', '');
  const final = r.hypotheses.filter((h) => h.strategy === r.strategy);
  const approach = [...final].reverse().find((h) => h.approach)?.approach;
  const why: string[] = [];
  if (approach) why.push(`The approach taken was: ${sentence(approach)}`);
  if (final.length > 0) why.push(`The reasoning behind it: ${final.map((h) => sentence(h.hypothesis)).join(' ')}`);
  if (r.strategy > 1) why.push(`This was strategy ${r.strategy}: ${r.strategy - 1} earlier strateg${r.strategy === 2 ? 'y was' : 'ies were'} abandoned after three consecutive failed verifications each.`);
  if (why.length === 0) why.push('The Editor recorded no separate rationale; the change follows the task as stated above.');
  out.push(why.join(' '), '');

  out.push('## How it was verified', '');
  if (green) {
    out.push(`Verification run \`${green.run_id}\` was green: ${green.lines.join('; ')}. Its evidence (logs and result.json per step) is in \`.editwarden/runs/${green.run_id}/verify/\`.`, '');
    const history =
      failedBefore.length === 0
        ? `It was the first verification after the edits${r.baseline_run_id ? `; the baseline taken before any edit is run \`${r.baseline_run_id}\`` : ''}.`
        : `Before it, ${failedBefore.length} verification${failedBefore.length === 1 ? '' : 's'} failed and ${failedBefore.length === 1 ? 'was' : 'were'} fixed forward (run_ids ${runIds(failedBefore)})${r.baseline_run_id ? `; the baseline taken before any edit is run \`${r.baseline_run_id}\`` : ''}.`;
    out.push(history, '');
  } else {
    out.push('No verification ran: the project has no build or test command editwarden could find, so this change is unverified.', '');
  }
  out.push('The changes are left uncommitted in the working tree for you to review.', '');
  return out.join('\n');
}

export function renderStuckReport(r: EditorRecord): string {
  const failed = r.verifications.filter((v) => !v.passed);
  const out: string[] = ['# Stuck report', '', `**Task.** ${sentence(r.task)}`, ''];
  out.push(
    `Editor run \`${r.run_id}\` stopped without a green verification: ${sentence(r.reason)} It made ${r.verifications.length} verification${r.verifications.length === 1 ? '' : 's'} over ${r.strategy} strateg${r.strategy === 1 ? 'y' : 'ies'}. The changes are kept in the working tree (fix forward: nothing was reverted).`,
    '',
  );
  out.push('## Hypotheses', '');
  if (r.hypotheses.length === 0) out.push('The Editor recorded no hypothesis.');
  r.hypotheses.forEach((h, i) => {
    out.push(`${i + 1}. Strategy ${h.strategy}, after ${h.after_verification} verification${h.after_verification === 1 ? '' : 's'}: ${sentence(h.hypothesis)}${h.approach ? ` Approach: ${sentence(h.approach)}` : ''}`);
  });
  out.push('', '## Failed verifications', '');
  if (failed.length === 0) out.push('None failed; the session ended before a verification passed.');
  else {
    out.push('| # | run_id | strategy | result | first errors |', '|---|---|---|---|---|');
    for (const v of failed) {
      const errors = v.first_errors.length > 0 ? v.first_errors.slice(0, 3).join('<br>') : '(no diagnostic parsed; see the log)';
      out.push(`| ${v.n} | \`${v.run_id}\` | ${v.strategy} | ${v.lines.join('; ')} | ${errors.replace(/\|/g, '\\|')} |`);
    }
    out.push('', `Evidence of each: \`.editwarden/runs/<run_id>/verify/\`.`);
  }
  if (r.verifications.length > 0) {
    // The debug loop as the specification's example writes it, attempt by attempt.
    appendAll(out, ['', '## Debug loop', '', '```', ...r.verifications.flatMap((v) => attemptLines(v.n, v.passed, v.reached, v.decision)), '```']);
  }
  out.push('', '## Files changed', '', `The session changed ${files(r.files_changed)}.`, '');
  if (r.reports.contexts.length > 0) out.push('## Context snapshots', '', r.reports.contexts.map((c) => `\`${c}\``).join(', '), '');
  out.push('## Next', '', '`editwarden run --mode editor --retry` with the same task starts a new session seeded with this report, and only this report.', '');
  return out.join('\n');
}
