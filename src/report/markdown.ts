/**
 * `editwarden report --format md`: the events of a run, a session or a root
 * as Markdown — for a terminal pager, a pull request, or a GitHub job summary
 * (`$GITHUB_STEP_SUMMARY`). A summary first (outcome, files and lines
 * against the limits, tokens, time, counts), then every event: each change
 * with its diff, each refusal with its code and hint, each command with its
 * exit code and the files it changed, each violation with its report.
 *
 * Text from the log (paths, messages, diffs) is never read as Markdown or
 * HTML: prose is entity-escaped, code goes in a fence longer than any
 * backtick run inside it — a path named `<script>` shows as text. Pure.
 */
import { eventLine, routeText, summarize, usageText, type ReportInput, type ReportItem } from './event-summary.js';

/** Longest diff shown in Markdown (a job summary is limited to 1 MiB); the HTML report shows every line. */
export const MD_DIFF_MAX_LINES = 400;

/** Prose from the log, safe in Markdown: HTML and Markdown's own active characters escaped. */
function mdText(text: string): string {
  return text
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/([\\`*_[\]|#])/g, '\\$1')
    .replace(/\r?\n/g, ' ');
}

/** Inline code that holds any text (a backtick in a path cannot end it early). */
export function mdCode(text: string): string {
  const flat = text.replace(/\r?\n/g, ' ');
  const longest = Math.max(0, ...[...flat.matchAll(/`+/g)].map((m) => m[0].length));
  const ticks = '`'.repeat(longest + 1);
  const pad = flat.startsWith('`') || flat.endsWith('`') || flat === '' ? ' ' : '';
  return `${ticks}${pad}${flat}${pad}${ticks}`;
}

/** A fenced block that holds any text. */
export function mdFence(text: string, lang = ''): string {
  const longest = Math.max(2, ...[...text.matchAll(/^`+/gm)].map((m) => m[0].length));
  const fence = '`'.repeat(longest + 1);
  return `${fence}${lang}\n${text.replace(/\n$/, '')}\n${fence}`;
}

function cutDiff(diff: string): string {
  const lines = diff.replace(/\n$/, '').split('\n');
  if (lines.length <= MD_DIFF_MAX_LINES) return lines.join('\n');
  return `${lines.slice(0, MD_DIFF_MAX_LINES).join('\n')}\n… ${lines.length - MD_DIFF_MAX_LINES} more lines (editwarden report --format html shows them all)`;
}

function itemMarkdown(item: ReportItem, n: number): string[] {
  const { event } = item;
  const line = eventLine(event);
  const out = [`### ${n}. ${event.kind} — ${mdText(line.title)}`, '', `${mdText(event.time)} · ${mdText(routeText(event.route))}${event.checkpoint ? ` · undo step ${mdCode(event.checkpoint)}` : ''}`, ''];
  switch (event.kind) {
    case 'edit':
      out.push(`Files: ${event.paths.map(mdCode).join(', ')} (+${event.added} −${event.removed})`, '');
      if (item.diff) out.push(mdFence(cutDiff(item.diff), 'diff'), '');
      else if (event.diff_blob) out.push(`(diff blob ${mdCode(event.diff_blob)} is missing)`, '');
      break;
    case 'refusal':
      out.push(`**${mdCode(event.code)}** ${mdText(event.message)}`, '', `hint: ${mdText(event.hint)}`, '');
      if (event.paths.length) out.push(`Paths: ${event.paths.map(mdCode).join(', ')}`, '');
      break;
    case 'command':
      out.push(`Command: ${mdCode(event.command)}`, '', `Exit code: ${event.exit_code === null ? 'none' : event.exit_code}${event.code ? ` (${mdCode(event.code)}${event.message ? `: ${mdText(event.message)}` : ''})` : ''}`, '');
      out.push(event.paths.length ? `Changed: ${event.paths.map(mdCode).join(', ')} (+${event.changes.added} −${event.changes.removed})` : 'Changed: nothing', '');
      if (event.artifacts) out.push(`Logs: ${mdCode(event.artifacts)}`, '');
      break;
    case 'violation':
      out.push(
        `**${mdCode('E_CONSTRAINT')} ${mdText(event.type)}** (${mdCode(event.constraint)}: reached ${mdText(String(event.actual))}, limit ${mdText(Array.isArray(event.limit) ? event.limit.join(', ') : String(event.limit))}; ${event.prevented ? 'refused before anything was written' : 'it had already happened'})`,
        '',
      );
      out.push(mdText(event.message), '', `hint: ${mdText(event.hint)}`, '');
      if (event.report) out.push(`Report: ${mdCode(event.report)}`, '');
      break;
    case 'undo':
    case 'redo':
      if (event.written.length) out.push(`Written: ${event.written.map(mdCode).join(', ')}`, '');
      if (event.removed.length) out.push(`Removed: ${event.removed.map(mdCode).join(', ')}`, '');
      break;
    case 'checkpoint':
    case 'run-end':
      break;
    default: {
      const never: never = event;
      return never;
    }
  }
  return out;
}

export function renderMarkdown(input: ReportInput): string {
  const s = summarize(input.items, input.limits);
  const badge = { ok: '✅', refused: '⚠️', violation: '⛔', failed: '❌' }[s.outcome];
  const kinds = (Object.entries(s.counts) as Array<[string, number]>).filter(([, n]) => n > 0).map(([k, n]) => `${n} ${k}`);
  const out = [
    `## editwarden report — ${mdText(input.scope)}`,
    '',
    `${badge} **${s.outcome}** — ${mdText(s.outcomeText)}`,
    '',
    '| | used / limit |',
    '|---|---|',
    `| files changed | ${usageText(s.files)} |`,
    `| lines changed | ${usageText(s.lines)} |`,
    `| tokens | ${usageText(s.tokens)} |`,
    `| time | ${usageText(s.seconds, ' s')} |`,
    '',
    `Root ${mdCode(input.root)} · ${s.first ? `${mdText(s.first)} → ${mdText(s.last ?? '')}` : 'no events'} · events: ${kinds.length ? kinds.join(', ') : 'none'}`,
    '',
  ];
  if (input.items.length === 0) return `${[...out, 'No events recorded.'].join('\n')}\n`;
  out.push('### Timeline', '');
  input.items.forEach((item, i) => {
    out.push(...itemMarkdown(item, i + 1));
  });
  return `${out.join('\n')}\n`;
}
