/**
 * The root lock: one editwarden process at a time writes under a root.
 * `.editwarden/lock` is created with O_EXCL and names its holder (pid,
 * process start time, host, a random token). A second process waits up to a
 * timeout, then fails with E_LOCKED naming the holder. A lock whose holder is
 * dead (no such pid, or the pid now belongs to a process that started later)
 * is broken. The lock is re-entrant within one RootLock object; it must never
 * delete a lock file that is not its own or not proven stale.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import { EditwardenError, ErrorCode } from '../errors.js';
import { ensureTrustedStateDir } from './state-dir.js';

export const LOCK_FILE = 'lock';
const DEFAULT_LOCK_TIMEOUT_MS = 10_000;

export interface LockOwner {
  pid: number;
  /** Start time of the holder (clock ticks since boot, from /proc); null where unknown. */
  processStart: number | null;
  host: string;
  token: string;
  acquiredAt: string;
  command: string;
  /**
   * Root-relative paths the holder is writing right now without a journal
   * record (one atomic write, transaction.ts): if it dies, whoever breaks its
   * lock removes the temp files of these paths (recovery.ts). Untrusted when
   * read back: checked like manifest paths.
   */
  writing?: string[];
}

export interface LockOptions {
  /** How long a second process waits for the lock (ms). */
  timeoutMs?: number;
  /** Poll interval while waiting (ms). */
  pollMs?: number;
  /**
   * Keep the lock file's inode between holds (a long-lived server): creating an inode is the costliest step of a
   * small write on a busy ext4 (~1 ms, docs/benchmarks.md), so the spare is rewritten and linked instead. It keeps a
   * pending lock file's name of this process (removed at exit, or by the next command's sweep once it is gone).
   */
  keepSpare?: boolean;
}

/** Creates `.editwarden/` on first use, with a .gitignore so git never shows editwarden's state as untracked files. */
export function ensureStateDir(stateDir: string): void {
  // A planted `.editwarden` symlink (or a folder of another user) is refused before the lock file is made in it.
  ensureTrustedStateDir(stateDir);
}

/** Start time of a process from /proc/<pid>/stat (field 22), to tell a reused pid from the holder. */
export function processStartOf(pid: number): number | null {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    // The command name (field 2) may contain spaces and parentheses: split after the last ')'.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const value = Number(fields[19]);
    return Number.isFinite(value) ? value : null;
  } catch {
    return null;
  }
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Who a lock or journal record belongs to. */
export interface ProcessIdentity {
  pid: number;
  processStart: number | null;
  host: string;
}

/**
 * This process's identity, read once: every lock and journal record names
 * it, and reading /proc/<pid>/stat for it each time cost more than writing
 * the lock file. A process's pid and start time never change while it runs.
 */
let self: ProcessIdentity | undefined;

export function currentProcess(): ProcessIdentity {
  self ??= { pid: process.pid, processStart: processStartOf(process.pid), host: os.hostname() };
  return { ...self };
}

/** Whether the process that wrote a lock or record is certainly gone. Unknown cases count as alive: breaking a live lock is the worse mistake. */
export function isGone(owner: ProcessIdentity): boolean {
  if (owner.host !== os.hostname()) return false; // A pid on another machine (shared folder) cannot be checked.
  if (!isAlive(owner.pid)) return true;
  if (owner.processStart === null) return false;
  const now = processStartOf(owner.pid);
  return now !== null && now !== owner.processStart;
}

function sleepSync(ms: number): void {
  // Writes are synchronous (Workspace.commit), so waiting for the lock is too.
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
}

