import { execFile, spawnSync } from 'node:child_process';
import { promisify } from 'node:util';
import fs from 'node:fs';
import path from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { appendEvent, DIFFS_DIR, EVENTS_FILE, INLINE_DIFF_MAX, type NewEvent } from '../../src/runs/events.js';
import { parseEventLine, readEventDiff, readEvents } from '../../src/runs/events-read.js';
import { tempDir } from '../temp-dirs.js';

const run = promisify(execFile);

function stateDir(): string {
  return path.join(tempDir('ew-events-'), '.editwarden');
}

const edit = (n: number, diff = `--- a/f.txt\n+++ b/f.txt\n@@ -1 +1 @@\n-old ${n}\n+new ${n}\n`): NewEvent => ({
  kind: 'edit',
  route: { via: 'exec', run: '20261126T000000Z-abcdef' },
  tool: 'edit_file',
  paths: ['f.txt'],
  added: 1,
  removed: 1,
  diff,
});
const refusal: NewEvent = { kind: 'refusal', route: { via: 'hook', client: 'claude', session: 's1' }, tool: 'Edit', paths: ['.git/config'], code: 'E_DENIED_PATH', message: 'denied', hint: 'leave it' };

describe('the event log is one JSON object per line, read back oldest first', () => {
  it('appends events and reads them back with time, version and every field', () => {
    const dir = stateDir();
    appendEvent(dir, edit(1));
    appendEvent(dir, refusal);
    const log = readEvents(dir);
    expect(log.events.map((e) => e.kind)).toEqual(['edit', 'refusal']);
    expect(log.events[0]).toMatchObject({ v: 1, tool: 'edit_file', paths: ['f.txt'], diff: expect.stringContaining('+new 1') });
    expect(log.events[1]).toMatchObject({ code: 'E_DENIED_PATH', route: { client: 'claude', session: 's1' } });
    expect(Date.parse(log.events[0]?.time ?? '')).not.toBeNaN();
    const lines = fs.readFileSync(path.join(dir, EVENTS_FILE), 'utf8').split('\n');
    expect(lines).toHaveLength(3);
    expect(lines[2]).toBe('');
    // The state folder is ignored by git from its first use.
    expect(fs.existsSync(path.join(dir, '.gitignore'))).toBe(true);
  });

  it('a missing state folder is an empty log', () => {
    expect(readEvents(stateDir()).events).toEqual([]);
  });

  it('concurrent writers never interleave inside a line (4 processes × 200 events)', async () => {
    const dir = stateDir();
    fs.mkdirSync(dir);
    // The built module (test/global-setup.ts rebuilds dist/ when src/ is newer).
    const script = `import { appendEvent } from ${JSON.stringify(path.resolve(__dirname, '../../dist/runs/events.js'))};
for (let i = 0; i < 200; i++) appendEvent(process.argv[2], { kind: 'checkpoint', route: { via: 'cli', session: process.argv[3] }, paths: [], label: 'x'.repeat(3000) + i });`;
    const file = path.join(path.dirname(dir), 'writer.mjs');
    fs.writeFileSync(file, script);
    // Started together, so they append at the same time.
    const kids = await Promise.all([0, 1, 2, 3].map((k) => run(process.execPath, [file, dir, `w${k}`])));
    for (const k of kids) expect(k.stderr).toBe('');
    const log = readEvents(dir);
    expect(log.events).toHaveLength(800);
    expect(log.torn).toBe(0);
  }, 60_000);
});

