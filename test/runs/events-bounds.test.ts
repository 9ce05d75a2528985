/**
 * The event log cannot be flooded or blinded (issue 38.4): every line is
 * capped, a dropped generation leaves its evidence in the rotation index,
 * the side files stay within their budget.
 */
import fs from 'node:fs';
import path from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { EVENT_LINE_MAX, openLogFile, walkLines } from '../../src/runs/event-lines.js';
import { capEvent, compactEvent, cutText, encodedLength, EVENT_CAPS, LIST_FIELDS } from '../../src/runs/events-cap.js';
import { INDEX_FILE, keptInIndex } from '../../src/runs/events-index.js';
import { appendEvent, DIFFS_DIR, EVENTS_FILE, type EditwardenEvent, type NewEvent } from '../../src/runs/events.js';
import { readEventList, readEvents } from '../../src/runs/events-read.js';
import { tempDir } from '../temp-dirs.js';

function stateDir(): string {
  return path.join(tempDir('ew-events-'), '.editwarden');
}

const deep = `${'very-deep-folder/'.repeat(40)}`;
const manyFiles = (n: number, prefix = deep): string[] => Array.from({ length: n }, (_, i) => `${prefix}f${i}.txt`);
const command = (paths: string[], cmd = 'for i in $(seq 1 9500); do touch f$i; done', removed = 0): NewEvent => ({
  kind: 'command',
  route: { via: 'mcp', session: 's1' },
  tool: 'execute_command',
  command: cmd,
  exit_code: 0,
  paths,
  changes: { added: 0, removed },
});
const rmImportant: NewEvent = { ...command(['important.txt'], 'rm important.txt', 3) };

describe('each event has a size cap: long lists keep their first entries and a count, the whole list is a checked side file', () => {
  it('a command creating 9,500 files under a deep folder writes one small line (not ~35 MiB), and the whole list reads back', () => {
    const dir = stateDir();
    const paths = manyFiles(9500);
    const written = appendEvent(dir, command(paths));
    expect(fs.statSync(path.join(dir, EVENTS_FILE)).size).toBeLessThan(EVENT_LINE_MAX);
    expect(written.paths.length).toBeLessThan(100);
    expect(written.paths).toEqual(paths.slice(0, written.paths.length));
    expect(written.cut?.paths).toMatchObject({ total: 9500, blob: expect.stringMatching(/^[0-9a-f]{64}$/) });
    // Under a folder 680 bytes deep the whole list passes a side file's 4 MiB: the side file keeps its start and says how many.
    const kept = written.cut?.paths?.blob_entries as number;
    expect(kept).toBeGreaterThan(5000);
    const [event] = readEvents(dir).events;
    expect(readEventList(dir, event as EditwardenEvent, 'paths')).toEqual(paths.slice(0, kept));
  });

  it('a list that fits a side file reads back whole; a side file swapped for another list is refused', () => {
    const dir = stateDir();
    const paths = manyFiles(9500, 'out/');
    const written = appendEvent(dir, command(paths));
    expect(written.cut?.paths).toEqual({ total: 9500, blob: expect.stringMatching(/^[0-9a-f]{64}$/) });
    const [event] = readEvents(dir).events;
    expect(readEventList(dir, event as EditwardenEvent, 'paths')).toEqual(paths);
    fs.writeFileSync(path.join(dir, DIFFS_DIR, `${written.cut?.paths?.blob}.list`), JSON.stringify(['other']));
    expect(() => readEventList(dir, event as EditwardenEvent, 'paths')).toThrow(expect.objectContaining({ code: 'E_UNTRUSTED_STATE' }));
  });

  it('a 1 MiB command line and an oversized session id are cut with a note of how much', () => {
    const dir = stateDir();
    const long = `echo ${'x'.repeat(1024 * 1024)}`;
    const written = appendEvent(dir, { ...command([], long), route: { via: 'hook', client: 'claude', session: 's'.repeat(100_000) } });
    expect(written.kind === 'command' && written.command).toMatch(/^echo x+… \[\d+ more characters cut\]$/);
    expect(written.cut?.texts).toEqual(expect.arrayContaining(['command', 'route.session']));
    expect(fs.statSync(path.join(dir, EVENTS_FILE)).size).toBeLessThan(EVENT_LINE_MAX);
  });

  it('any event, however long its lists and texts, fits the line cap; counts, numbers and kept entries are the originals (property)', () => {
    const text = fc.string({ unit: fc.constantFrom('a', '"', '\\', '\u0000', 'é', '😀', '\n'), maxLength: 3000 });
    fc.assert(
      fc.property(
        fc.record({ paths: fc.array(text, { maxLength: 300 }), command: text, message: text, hint: text, session: text, written: fc.array(text, { maxLength: 200 }), removed: fc.array(text, { maxLength: 200 }) }),
        fc.nat(),
        (r, n) => {
          const big = (s: string): string => s.repeat(1 + (n % 5));
          const event: NewEvent = { kind: 'undo', route: { via: 'cli', session: big(r.session) }, paths: r.paths, label: big(r.command), written: r.written, removed: r.removed, undoes: r.written, left: r.removed };
          const { event: capped, lists } = capEvent(event);
          expect(Buffer.byteLength(JSON.stringify({ v: 1, time: new Date().toISOString(), ...capped }))).toBeLessThanOrEqual(EVENT_LINE_MAX);
          for (const field of LIST_FIELDS) {
            const given = (event as unknown as Record<string, string[] | undefined>)[field];
            const kept = (capped as unknown as Record<string, string[] | undefined>)[field];
            if (given === undefined) {
              expect(kept).toBeUndefined();
              continue;
            }
            expect(kept).toEqual(given.slice(0, kept?.length));
            if ((kept as string[]).length < given.length) {
              expect(capped.cut?.[field]?.total).toBe(given.length);
              expect(lists.find((l) => l.field === field)?.full).toEqual(given);
            } else expect(capped.cut?.[field]).toBeUndefined();
          }
        },
      ),
      { numRuns: 60 },
    );
  });

  it('cutText keeps a prefix, never splits a character, and fits the cap (property)', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'grapheme', maxLength: 400 }), fc.integer({ min: 40, max: 600 }), (s, max) => {
        const cut = cutText(s, max);
        if (cut === s) expect(encodedLength(s)).toBeLessThanOrEqual(max);
        else {
          const kept = cut.slice(0, cut.lastIndexOf('… ['));
          expect(s.startsWith(kept)).toBe(true);
          expect(Buffer.from(kept, 'utf8').toString('utf8')).toBe(kept);
          expect(encodedLength(cut)).toBeLessThanOrEqual(max);
        }
      }),
    );
  });
});

