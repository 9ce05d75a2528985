/**
 * What turns a checkpoint into an undo step someone can trust: the record
 * of the state right AFTER the step ("after record"), and the command step.
 *
 * - An after record (`.editwarden/checkpoints/after/<id>.json`) names, for
 *   every path of step `<id>`, what the step left there: a file's hash,
 *   size, mode and stat, a link's target, or nothing. It stores no bytes (a
 *   hash only) and is never restored: it lives outside the manifest folders,
 *   so neither `restore` nor the garbage collector ever sees it.
 *   Two jobs: (1) a client hook's pre-edit checkpoint becomes an undo step
 *   only once the post hook confirmed the edit with an after record — an edit
 *   the client never applied (declined, failed, the post hook never came)
 *   leaves a checkpoint that is no step, so an undo never takes back a
 *   person's own later change under the agent's label; (2) an undo compares
 *   the disk with the after record and refuses, naming the files, when a
 *   file was changed since the step (a person's hand edit, another tool).
 * - A command step (`recordCommandStep`): a files checkpoint of exactly the
 *   paths a shell command changed, as they were before it, cut from the
 *   workspace index taken before the command (its blobs are shared: nothing
 *   is copied), with its after record written at once.
 *
 * It never writes a project file; everything it writes is under the state
 * folder, through the race-free resolver, under the root lock.
 */
import fs from 'node:fs';
import { atomicWriteAt } from '../atomic.js';
import { DirCache } from '../resolver.js';
import { readStateFile, StateFolder } from '../state-dir.js';
import { sha256 } from '../workspace.js';
import { CHECKPOINTS_DIR, type CheckpointService } from './service.js';
import { checkManifestPath, currentStateAt, readRegularAt } from './current.js';
import { diffManifest } from './diff.js';
import { readRefFiles, refDifferences, refEntries, refValues, type RefFiles } from './git-refs.js';
import { parentDirs, type CheckpointChange, type CheckpointOrigin, type Manifest, type ManifestEntry } from './types.js';
import { GIT_DIR } from '../../config/protected-set.js';

const AFTER_DIR = `${CHECKPOINTS_DIR}/after`;
const ID_PATTERN = /^\d{8}-\d{6}-\d{3}-[0-9a-f]{4}$/;

export type CommandOrigin = Extract<CheckpointOrigin, { kind: 'command' }>;

/** The root repository's ref files before and after a command that changed them, and which changed. */
export interface CommandRefs {
  before: RefFiles;
  after: RefFiles;
  changed: string[];
}

export class StepRecords {
  private readonly folder: StateFolder;

  constructor(private readonly service: CheckpointService) {
    this.folder = new StateFolder(service.ws.resolver, AFTER_DIR);
  }

  /**
   * Records the state of `paths` now as the state after step `id` (durable on
   * return: a confirmed step must not fall back to unconfirmed after a crash).
   * Under the root lock; after records of dropped checkpoints are swept here.
   */
  confirm(id: string, paths: readonly string[]): void {
    if (!ID_PATTERN.test(id)) throw new Error(`not a checkpoint id: ${id}`);
    this.service.lock.with(() => {
      const manifest = this.service.get(id);
      const record: Manifest = { ...manifest, entries: stateNow(this.service, paths), dirs: [], absentDirs: [], scanStartedMs: Date.now() };
      this.folder.with(true, undefined, (dir) => atomicWriteAt(dir, `${id}.json`, Buffer.from(JSON.stringify(record)), { mode: 0o644 }));
      this.sweep();
    });
  }

  /** Ids of the steps that have an after record. */
  ids(): Set<string> {
    let names: string[];
    try {
      names = this.folder.with(false, [] as string[], (dir) => fs.readdirSync(dir.self));
    } catch {
      return new Set();
    }
    return new Set(names.filter((n) => n.endsWith('.json') && ID_PATTERN.test(n.slice(0, -5))).map((n) => n.slice(0, -5)));
  }

  /** The after record of step `id`; null when there is none or it is damaged (then nothing is known about "since"). */
  read(id: string): Manifest | null {
    if (!ID_PATTERN.test(id)) return null;
    try {
      const bytes = this.folder.with(false, Buffer.from('null'), (dir) => readStateFile(dir, `${id}.json`));
      const record = JSON.parse(bytes.toString('utf8')) as Manifest | null;
      // Attack: a planted record naming paths outside the root; every path is checked again by the diff.
      if (typeof record !== 'object' || record === null || record.id !== id || !Array.isArray(record.entries)) return null;
      for (const e of record.entries) checkManifestPath(e.path);
      return { ...record, scope: 'files', dirs: [], absentDirs: [] };
    } catch {
      return null;
    }
  }

  /**
   * What differs on disk from the state step `id` left: the files an undo of
   * it would overwrite although the step did not write them that way. Empty
   * when the step has no after record.
   */
  changedSince(id: string): CheckpointChange[] {
    const record = this.read(id);
    const out = record === null ? [] : diffManifest(this.service.ws.resolver, record, this.service.blobs, { patch: false });
    // Its refs, by value: a branch or HEAD the person moved since is a change; a `git gc` that packed them is not.
    for (const p of this.refsChangedSince(id)) out.push({ path: p, change: 'modified' });
    // A command step's paths its processes cannot be shown to have changed: an undo of them would take a change not the step's.
    const unshown = this.unshownOf(id);
    if (unshown.size === 0) return out;
    const have = new Set(out.map((c) => c.path));
    for (const c of this.service.diff(id, { patch: false })) if (unshown.has(c.path) && !have.has(c.path)) out.push(c);
    return out;
  }

