/**
 * `editwarden report --format html`: one self-contained page a person opens
 * in any browser, on a phone or on paper. Inline CSS, one line of inline
 * script (open every fold before printing), no external resource: nothing in
 * a `src` or `href` leaves the file (links are `#anchors` only). The same
 * facts as the Markdown (both lay out cards.ts): the headline and usage on
 * top with a link to every refusal, stopped attempt and violation; then what
 * changed, file by file, now against the start; then the timeline, each
 * event a card with its diff (folded in a `<details>` when long) or output
 * and the command that undoes back to it.
 *
 * Everything from the log — paths, messages, hints, commands, diff lines —
 * is HTML-escaped exactly once, in `esc`, before it is placed in the page:
 * a file named `<script>…` or a diff line `</pre><img onerror=…>` shows as
 * text and runs nothing. Pure: events in, a string out.
 */
import { cardsOf, scopeWords, type Card, type Fact } from './cards.js';
import { clockFor } from './clock.js';
import { headline, summarize, usageText, type NetChange, type ReportInput, type ReportSummary, type Usage } from './event-summary.js';

/** The only way text from the log reaches the page. */
function esc(text: string): string {
  // NUL, which an HTML parser drops, shows as U+FFFD (as in the Markdown: the same facts in both).
  return text.replace(/\0/g, '\uFFFD').replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;').replace(/'/g, '&#39;');
}

const CSS = `
:root{--fg:#1f2328;--muted:#59636e;--bg:#fff;--line:#d1d9e0;--add:#dafbe1;--addfg:#116329;--del:#ffebe9;--delfg:#82071e;--hunk:#ddf4ff;--bad:#cf222e;--warn:#9a6700;--ok:#1a7f37}
*{box-sizing:border-box}
body{margin:0;font:15px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;color:var(--fg);background:var(--bg)}
main{max-width:70rem;margin:0 auto;padding:1rem}
h1{font-size:1.4rem;margin:.2rem 0 .6rem}
h2{font-size:1.1rem;margin:1.4rem 0 .4rem}
.meta,.route{color:var(--muted);font-size:.85rem;overflow-wrap:anywhere}
.outcome{padding:.6rem .8rem;border-radius:6px;border:1px solid var(--line);font-weight:600}
.outcome.ok{border-color:var(--ok)} .outcome.refused{border-color:var(--warn)} .outcome.violation,.outcome.failed{border-color:var(--bad);color:var(--bad)}
table{border-collapse:collapse;margin:.6rem 0}
td,th{border:1px solid var(--line);padding:.25rem .6rem;text-align:left}
.over{color:var(--bad);font-weight:700}
.counts a,.jump a{margin-right:.8rem}
ol.events{list-style:none;padding:0;margin:0}
li.ev{border:1px solid var(--line);border-left:5px solid var(--line);border-radius:6px;padding:.5rem .7rem;margin:.5rem 0}
li.edit{border-left-color:var(--ok)} li.refusal{border-left-color:var(--warn);background:#fff8c5} li.violation{border-left-color:var(--bad);background:var(--del)}
li.command{border-left-color:#0969da} li.failed{border-left-color:var(--warn)} li.attempt{border-left-color:var(--bad);background:#fff8c5} li.undo{border-left-color:#8250df}
.badge{font-size:.75rem;font-weight:700;padding:0 .4rem;border-radius:4px;background:var(--bad);color:#fff} .badge.undone{background:#8250df}
.facts{margin:.3rem 0;padding:0;list-style:none} .facts li{margin:.1rem 0} .facts .l{color:var(--muted);margin-right:.3rem}
.net{list-style:none;padding:0;margin:0} .net li{border:1px solid var(--line);border-radius:6px;padding:.4rem .7rem;margin:.4rem 0}
.st{font-weight:700;font-size:.8rem;text-transform:uppercase;margin-right:.4rem} .st.added{color:var(--ok)} .st.deleted{color:var(--bad)} .st.modified{color:#0969da} .st.unchanged,.st.unknown{color:var(--muted)}
.undo-cmd{margin-top:.3rem;font-size:.85rem;color:var(--muted)} .date{margin:.8rem 0 .2rem;font-weight:700;color:var(--muted)}
pre.out{margin:.4rem 0 0;padding:.4rem .6rem;overflow-x:auto;border:1px solid var(--line);border-radius:6px;background:#f6f8fa;white-space:pre-wrap}
.head{display:flex;flex-wrap:wrap;gap:.2rem .7rem;align-items:baseline}
.kind{font-weight:700;text-transform:uppercase;font-size:.75rem;letter-spacing:.04em}
.n{color:var(--muted);font-size:.8rem}
code,pre{font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;font-size:.85rem}
code{overflow-wrap:anywhere}
.code{color:var(--bad);font-weight:700}
pre.diff{display:grid;margin:.4rem 0 0;padding:.4rem 0;overflow-x:auto;border:1px solid var(--line);border-radius:6px;background:#f6f8fa}
pre.diff span{display:block;padding:0 .6rem;white-space:pre}
pre.diff .a{background:var(--add);color:var(--addfg)} pre.diff .d{background:var(--del);color:var(--delfg)} pre.diff .h{background:var(--hunk);color:var(--muted)} pre.diff .f{font-weight:700}
details summary{cursor:pointer;color:var(--muted)}
@media (max-width:40rem){body{font-size:14px}main{padding:.5rem}td,th{padding:.2rem .35rem}}
@media print{body{font-size:11px}main{max-width:none;padding:0}li.ev{break-inside:avoid}pre.diff span{white-space:pre-wrap}details>summary{display:none}a{color:inherit;text-decoration:none}}
`;