describe('rotation keeps, for every dropped generation, an index of its sessions, refusals, violations, deletions and undo steps', () => {
  it('three large commands no longer rotate the earlier `rm important.txt` out of sight: it is listed (from the index) with its session', () => {
    const dir = stateDir();
    const options = { maxBytes: 20_000, keep: 1 };
    appendEvent(dir, { kind: 'refusal', route: { via: 'hook', client: 'claude', session: 'early' }, tool: 'Edit', paths: ['.git/config'], code: 'E_DENIED_PATH', message: 'denied', hint: 'leave it' }, options);
    appendEvent(dir, { ...rmImportant, route: { via: 'hook', client: 'claude', session: 'early' } }, options);
    for (let i = 0; i < 30; i++) appendEvent(dir, command(manyFiles(2300, `${deep}${i}/`)), options);
    const log = readEvents(dir);
    // The generations that held them are gone…
    expect(fs.readdirSync(dir).filter((n) => /^events(\.\d+)?\.jsonl$/.test(n))).toHaveLength(2);
    // …but the index lists them, compact, in order, before the kept events.
    const rm = log.events.find((e) => e.kind === 'command' && e.command === 'rm important.txt');
    expect(rm).toMatchObject({ indexed: true, paths: ['important.txt'], route: { session: 'early' } });
    expect(log.events.find((e) => e.kind === 'refusal')).toMatchObject({ indexed: true, code: 'E_DENIED_PATH' });
    expect(log.events.indexOf(rm as EditwardenEvent)).toBeLessThan(log.events.findIndex((e) => e.indexed !== true));
    // Each dropped generation is counted, with its sessions.
    const total = log.dropped.reduce((n, g) => n + g.events, 0);
    expect(total + log.events.filter((e) => e.indexed !== true).length).toBe(32);
    expect(log.dropped.flatMap((g) => g.sessions.map((s) => s.route.session))).toContain('early');
    expect(log.dropped[0]?.kinds).toMatchObject({ refusal: 1, command: expect.any(Number) });
  });

  it('the index lists what a person must still see, and only counts the rest', () => {
    const base = { v: 1 as const, time: new Date().toISOString(), route: { via: 'x' } };
    expect(keptInIndex({ ...base, kind: 'edit', tool: 'edit_file', paths: ['a'], added: 3, removed: 1 })).toBe(false);
    expect(keptInIndex({ ...base, kind: 'edit', tool: 'edit_file', paths: ['a'], added: 1, removed: 3 })).toBe(true);
    expect(keptInIndex({ ...base, kind: 'command', tool: 'x', command: 'rm pic.png', exit_code: 0, paths: ['pic.png'], changes: { added: 0, removed: 0 } })).toBe(true);
    expect(keptInIndex({ ...base, kind: 'command', tool: 'x', command: 'make', exit_code: 0, paths: ['out.txt'], changes: { added: 5, removed: 0 } })).toBe(false);
    expect(keptInIndex({ ...base, kind: 'checkpoint', paths: [], label: 'x' })).toBe(false);
    expect(keptInIndex({ ...base, kind: 'undo', paths: [], label: 'x', written: [], removed: [] })).toBe(true);
  });

  it('a compact copy drops the diff and side files but keeps the totals', () => {
    const capped = capEvent({ ...command(manyFiles(500), 'rm -rf big', 500), v: 1, time: new Date().toISOString() } as EditwardenEvent).event;
    const small = compactEvent({ ...capped, cut: { ...capped.cut, paths: { total: 500, blob: 'a'.repeat(64) } }, diff_blob: 'b'.repeat(64) } as EditwardenEvent);
    expect(small).toMatchObject({ indexed: true, cut: { paths: { total: 500 } } });
    expect(JSON.stringify(small)).not.toMatch(/blob/);
    expect(small.paths.length).toBeLessThanOrEqual(5);
  });

  it('a damaged index line is skipped with a note; the index cannot plant a full event (only compact copies are read from it)', () => {
    const dir = stateDir();
    for (let i = 0; i < 20; i++) appendEvent(dir, rmImportant, { maxBytes: 500, keep: 1 });
    fs.appendFileSync(path.join(dir, INDEX_FILE), `not json\n${JSON.stringify({ ...rmImportant, v: 1, time: new Date().toISOString() })}\n`);
    const log = readEvents(dir);
    expect(log.notes).toEqual([expect.stringContaining('2 line(s) that are not index entries were skipped')]);
    expect(log.events.filter((e) => e.indexed).length).toBeGreaterThan(0);
  });
});

