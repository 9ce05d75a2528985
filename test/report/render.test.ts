/**
 * The report's facts as pure functions (what test/report/real-renderers.test.ts
 * checks for escapes, this checks for meaning): the summary measures against
 * the limits the run recorded, and a client session gets no token or time
 * rows; a command stopped by the sandbox, refused, or put back is an attempt,
 * with its output; every step carries its "undo to here" and each id once;
 * times are local with the date said once; an undo of a scope's step is in
 * the scope; a kind this version does not know is shown; long diffs are cut
 * in Markdown only.
 */
import { describe, expect, it } from 'vitest';
import { cardsOf } from '../../src/report/cards.js';
import { clockFor } from '../../src/report/clock.js';
import { attemptOf, eventLine, eventsInScope, headline, summarize, type ReportInput, type ReportItem } from '../../src/report/event-summary.js';
import { renderHtml } from '../../src/report/html.js';
import { MD_DIFF_MAX_LINES, renderMarkdown } from '../../src/report/markdown.js';
import type { EditwardenEvent } from '../../src/runs/event-types.js';

const time = '2026-11-26T12:00:00.000Z';
const session = { via: 'hook', client: 'claude', session: 's-1' };
const run = { via: 'exec', run: 'r-1' };
const item = (event: Record<string, unknown>, diff: string | null = null): ReportItem => ({ event: { v: 1, time, paths: [], ...event } as unknown as EditwardenEvent, diff });

const edit = (over: Record<string, unknown> = {}): ReportItem =>
  item({ route: session, kind: 'edit', tool: 'Edit', paths: ['a.txt'], added: 1, removed: 1, checkpoint: 'cp-edit', ...over }, '--- a/a.txt\n+++ b/a.txt\n@@ -1 +1 @@\n-a\n+b\n');
const command = (over: Record<string, unknown> = {}): ReportItem =>
  item({ route: session, kind: 'command', tool: 'Bash', command: "sed -i 's/a/b/' a.txt", exit_code: 0, paths: ['a.txt'], changes: { added: 1, removed: 1 }, checkpoint: 'cp-sed', ...over });
const gitConfigAttempt = item({
  route: session,
  kind: 'command',
  tool: 'Bash',
  command: 'echo x >> .git/config',
  exit_code: 2,
  paths: [],
  changes: { added: 0, removed: 0 },
  output: 'sh: 1: cannot create .git/config: Read-only file system\n',
});
const runEnd = (limits: Record<string, number>, over: Record<string, unknown> = {}): ReportItem =>
  item({ route: run, kind: 'run-end', status: 'completed', outcome: 'ok', started_at: time, calls: 1, totals: { files: 1, lines_added: 1, lines_removed: 0, tokens: 40, elapsed_seconds: 2 }, limits, ...over });

const input = (items: ReportItem[], over: Partial<ReportInput> = {}): ReportInput => ({ scope: { kind: 'session', id: 's-1' }, root: '/r', items, net: [], generatedAt: time, timeZone: 'UTC', ...over });

describe('the summary measures against what the run itself recorded', () => {
  it("a run's table and headline use its run-end limits (exec --max-files 1), never the root's config", () => {
    const items = [
      item({ route: run, kind: 'edit', tool: 'write_file', paths: ['a.txt'], added: 1, removed: 0 }),
      item({ route: run, kind: 'violation', type: 'FileModification', constraint: 'max_files', limit: 1, actual: 2, message: 'over the limit of 1', hint: 'h', prevented: true }),
      runEnd({ max_files: 1, max_lines_changed: 500, max_tokens: 50000, timeout_seconds: 300 }, { exit_code: 2 }),
    ];
    const s = summarize(items);
    expect(s.usage.find((u) => u.name === 'files changed')).toMatchObject({ used: 1, limit: 1 });
    expect(s.usage.map((u) => u.name)).toEqual(['files changed', 'lines changed', 'tokens', 'time']);
    expect(s.limitsFrom).toBe('run');
    expect(headline(s)).toContain('max_files reached 2, limit 1');
    const md = renderMarkdown(input(items, { scope: { kind: 'run', id: 'r-1' } }));
    expect(md).toContain('| files changed | 1 / 1 |');
    expect(md).toContain('max\\_files reached 2, limit 1 (exit code 2)');
  });

  it('a client session has no token or time rows and no limits it never had', () => {
    const s = summarize([edit(), command()]);
    expect(s.usage.map((u) => u.name)).toEqual(['files changed', 'lines changed']);
    expect(s.usage.every((u) => u.limit === null)).toBe(true);
    const md = renderMarkdown(input([edit(), command()]));
    expect(md).not.toMatch(/\| (tokens|time) \|/);
    expect(md).toContain('| files changed | 1 |');
    const html = renderHtml(input([edit(), command()]));
    expect(html).not.toMatch(/<th>(tokens|time)<\/th>/);
  });

  it('the headline is one line, the same the log prints; a stopped attempt makes it "refused"', () => {
    const s = summarize([edit(), gitConfigAttempt]);
    expect(s.outcome).toBe('refused');
    expect(headline(s)).toBe('refused: 1 change(s) applied, 1 refused or stopped. (files changed 1, lines changed 2)');
    expect(renderMarkdown(input([edit(), gitConfigAttempt]))).toContain('refused\\: 1 change(s) applied, 1 refused or stopped. (files changed 1, lines changed 2)');
  });
});

