/**
 * What changed under a root since a moment, as the kernel saw it: an
 * inotify watch of every folder (inotify-helper.ts), kept by a process that
 * outlives one command (the warm server), asked synchronously.
 *
 * `sync()` is a barrier: the helper reads every event queued before the
 * request and answers with them; the answer's number is a mark. Every
 * change completed before `sync()` returned carries that mark or an earlier
 * one, and every later change a later one, so `changesSince(m)` after a
 * sync names every path changed since a capture that began after mark m's
 * sync — or says null: it cannot tell. It cannot tell when
 * - no helper runs (no python3, not Linux, it died, it was killed, it does not answer within the timeout),
 * - the kernel's queue overflowed (IN_Q_OVERFLOW, which this helper sees and fs.watch does not),
 * - a folder could not be watched (fs.inotify.max_user_watches reached: ENOSPC; no permission),
 * - the root itself was moved or removed, or too many paths changed to list,
 * for any mark before the answer that said so (a restart: before its first answer).
 * A caller that gets null walks the tree (the stat walk): never a wrong answer
 * from missing knowledge. What inotify itself cannot see is in docs/checkpoints.md
 * ("The watch"): writes through a shared memory mapping, and writes through a
 * hard link whose other name is outside the watched folders.
 */
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { systemProgram } from '../../sandbox/system-program.js';
import { STATE_DIR } from '../paths.js';
import { INOTIFY_HELPER } from './inotify-helper.js';

/** The paths events named since a mark: files and links (`paths`), folders that appeared, went or changed (`trees`). */
export interface WatchChanges {
  paths: ReadonlySet<string>;
  trees: ReadonlySet<string>;
}

export interface TreeWatchOptions {
  /** Root-relative folders not watched: ones no walk enters (rebuildable, ignored). The state folder is never watched. */
  skip?: readonly string[];
  /** The program and arguments the helper's `python3 -c …` is run under (a test runs it in a user namespace of its own). */
  launch?: { command: string; args: readonly string[] };
  /** How long a sync waits for the helper (ms): past it, that sync knows nothing. */
  timeoutMs?: number;
}

/** Why the last sync gave no mark, or what ended a helper: what `changesSince` said null for (tests, the bench, `doctor`). */
export type WatchLoss = 'no-helper' | 'scanning' | 'timeout' | 'overflow' | 'unwatched' | 'restart';

const DEFAULT_TIMEOUT_MS = 1000;
const sleeper = new Int32Array(new SharedArrayBuffer(4));

export class TreeWatch {
  private child: ChildProcess | null = null;
  private reqFd = -1;
  private repFd = -1;
  private pending: Buffer = Buffer.alloc(0);
  private exited = false;
  /** Requests sent, numbered; the last one answered. */
  private sent = 0;
  private answered = -1;
  /** Marks before this one cannot be told about (a loss, a restart); Infinity: nothing can (no helper). */
  private validFrom = Number.POSITIVE_INFINITY;
  /** The helper's first scan is done (its `R`): only then is it asked. */
  private ready = false;
  /** The last sync was answered: what `changesSince` reads is complete up to it. */
  private fresh = false;
  /** A folder the helper could not watch: nothing can be told until a new helper watches it. */
  private unwatched = false;
  /** Each event's path (`P…`/`T…`) → the number of the answer that carried it last. */
  private readonly events = new Map<string, number>();
  /** Counts, for tests and the bench. */
  readonly seen = { syncs: 0, unknown: 0, starts: 0, losses: [] as WatchLoss[] };

  constructor(
    readonly root: string,
    private readonly options: TreeWatchOptions = {},
  ) {}

  /** Reads every event queued until now; the mark to measure later changes from, or null (nothing can be told now). */
  sync(): number | null {
    this.seen.syncs++;
    this.fresh = false;
    if (this.child === null || this.exited) {
      if (this.child !== null) this.lose('restart');
      this.stopHelper();
      if (!this.start()) return this.unknown('no-helper');
    }
    // Its first scan still runs (a large tree takes seconds): no command waits for it; this one is walked.
    if (!this.ready) this.readUntil(-1, 0);
    if (!this.ready) return this.unknown('scanning');
    const n = ++this.sent;
    try {
      fs.writeSync(this.reqFd, `${n}\n`);
    } catch {
      this.stopHelper();
      return this.unknown('no-helper');
    }
    if (!this.readUntil(n)) {
      // Not an event lost: the answer may still come (a first scan of a large tree). Only this sync knows nothing.
      if (this.exited) this.stopHelper();
      return this.unknown('timeout');
    }
    if (this.validFrom === Number.POSITIVE_INFINITY) this.validFrom = n; // A new helper's first answer: knowledge starts here.
    this.fresh = true;
    return this.unwatched || n < this.validFrom ? null : n;
  }

