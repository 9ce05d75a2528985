/**
 * Publishing editwarden's records for a CI artifact (`editwarden publish`,
 * the GitHub Action's report step): what editwarden wrote, copied through
 * its own validated readers into a folder of the caller's, and nothing else.
 *
 * What it copies, into `<out>/state/` (the layout of `.editwarden/`):
 *   - `events.jsonl`: every event the reader accepts (the rotation index's
 *     compact copies, then the kept generations), written anew one per line
 *     — never the log's bytes, so a line that is not an event never leaves;
 *   - `events-diffs/`: the side files those events name, each checked
 *     against its sha256 by the reader;
 *   - `runs/<id>/`: of each run the events name, its records (metrics.json,
 *     calls.jsonl, transcript.jsonl, *.md) and the folders and files its
 *     events point to (a command's logs, a violation report).
 * Files older than `since` (written before this run) are left out.
 *
 * Attacks it defends against (a pull request's checkout, or a process the
 * run started, planting files in the state folder): a link to `.git/config`
 * or `/proc/self/environ` (every folder opened without following a link,
 * every file O_NOFOLLOW), a hard link to a secret (a file with a second name
 * is left out), a FIFO (O_NONBLOCK, regular files only: nothing blocks), a
 * 1 GiB sparse file (a size cap per file and for the whole), a name
 * climbing out (`..`: only plain names under `runs/`), another user's file.
 * It never copies the environment, `.git/`, or anything outside the state
 * folder, and writes only inside `out` (created fresh, files created
 * exclusively).
 */
import fs from 'node:fs';
import path from 'node:path';
import { Resolver, type DirHandle } from '../workspace/resolver.js';
import { STATE_DIR } from '../workspace/paths.js';
import { StateFolder } from '../workspace/state-dir.js';
import type { EditwardenEvent } from './event-types.js';
import { LIST_FIELDS } from './events-cap.js';
import { DIFFS_DIR, EVENTS_FILE } from './event-lines.js';
import { readEventDiff, readEventList, readEvents } from './events-read.js';
import { appendAll } from '../arrays.js';

/** Largest record copied (a command's log past it is left out, with a note). */
const FILE_MAX = 8 * 1024 * 1024;
/** Largest artifact: the rest is left out, with a note. */
const TOTAL_MAX = 128 * 1024 * 1024;
/** A run's own records, by name. */
const RUN_RECORDS = /^(?:metrics\.json|calls\.jsonl|transcript\.jsonl|[\w.-]+\.md)$/;
/** A run id, a command's number, a record's name: plain names only. */
const PLAIN = /^[\w][\w.-]{0,127}$/;

export interface PublishOptions {
  /** The project root (its state folder is `<root>/.editwarden`). */
  root: string;
  /** A folder that does not exist yet, or is empty: everything is written inside it. */
  out: string;
  /** Only what was written at or after this time (the run's start). */
  since?: Date | undefined;
}

export interface Published {
  events: number;
  refusals: number;
  violations: number;
  /** Files written, relative to `out`. */
  files: string[];
  /** What was left out, and why (state-relative names, never content). */
  left_out: Array<{ path: string; why: string }>;
  /** What reading the log skipped (events-read.ts notes). */
  notes: string[];
}

/** Copies the records editwarden wrote in `root` into `out`; see the module comment for what and how. */
export function publishRecords(options: PublishOptions): Published {
  const root = fs.realpathSync(options.root);
  const stateDir = path.join(root, STATE_DIR);
  prepareOut(options.out);
  const out: Published = { events: 0, refusals: 0, violations: 0, files: [], left_out: [], notes: [] };
  const budget = { left: TOTAL_MAX };
  const written = new Set<string>();
  const write = (rel: string, data: Buffer | string): void => {
    // A folder named twice (a run's commands, and an event's logs in it) is copied once.
    if (written.has(rel)) return;
    written.add(rel);
    const bytes = typeof data === 'string' ? Buffer.from(data, 'utf8') : data;
    if (bytes.length > budget.left) {
      out.left_out.push({ path: rel, why: `the artifact's ${TOTAL_MAX} bytes are spent` });
      return;
    }
    budget.left -= bytes.length;
    const target = path.join(options.out, 'state', ...rel.split('/'));
    fs.mkdirSync(path.dirname(target), { recursive: true });
    fs.writeFileSync(target, bytes, { flag: 'wx' });
    out.files.push(`state/${rel}`);
  };

  const log = readEvents(stateDir);
  appendAll(out.notes, log.notes);
  const since = options.since?.getTime();
  const events = since === undefined ? log.events : log.events.filter((e) => Date.parse(e.time) >= since);
  out.events = events.length;
  out.refusals = events.filter((e) => e.kind === 'refusal').length;
  out.violations = events.filter((e) => e.kind === 'violation').length;
  if (events.length > 0) write(EVENTS_FILE, events.map((e) => `${JSON.stringify(e)}\n`).join(''));
  copySideFiles(stateDir, events, write, out);
  const resolver = fs.existsSync(stateDir) ? new Resolver(root) : null;
  if (resolver) for (const rel of referencedRecords(root, stateDir, events)) copyRecord(resolver, rel, since, write, out);
  return out;
}

function prepareOut(out: string): void {
  fs.mkdirSync(out, { recursive: true });
  if (fs.readdirSync(out).includes('state')) throw new Error(`${out}/state already exists; publish writes into a fresh folder`);
}