describe('attempts are marked, with the output', () => {
  it('the sandbox stopping a write to .git/config is an attempt, not "changed nothing"', () => {
    expect(attemptOf(gitConfigAttempt.event)?.why).toBe('blocked by the sandbox (a protected path is read-only)');
    const line = eventLine(gitConfigAttempt.event);
    expect(line.severity).toBe('attempt');
    expect(line.text).not.toContain('changed nothing');
    const [card] = cardsOf([gitConfigAttempt], { kind: 'session', id: 's-1' }, clockFor('UTC'));
    expect(card?.look).toBe('attempt');
    expect(card?.output).toContain('Read-only file system');
    expect(renderMarkdown(input([gitConfigAttempt]))).toContain('Read-only file system');
    // Both formats point at it from the top.
    expect(renderMarkdown(input([edit(), gitConfigAttempt]))).toContain('Refused, stopped, violated: #2 stopped');
    expect(renderHtml(input([edit(), gitConfigAttempt]))).toContain('<a href="#e2">#2 stopped</a>');
    expect(renderHtml(input([gitConfigAttempt]))).toMatch(/<span class="badge">stopped<\/span>/);
  });

  it('refused before it ran, its changes put back, protected files put back: each an attempt; a plain failure is none', () => {
    expect(attemptOf(command({ exit_code: null, code: 'E_UNSANDBOXED', paths: [] }).event)?.why).toContain('refused before it ran (E_UNSANDBOXED)');
    expect(attemptOf(command({ reverted: true, code: 'E_CONSTRAINT' }).event)?.why).toContain('put back');
    expect(attemptOf(command({ put_back: ['.claude/settings.json'] }).event)?.why).toContain('.claude/settings.json');
    expect(attemptOf(command({ exit_code: 1, paths: [], output: 'make: *** Error 1' }).event)).toBeNull();
    // Changes put back do not count as changed.
    expect(summarize([command({ reverted: true })]).usage[0]?.used).toBe(0);
  });
});

describe('cards: each id once, undo to here, local time with the date once', () => {
  it('a step shows its id once, in the command that undoes back to it; the session id is not repeated on the card', () => {
    for (const md of [renderMarkdown(input([edit()])), renderHtml(input([edit()]))]) {
      const timeline = md.slice(md.indexOf('Timeline'));
      expect(timeline.split('cp-edit')).toHaveLength(2);
      expect(timeline).toContain('editwarden undo --to cp-edit');
      expect(timeline).not.toContain('s-1');
    }
  });

  it('a step undone later says by which event; the undo of a scope step is in the scope though a person ran it', () => {
    const undo = item({ route: { via: 'cli' }, kind: 'undo', label: "claude Bash: sed -i 's/a/b/' a.txt", written: ['a.txt'], removed: [], paths: ['a.txt'], undoes: ['cp-sed'], checkpoint: 'cp-safety' });
    const other = item({ route: { via: 'cli' }, kind: 'undo', label: 'other', written: [], removed: [], undoes: ['elsewhere'] });
    const scoped = eventsInScope([edit().event, command().event, undo.event, other.event], { session: 's-1' });
    expect(scoped.map((e) => e.kind)).toEqual(['edit', 'command', 'undo']);
    const cards = cardsOf(
      scoped.map((event) => ({ event, diff: null })),
      { kind: 'session', id: 's-1' },
      clockFor('UTC'),
    );
    expect(cards[1]).toMatchObject({ undoneBy: 3, undoTo: 'editwarden undo --to cp-sed' });
    expect(cards[2]).toMatchObject({ look: 'undo', undoTo: null });
    expect(renderMarkdown(input(scoped.map((event) => ({ event, diff: null }))))).toContain('Undone by #3');
  });

  it('times are on the given clock to the second; the date is said once, and again where the day changes', () => {
    const late = edit({ time: '2026-11-26T23:30:00.000Z', checkpoint: 'cp-2' });
    const md = renderMarkdown(input([edit(), late], { timeZone: 'Europe/Berlin' }));
    expect(md).toContain('2026-11-26, 13:00:00 → 00:30:00 (Europe/Berlin, UTC+1)');
    expect(md).toContain('**2026-11-27**');
    expect(md).not.toMatch(/\d{2}:\d{2}:\d{2}\.\d{3}|T12:00/);
    expect(md.split('2026-11-26')).toHaveLength(2);
    const html = renderHtml(input([edit(), late], { timeZone: 'Europe/Berlin' }));
    expect(html).toContain('<li class="date">2026-11-27</li>');
  });
});