  /** The paths changed after mark `from` up to the last sync; null when that cannot be told (see the file's comment). */
  changesSince(from: number | null): WatchChanges | null {
    if (from === null || !this.fresh || this.unwatched || from < this.validFrom || this.exited || this.child === null) return null;
    const paths = new Set<string>();
    const trees = new Set<string>();
    for (const [key, at] of this.events) {
      if (at <= from) continue;
      (key.charCodeAt(0) === 80 ? paths : trees).add(key.slice(1)); // 80: 'P'
    }
    return { paths, trees };
  }

  /** Forgets events at or before `mark` (no caller will ask about an earlier mark). */
  forget(mark: number): void {
    for (const [key, at] of this.events) if (at <= mark) this.events.delete(key);
  }

  /** Waits (up to `timeoutMs`) for a running helper's first scan to end; whether it has (tests, the bench: a command never waits). */
  whenReady(timeoutMs: number): boolean {
    const deadline = Date.now() + timeoutMs;
    while (!this.ready && this.child !== null && !this.exited && Date.now() < deadline) {
      this.readUntil(-1, 0);
      if (!this.ready) Atomics.wait(sleeper, 0, 0, 5);
    }
    return this.ready;
  }

  /** The helper's process id (tests stop, continue and kill it); null when none runs. */
  get pid(): number | null {
    return this.child?.pid ?? null;
  }

  /** Folders not watched now. A change of this list starts a new helper (its first answer starts the knowledge again). */
  reskip(skip: readonly string[]): void {
    const now = [...(this.options.skip ?? [])].sort().join('\0');
    if ([...skip].sort().join('\0') === now) return;
    this.options.skip = [...skip];
    if (this.child !== null) {
      this.lose('restart');
      this.stopHelper();
    }
  }

  /** Starts the helper now if none runs, so its first scan of the tree runs before the next sync asks. */
  begin(): void {
    if (this.child !== null && !this.exited) return;
    if (this.child !== null) this.lose('restart');
    this.stopHelper();
    this.start();
  }

  stop(): void {
    this.stopHelper();
    this.validFrom = Number.POSITIVE_INFINITY;
  }

  private unknown(why: WatchLoss): null {
    this.seen.unknown++;
    this.seen.losses.push(why);
    return null;
  }

  private lose(why: WatchLoss): void {
    this.seen.losses.push(why);
    this.validFrom = Number.POSITIVE_INFINITY;
  }

  private start(): boolean {
    // Only where every change to the tree passes through this kernel's file systems (not NFS, SMB, FUSE, an overlay's
    // lower layers): elsewhere a change makes no event here, and every command walks.
    if (!localFileSystem(this.root)) return false;
    let dir: string | null = null;
    const theirs: number[] = [];
    try {
      dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ew-watch-'));
      const req = path.join(dir, 'req');
      const rep = path.join(dir, 'rep');
      // System programs only, never through PATH (sandbox/system-program.ts): both run outside any sandbox.
      const mkfifo = systemProgram('mkfifo');
      const python = systemProgram('python3');
      if (mkfifo === null || python === null) return false;
      execFileSync(mkfifo, ['-m', '600', req, rep], { stdio: 'ignore' });
      // Read-write: opening a FIFO so never waits for the other end, and it never reads as ended while this process lives.
      this.reqFd = fs.openSync(req, fs.constants.O_RDWR);
      this.repFd = fs.openSync(rep, fs.constants.O_RDWR | fs.constants.O_NONBLOCK);
      // The helper's own ends (their own open files: the non-blocking flag of ours is not theirs).
      theirs.push(fs.openSync(req, fs.constants.O_RDONLY | fs.constants.O_NONBLOCK), fs.openSync(rep, fs.constants.O_WRONLY));
      // The names are not needed once every end is open: nothing is left behind, whatever ends this process.
      fs.rmSync(dir, { recursive: true, force: true });
      dir = null;
      const helper = ['-c', INOTIFY_HELPER, this.root, STATE_DIR, ...(this.options.skip ?? [])];
      const launch = this.options.launch;
      const stdio: Array<'ignore' | number> = ['ignore', 'ignore', 'ignore', theirs[0] as number, theirs[1] as number];
      const child = launch ? spawn(launch.command, [...launch.args, python, ...helper], { stdio }) : spawn(python, helper, { stdio });
      this.exited = false;
      child.on('error', () => {
        this.exited = true;
      });
      child.on('exit', () => {
        this.exited = true;
      });
      child.unref();
      this.child = child;
      this.ready = false;
      this.unwatched = false;
      this.validFrom = Number.POSITIVE_INFINITY;
      this.seen.starts++;
      return child.pid !== undefined;
    } catch {
      this.closeFds();
      return false;
    } finally {
      for (const fd of theirs) fs.closeSync(fd);
      if (dir !== null) fs.rmSync(dir, { recursive: true, force: true });
    }
  }