/** The diffs and whole lists the events name, read back through the hash-checking readers. */
function copySideFiles(stateDir: string, events: readonly EditwardenEvent[], write: (rel: string, data: string) => void, out: Published): void {
  const done = new Set<string>();
  for (const event of events) {
    const blob = (event as { diff_blob?: string }).diff_blob;
    if (blob !== undefined && !done.has(blob)) {
      done.add(blob);
      keep(out, `${DIFFS_DIR}/${blob}.diff`, () => {
        const diff = readEventDiff(stateDir, event as { diff_blob: string });
        if (diff !== null) write(`${DIFFS_DIR}/${blob}.diff`, diff);
      });
    }
    for (const field of LIST_FIELDS) {
      const id = event.cut?.[field]?.blob;
      if (id === undefined || done.has(id)) continue;
      done.add(id);
      keep(out, `${DIFFS_DIR}/${id}.list`, () => {
        const list = readEventList(stateDir, event, field);
        if (list !== null) write(`${DIFFS_DIR}/${id}.list`, JSON.stringify(list));
      });
    }
  }
}

function keep(out: Published, rel: string, fn: () => void): void {
  try {
    fn();
  } catch (error) {
    out.left_out.push({ path: rel, why: (error as Error).message.replace(/\s+/g, ' ').slice(0, 300) });
  }
}

/** State-relative names of the records the events name: each run's folder, the paths in `artifacts` and `report`, under `runs/` only. */
function referencedRecords(root: string, stateDir: string, events: readonly EditwardenEvent[]): string[] {
  const rels = new Set<string>();
  for (const event of events) {
    if (event.route.run !== undefined && PLAIN.test(event.route.run)) rels.add(`runs/${event.route.run}`);
    for (const named of [(event as { artifacts?: unknown }).artifacts, (event as { report?: unknown }).report]) {
      if (typeof named !== 'string') continue;
      const rel = path.relative(stateDir, path.resolve(root, named)).split(path.sep);
      // Only what lies in the state folder's runs/, by plain names (never `..`, never another folder of the state).
      if (rel[0] === 'runs' && rel.length >= 2 && rel.length <= 5 && rel.every((part) => PLAIN.test(part))) rels.add(rel.join('/'));
    }
  }
  return [...rels].sort();
}

/** Copies one record (a file) or one folder's records (its regular files, and one level of sub-folders for a run's commands). */
function copyRecord(resolver: Resolver, rel: string, since: number | undefined, write: (rel: string, data: Buffer) => void, out: Published): void {
  const parts = rel.split('/');
  const name = parts.pop() as string;
  const parent = new StateFolder(resolver, parts.join('/'));
  keep(out, rel, () =>
    parent.with(false, undefined, (dir) => {
      const child = dir.openChild(name);
      if (child === null) {
        copyFile(dir, name, rel, since, write, out);
        return;
      }
      try {
        copyFolder(child, rel, parts.length === 1, since, write, out);
      } finally {
        child.close();
      }
    }),
  );
}

function copyFolder(dir: DirHandle, rel: string, isRun: boolean, since: number | undefined, write: (rel: string, data: Buffer) => void, out: Published): void {
  for (const name of fs.readdirSync(dir.self).sort()) {
    const childRel = `${rel}/${name}`;
    if (!PLAIN.test(name)) continue;
    if (isRun && name === 'commands') {
      // A run's command logs: one folder per command.
      const commands = dir.openChild(name);
      if (commands === null) continue;
      try {
        for (const n of fs.readdirSync(commands.self).sort()) {
          const one = PLAIN.test(n) ? commands.openChild(n) : null;
          if (one === null) continue;
          try {
            copyFolder(one, `${childRel}/${n}`, false, since, write, out);
          } finally {
            one.close();
          }
        }
      } finally {
        commands.close();
      }
      continue;
    }
    if (isRun && !RUN_RECORDS.test(name)) continue;
    copyFile(dir, name, childRel, since, write, out);
  }
}

/** One file, if it is editwarden's: a regular file of this user with one name, not a link, small enough, written by this run. */
function copyFile(dir: DirHandle, name: string, rel: string, since: number | undefined, write: (rel: string, data: Buffer) => void, out: Published): void {
  let fd: number;
  try {
    // O_NOFOLLOW: `violation.md -> ../../../.git/config` is not followed; O_NONBLOCK: a FIFO opens at once, then is refused.
    fd = fs.openSync(dir.at(name), fs.constants.O_RDONLY | fs.constants.O_NOFOLLOW | fs.constants.O_NONBLOCK);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') return;
    out.left_out.push({ path: rel, why: code === 'ELOOP' ? 'a symlink' : `not readable (${code})` });
    return;
  }
  try {
    const st = fs.fstatSync(fd);
    const uid = typeof process.getuid === 'function' ? process.getuid() : null;
    const why = !st.isFile()
      ? 'not a regular file'
      : uid !== null && st.uid !== uid
        ? `another user's (${st.uid})`
        : st.nlink > 1
          ? // A hard link to `.git/config` is a regular file of this user; editwarden's records have one name.
            `a hard link (${st.nlink} names)`
          : st.size > FILE_MAX
            ? `${st.size} bytes, over the ${FILE_MAX} bytes a record may have`
            : since !== undefined && st.mtimeMs < since
              ? 'written before this run'
              : null;
    if (why !== null) {
      out.left_out.push({ path: rel, why });
      return;
    }
    const data = Buffer.alloc(st.size);
    let got = 0;
    while (got < st.size) {
      const n = fs.readSync(fd, data, got, st.size - got, got);
      if (n === 0) break;
      got += n;
    }
    write(rel, data.subarray(0, got));
  } finally {
    fs.closeSync(fd);
  }
}
