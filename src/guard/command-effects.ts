/**
 * What a command changed on disk, so it can be charged to the run's limits
 * (the ADR counts only edits made by the file tools; `sed -i` in
 * execute_command would slip through). Before a command, a workspace
 * checkpoint is taken: its manifest is the fast index (size + mtime + ctime
 * + inode per file; unchanged files reuse the previous checkpoint's blobs
 * without being read) and its blobs hold the old bytes. After the command,
 * the checkpoint's diff names every file added, deleted or modified. The
 * checkpoint is dropped once counted; the run-level checkpoint, if any, is
 * what rollback uses.
 *
 * Measured against rules the command cannot change: "ignored" means ignored
 * by the .gitignore files and .git/info/exclude as they were BEFORE the
 * command (a command that writes `*` into .gitignore does not hide the files
 * it creates). Lines are counted from the real diff where one exists (text
 * up to 1 MiB), else by streaming both versions (line-count.ts): no size and
 * no NUL byte makes a change free. The protected set (`.git/`, the config
 * files, client settings: the workspace's Policy) is snapshotted too: any change a command makes to them is reported and put
 * back at once (governing.ts).
 */
import path from 'node:path';
import type { CheckpointService } from '../workspace/checkpoints/service.js';
import type { CheckpointChange, Manifest } from '../workspace/checkpoints/types.js';
import { readExcludeFile } from '../workspace/checkpoints/walk.js';
import { governingChanges, revertGoverning, snapshotGoverning, type GoverningChange, type GoverningSnapshot } from '../workspace/governing.js';
import type { FileChange } from './constraints.js';
import { countChangedLines, type ByteSource } from './line-count.js';

export interface EffectsMark {
  checkpoint: string;
  /** .git/info/exclude as it was before the command. */
  exclude: string | null;
  governing: GoverningSnapshot;
}

export interface CommandEffectsResult {
  changes: FileChange[];
  /** Changes to `.git/` or a config file, already put back (see `reverted` of each). */
  governing: GoverningChange[];
}

export class CommandEffects {
  /** What a command may not change: the project's protected set, as its Policy lists it (one value, computed when the project was opened). */
  private readonly governed: readonly string[];

  constructor(private readonly checkpoints: CheckpointService) {
    const policy = checkpoints.ws.policy;
    this.governed = [...policy.governedPaths(), ...policy.outsideConfigFiles];
  }

  before(label: string): EffectsMark {
    const root = this.checkpoints.ws.root;
    // The rules first: what the command finds is what it may not change.
    const exclude = readExcludeFile(root);
    const governing = snapshotGoverning(root, this.governed);
    const manifest = this.checkpoints.createWorkspace(`before ${label}`, 'index of the workspace before a command, to charge what it changes', { kind: 'manual' });
    return { checkpoint: manifest.id, exclude, governing };
  }

  after(mark: EffectsMark): CommandEffectsResult {
    // Undo changes to what governs the run before anything else reads it.
    const governing = revertGoverning(mark.governing, governingChanges(mark.governing));
    const governed = new Set(governing.map((g) => g.path));
    const diff = this.checkpoints.diff(mark.checkpoint, { rules: { only: 'checkpoint', exclude: mark.exclude } });
    const manifest = this.checkpoints.get(mark.checkpoint);
    const changes = diff.filter((c) => !governed.has(c.path)).map((c) => toFileChange(c, sidesOf(this.checkpoints, manifest)));
    try {
      this.checkpoints.drop(mark.checkpoint);
    } catch {
      // Keeping one checkpoint too many is harmless; losing the count is not.
    }
    return { changes, governing };
  }
}

/** Where the old and new bytes of a changed path are: the checkpoint's blob (or inline bytes) and the file on disk. */
export type ChangeSides = (change: CheckpointChange) => { before: ByteSource | null; after: ByteSource | null };

export function sidesOf(service: CheckpointService, manifest: Manifest): ChangeSides {
  const entries = new Map(manifest.entries.map((e) => [e.path, e]));
  return (change) => {
    const entry = entries.get(change.path);
    let before: ByteSource | null = null;
    if (entry?.type === 'file') {
      before = entry.inline !== undefined ? { kind: 'bytes', bytes: Buffer.from(entry.inline, 'base64') } : { kind: 'file', path: service.blobs.pathOf(entry.blob) };
    }
    const after: ByteSource | null = change.after?.type === 'file' ? { kind: 'file', path: path.join(service.ws.root, ...change.path.split('/')) } : null;
    return { before, after };
  };
}

/**
 * One changed path as the limits see it. Lines from the unified diff when
 * there is one; otherwise (large or binary files) streamed from both sides,
 * so every content change costs at least one line.
 */
export function toFileChange(change: CheckpointChange, sides?: ChangeSides): FileChange {
  if (change.patch) return { path: change.path, ...countPatchLines(change.patch) };
  const content = change.before?.type === 'file' || change.after?.type === 'file';
  if (!sides || !content || change.change === 'mode') return { path: change.path, added: 0, removed: 0 };
  try {
    const { before, after } = sides(change);
    return { path: change.path, ...countChangedLines(before, after) };
  } catch {
    // The file vanished between the scan and the count: it still changed.
    return { path: change.path, added: 1, removed: 1 };
  }
}

/** Lines added and removed in a unified diff (headers excluded). */
export function countPatchLines(patch: string): { added: number; removed: number } {
  let added = 0;
  let removed = 0;
  let inHunk = false;
  for (const line of patch.split('\n')) {
    if (line.startsWith('@@')) {
      inHunk = true;
      continue;
    }
    if (!inHunk) continue;
    if (line.startsWith('+')) added++;
    else if (line.startsWith('-')) removed++;
  }
  return { added, removed };
}