export function readLockOwner(lockFile: string): LockOwner | null | 'unreadable' {
  let text: string;
  try {
    // O_NOFOLLOW: a planted `lock -> /etc/shadow` is never read.
    const fd = fs.openSync(lockFile, fs.constants.O_RDONLY | fs.constants.O_NOFOLLOW | fs.constants.O_NONBLOCK);
    try {
      text = fs.readFileSync(fd, 'utf8');
    } finally {
      fs.closeSync(fd);
    }
  } catch {
    return null;
  }
  try {
    const owner = JSON.parse(text) as LockOwner;
    return typeof owner.pid === 'number' && typeof owner.token === 'string' ? owner : 'unreadable';
  } catch {
    return 'unreadable';
  }
}

export class RootLock {
  readonly file: string;
  private readonly stateDir: string;
  /** Bytes of the owner note in the held lock file (note() pads to it). */
  private written = 0;
  private readonly timeoutMs: number;
  private readonly pollMs: number;
  private depth = 0;
  private token: string | null = null;
  /** The held lock file, open: `note` rewrites it in place. */
  private fd: number | null = null;
  private owner: LockOwner | null = null;
  /** Owners of stale locks this object broke that were writing (see LockOwner.writing), for recovery to clean after. */
  private brokenWriters: LockOwner[] = [];
  private readonly keepSpare: boolean;
  /** keepSpare: this process's pending lock file, kept open between holds (linked as the lock while one is held). */
  private spare: { fd: number; file: string; length: number } | null = null;

  constructor(stateDir: string, options: LockOptions = {}) {
    this.stateDir = stateDir;
    this.file = path.join(stateDir, LOCK_FILE);
    this.timeoutMs = options.timeoutMs ?? DEFAULT_LOCK_TIMEOUT_MS;
    this.pollMs = options.pollMs ?? 25;
    this.keepSpare = options.keepSpare === true;
  }

  get held(): boolean {
    return this.depth > 0;
  }

  /**
   * How many times this object has taken the lock (a hold counts once,
   * however deep): what was read from disk in one hold may have been changed
   * by another process before the next (StoreBudget reads its ledger again).
   */
  get holds(): number {
    return this.holdCount;
  }

  private holdCount = 0;

  /** Takes the lock (or counts one more hold of it); throws E_LOCKED after the timeout. */
  acquire(): void {
    if (this.depth > 0) {
      this.depth++;
      return;
    }
    ensureStateDir(this.stateDir);
    const deadline = Date.now() + this.timeoutMs;
    let lastOwner: LockOwner | null = null;
    for (;;) {
      const token = randomBytes(8).toString('hex');
      if (this.tryCreate(token)) {
        this.token = token;
        this.depth = 1;
        this.holdCount++;
        return;
      }
      const owner = readLockOwner(this.file);
      if (owner !== null && owner !== 'unreadable') {
        lastOwner = owner;
        if (isGone(owner)) {
          if (this.breakStale(owner) && owner.writing !== undefined && owner.writing.length > 0) this.brokenWriters.push(owner);
          continue;
        }
      } else if (owner === 'unreadable' && this.unreadableForLong()) {
        // A holder killed between creating the file and writing its name: nobody can ever release it.
        this.breakUnreadable();
        continue;
      }
      if (Date.now() >= deadline) throw lockedError(this.file, lastOwner, this.timeoutMs);
      sleepSync(Math.min(this.pollMs, Math.max(1, deadline - Date.now())));
    }
  }

  release(): void {
    if (this.depth === 0) return;
    if (--this.depth > 0) return;
    const owner = readLockOwner(this.file);
    // Only our own lock is removed: if it was wrongly broken and retaken, the new holder keeps it.
    if (owner !== null && owner !== 'unreadable' && owner.token === this.token) unlinkIfPresent(this.file);
    this.token = null;
    this.owner = null;
    if (this.fd !== null && this.fd !== this.spare?.fd) fs.closeSync(this.fd); // The spare's stays open for the next hold.
    this.fd = null;
  }

