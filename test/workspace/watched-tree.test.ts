/**
 * A capture that costs what changed (watched-tree.ts, tree-watch.ts): with
 * the project's tree watched, a guarded command's index, its diff and its
 * ignored-files snapshot equal what the stat walk gives — on random trees
 * and random changes, made inside the sandbox (bubblewrap, through its bind
 * mounts) and outside it — and whenever the watch cannot know (its queue
 * overflowed, a folder could not be watched past the watch limit, its
 * helper was killed), the walk runs and the answer is still right.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import fc from 'fast-check';
import { afterEach, describe, expect, it } from 'vitest';
import { defaultConfig } from '../../src/config/config.js';
import type { WitnessLog } from '../../src/sandbox/witness.js';
import { CommandEffects, type EffectsMark } from '../../src/guard/command-effects.js';
import { commandSandbox } from '../../src/sandbox/for-workspace.js';
import { detectSandbox } from '../../src/sandbox/detect.js';
import { sandboxedSpawn } from '../../src/sandbox/spawn.js';
import { captureWorkspace } from '../../src/workspace/checkpoints/capture.js';
import { diffIndex } from '../../src/workspace/checkpoints/index-diff.js';
import { manifestIgnoreSource } from '../../src/workspace/checkpoints/restore.js';
import type { ManifestEntry } from '../../src/workspace/checkpoints/types.js';
import { WatchedTree } from '../../src/workspace/checkpoints/watched-tree.js';
import type { TreeWatchOptions } from '../../src/workspace/checkpoints/tree-watch.js';
import { openWorkspace } from '../../src/workspace/open.js';
import { tempRoot, write } from './fixtures/checkpoint-helpers.js';

const GITIGNORE = '*.log\nlocal/\nnode_modules/\n';
const hasBwrap = detectSandbox().kind === 'bwrap';

const trees: WatchedTree[] = [];
afterEach(() => {
  for (const t of trees.splice(0)) t.stop();
});

function project(): string {
  const root = tempRoot('ew-watch-');
  write(root, '.gitignore', GITIGNORE);
  write(root, 'a.txt', 'a\n');
  write(root, 'src/b.txt', 'b\n');
  write(root, 'src/deep/c.txt', 'c\n');
  write(root, 'local/x.dat', 'x\n');
  write(root, 'note.log', 'log\n');
  write(root, 'node_modules/m/i.js', 'i\n');
  return root;
}

/** The project's checkpoints with a watched tree, as the warm server keeps them. */
function watched(root: string, options: TreeWatchOptions = {}) {
  const cps = openWorkspace(root).transactions.checkpoints;
  const tree = new WatchedTree(root, { timeoutMs: 5000, ...options });
  trees.push(tree);
  cps.tree = tree;
  return { cps, tree, effects: new CommandEffects(cps) };
}

/** Two commands arm the watch and wait for its helper's first scan (a command never waits for it: it would walk). */
function warm(tree: WatchedTree, effects: CommandEffects): void {
  effects.after(effects.before('t', { command: 'cmd', run: 'r' }));
  expect(tree.watch.whenReady(30_000)).toBe(true);
  effects.after(effects.before('t', { command: 'cmd', run: 'r' }));
}

/** What a manifest entry is, without the stat numbers a reused entry may carry from an older read. */
const shape = (e: ManifestEntry): string => (e.type === 'file' ? `${e.path} file ${e.blob} ${e.mode.toString(8)}` : e.type === 'symlink' ? `${e.path} -> ${e.target}` : `${e.path} absent`);

const record = (r: { path: string; kind: string; blob: string | null; mode: number; size: number; target?: string | undefined }): string => `${r.path} ${r.kind} ${r.blob} ${r.mode.toString(8)} ${r.size} ${r.target ?? ''}`;

type Cps = ReturnType<typeof watched>['cps'];

/** The stat walk's answers for a command's mark, read-only: the index a full capture makes now, or the diff and ignored effects now. */
function walkedIndex(cps: Cps): string[] {
  return captureWorkspace(cps.ws.resolver, cps.blobs, null, [], undefined, { pool: null, reuseListings: false }).entries.map(shape);
}

