/**
 * A process tree held still: every descendant of one process stopped
 * (SIGSTOP) and later continued (SIGCONT), so that what it wrote can be
 * captured without a write landing half-way through the capture — the gap
 * between one step's diff and the next step's index, where a write would
 * otherwise belong to no undo step. Used by `editwarden wrap` (the whole
 * agent runs as the tree of one bwrap process) between its steps, and when
 * the person suspends the wrapped agent with Ctrl-Z.
 *
 * Why signals and not the cgroup freezer: a cgroup needs a delegated
 * hierarchy an ordinary user rarely has. SIGSTOP cannot be caught or
 * ignored; a process forked while the tree is being stopped is found by the
 * next pass (its parent is stopped by then, so the passes end).
 *
 * It must never signal a process outside the tree it was given, and never
 * continue a process that was already stopped before it froze the tree
 * (the agent's own job control, a debugger's stop).
 *
 * Linux only (/proc). Elsewhere `freezeTree` reports `supported: false`.
 */
import fs from 'node:fs';

/** The pids of every descendant of `pid` (not `pid` itself), parents before their children. */
export function descendants(pid: number): number[] {
  const out: number[] = [];
  const queue = [pid];
  const seen = new Set<number>([pid]);
  while (queue.length > 0) {
    const p = queue.shift() as number;
    for (const child of childrenOf(p)) {
      if (seen.has(child)) continue;
      seen.add(child);
      out.push(child);
      queue.push(child);
    }
  }
  return out;
}

function childrenOf(pid: number): number[] {
  let tasks: string[];
  try {
    tasks = fs.readdirSync(`/proc/${pid}/task`);
  } catch {
    return [];
  }
  const out: number[] = [];
  for (const t of tasks) {
    let text: string;
    try {
      text = fs.readFileSync(`/proc/${pid}/task/${t}/children`, 'utf8');
    } catch {
      continue;
    }
    for (const word of text.split(' ')) {
      const n = Number(word);
      if (Number.isInteger(n) && n > 0) out.push(n);
    }
  }
  return out;
}

/** The one-letter state of a process (R, S, D, T, t, Z, X …), or null when it is gone. */
export function processState(pid: number): string | null {
  return statOf(pid)?.state ?? null;
}

/** A process's process group, or null when it is gone. */
export function processGroup(pid: number): number | null {
  return statOf(pid)?.pgrp ?? null;
}

function statOf(pid: number): { state: string; pgrp: number; start: string | null } | null {
  try {
    return parseStat(fs.readFileSync(`/proc/${pid}/stat`, 'utf8'));
  } catch {
    return null;
  }
}

/**
 * The fields of a `/proc/<pid>/stat` line: "pid (comm) S ppid pgrp …". The
 * name (comm) is the program's and may hold spaces and parentheses — a
 * process named `x) T 1 1 (` must not read as stopped or as another group —
 * so the fields are read after the LAST ")".
 */
export function parseStat(stat: string): { state: string; pgrp: number; start: string | null } | null {
  const close = stat.lastIndexOf(')');
  if (close < 0) return null;
  const fields = stat.slice(close + 2).split(' ');
  const [state, , pgrp] = fields;
  if (state === undefined || state === '' || pgrp === undefined || !/^\d+$/.test(pgrp)) return null;
  // Field 22, the start time in clock ticks since boot: with the pid, who the process is (a pid is reused).
  const start = fields[19];
  return { state, pgrp: Number(pgrp), start: start !== undefined && /^\d+$/.test(start) ? start : null };
}

const STOPPED = new Set(['T', 't']);
const GONE = new Set(['Z', 'X']);

export interface FrozenTree {
  /** False where the tree cannot be frozen (no /proc): the caller says so and captures anyway. */
  supported: boolean;
  /** The processes this freeze stopped (and only those are continued). */
  stopped: number[];
  /** Processes that did not reach the stopped state in time (uninterruptible I/O): the capture may race them. */
  late: number[];
  /** Each stopped pid's start time when it was stopped: a pid freed and reused since is another process, never continued. */
  starts?: ReadonlyMap<number, string | null>;
}

function send(pid: number, signal: NodeJS.Signals): boolean {
  try {
    process.kill(pid, signal);
    return true;
  } catch {
    return false;
  }
}

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Stops every descendant of `rootPid` and waits (up to `waitMs`) until each
 * is stopped or gone. A process found already stopped is left to whoever
 * stopped it.
 */
export async function freezeTree(rootPid: number, waitMs = 2000): Promise<FrozenTree> {
  if (process.platform !== 'linux' || !fs.existsSync(`/proc/${rootPid}`)) return { supported: process.platform === 'linux', stopped: [], late: [] };
  const stopped: number[] = [];
  const starts = new Map<number, string | null>();
  const handled = new Set<number>();
  // Passes until one finds nothing new: a child forked before its parent stopped shows up in the next one.
  for (let pass = 0; pass < 100; pass++) {
    let fresh = 0;
    for (const pid of descendants(rootPid)) {
      if (handled.has(pid)) continue;
      handled.add(pid);
      fresh++;
      const stat = statOf(pid);
      if (stat === null || GONE.has(stat.state) || STOPPED.has(stat.state)) continue;
      if (send(pid, 'SIGSTOP')) {
        stopped.push(pid);
        starts.set(pid, stat.start);
      }
    }
    if (fresh === 0) break;
  }
  // A process that ended under the signal (a zombie then reaped) frees its pid, which another process may take at
  // once on a busy machine: that one is not ours, and not late.
  const notYetStopped = (pid: number): boolean => {
    const stat = statOf(pid);
    if (stat === null || stat.start !== starts.get(pid)) return false;
    if (STOPPED.has(stat.state) || GONE.has(stat.state)) return false;
    // A parent waiting in the kernel for a child this freeze stopped (a shell's vfork waits in D until the child runs
    // exec) cannot get back to running code: it takes its own SIGSTOP the moment it leaves that wait. Held, not late.
    return !(stat.state === 'D' && waitsOnStoppedChildren(pid));
  };
  const deadline = Date.now() + waitMs;
  let late = stopped.filter(notYetStopped);
  while (late.length > 0 && Date.now() < deadline) {
    await sleep(2);
    late = late.filter(notYetStopped);
  }
  return { supported: true, stopped, late, starts };
}

function waitsOnStoppedChildren(pid: number): boolean {
  const children = childrenOf(pid);
  return children.length > 0 && children.every((child) => STOPPED.has(processState(child) ?? ''));
}

/** Continues what `freezeTree` stopped, children before their parents (a parent shell then sees its job running, not stopped). */
export function thawTree(frozen: FrozenTree): void {
  for (const pid of [...frozen.stopped].reverse()) {
    // Only the process this freeze stopped: its pid, freed and taken by another since, is left alone.
    if (frozen.starts !== undefined && statOf(pid)?.start !== frozen.starts.get(pid)) continue;
    send(pid, 'SIGCONT');
  }
}