describe('a writer killed mid-line leaves one torn line, which is skipped; any other bad line is skipped with a note, never a refusal of the log', () => {
  it('skips a torn last line', () => {
    const dir = stateDir();
    appendEvent(dir, edit(1));
    fs.appendFileSync(path.join(dir, EVENTS_FILE), '{"v":1,"time":"2026-');
    const log = readEvents(dir);
    expect(log.events).toHaveLength(1);
    expect(log.torn).toBe(1);
  });

  it('the next writer starts a fresh line after a torn one and marks it, so the fragment is skipped', () => {
    const dir = stateDir();
    appendEvent(dir, edit(1));
    fs.appendFileSync(path.join(dir, EVENTS_FILE), '{"v":1,"kind":"ed');
    appendEvent(dir, edit(2));
    appendEvent(dir, edit(3));
    const log = readEvents(dir);
    expect(log.events.map((e) => (e.kind === 'edit' ? e.diff : ''))).toEqual([expect.stringContaining('new 1'), expect.stringContaining('new 2'), expect.stringContaining('new 3')]);
    expect(log.torn).toBe(1);
    expect(log.events[1]?.after_torn).toBe(true);
  });

  it('skips a line in the middle that is not an event, with a note naming the line (and never its content)', () => {
    const dir = stateDir();
    appendEvent(dir, edit(1));
    fs.appendFileSync(path.join(dir, EVENTS_FILE), '{"v":1,"kind":"edit","time":"x","secret":"hunter2"}\n');
    appendEvent(dir, edit(2));
    const log = readEvents(dir);
    expect(log.events.map((e) => e.kind === 'edit' && e.diff)).toEqual([expect.stringContaining('new 1'), expect.stringContaining('new 2')]);
    expect(log.notes).toEqual([expect.stringMatching(/line 2 is not an event editwarden wrote .*skipped/)]);
    expect(log.notes.join('')).not.toContain('hunter2');
  });

  it('skips a planted event of an unknown kind or a wrong field type', () => {
    const dir = stateDir();
    fs.mkdirSync(dir);
    fs.writeFileSync(path.join(dir, EVENTS_FILE), `${JSON.stringify({ v: 1, time: new Date().toISOString(), kind: 'edit', route: { via: 'x' }, paths: ['a'], tool: 't', added: '1', removed: 0 })}\n`);
    const log = readEvents(dir);
    expect(log.events).toEqual([]);
    expect(log.notes).toEqual([expect.stringContaining('line 1')]);
  });

  it('skips a line longer than any event editwarden writes (an older, uncapped 35 MiB event) and reads the rest', () => {
    const dir = stateDir();
    appendEvent(dir, edit(1));
    const huge = { ...edit(2), v: 1, time: new Date().toISOString(), paths: Array.from({ length: 30_000 }, (_, i) => `deep/${'d'.repeat(40)}/f${i}.txt`) };
    fs.appendFileSync(path.join(dir, EVENTS_FILE), `${JSON.stringify(huge)}\n`);
    appendEvent(dir, edit(3));
    const log = readEvents(dir);
    expect(log.events.map((e) => e.kind === 'edit' && /new (\d)/.exec(e.diff ?? '')?.[1])).toEqual(['1', '3']);
    expect(log.notes).toEqual([expect.stringMatching(/line 2 is longer than any event editwarden writes; skipped/)]);
  });

  it('parses only events: any line is an event or a reason (property)', () => {
    fc.assert(
      fc.property(fc.string(), (line) => {
        const parsed = parseEventLine(line);
        expect(typeof parsed === 'string' || (typeof parsed === 'object' && parsed.v === 1)).toBe(true);
      }),
    );
    fc.assert(
      fc.property(fc.record({ kind: fc.constantFrom('edit', 'refusal', 'command', 'violation', 'undo'), paths: fc.array(fc.string()) }), (partial) => {
        // Every kind needs its own fields: a base alone is never an event.
        expect(typeof parseEventLine(JSON.stringify({ v: 1, time: new Date().toISOString(), route: { via: 'x' }, ...partial }))).toBe('string');
      }),
    );
  });
});