/** Before printing, unfold every diff (paper has no clicks). */
const SCRIPT = `addEventListener('beforeprint',function(){document.querySelectorAll('details').forEach(function(d){d.open=true})});`;

function diffHtml(diff: string): string {
  const lines = diff.replace(/\n$/, '').split('\n');
  const cls = (l: string): string => (l.startsWith('+++') || l.startsWith('---') ? 'f' : l.startsWith('@@') ? 'h' : l.startsWith('+') ? 'a' : l.startsWith('-') ? 'd' : '');
  return `<pre class="diff">${lines.map((l) => `<span${cls(l) ? ` class="${cls(l)}"` : ''}>${esc(l) || ' '}</span>`).join('')}</pre>`;
}

/** A diff, open when short, folded when long. */
function diffBlock(diff: string): string {
  return `<details${diff.length < 4000 ? ' open' : ''}><summary>diff (${diff.replace(/\n$/, '').split('\n').length} lines)</summary>${diffHtml(diff)}</details>`;
}

const factHtml = (f: Fact): string => `<li><span class="l">${esc(f.label)}:</span>${f.parts.map((p) => ('code' in p ? `<code>${esc(p.code)}</code>` : esc(p.text))).join('')}</li>`;

const BADGE: Record<Card['look'], string> = { edit: '', command: '', failed: 'failed', attempt: 'stopped', refusal: 'refused', violation: 'violation', undo: '', info: '' };

function cardHtml(card: Card): string {
  const badge = BADGE[card.look] ? ` <span class="badge">${BADGE[card.look]}</span>` : '';
  const undo =
    card.undoneBy !== null
      ? `<div class="undo-cmd"><span class="badge undone">undone</span> by <a href="#e${card.undoneBy}">#${card.undoneBy}</a></div>`
      : card.undoTo
        ? `<div class="undo-cmd">undo to here: <code>${esc(card.undoTo)}</code></div>`
        : '';
  return [
    `<li class="ev ${card.look}" id="e${card.n}">`,
    `<div class="head"><span class="n">#${card.n}</span><span class="kind">${esc(card.kind)}</span><span>${esc(card.title)}</span>${badge}</div>`,
    `<div class="route">${card.time} · ${esc(card.by)}</div>`,
    card.facts.length ? `<ul class="facts">${card.facts.map(factHtml).join('')}</ul>` : '',
    card.diff ? diffBlock(card.diff) : '',
    card.output ? `<div class="meta">output (last lines):</div><pre class="out">${esc(card.output)}</pre>` : '',
    undo,
    '</li>',
  ].join('');
}