  /** Reads answers until the one numbered `n` (or the timeout); every record read is kept, whatever answer carried it. */
  private readUntil(n: number, waitMs = this.options.timeoutMs ?? DEFAULT_TIMEOUT_MS): boolean {
    const deadline = Date.now() + waitMs;
    const buf = Buffer.allocUnsafe(1 << 16);
    // n = -1: only what is there now (no answer is awaited).
    while (this.answered < n || n === -1) {
      let got = 0;
      try {
        got = fs.readSync(this.repFd, buf, 0, buf.length, null);
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'EAGAIN') return false;
      }
      if (got > 0) {
        this.take(buf.subarray(0, got));
        continue;
      }
      if (n === -1) return true;
      if (Date.now() > deadline || this.exited) return false;
      // A twentieth of a millisecond: the helper answers within one or two (a millisecond's sleep was most of a sync).
      Atomics.wait(sleeper, 0, 0, 0.05);
    }
    return true;
  }

  /** Parses NUL-terminated records; an event is filed under the answer that carries it (the next `E`). */
  private take(chunk: Buffer): void {
    const data = this.pending.length === 0 ? chunk : Buffer.concat([this.pending, chunk]);
    let start = 0;
    const batch: string[] = [];
    let lost = false;
    for (let i = data.indexOf(0, start); i !== -1; i = data.indexOf(0, start)) {
      const record = data.toString('utf8', start, i);
      start = i + 1;
      const kind = record.charAt(0);
      if (kind === 'E') {
        const at = Number(record.slice(1));
        for (const key of batch) this.events.set(key, at);
        batch.length = 0;
        // Lost at or before this answer: no mark before it can be told about (this one can: a capture after it walks).
        if (lost && this.validFrom !== Number.POSITIVE_INFINITY) this.validFrom = Math.max(this.validFrom, at);
        lost = false;
        this.answered = Math.max(this.answered, at);
      } else if (kind === 'L') {
        this.seen.losses.push('overflow');
        lost = true;
      } else if (kind === 'U') {
        this.seen.losses.push('unwatched');
        this.unwatched = true;
      } else if (kind === 'R') this.ready = true;
      else if (kind === 'P' || kind === 'T') batch.push(record);
    }
    this.pending = Buffer.from(data.subarray(start));
  }

  private stopHelper(): void {
    if (this.child !== null && !this.exited) {
      try {
        this.child.kill('SIGKILL');
      } catch {
        // Gone already.
      }
    }
    this.child = null;
    this.closeFds();
    this.pending = Buffer.alloc(0);
    this.answered = this.sent;
    this.events.clear();
  }

  private closeFds(): void {
    for (const fd of [this.reqFd, this.repFd]) {
      if (fd < 0) continue;
      try {
        fs.closeSync(fd);
      } catch {
        // Closed already.
      }
    }
    this.reqFd = -1;
    this.repFd = -1;
  }
}

/** statfs magic numbers of the local file systems a watch is believed on: ext2/3/4, XFS, btrfs, tmpfs, F2FS, ZFS. */
const LOCAL_FILE_SYSTEMS: ReadonlySet<number> = new Set([0xef53, 0x58465342, 0x9123683e, 0x01021994, 0xf2f52010, 0x2fc12fc1]);

function localFileSystem(root: string): boolean {
  try {
    return LOCAL_FILE_SYSTEMS.has(Number(fs.statfsSync(root).type));
  } catch {
    return false;
  }
}