describe('the side files stay within their budget', () => {
  it('a flood of large lists deletes the oldest events’ side files first, never their lines', () => {
    const dir = stateDir();
    const options = { sideFilesMax: 400_000 };
    for (let i = 0; i < 20; i++) appendEvent(dir, command(manyFiles(300, `${deep}${i}/`)), options);
    const sizes = fs.readdirSync(path.join(dir, DIFFS_DIR)).map((n) => fs.statSync(path.join(dir, DIFFS_DIR, n)).size);
    const one = Math.max(...sizes);
    expect(sizes.reduce((a, b) => a + b, 0)).toBeLessThanOrEqual(400_000 + one);
    const events = readEvents(dir).events;
    expect(events).toHaveLength(20);
    // The newest keeps its whole list; the oldest has lost its side file (and says how many it held).
    expect(readEventList(dir, events.at(-1) as EditwardenEvent, 'paths')).toHaveLength(300);
    expect(readEventList(dir, events[0] as EditwardenEvent, 'paths')).toBeNull();
    expect(events[0]?.cut?.paths?.total).toBe(300);
  });

  it('caps fit under the line cap with room for an inline diff', () => {
    const worst = EVENT_CAPS.listBytes * LIST_FIELDS.length + Object.values(EVENT_CAPS.texts).reduce((a, b) => a + b, 0) + EVENT_CAPS.texts.default * 12 + EVENT_CAPS.routeText * 4 + 16 * 1024;
    expect(worst).toBeLessThan(EVENT_LINE_MAX);
  });
});

describe('the line walker reads what a split on newlines reads, in bounded memory', () => {
  it('any bytes, any slice size, any caps: the lines up to the cap, over-long ones and the unread tail counted (property)', () => {
    const dir = tempDir('ew-lines-');
    let n = 0;
    fc.assert(
      fc.property(
        fc.array(fc.oneof(fc.string({ unit: fc.constantFrom('a', 'é', '\n', '{', '\u0000'), maxLength: 40 }), fc.constant('\n')), { maxLength: 30 }),
        fc.integer({ min: 1, max: 17 }),
        fc.integer({ min: 1, max: 30 }),
        fc.integer({ min: 0, max: 400 }),
        (parts, slice, lineMax, fileMax) => {
          const text = parts.join('');
          const file = path.join(dir, `f${n++}`);
          fs.writeFileSync(file, text);
          const opened = openLogFile(file);
          if (opened === null) throw new Error('missing');
          const seen: Array<[string, number]> = [];
          let walk: ReturnType<typeof walkLines>;
          try {
            walk = walkLines(opened, (line, no) => seen.push([line, no]), { slice, lineMax, fileMax });
          } finally {
            fs.closeSync(opened.fd);
          }
          const bytes = Buffer.from(text, 'utf8');
          const read = bytes.subarray(0, Math.min(bytes.length, fileMax));
          // The reference: a plain split of the bytes read on newlines.
          const lines: Buffer[] = [];
          let start = 0;
          for (let i = read.indexOf(0x0a); i !== -1; i = read.indexOf(0x0a, start)) {
            lines.push(read.subarray(start, i));
            start = i + 1;
          }
          const last = read.subarray(start);
          const numbered = lines.map((l, i) => ({ l, no: i + 1 }));
          expect(seen.map(([l, no]) => [l, no])).toEqual(numbered.filter(({ l }) => l.length <= lineMax).map(({ l, no }) => [l.toString('utf8'), no]));
          expect(walk.unread).toBe(bytes.length - read.length);
          expect(walk.oversized).toEqual([...numbered.filter(({ l }) => l.length > lineMax).map(({ no }) => no), ...(last.length > lineMax ? [lines.length + 1] : [])]);
          expect(walk.unfinished).toBe(last.length > 0 && last.length <= lineMax);
          fs.rmSync(file);
        },
      ),
      { numRuns: 300 },
    );
  });
});