const NET_WORD: Record<NetChange['change'], string> = { added: 'added', modified: 'modified', deleted: 'deleted', unchanged: 'back as it was', unknown: 'changed' };

function netHtml(net: ReportInput['net']): string {
  if (!Array.isArray(net)) return `<p class="meta">Not available: ${esc(net.unavailable)}</p>`;
  if (net.length === 0) return '<p>No file changed.</p>';
  const row = (f: NetChange): string =>
    `<li><span class="st ${f.change}">${NET_WORD[f.change]}</span><code>${esc(f.path)}</code>${f.change === 'unchanged' ? ' <span class="n">changed, then put back</span>' : f.change === 'unknown' ? ' <span class="n">its state before was not kept</span>' : ` <span class="n">+${f.added} −${f.removed}</span>`}${f.diff ? diffBlock(f.diff) : ''}</li>`;
  return `<ul class="net">${net.map(row).join('')}</ul>`;
}

function usageRow(u: Usage, s: ReportSummary): string {
  const over = u.limit !== null && u.used > u.limit;
  return `<tr><th>${u.name}</th><td${over ? ' class="over"' : ''}>${esc(usageText(u, s.limitsFrom))}</td></tr>`;
}

export function renderHtml(input: ReportInput): string {
  const s = summarize(input.items);
  const clock = clockFor(input.timeZone);
  const cards = cardsOf(input.items, input.scope, clock);
  // Every refusal, stopped attempt and violation is one click from the top.
  const jumps = cards
    .filter((c) => c.look === 'refusal' || c.look === 'attempt' || c.look === 'violation')
    .map((c) => `<a href="#e${c.n}">#${c.n} ${BADGE[c.look]}</a>`)
    .join('');
  const counts = Object.entries(s.counts)
    .map(([k, n]) => `${n} ${esc(k)}`)
    .join(' · ');
  const day = clock.date(s.first ?? input.generatedAt);
  const span = s.first ? `${clock.time(s.first)} → ${clock.time(s.last ?? s.first)}` : 'no events';
  const title = `editwarden report — ${scopeWords(input.scope)}`;
  let date = day;
  const timeline = cards.map((card) => {
    const dated = card.date !== date ? `<li class="date">${card.date}</li>` : '';
    date = card.date;
    return dated + cardHtml(card);
  });
  return `<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>${esc(title)}</title><style>${CSS}</style></head>
<body><main>
<h1>${esc(title)}</h1>
<div class="meta">root <code>${esc(input.root)}</code> · ${day}, ${span} (${esc(clock.zone(s.first ?? input.generatedAt))}) · generated ${clock.date(input.generatedAt) === day ? '' : `${clock.date(input.generatedAt)} `}${clock.time(input.generatedAt)}</div>
<div class="outcome ${s.outcome}">${esc(headline(s))}</div>
<table>${s.usage.map((u) => usageRow(u, s)).join('')}</table>
<div class="meta">${s.limitsFrom === 'run' ? 'Limits as the run recorded them. ' : ''}Events: ${counts || 'none'}</div>
${jumps ? `<div class="jump">refused, stopped, violated: ${jumps}</div>` : ''}
${
  input.items.length === 0
    ? '<p>No events recorded.</p>'
    : `<h2>What changed since the start of the ${input.scope.kind === 'all' ? 'log' : input.scope.kind}</h2>
${netHtml(input.net)}
<h2>Timeline</h2>
<ol class="events">${timeline.join('\n')}</ol>`
}
</main><script>${SCRIPT}</script></body></html>
`;
}