function walkedEffects(cps: Cps, mark: EffectsMark): { changes: string[]; ignored: string[] } {
  const index = mark.index as NonNullable<EffectsMark['index']>;
  const changes = diffIndex(cps.ws.resolver, index, cps.blobs, { only: 'checkpoint', exclude: mark.exclude }, {}).map((c) => `${c.path} ${c.change}`);
  const ignored = cps.ignored && mark.ignored ? cps.ignored.after(mark.ignored, [manifestIgnoreSource(index, cps.blobs)], mark.exclude, null).entries.map(shape) : [];
  return { changes: changes.sort(), ignored: ignored.sort() };
}

/** Runs a shell script in the project: as the person (bare) or as a command (in the project's bubblewrap sandbox). */
function run(root: string, script: string, where: 'outside' | 'sandbox'): void {
  if (script === '') return;
  if (where === 'outside' || !hasBwrap) {
    execFileSync('sh', ['-c', script], { cwd: root });
    return;
  }
  const spec = sandboxedSpawn(['sh', '-c', script], root, commandSandbox({ root, stateDir: path.join(root, '.editwarden') }, defaultConfig()));
  expect(spec.sandbox).toBe('bwrap');
  const done = spawnSync(spec.file, spec.args, { cwd: root, env: spec.env, encoding: 'utf8' });
  expect(done.status, done.stderr).toBe(0);
}

const PATHS = ['a.txt', 'src/b.txt', 'src/deep/c.txt', 'src/new.txt', 'local/x.dat', 'local/y.dat', 'note.log', 'src/z.log', 'node_modules/m/i.js', 'd2/e.txt', 'd2/f/g.txt', '.env'];
const DIRS = ['src', 'src/deep', 'local', 'd2', 'd2/f', 'node_modules/m'];
const q = (p: string): string => `'${p}'`;
const op = fc.oneof(
  fc.record({ k: fc.constant('write'), p: fc.constantFrom(...PATHS), t: fc.stringMatching(/^[a-z]{0,6}$/) }).map(({ p, t }) => `mkdir -p ${q(path.posix.dirname(p))} && printf '%s' '${t}' > ${q(p)}`),
  fc.constantFrom(...PATHS).map((p) => `rm -f ${q(p)}`),
  fc.constantFrom(...PATHS).map((p) => `[ ! -f ${q(p)} ] || chmod 600 ${q(p)}`),
  fc.constantFrom(...PATHS).map((p) => `[ ! -f ${q(p)} ] || touch -d '2001-02-03 04:05:06' ${q(p)}`),
  fc.tuple(fc.constantFrom(...PATHS), fc.constantFrom(...PATHS)).map(([a, b]) => `[ ! -f ${q(a)} ] || { mkdir -p ${q(path.posix.dirname(b))} && mv -f ${q(a)} ${q(b)}; }`),
  fc.constantFrom(...DIRS).map((d) => `rm -rf ${q(d)}`),
  fc.tuple(fc.constantFrom(...DIRS), fc.constantFrom('d3', 'src/moved')).map(([d, to]) => `[ ! -d ${q(d)} ] || [ -e ${q(to)} ] || mv ${q(d)} ${q(to)}`),
  fc.constantFrom('*.dat', 'd2/', '!note.log', 'src/deep/').map((rule) => `printf '%s\\n' '${rule}' >> .gitignore`),
  fc.constantFrom('a.txt', 'src/b.txt').map((p) => `[ ! -f ${q(p)} ] || ln -sf ${q(path.posix.basename(p))} ${q(`${p}.link`)}`),
);
// Each operation may find nothing to act on (a folder moved into itself, a file gone): it then does nothing.
const script = fc.array(op, { maxLength: 3 }).map((ops) => ops.map((o) => `{ ${o}; } 2>/dev/null || true`).join('\n'));
const step = fc.record({ between: fc.oneof(fc.constant(''), script), during: fc.oneof(fc.constant(''), fc.constant(''), script), where: fc.constantFrom('outside' as const, 'sandbox' as const) });