  /**
   * Names the paths this holder is about to write without a journal record
   * (or none, once written): rewritten into the lock file in place. No
   * fsync: the note is for a holder killed while the machine runs on; after
   * a power loss no temp file of the write is under a real name either.
   */
  note(writing: string[]): void {
    if (this.fd === null || this.owner === null) return;
    this.owner = { ...this.owner, writing };
    // One write, padded with spaces to the old length, and no truncate: a holder killed at any point leaves a whole, readable note (JSON ignores the padding).
    const json = JSON.stringify(this.owner);
    const bytes = Buffer.from(json.padEnd(this.written, ' '));
    fs.writeSync(this.fd, bytes, 0, bytes.length, 0);
    this.written = bytes.length;
    if (this.spare !== null && this.spare.fd === this.fd) this.spare.length = Math.max(this.spare.length, bytes.length); // The spare's next note pads over this one.
  }

  /** Stale locks broken since the last call whose dead holders were writing (recovery cleans after them). */
  takeBrokenWriters(): LockOwner[] {
    const out = this.brokenWriters;
    this.brokenWriters = [];
    return out;
  }

  /** Whether the lock file exists and its holder is certainly dead (a cheap check: taking the lock then breaks it and cleans after the holder). */
  staleHolder(): boolean {
    const owner = readLockOwner(this.file);
    return owner !== null && owner !== 'unreadable' && isGone(owner);
  }

  /** Runs `fn` holding the lock. */
  with<T>(fn: () => T): T {
    this.acquire();
    try {
      return fn();
    } finally {
      this.release();
    }
  }

  private tryCreate(token: string): boolean {
    const owner: LockOwner = {
      ...currentProcess(),
      token,
      acquiredAt: new Date().toISOString(),
      command: process.argv.slice(1).join(' ').slice(0, 300),
    };
    if (this.spare !== null) {
      const taken = this.linkSpare(this.spare, owner);
      if (taken !== 'gone') return taken;
    }
    // The owner is written under a name of this process's own first, then linked to the lock's name:
    // a lock file always names its holder, so one killed at any point leaves a lock the next command
    // can prove dead and break at once (an empty lock file could only be waited out).
    const pending = path.join(this.stateDir, `${LOCK_FILE}.${process.pid}.${token}${PENDING_SUFFIX}`);
    // O_EXCL: never write through a planted file or link at the pending name.
    const fd = fs.openSync(pending, 'wx', 0o644);
    if (this.keepSpare) {
      this.spare = { fd, file: pending, length: 0 };
      spareFiles.add(pending);
      return this.linkSpare(this.spare, owner) === true;
    }
    let linked = false;
    try {
      // No fsync: a lock only matters while its holder lives, and after a power loss every holder is dead.
      const json = JSON.stringify(owner);
      fs.writeSync(fd, json);
      this.written = Buffer.byteLength(json);
      try {
        // link() fails if the name exists: exactly one creator wins, whatever the timing.
        fs.linkSync(pending, this.file);
        linked = true;
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      }
    } finally {
      unlinkIfPresent(pending);
      if (!linked) fs.closeSync(fd);
    }
    if (!linked) return false;
    // Kept open while held: `note` rewrites it without opening it again.
    this.fd = fd;
    this.owner = owner;
    return true;
  }

