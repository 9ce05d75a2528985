/**
 * `editwarden report --format md`: the events of a run, a session or a root
 * as Markdown — for a terminal pager, a pull request, or a GitHub job summary
 * (`$GITHUB_STEP_SUMMARY`). The headline and the usage first, then what
 * changed (each file now against the start, with its diff), then the
 * timeline: every event a heading of its own, its facts, its diff or output,
 * and the command that undoes back to it.
 *
 * Text from the log (paths, commands, messages, hints, diffs — all the
 * agent's or the repository's) is never read as Markdown or HTML:
 * - prose (mdText) is one line, HTML-entity-escaped, every character that
 *   starts inline markup backslash-escaped (links, images, emphasis,
 *   autolinks: `:` `@` and `www.`, math, emoji), and nothing at its start
 *   can open a block (list, heading, quote, thematic break);
 * - literals (mdCode) are code spans whose backtick run is longer than any
 *   inside, on one line;
 * - blocks (mdFence) are fenced with the character that occurs in shorter
 *   runs, one longer than its longest run ANYWHERE in the text (indented or
 *   not), so no line inside can close the fence.
 * Checked against a real CommonMark/GFM renderer (micromark + GFM) with
 * fuzzed text: test/report/markdown-renderer.test.ts. Pure.
 */
import { cardsOf, scopeWords, type Card, type Fact } from './cards.js';
import { clockFor } from './clock.js';
import { headline, summarize, usageText, type NetChange, type ReportInput } from './event-summary.js';
import { appendAll, greatestOf } from '../arrays.js';

/** Longest diff shown in Markdown (a job summary is limited to 1 MiB); the HTML report shows every line. */
export const MD_DIFF_MAX_LINES = 400;

/** Every line ending CommonMark knows (and the Unicode separators some renderers treat as one), and NUL, which it replaces anyway. */
const oneLine = (text: string): string => text.replace(/\r\n|[\r\n\u2028\u2029\v\f]/g, ' ').replace(/\0/g, '\uFFFD');

/** Prose from the log, safe in Markdown: one line that opens no block and holds no markup (its spaces kept: it is joined to code spans). */
function mdText(raw: string): string {
  const escaped = oneLine(raw)
    // Two spaces before a line's end are a hard break (<br>): at most one is kept.
    .replace(/[ \t]+$/, ' ')
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    // Inline markup, links and images, tables, strikethrough, math, emoji and the GFM autolinks (scheme:, user@host).
    .replace(/([\\`*_[\]|~:@$#])/g, '\\$1')
    // The autolink with no scheme: www.example.com.
    .replace(/(www)\./gi, '$1\\.');
  // What could open a block at the start of a line: list items, setext/thematic lines, an ordered list's "1." or "1)".
  return escaped.replace(/^([-+=])/, '\\$1').replace(/^(\d{1,9})([.)])/, '$1\\$2');
}

/** Inline code that holds any text (a backtick in a path cannot end it early). */
function mdCode(raw: string): string {
  const flat = oneLine(raw);
  const longest = greatestOf([0, ...[...flat.matchAll(/`+/g)].map((m) => m[0].length)]);
  const ticks = '`'.repeat(longest + 1);
  // A space each side where the delimiters would touch a backtick, or where CommonMark would strip one from a text that begins and ends with a space (but is not all spaces: that it leaves whole).
  const pad = flat.startsWith('`') || flat.endsWith('`') || flat === '' || (/^ .* $/.test(flat) && /[^ ]/.test(flat)) ? ' ' : '';
  return `${ticks}${pad}${flat}${pad}${ticks}`;
}

const longestRun = (text: string, re: RegExp): number => greatestOf([0, ...[...text.matchAll(re)].map((m) => m[0].length)]);