describe('a capture that costs what changed', () => {
  it('gives the stat walk’s index, diff and ignored effects on random trees and random changes, inside the sandbox and outside it', () => {
    let shortcuts = 0;
    fc.assert(
      fc.property(fc.array(step, { minLength: 2, maxLength: 6 }), (steps) => {
        const root = project();
        const { cps, tree, effects } = watched(root);
        try {
          warm(tree, effects);
          for (const s of steps) {
            run(root, s.between, 'outside');
            const mark = effects.before('t', { command: 'cmd', run: 'r' });
            expect(mark.index?.entries.map(shape)).toEqual(walkedIndex(cps));
            if (cps.ignored && mark.ignored) expect(mark.ignored.records.map(record)).toEqual(cps.ignored.before(mark.exclude).records.map(record));
            run(root, s.during, s.where);
            const expected = walkedEffects(cps, mark);
            const found = effects.after(mark);
            expect(found.changes.map((c) => c.path).sort()).toEqual(expected.changes.map((c) => c.split(' ')[0]).sort());
            const kept = cps.ignored && mark.ignored ? found.ignored.kept.slice().sort() : [];
            expect(kept).toEqual(expected.ignored.map((e) => e.split(' ')[0]));
          }
          shortcuts += tree.counts.indexReused + tree.counts.diffSkipped + tree.counts.ignoredReused;
        } finally {
          tree.stop();
        }
      }),
      { numRuns: 12 },
    );
    // Not vacuous: the watch's knowledge was used.
    expect(shortcuts).toBeGreaterThan(0);
  });

  it('a command that changes nothing walks nothing; a tracked edit leaves the ignored snapshot as it was', () => {
    const root = project();
    const { tree, effects } = watched(root);
    const once = (script = ''): void => {
      const mark = effects.before('t', { command: 'cmd', run: 'r' });
      run(root, script, 'outside');
      effects.after(mark);
    };
    warm(tree, effects);
    const walked = { ...tree.counts };
    const syncs = tree.watch.seen.syncs;
    once();
    once();
    // One round trip to the helper before each command (the index and the ignored snapshot share its mark), one after.
    expect(tree.watch.seen.syncs - syncs).toBe(4);
    expect(tree.counts.indexReused - walked.indexReused).toBe(2);
    expect(tree.counts.diffSkipped - walked.diffSkipped).toBe(2);
    expect(tree.counts.ignoredReused - walked.ignoredReused).toBe(2);
    once('printf x >> a.txt');
    const edited = { ...tree.counts };
    once();
    // The edit: the index is walked again, the ignored snapshot is not (a.txt is a tracked path).
    expect(tree.counts.indexWalked - edited.indexWalked).toBe(1);
    expect(tree.counts.ignoredReused - edited.ignoredReused).toBe(1);
  });

  it('a write through a hard link made inside .git (whose event names only that name) is seen: .git is watched too', () => {
    const root = project();
    fs.mkdirSync(path.join(root, '.git'));
    const { tree, effects } = watched(root);
    warm(tree, effects);
    effects.after(effects.before('t', { command: 'cmd', run: 'r' }));
    expect(tree.counts.indexReused).toBeGreaterThan(0);
    execFileSync('sh', ['-c', 'ln a.txt .git/x && printf through-the-link >> .git/x && rm .git/x'], { cwd: root });
    const mark = effects.before('t', { command: 'cmd', run: 'r' });
    const a = mark.index?.entries.find((e) => e.path === 'a.txt');
    expect(a && shape(a)).toBe(walkedIndex(openWorkspace(root).transactions.checkpoints).find((e) => e.startsWith('a.txt ')));
    effects.after(mark);
  });

  it('the write witness is believed over the events: a tracked path it names is diffed, and a command run without one is walked', () => {
    const root = project();
    const { tree, effects } = watched(root);
    warm(tree, effects);
    effects.after(effects.before('t', { command: 'cmd', run: 'r' }));
    const once = (witness: WitnessLog | null): number => {
      const walked = tree.counts.diffWalked;
      effects.after(effects.before('t', { command: 'cmd', run: 'r' }), { witness });
      return tree.counts.diffWalked - walked;
    };
    const log = (paths: string[], tails: string[] = []) => ({ paths: new Set(paths), tails: new Set(tails), trees: new Set<string>() });
    expect(once(log([], ['newroot', 'oldroot']))).toBe(0);
    expect(once(log(['note.log']))).toBe(0);
    expect(once(log(['a.txt']))).toBe(1);
    expect(once(log([], ['../a.txt']))).toBe(1);
    expect(once({ ...log([]), complete: false })).toBe(1);
    expect(once(null)).toBe(1);
  });

  it('a queue overflow (the helper stopped while 32,000 events arrive) falls back to the walk, which sees the change the kernel dropped', () => {
    const root = project();
    const { tree, effects } = watched(root);
    warm(tree, effects);
    const pid = tree.watch.pid as number;
    process.kill(pid, 'SIGSTOP');
    try {
      // More events than fs.inotify.max_queued_events (16,384 by default) while nothing reads them, all on ignored files
      // the snapshot holds (so they alone would leave the index as it was); the tracked edit comes last, and is dropped.
      const max = Number(fs.readFileSync('/proc/sys/fs/inotify/max_queued_events', 'utf8'));
      const churn = `const fs = require('fs'); for (let i = 0; i < ${max}; i++) fs.writeFileSync(i % 2 ? 'local/x.dat' : 'note.log', String(i));`;
      execFileSync(process.execPath, ['-e', churn], { cwd: root });
      fs.writeFileSync(path.join(root, 'src/deep/c.txt'), 'changed while the queue was full\n');
    } finally {
      process.kill(pid, 'SIGCONT');
    }
    const mark = effects.before('t', { command: 'cmd', run: 'r' });
    expect(tree.watch.seen.losses).toContain('overflow');
    const c = mark.index?.entries.find((e) => e.path === 'src/deep/c.txt');
    expect(c && shape(c)).toBe(walkedIndex(openWorkspace(root).transactions.checkpoints).find((s) => s.startsWith('src/deep/c.txt ')));
    effects.after(mark);
    // Knowledge comes back after the walk: the next unchanged command walks nothing.
    const before = tree.counts.indexReused;
    effects.after(effects.before('t', { command: 'cmd', run: 'r' }));
    expect(tree.counts.indexReused).toBe(before + 1);
  });

  it('past the watch limit (max_inotify_watches in a user namespace of its own) every command walks, and a change in the unwatched folder is seen', () => {
    const probe = spawnSync('unshare', ['-U', '-r', 'sh', '-c', 'echo 3 > /proc/sys/user/max_inotify_watches'], { stdio: 'ignore' });
    if (probe.status !== 0) throw new Error('a user namespace with its own inotify limits is needed for this test (unshare -U -r)');
    const root = project();
    const launch = { command: 'unshare', args: ['-U', '-r', 'sh', '-c', 'echo 3 > /proc/sys/user/max_inotify_watches && exec "$@"', 'sh'] };
    const { tree, effects } = watched(root, { launch });
    warm(tree, effects);
    effects.after(effects.before('t', { command: 'cmd', run: 'r' }));
    expect(tree.watch.seen.losses).toContain('unwatched');
    fs.writeFileSync(path.join(root, 'src/deep/c.txt'), 'past the limit\n');
    const mark = effects.before('t', { command: 'cmd', run: 'r' });
    const c = mark.index?.entries.find((e) => e.path === 'src/deep/c.txt');
    expect(c?.type === 'file' && c.size).toBe('past the limit\n'.length);
    effects.after(mark);
    expect(tree.counts.indexReused).toBe(0);
    expect(tree.counts.diffSkipped).toBe(0);
  });

  it('a killed helper loses its knowledge: the next command walks and sees the change made meanwhile; a new helper brings it back', async () => {
    const root = project();
    const { tree, effects } = watched(root);
    warm(tree, effects);
    const pid = tree.watch.pid as number;
    process.kill(pid, 'SIGKILL');
    // The exit is noticed between commands (as in the server), or by the next sync's timeout.
    await new Promise((r) => setTimeout(r, 100));
    fs.writeFileSync(path.join(root, 'a.txt'), 'while no helper ran\n');
    const reused = tree.counts.indexReused;
    const mark = effects.before('t', { command: 'cmd', run: 'r' });
    expect(tree.counts.indexReused).toBe(reused);
    const a = mark.index?.entries.find((e) => e.path === 'a.txt');
    expect(a?.type === 'file' && a.size).toBe('while no helper ran\n'.length);
    effects.after(mark);
    expect(tree.watch.pid).not.toBe(pid);
    expect(tree.watch.whenReady(30_000)).toBe(true);
    effects.after(effects.before('t', { command: 'cmd', run: 'r' }));
    effects.after(effects.before('t', { command: 'cmd', run: 'r' }));
    expect(tree.counts.indexReused).toBeGreaterThan(reused);
  });
});