describe('a planted log file is never followed, read or written: refused for writing, skipped with a note for reading', () => {
  it('a symlink in the log’s place: appending is refused, reading skips it, its target is never touched', () => {
    const dir = stateDir();
    fs.mkdirSync(dir);
    const outside = path.join(path.dirname(dir), 'outside.txt');
    fs.writeFileSync(outside, `${JSON.stringify({ ...edit(9), v: 1, time: new Date().toISOString() })}\n`);
    const before = fs.readFileSync(outside, 'utf8');
    fs.symlinkSync(outside, path.join(dir, EVENTS_FILE));
    expect(() => appendEvent(dir, edit(1))).toThrow(expect.objectContaining({ code: 'E_UNTRUSTED_STATE', message: expect.stringContaining('symlink') }));
    const log = readEvents(dir);
    expect(log.events).toEqual([]);
    expect(log.notes).toEqual([expect.stringContaining('is a symlink')]);
    expect(fs.readFileSync(outside, 'utf8')).toBe(before);
  });

  it('a FIFO and a folder in the log’s place: skipped without blocking', () => {
    const dir = stateDir();
    fs.mkdirSync(dir);
    expect(spawnSync('mkfifo', [path.join(dir, EVENTS_FILE)]).status).toBe(0);
    expect(readEvents(dir).notes).toEqual([expect.stringContaining('not a regular file')]);
    expect(() => appendEvent(dir, edit(1))).toThrow(expect.objectContaining({ code: 'E_UNTRUSTED_STATE' }));
    const other = stateDir();
    fs.mkdirSync(path.join(other, EVENTS_FILE), { recursive: true });
    expect(readEvents(other).notes).toEqual([expect.stringContaining('not a regular file')]);
  });

  it('a rotated generation that is a symlink or a hard link to a file elsewhere is skipped; the rest of the log is read', () => {
    const dir = stateDir();
    appendEvent(dir, edit(1));
    fs.symlinkSync('/etc/hostname', path.join(dir, 'events.2.jsonl'));
    const elsewhere = path.join(path.dirname(dir), 'config');
    fs.writeFileSync(elsewhere, `${JSON.stringify({ ...edit(7), v: 1, time: new Date().toISOString() })}\n`);
    fs.linkSync(elsewhere, path.join(dir, 'events.3.jsonl'));
    const log = readEvents(dir);
    expect(log.events).toHaveLength(1);
    expect(log.notes).toEqual([expect.stringContaining('has 2 names'), expect.stringContaining('is a symlink')]);
  });

  it('a log grown to 1 GiB (sparse): its events are read, the endless line of NULs skipped, the tail past the cap not read — with notes', () => {
    const dir = stateDir();
    appendEvent(dir, edit(1));
    fs.truncateSync(path.join(dir, EVENTS_FILE), 1024 ** 3);
    const log = readEvents(dir);
    expect(log.events).toHaveLength(1);
    expect(log.notes).toEqual([expect.stringContaining('line 2 is longer than any event'), expect.stringMatching(/the last \d+ bytes were not read/)]);
  });

  it('refuses a state folder that is a symlink', () => {
    const root = tempDir('ew-events-');
    fs.mkdirSync(path.join(root, 'elsewhere'));
    fs.symlinkSync(path.join(root, 'elsewhere'), path.join(root, '.editwarden'));
    expect(() => readEvents(path.join(root, '.editwarden'))).toThrow(expect.objectContaining({ code: 'E_UNTRUSTED_STATE' }));
    expect(() => appendEvent(path.join(root, '.editwarden'), edit(1))).toThrow(expect.objectContaining({ code: 'E_UNTRUSTED_STATE' }));
    expect(fs.readdirSync(path.join(root, 'elsewhere'))).toEqual([]);
  });
});

describe('the log is bounded: rotated at its size, generations beyond the kept number deleted', () => {
  it('rotates to events.1.jsonl … and keeps `keep` generations, reading all of them oldest first', () => {
    const dir = stateDir();
    const options = { maxBytes: 2000, keep: 2 };
    for (let i = 0; i < 60; i++) appendEvent(dir, edit(i), options);
    const names = fs.readdirSync(dir).filter((n) => /^events(\.\d+)?\.jsonl$/.test(n));
    expect(names.sort()).toEqual(['events.1.jsonl', 'events.2.jsonl', 'events.jsonl']);
    for (const n of names) expect(fs.statSync(path.join(dir, n)).size).toBeLessThan(2000 + 400);
    const read = readEvents(dir)
      .events.filter((e) => e.indexed !== true)
      .map((e) => (e.kind === 'edit' ? Number(/new (\d+)/.exec(e.diff ?? '')?.[1]) : -1));
    // The newest events, in order, with no gap; the oldest generations are gone.
    expect(read[read.length - 1]).toBe(59);
    expect(read).toEqual(read.map((_, i) => 60 - read.length + i));
    expect(read.length).toBeLessThan(60);
  });

  it('stores a long diff as a checked blob, and drops blobs no kept generation names at rotation', () => {
    const dir = stateDir();
    const big = `--- a/f\n+++ b/f\n@@ -1 +1 @@\n${'+x\n'.repeat(INLINE_DIFF_MAX)}`;
    const written = appendEvent(dir, edit(1, big));
    expect(written).toMatchObject({ diff_blob: expect.stringMatching(/^[0-9a-f]{64}$/) });
    expect(written).not.toHaveProperty('diff');
    expect(fs.statSync(path.join(dir, EVENTS_FILE)).size).toBeLessThan(1000);
    const [event] = readEvents(dir).events;
    expect(readEventDiff(dir, event as never)).toBe(big);
    // A blob swapped for other bytes is refused.
    const blob = path.join(dir, DIFFS_DIR, `${(written as { diff_blob: string }).diff_blob}.diff`);
    fs.writeFileSync(blob, 'tampered');
    expect(() => readEventDiff(dir, event as never)).toThrow(expect.objectContaining({ code: 'E_UNTRUSTED_STATE' }));
    fs.writeFileSync(blob, big);
    // Rotating twice past it with keep: 1 drops the blob.
    for (let i = 0; i < 40; i++) appendEvent(dir, edit(i), { maxBytes: 1500, keep: 1 });
    expect(fs.readdirSync(path.join(dir, DIFFS_DIR))).toEqual([]);
  });
});
