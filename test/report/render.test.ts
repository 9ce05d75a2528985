/**
 * The report renderers as pure functions: whatever text the log holds —
 * paths, codes, messages, commands, diff lines — the HTML holds no element
 * the report did not write and the Markdown no markup the text did not
 * escape (property over generated text); the summary counts against the
 * limits; long diffs are cut in Markdown only.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { eventLine, summarize, type ReportInput, type ReportItem } from '../../src/report/event-summary.js';
import { esc, renderHtml } from '../../src/report/html.js';
import { MD_DIFF_MAX_LINES, mdCode, mdFence, renderMarkdown } from '../../src/report/markdown.js';
import type { EditwardenEvent } from '../../src/runs/event-types.js';

const time = '2026-11-26T12:00:00.000Z';
const route = { via: 'hook', client: 'claude', session: 's-1' };

function items(text: string): ReportItem[] {
  const events: EditwardenEvent[] = [
    { v: 1, time, route, kind: 'edit', tool: 'Edit', paths: [text], added: 1, removed: 1, checkpoint: text },
    { v: 1, time, route, kind: 'refusal', tool: text, paths: [text], code: text, message: text, hint: text },
    { v: 1, time, route: { via: text, run: text }, kind: 'command', tool: 'Bash', command: text, exit_code: 1, paths: [text], changes: { added: 0, removed: 0 }, code: text, message: text },
    { v: 1, time, route, kind: 'violation', paths: [text], type: text, constraint: text, limit: [text], actual: text, message: text, hint: text, prevented: false, report: text },
    { v: 1, time, route, kind: 'undo', label: text, written: [text], removed: [text], paths: [text] },
  ];
  return events.map((event) => ({ event, diff: event.kind === 'edit' ? `--- a/x\n+++ b/x\n@@ -1 +1 @@\n-${text}\n+${text}\n` : null }));
}

const input = (text: string): ReportInput => ({ scope: text, root: text, items: items(text), limits: { max_files: 1, max_lines_changed: 10, max_tokens: 0, timeout_seconds: 60 }, generatedAt: time });

const OWN_TAGS = new Set(['html', 'head', 'meta', 'title', 'style', 'body', 'main', 'h1', 'h2', 'div', 'code', 'table', 'tr', 'th', 'td', 'a', 'ol', 'li', 'span', 'details', 'summary', 'pre', 'b', 'script']);
const hostile = fc.oneof(fc.string(), fc.constantFrom('<script>alert(1)</script>', '</pre><img src=x onerror=alert(1)>', '"><svg onload=alert(1)>', "'; --", '```\n<b>', '`a`', '</style><script>x()</script>', '&lt;script&gt;'));

/** The Markdown outside fenced blocks and code spans, as a CommonMark reader would split it. */
function proseOf(md: string): string {
  const out: string[] = [];
  let fence: string | null = null;
  for (const line of md.split('\n')) {
    if (fence !== null) {
      if (line === fence) fence = null;
      continue;
    }
    const open = /^(`{3,})/.exec(line);
    if (open) {
      fence = open[1] as string;
      continue;
    }
    out.push(withoutCodeSpans(line));
  }
  return out.join('\n');
}

/** A line without its code spans, scanned as CommonMark does: a backslash escapes the next character outside code; inside a span nothing is escaped. */
function withoutCodeSpans(line: string): string {
  let kept = '';
  let i = 0;
  while (i < line.length) {
    const c = line[i] as string;
    if (c === '\\') {
      kept += line.slice(i, i + 2);
      i += 2;
      continue;
    }
    if (c !== '`') {
      kept += c;
      i++;
      continue;
    }
    const run = /^`+/.exec(line.slice(i))?.[0] as string;
    // The span ends at the next run of exactly the same length.
    const rest = line.slice(i + run.length);
    const close = [...rest.matchAll(/`+/g)].find((m) => m[0].length === run.length);
    if (!close) {
      kept += run;
      i += run.length;
      continue;
    }
    i += run.length + (close.index ?? 0) + run.length;
  }
  return kept;
}