/** A fenced block that holds any text: its fence is longer than any run of its character anywhere inside. */
export function mdFence(raw: string, lang = ''): string {
  // Line endings as one \n: CommonMark reads a lone \r as a line ending too, so a body ending in one would join the
  // fence's own \n into a single \r\n and lose a line.
  const body = raw.replace(/\0/g, '\uFFFD').replace(/\r\n?/g, '\n').replace(/\n$/, '');
  const ticks = longestRun(body, /`+/g);
  const tildes = longestRun(body, /~+/g);
  // The rarer character makes the shorter fence (an info string never holds a backtick: `lang` is ours).
  const fence = ticks <= tildes ? '`'.repeat(Math.max(3, ticks + 1)) : '~'.repeat(Math.max(3, tildes + 1));
  return `${fence}${lang}\n${body}\n${fence}`;
}

function cutDiff(diff: string): string {
  const lines = diff.replace(/\n$/, '').split('\n');
  if (lines.length <= MD_DIFF_MAX_LINES) return lines.join('\n');
  return `${lines.slice(0, MD_DIFF_MAX_LINES).join('\n')}\n… ${lines.length - MD_DIFF_MAX_LINES} more lines (editwarden report --format html shows them all)`;
}

const factLine = (f: Fact): string => `- **${f.label}:** ${f.parts.map((p) => ('code' in p ? mdCode(p.code) : mdText(p.text))).join('')}`;

const LOOK_WORD: Record<Card['look'], string> = { edit: '', command: '', failed: ' · ⚠️ failed', attempt: ' · ⛔ **stopped**', refusal: ' · ⚠️ **refused**', violation: ' · ⛔ **violation**', undo: ' · ↩️', info: '' };

function cardMarkdown(card: Card): string[] {
  const out = [`### ${card.n}. ${mdText(card.kind)} — ${mdText(card.title)}`, '', `${card.time} · ${mdText(card.by)}${LOOK_WORD[card.look]}`, '', ...card.facts.map(factLine), ''];
  if (card.diff) out.push(mdFence(cutDiff(card.diff), 'diff'), '');
  if (card.output) out.push('Output (last lines):', '', mdFence(card.output), '');
  if (card.undoneBy !== null) out.push(`↩️ Undone by #${card.undoneBy}.`, '');
  else if (card.undoTo) out.push(`↩️ Undo to here: ${mdCode(card.undoTo)}`, '');
  return out;
}

const NET_WORD: Record<NetChange['change'], string> = { added: 'added', modified: 'modified', deleted: 'deleted', unchanged: 'back as it was', unknown: 'changed (its state before was not kept)' };

function netMarkdown(input: ReportInput, scopeName: string): string[] {
  const out = [`### What changed since the start of the ${scopeName}`, ''];
  if (!Array.isArray(input.net)) return [...out, `Not available: ${mdText(input.net.unavailable)}`, ''];
  if (input.net.length === 0) return [...out, 'No file changed.', ''];
  for (const f of input.net) {
    out.push(`**${NET_WORD[f.change]}** ${mdCode(f.path)}${f.change === 'unchanged' || f.change === 'unknown' ? '' : ` (+${f.added} −${f.removed})`}`, '');
    if (f.diff) out.push(mdFence(cutDiff(f.diff), 'diff'), '');
  }
  return out;
}

export function renderMarkdown(input: ReportInput): string {
  const s = summarize(input.items);
  const clock = clockFor(input.timeZone);
  const badge = { ok: '✅', refused: '⚠️', violation: '⛔', failed: '❌' }[s.outcome];
  const kinds = Object.entries(s.counts).map(([k, n]) => `${n} ${mdText(k)}`);
  const day = s.first ? clock.date(s.first) : clock.date(input.generatedAt);
  const span = s.first ? `${clock.time(s.first)} → ${clock.time(s.last ?? s.first)}` : 'no events';
  const out = [
    `## editwarden report — ${mdText(scopeWords(input.scope))}`,
    '',
    `${badge} **${mdText(headline(s))}**`,
    '',
    '| | used / limit |',
    '|---|---|',
    ...s.usage.map((u) => `| ${u.name} | ${usageText(u, s.limitsFrom)} |`),
    '',
    `${s.limitsFrom === 'run' ? 'Limits as the run recorded them. ' : ''}Root ${mdCode(input.root)} · ${day}, ${span} (${mdText(clock.zone(s.first ?? input.generatedAt))}) · events: ${kinds.length ? kinds.join(', ') : 'none'}`,
    '',
  ];
  if (input.items.length === 0) return `${[...out, 'No events recorded.'].join('\n')}\n`;
  const cards = cardsOf(input.items, input.scope, clock);
  // As the HTML's links: every refusal, stopped attempt and violation by its number in the timeline.
  const loud = cards.filter((c) => c.look === 'refusal' || c.look === 'attempt' || c.look === 'violation').map((c) => `#${c.n} ${LOOK_WORD[c.look].replace(/[^a-z]/g, '')}`);
  if (loud.length > 0) out.push(`Refused, stopped, violated: ${loud.join(', ')}`, '');
  appendAll(out, netMarkdown(input, input.scope.kind === 'all' ? 'log' : input.scope.kind));
  out.push('### Timeline', '');
  let date = day;
  for (const card of cards) {
    // The date once, then again only where the day changes.
    if (card.date !== date) out.push(`**${card.date}**`, '');
    date = card.date;
    appendAll(out, cardMarkdown(card));
  }
  return `${out.join('\n')}\n`;
}
