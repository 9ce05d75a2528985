/**
 * What a command changed on disk, so it can be charged to the run's limits
 * (the ADR counts only edits made by the file tools; `sed -i` in
 * execute_command would slip through). Before a command, a workspace
 * checkpoint is taken: its manifest is the fast index (size + mtime + ctime
 * + inode per file; unchanged files reuse the previous checkpoint's blobs
 * without being read) and its blobs hold the old bytes. After the command,
 * the checkpoint's diff names every file added, deleted or modified, with a
 * unified diff to count lines from. Files git ignores (build output) are not
 * project content and are not charged. The checkpoint is dropped once
 * counted; the run-level checkpoint, if any, is what rollback uses.
 */
import type { CheckpointService } from '../workspace/checkpoints/service.js';
import type { CheckpointChange } from '../workspace/checkpoints/types.js';
import type { FileChange } from './constraints.js';

export interface EffectsMark {
  checkpoint: string;
}

export class CommandEffects {
  constructor(private readonly checkpoints: CheckpointService) {}

  before(label: string): EffectsMark {
    const manifest = this.checkpoints.createWorkspace(`before ${label}`, 'index of the workspace before a command, to charge what it changes', { kind: 'manual' });
    return { checkpoint: manifest.id };
  }

  after(mark: EffectsMark): FileChange[] {
    const changes = this.checkpoints.diff(mark.checkpoint);
    try {
      this.checkpoints.drop(mark.checkpoint);
    } catch {
      // Keeping one checkpoint too many is harmless; losing the count is not.
    }
    return changes.map(toFileChange);
  }
}

export function toFileChange(change: CheckpointChange): FileChange {
  const { added, removed } = change.patch ? countPatchLines(change.patch) : { added: 0, removed: 0 };
  return { path: change.path, added, removed };
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
