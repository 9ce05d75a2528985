/**
 * Process groups: a command runs as the leader of its own group, so the
 * whole tree it forks (make → cc1plus, npm → node → esbuild, `sleep &`) can be
 * signalled at once and checked for survivors. It must never signal anything
 * outside the group it was given.
 *
 * Limits (say them, do not hide them): a descendant that calls setsid() or
 * setpgid() leaves the group and escapes it. Under bubblewrap (src/sandbox)
 * it still cannot outlive the command: the group's leader is bwrap, and the
 * whole tree lives in bwrap's pid namespace, which the kernel empties when
 * bwrap ends. Without a sandbox, catching such a process needs cgroups.
 */
import fs from 'node:fs';
import { childProcess } from '../builtins.js';

export type KillSignal = 'SIGTERM' | 'SIGKILL';

/** Signals every process of the group; false when the group is already empty. */
export function signalGroup(pgid: number, signal: KillSignal): boolean {
  if (process.platform === 'win32') {
    // No process groups: taskkill walks the tree by parent id instead.
    const r = childProcess().spawnSync('taskkill', ['/pid', String(pgid), '/T', '/F'], { stdio: 'ignore', windowsHide: true });
    return r.status === 0;
  }
  try {
    process.kill(-pgid, signal);
    return true;
  } catch {
    return false;
  }
}

/**
 * Whether any process of the group is still running. kill(-pgid, 0) alone is
 * not enough: it also succeeds for zombies, and where PID 1 does not reap
 * orphans (some containers) a killed grandchild stays a zombie for ever. On
 * Linux a survivor found by kill() is confirmed by reading /proc.
 */
function groupAlive(pgid: number): boolean {
  if (process.platform === 'win32') return false;
  try {
    process.kill(-pgid, 0);
  } catch {
    return false;
  }
  if (process.platform !== 'linux') return true;
  return livingMembers(pgid).length > 0;
}

/** Pids of the group that are not zombies (Linux, from /proc/<pid>/stat). */
export function livingMembers(pgid: number): number[] {
  let entries: string[];
  try {
    entries = fs.readdirSync('/proc');
  } catch {
    return [];
  }
  const out: number[] = [];
  for (const name of entries) {
    if (name.charCodeAt(0) < 48 || name.charCodeAt(0) > 57) continue;
    const stat = readStat(name);
    if (stat && stat.pgrp === pgid && stat.state !== 'Z' && stat.state !== 'X') out.push(Number(name));
  }
  return out;
}

/** State letter and process group of one pid; null when it is gone. */
function readStat(pid: string | number): { state: string; pgrp: number } | null {
  let text: string;
  try {
    text = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch {
    return null;
  }
  // The command name is in parentheses and may itself hold spaces and ")".
  const close = text.lastIndexOf(')');
  const fields = text.slice(close + 2).split(' ');
  return { state: fields[0] ?? '?', pgrp: Number(fields[2]) };
}

/** Whether a pid is running (not gone, not a zombie). */
export function pidRunning(pid: number): boolean {
  if (process.platform === 'linux') {
    const stat = readStat(pid);
    return stat !== null && stat.state !== 'Z' && stat.state !== 'X';
  }
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/**
 * Ends whatever is left of a group: SIGTERM, then SIGKILL after `graceMs`.
 * Returns how it went; costs one kill(2) when the group is already empty.
 */
export async function reapGroup(pgid: number, graceMs: number): Promise<'empty' | 'terminated' | 'killed' | 'survivors'> {
  if (!groupAlive(pgid)) return 'empty';
  signalGroup(pgid, 'SIGTERM');
  if (await waitEmpty(pgid, graceMs)) return 'terminated';
  signalGroup(pgid, 'SIGKILL');
  // SIGKILL cannot be caught; the wait only covers the kernel tearing processes down.
  return (await waitEmpty(pgid, 2000)) ? 'killed' : 'survivors';
}

async function waitEmpty(pgid: number, ms: number): Promise<boolean> {
  const deadline = Date.now() + ms;
  let pause = 5;
  while (Date.now() < deadline) {
    if (!groupAlive(pgid)) return true;
    await sleep(pause);
    pause = Math.min(pause * 2, 50);
  }
  return !groupAlive(pgid);
}