  /**
   * Takes the lock with the spare: its owner note rewritten whole (named by
   * no lock while it waits, nobody reads it), then linked to the lock's name,
   * which fails if the name exists — one creator wins, as with a new file.
   * Padded with spaces to the file's length, never truncated: a truncate
   * frees the file's blocks, and waited 0.3–5 ms on the journal (strace of
   * the MCP server). 'gone': the spare's name was removed under us.
   */
  private linkSpare(spare: { fd: number; file: string; length: number }, owner: LockOwner): boolean | 'gone' {
    const bytes = Buffer.from(JSON.stringify(owner).padEnd(spare.length, ' '));
    try {
      fs.writeSync(spare.fd, bytes, 0, bytes.length, 0);
      spare.length = Math.max(spare.length, bytes.length);
      fs.linkSync(spare.file, this.file);
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code === 'EEXIST') return false;
      this.dropSpare();
      if (code === 'ENOENT') return 'gone';
      throw error;
    }
    this.written = spare.length;
    this.fd = spare.fd;
    this.owner = owner;
    return true;
  }

  /** Closes and removes the spare (a lock file linked from it stays: a hold in progress keeps its lock). */
  dropSpare(): void {
    const spare = this.spare;
    if (spare === null) return;
    this.spare = null;
    spareFiles.delete(spare.file);
    if (this.fd !== spare.fd) fs.closeSync(spare.fd);
    unlinkIfPresent(spare.file);
  }

  /** Removes pending lock files of processes that died between writing and linking them (openWorkspace calls this). */
  sweepPending(): void {
    let names: string[];
    try {
      names = fs.readdirSync(this.stateDir);
    } catch {
      return;
    }
    for (const name of names) {
      const m = PENDING_NAME.exec(name);
      if (m && !processAlive(Number(m[1]))) unlinkIfPresent(path.join(this.stateDir, name));
    }
  }

  /**
   * Breaks a stale lock without ever removing a fresh one: the lock is first
   * renamed aside, then checked; had another waiter already replaced it with
   * its own (a race between two breakers), that fresh lock is put back.
   */
  /** Returns whether it broke `stale` itself (false: someone else did, or the lock was fresh). */
  private breakStale(stale: LockOwner): boolean {
    const aside = `${this.file}.stale-${randomBytes(6).toString('hex')}`;
    try {
      fs.renameSync(this.file, aside);
    } catch {
      return false; // Someone else broke or released it first.
    }
    const moved = readLockOwner(aside);
    let broke = true;
    if (moved !== null && moved !== 'unreadable' && moved.token !== stale.token) {
      broke = false;
      try {
        fs.linkSync(aside, this.file); // Fails harmlessly if a third process has already taken the lock.
      } catch {
        // See above.
      }
    }
    fs.rmSync(aside, { force: true });
    return broke;
  }

  private unreadableForLong(): boolean {
    try {
      return Date.now() - fs.statSync(this.file).mtimeMs > 5_000;
    } catch {
      return false;
    }
  }

  private breakUnreadable(): void {
    const aside = `${this.file}.stale-${randomBytes(6).toString('hex')}`;
    try {
      fs.renameSync(this.file, aside);
    } catch {
      return;
    }
    if (readLockOwner(aside) !== 'unreadable') {
      try {
        fs.linkSync(aside, this.file);
      } catch {
        // Taken meanwhile.
      }
    }
    fs.rmSync(aside, { force: true });
  }
}

const PENDING_SUFFIX = '.pending';

/** Every spare lock file of this process (keepSpare), removed as it exits. */
const spareFiles = new Set<string>();
process.once('exit', () => {
  for (const file of spareFiles) {
    try {
      fs.unlinkSync(file);
    } catch {
      // Already gone (its folder removed): nothing to clean.
    }
  }
});
const PENDING_NAME = /^lock\.(\d+)\.[0-9a-f]{16}\.pending$/;

function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** unlink, not rmSync: rmSync stats the path twice first, on every release. */
function unlinkIfPresent(file: string): void {
  try {
    fs.unlinkSync(file);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
}

function lockedError(file: string, owner: LockOwner | null, timeoutMs: number): EditwardenError {
  const who = owner ? `process ${owner.pid}${owner.command ? ` (${owner.command})` : ''} since ${owner.acquiredAt}` : 'another process';
  return new EditwardenError({
    code: ErrorCode.LOCKED,
    message: `The workspace is locked by ${who}; waited ${(timeoutMs / 1000).toFixed(1)} s.`,
    hint: `Another editwarden command is writing in this root. Wait for it to finish and retry. If no editwarden process is running, remove ${file}.`,
    path: file,
  });
}
