/**
 * `editwarden report --format html`: one self-contained page a person opens
 * in any browser, on a phone or on paper. Inline CSS, one line of inline
 * script (open every fold before printing), no external resource: nothing in
 * a `src` or `href` leaves the file (links are `#anchors` only). The summary
 * on top counts each kind and links to every refusal and violation; each
 * event is a row, its diff folded in a `<details>` with added and removed
 * lines coloured.
 *
 * Everything from the log — paths, messages, hints, commands, diff lines —
 * is HTML-escaped exactly once, in `esc`, before it is placed in the page:
 * a file named `<script>…` or a diff line `</pre><img onerror=…>` shows as
 * text and runs nothing. Pure: events in, a string out.
 */
import { eventLine, routeText, summarize, usageText, type ReportInput, type ReportItem, type Usage } from './event-summary.js';

/** The only way text from the log reaches the page. */
export function esc(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;').replace(/'/g, '&#39;');
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
li.command{border-left-color:#0969da} li.command.failed{border-left-color:var(--warn)} li.undo,li.redo{border-left-color:#8250df}
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

const codeList = (paths: readonly string[]): string => paths.map((p) => `<code>${esc(p)}</code>`).join(', ');

function body(item: ReportItem): string {
  const { event } = item;
  switch (event.kind) {
    case 'edit': {
      const files = `<div>${codeList(event.paths)} <span class="n">+${event.added} −${event.removed}</span></div>`;
      if (item.diff) return `${files}<details${item.diff.length < 4000 ? ' open' : ''}><summary>diff (${item.diff.split('\n').length - 1} lines)</summary>${diffHtml(item.diff)}</details>`;
      return event.diff_blob ? `${files}<div class="meta">diff blob ${esc(event.diff_blob)} is missing</div>` : files;
    }
    case 'refusal':
      return `<div><span class="code">${esc(event.code)}</span> ${esc(event.message)}</div><div>hint: ${esc(event.hint)}</div>${event.paths.length ? `<div>${codeList(event.paths)}</div>` : ''}`;
    case 'command': {
      const exit = event.exit_code === null ? 'none' : String(event.exit_code);
      const why = event.code ? ` <span class="code">${esc(event.code)}</span>${event.message ? ` ${esc(event.message)}` : ''}` : '';
      const changed = event.paths.length ? `changed ${codeList(event.paths)} <span class="n">+${event.changes.added} −${event.changes.removed}</span>` : 'changed nothing';
      return `<div><code>$ ${esc(event.command)}</code></div><div>exit code <b>${esc(exit)}</b>${why}; ${changed}</div>${event.artifacts ? `<div class="meta">logs: <code>${esc(event.artifacts)}</code></div>` : ''}`;
    }
    case 'violation': {
      const limit = Array.isArray(event.limit) ? event.limit.join(', ') : String(event.limit);
      return `<div><span class="code">E_CONSTRAINT ${esc(event.type)}</span> <code>${esc(event.constraint)}</code>: reached ${esc(String(event.actual))}, limit ${esc(limit)} — ${event.prevented ? 'refused before anything was written' : 'it had already happened'}</div><div>${esc(event.message)}</div><div>hint: ${esc(event.hint)}</div>${event.report ? `<div class="meta">report: <code>${esc(event.report)}</code></div>` : ''}`;
    }
    case 'undo':
    case 'redo':
      return `${event.written.length ? `<div>written ${codeList(event.written)}</div>` : ''}${event.removed.length ? `<div>removed ${codeList(event.removed)}</div>` : ''}`;
    case 'checkpoint':
    case 'run-end':
      return '';
    default: {
      const never: never = event;
      return never;
    }
  }
}

function row(item: ReportItem, n: number): string {
  const line = eventLine(item.event);
  const classes = `ev ${item.event.kind}${line.severity === 'command-failed' ? ' failed' : ''}`;
  const undo = item.event.checkpoint ? ` · undo step <code>${esc(item.event.checkpoint)}</code>` : '';
  return `<li class="${classes}" id="e${n}"><div class="head"><span class="n">#${n}</span><span class="kind">${esc(item.event.kind)}</span><span>${esc(line.title)}</span></div><div class="route">${esc(item.event.time)} · ${esc(routeText(item.event.route))}${undo}</div>${body(item)}</li>`;
}

function usageRow(name: string, u: Usage, unit = ''): string {
  const over = u.limit !== null && u.used > u.limit;
  return `<tr><th>${name}</th><td${over ? ' class="over"' : ''}>${esc(usageText(u, unit))}</td></tr>`;
}

export function renderHtml(input: ReportInput): string {
  const s = summarize(input.items, input.limits);
  const firstOf = new Map<string, number>();
  input.items.forEach((item, i) => {
    if (!firstOf.has(item.event.kind)) firstOf.set(item.event.kind, i + 1);
  });
  const counts = (Object.entries(s.counts) as Array<[string, number]>)
    .filter(([, n]) => n > 0)
    .map(([k, n]) => `<a href="#e${firstOf.get(k)}">${n} ${esc(k)}</a>`)
    .join('');
  // Every refusal and violation is one click from the top.
  const jumps = input.items
    .map((item, i) => ({ item, n: i + 1 }))
    .filter(({ item }) => item.event.kind === 'refusal' || item.event.kind === 'violation')
    .map(({ item, n }) => `<a href="#e${n}">#${n} ${esc(item.event.kind === 'refusal' ? item.event.code : item.event.kind === 'violation' ? item.event.type : '')}</a>`)
    .join('');
  const title = `editwarden report — ${input.scope}`;
  return `<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>${esc(title)}</title><style>${CSS}</style></head>
<body><main>
<h1>${esc(title)}</h1>
<div class="meta">root <code>${esc(input.root)}</code> · ${s.first ? `${esc(s.first)} → ${esc(s.last ?? '')}` : 'no events'} · generated ${esc(input.generatedAt)}</div>
<h2>Summary</h2>
<div class="outcome ${s.outcome}">${esc(s.outcome)}: ${esc(s.outcomeText)}</div>
<table>${usageRow('files changed', s.files)}${usageRow('lines changed', s.lines)}${usageRow('tokens', s.tokens)}${usageRow('time', s.seconds, ' s')}</table>
<div class="counts">${counts || 'No events recorded.'}</div>
${jumps ? `<div class="jump">refusals and violations: ${jumps}</div>` : ''}
<h2>Timeline</h2>
<ol class="events">${input.items.map((item, i) => row(item, i + 1)).join('\n')}</ol>
</main><script>${SCRIPT}</script></body></html>
`;
}