describe('text from the log never becomes markup', () => {
  it('esc leaves no character that could open a tag or end an attribute', () => {
    fc.assert(
      fc.property(fc.string(), (s) => {
        expect(esc(s)).not.toMatch(/[<>"']/);
      }),
    );
  });

  it('the HTML report has only its own elements and its own one script, whatever the events hold', () => {
    fc.assert(
      fc.property(hostile, (text) => {
        const html = renderHtml(input(text));
        const tags = new Set([...html.matchAll(/<\/?([a-zA-Z][\w-]*)/g)].map((m) => (m[1] as string).toLowerCase()));
        for (const t of tags) expect(OWN_TAGS.has(t), `unexpected <${t}>`).toBe(true);
        expect(html.match(/<script/gi)).toHaveLength(1);
        // No event handler inside any tag (escaped text outside tags may say anything).
        for (const tag of html.match(/<[a-zA-Z][^>]*>/g) ?? []) expect(tag).not.toMatch(/\son\w+\s*=/i);
        expect(html).not.toMatch(/(src|href)\s*=\s*["']?\s*(https?:|\/\/|javascript:)/i);
      }),
      { numRuns: 300 },
    );
  });

  it('a Markdown code span or fence holds any text: no backtick run inside reaches its delimiter', () => {
    fc.assert(
      fc.property(fc.string(), (s) => {
        const span = mdCode(s);
        const ticks = /^`+/.exec(span)?.[0] ?? '';
        expect(span.endsWith(ticks)).toBe(true);
        expect(span.slice(ticks.length, -ticks.length)).not.toContain(ticks);
        const fence = mdFence(s);
        const open = /^`+/.exec(fence)?.[0] ?? '';
        expect(
          fence
            .split('\n')
            .slice(1, -1)
            .some((l) => l.startsWith(open)),
        ).toBe(false);
      }),
    );
  });

  it('Markdown prose carries no raw < or >', () => {
    fc.assert(
      fc.property(hostile, (text) => {
        const prose = proseOf(renderMarkdown(input(text)));
        expect(prose.split('\n').filter((l) => /[<>]/.test(l))).toEqual([]);
      }),
      { numRuns: 300 },
    );
  });
});

describe('the summary', () => {
  it('counts files and lines of edits and commands against the limits; a violation is the outcome', () => {
    const s = summarize(items('a.txt'), { max_files: 1, max_lines_changed: 10, max_tokens: 0, timeout_seconds: 60 });
    expect(s.files).toEqual({ used: 1, limit: 1 });
    expect(s.lines).toEqual({ used: 2, limit: 10 });
    expect(s.tokens.limit).toBeNull();
    expect(s.outcome).toBe('violation');
    expect(s.counts).toMatchObject({ edit: 1, refusal: 1, command: 1, violation: 1, undo: 1 });
    expect(s.sessions).toEqual(['s-1']);
  });

  it('refusals without a violation are the outcome "refused"; nothing refused is "ok"', () => {
    const refusalOnly = items('x').filter((i) => i.event.kind === 'refusal' || i.event.kind === 'edit');
    expect(summarize(refusalOnly, { max_files: 0, max_lines_changed: 0, max_tokens: 0, timeout_seconds: 0 }).outcome).toBe('refused');
    expect(summarize(refusalOnly.slice(0, 1), { max_files: 0, max_lines_changed: 0, max_tokens: 0, timeout_seconds: 0 }).outcome).toBe('ok');
  });

  it('a refusal line names its code; a failed command its exit code', () => {
    const [, refusal, command] = items('p').map((i) => eventLine(i.event));
    expect(refusal?.text).toBe('p p p: p');
    expect(refusal?.severity).toBe('refusal');
    expect(command?.text).toBe('$ p → exit 1; changed p');
    expect(command?.severity).toBe('command-failed');
  });
});

describe('long diffs', () => {
  it('Markdown cuts a diff at MD_DIFF_MAX_LINES and says so; HTML keeps every line', () => {
    const diff = `--- a/x\n+++ b/x\n@@ -1 +1,1000 @@\n${Array.from({ length: 1000 }, (_, i) => `+line ${i}`).join('\n')}\n`;
    const big: ReportInput = { ...input('x'), items: [{ event: { v: 1, time, route, kind: 'edit', tool: 'Edit', paths: ['x'], added: 1000, removed: 0 }, diff }] };
    const md = renderMarkdown(big);
    expect(md).toContain(`+line ${MD_DIFF_MAX_LINES - 4}`);
    expect(md).not.toContain('+line 999');
    expect(md).toMatch(/… \d+ more lines/);
    expect(renderHtml(big)).toContain('+line 999');
  });
});