describe('what changed comes first, then the timeline', () => {
  it('the net change per file, with its diff, precedes the timeline in both formats', () => {
    const net: ReportInput['net'] = [
      { path: 'notes.txt', change: 'modified', added: 1, removed: 1, diff: '--- a/notes.txt\n+++ b/notes.txt\n@@ -1 +1 @@\n-colour\n+color\n' },
      { path: 'gone.txt', change: 'deleted', added: 0, removed: 1, diff: null },
      { path: 'a.txt', change: 'unchanged', added: 0, removed: 0, diff: null },
    ];
    for (const out of [renderMarkdown(input([edit()], { net })), renderHtml(input([edit()], { net }))]) {
      const changed = out.indexOf('What changed since the start of the session');
      expect(changed).toBeGreaterThan(0);
      expect(out.indexOf('+color')).toBeGreaterThan(changed);
      expect(out.indexOf('+color')).toBeLessThan(out.indexOf('Timeline'));
      expect(out).toContain('back as it was');
      expect(out).toMatch(/deleted/);
    }
    expect(renderMarkdown(input([edit()], { net: { unavailable: 'no checkpoints' } }))).toContain('Not available: no checkpoints');
  });

  it("an undo event says what it was (a command's put-back, a rollback, a recovery), not just 'undo'", () => {
    const putBack = item({ route: session, kind: 'undo', action: 'put-back', label: 'put-back of claude Bash: seq 1 1000 > n.txt', written: [], removed: ['n.txt'], paths: ['n.txt'], checkpoint: 'cp-pb', step: 'cp-pb' });
    const [card] = cardsOf([putBack], { kind: 'session', id: 's-1' }, clockFor('UTC'));
    expect(card?.facts[0]).toEqual({ label: 'Put back', parts: [{ text: 'put-back of claude Bash: seq 1 1000 > n.txt' }] });
    expect(renderMarkdown(input([putBack]))).toContain('- **Put back:** put-back of claude Bash');
  });

  it('a kind this version does not know is shown as what it is, not dropped', () => {
    const restore = item({ route: session, kind: 'put-back', paths: ['x.txt'] });
    const md = renderMarkdown(input([restore]));
    expect(md).toContain('### 1. put-back — x.txt');
    expect(md).toContain('`x.txt`');
    expect(renderHtml(input([restore]))).toContain('<span class="kind">put-back</span>');
    expect(summarize([restore]).counts).toEqual({ 'put-back': 1 });
  });
});

describe('what the log cut or rotated away is said, not hidden', () => {
  it('a path list the log cut counts what it held, and the card says where the whole list is; an event from the index says so', () => {
    const blob = 'a'.repeat(64);
    const flood = command({ paths: ['d/1', 'd/2', 'd/3'], cut: { paths: { total: 9500, blob } }, changes: { added: 9500, removed: 0 } });
    expect(summarize([flood]).usage[0]?.used).toBe(9500);
    expect(eventLine(flood.event).text).toContain('changed d/1, d/2, d/3 and 9497 more');
    const [card] = cardsOf([flood, item({ route: session, kind: 'refusal', tool: 'Bash', code: 'E_X', message: 'm', hint: 'h', indexed: true })], { kind: 'session', id: 's-1' }, clockFor('UTC'));
    expect(card?.facts.find((f) => f.label === 'Paths')?.parts).toEqual([{ text: '9500 in all, the first 3 shown' }, { text: '; the whole list: ' }, { code: `.editwarden/events-diffs/${blob}.list` }]);
    const md = renderMarkdown(input([flood, item({ route: session, kind: 'refusal', tool: 'Bash', code: 'E_X', message: 'm', hint: 'h', indexed: true })]));
    expect(md).toContain('in the index of a rotated log only');
  });
});

describe('long diffs', () => {
  it('Markdown cuts a diff at MD_DIFF_MAX_LINES and says so; HTML keeps every line', () => {
    const diff = `--- a/x\n+++ b/x\n@@ -1 +1,1000 @@\n${Array.from({ length: 1000 }, (_, i) => `+line ${i}`).join('\n')}\n`;
    const big = input([item({ route: session, kind: 'edit', tool: 'Edit', paths: ['x'], added: 1000, removed: 0 }, diff)]);
    const md = renderMarkdown(big);
    expect(md).toContain(`+line ${MD_DIFF_MAX_LINES - 4}`);
    expect(md).not.toContain('+line 999');
    expect(md).toMatch(/… \d+ more lines/);
    expect(renderHtml(big)).toContain('+line 999');
  });
});
