/**
 * A process tree held still (src/verify/process-tree.ts): what `editwarden
 * wrap` does to the agent between one step's diff and the next step's index,
 * and on Ctrl-Z. Real processes writing a real file.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { descendants, freezeTree, processState, thawTree } from '../../src/verify/process-tree.js';
import { tempDir } from '../temp-dirs.js';

const started: ChildProcess[] = [];
afterEach(() => {
  for (const c of started.splice(0))
    if (c.pid !== undefined) {
      try {
        process.kill(-c.pid, 'SIGKILL');
      } catch {
        // Gone.
      }
    }
});

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/** Shells whose great-grandchild counts into `file` as fast as it can (the writer is three levels down, as an agent's tool call is). */
async function writerTree(file: string): Promise<ChildProcess> {
  const script = `${file}.sh`;
  fs.writeFileSync(script, `i=0; while :; do i=$((i+1)); echo $i > "${file}.tmp" && mv "${file}.tmp" "${file}"; done\n`);
  const child = spawn('/bin/sh', ['-c', `sh -c 'sh "${script}" & wait' & wait`], { detached: true, stdio: 'ignore' });
  started.push(child);
  while (!fs.existsSync(file)) await sleep(10);
  return child;
}

/** Children of one process, read from /proc (every thread's list). */
function childrenOf(pid: number): number[] {
  try {
    return fs
      .readdirSync(`/proc/${pid}/task`)
      .flatMap((tid) => fs.readFileSync(`/proc/${pid}/task/${tid}/children`, 'utf8').trim().split(/\s+/))
      .filter((s) => s !== '')
      .map(Number);
  } catch {
    return [];
  }
}

/** Stopped or gone; or waiting in D on children that are all stopped (a shell's vfork until its child execs). */
function heldStill(pid: number): boolean {
  const state = processState(pid);
  if (state === null || ['T', 't', 'Z', 'X'].includes(state)) return true;
  const children = childrenOf(pid);
  return state === 'D' && children.length > 0 && children.every((c) => ['T', 't'].includes(processState(c) ?? ''));
}

const count = (file: string): number => Number(fs.readFileSync(file, 'utf8').trim() || '0');

describe('freezeTree holds every descendant still; thawTree lets them go on', () => {
  it('a writer three levels down writes nothing while frozen and goes on after', async () => {
    const file = path.join(tempDir('ew-tree-'), 'n');
    const child = await writerTree(file);
    const root = child.pid as number;
    expect(descendants(root).length).toBeGreaterThanOrEqual(1);

    // The writer shell may be caught in a vfork, waiting in D for an `mv` child the freeze stopped: held, not late.
    const frozen = await freezeTree(root);
    expect(frozen.supported).toBe(true);
    expect(frozen.late).toEqual([]);
    for (const pid of descendants(root)) expect(heldStill(pid), `process ${pid} in state ${processState(pid)}`).toBe(true);
    const held = count(file);
    await sleep(300);
    expect(count(file)).toBe(held);

    thawTree(frozen);
    const until = Date.now() + 5000;
    while (count(file) === held && Date.now() < until) await sleep(20);
    expect(count(file)).toBeGreaterThan(held);
  });

  it('a process stopped before the freeze is left stopped by the thaw (someone else stopped it)', async () => {
    const file = path.join(tempDir('ew-tree-'), 'n');
    const child = await writerTree(file);
    const root = child.pid as number;
    // The middle shell (the writer's `mv` children come and go).
    const target = descendants(root)[0] as number;
    process.kill(target, 'SIGSTOP');
    while (processState(target) !== 'T') await sleep(5);

    const frozen = await freezeTree(root);
    expect(frozen.stopped).not.toContain(target);
    thawTree(frozen);
    await sleep(100);
    expect(processState(target)).toBe('T');
    process.kill(target, 'SIGCONT');
  });

  it('an empty or vanished tree freezes to nothing', async () => {
    const child = spawn('/bin/true');
    started.push(child);
    await new Promise((r) => child.once('exit', r));
    const frozen = await freezeTree(child.pid as number);
    expect(frozen.stopped).toEqual([]);
    thawTree(frozen);
  });
});