  private refsChangedSince(id: string): string[] {
    let after: ReturnType<typeof refValues> | undefined;
    try {
      after = this.service.get(id).git?.after;
    } catch {
      return [];
    }
    if (after === undefined) return [];
    const now = readRefFiles(this.service.ws.resolver);
    return now === null ? [GIT_DIR] : refDifferences(after, refValues(now));
  }

  private unshownOf(id: string): Set<string> {
    try {
      const origin = this.service.get(id).origin;
      return new Set(origin.kind === 'command' ? (origin.unshown ?? []) : []);
    } catch {
      return new Set();
    }
  }

  /** Removes after records whose checkpoint was dropped or pruned. */
  private sweep(): void {
    const alive = new Set(this.service.manifests.ids().map((e) => e.id));
    this.folder.with(false, undefined, (dir) => {
      for (const id of this.ids()) if (!alive.has(id)) fs.rmSync(dir.at(`${id}.json`), { force: true });
    });
  }
}

/**
 * Makes the undo step of one shell command: the state before it of exactly
 * `changed` (the paths its effects named), cut from `index`, the workspace
 * checkpoint taken just before it ran. The blobs are `index`'s own (already
 * durable), so nothing is read or copied again; the caller may drop `index`
 * afterwards (the garbage collector keeps what this step names). Null when
 * the command changed nothing. Under the root lock.
 */
export function recordCommandStep(service: CheckpointService, index: Manifest, changed: Iterable<string>, origin: CommandOrigin, ignored: readonly ManifestEntry[] = [], git: CommandRefs | null = null): Manifest | null {
  const wanted = new Set(changed);
  if (wanted.size === 0 && ignored.length === 0 && (origin.notKept ?? []).length === 0 && git === null) return null;
  const entries: ManifestEntry[] = index.entries.filter((e) => wanted.delete(e.path));
  for (const rel of wanted) entries.push({ path: checkManifestPath(rel), type: 'absent' });
  // The ignored files it deleted or changed (ignored.ts), as they were: the index holds none of them.
  for (const e of ignored) entries.push({ ...e, path: checkManifestPath(e.path) });
  entries.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  // An ignored file's folders existed (the file was in them), ignored or not.
  const had = new Set([...index.dirs, ...ignored.flatMap((e) => parentDirs(e.path))]);
  const dirs = new Set<string>();
  const absentDirs = new Set<string>();
  for (const e of entries) for (const d of parentDirs(e.path)) (had.has(d) ? dirs : absentDirs).add(d);
  return service.lock.with(() => {
    const now = new Date();
    const manifest: Manifest = {
      format: 1,
      id: service.manifests.newId(now),
      // A hooked client's command is named as the client ran it (`claude Bash: rm -rf src`).
      name: origin.client ? `${origin.client} ${origin.tool ?? 'shell'}: ${commandLabel(origin.command)}` : commandLabel(origin.command),
      reason: `before the command \`${commandLabel(origin.command)}\``,
      scope: 'files',
      origin,
      createdAt: now.toISOString(),
      scanStartedMs: index.scanStartedMs,
      entries,
      dirs: [...dirs].sort(),
      absentDirs: [...absentDirs].sort(),
      // Its commit, branch or stash: every ref file as it was, and the refs by value as it left them (git-refs.ts).
      ...(git ? { git: { entries: refEntries(git.before, git.after, service.blobs), changed: git.changed, after: refValues(git.after) } } : {}),
    };
    service.manifests.write(manifest);
    new StepRecords(service).confirm(
      manifest.id,
      entries.map((e) => e.path),
    );
    return manifest;
  });
}

/** A command line as a step's name: one line, at most 200 characters. */
function commandLabel(command: string): string {
  const one = command.replace(/\s+/g, ' ').trim();
  return one.length > 200 ? `${one.slice(0, 199)}…` : one;
}

/** The state of each path now, hashes only (no blob stored), read through folders opened without following a link. */
function stateNow(service: CheckpointService, paths: readonly string[]): ManifestEntry[] {
  const dirs = new DirCache(service.ws.resolver);
  try {
    const out: ManifestEntry[] = [];
    for (const rel of new Set(paths)) {
      checkManifestPath(rel);
      const { parent, name } = dirs.tryParentOf(rel);
      const now = currentStateAt(parent, name);
      if (now.type === 'symlink') out.push({ path: rel, type: 'symlink', target: now.target });
      else if (now.type === 'file' && parent !== null) {
        const read = readRegularAt(parent, name);
        if (read === null) out.push({ path: rel, type: 'absent' });
        else {
          const st = read.stat;
          out.push({ path: rel, type: 'file', blob: sha256(read.bytes), size: read.bytes.length, mode: st.mode & 0o7777, mtimeMs: st.mtimeMs, ctimeMs: st.ctimeMs, ino: st.ino });
        }
      } else out.push({ path: rel, type: 'absent' });
    }
    return out.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  } finally {
    dirs.closeAll();
  }
}
