/**
 * The dry-run overlay: a view of a workspace in which the Editor's writes
 * land in memory instead of on disk. Reads through the view see the
 * proposed changes (a file edited twice is edited on top of the first
 * edit), the disk is never written, and at the end the changes come out as
 * one git-style unified diff — the proposal.
 *
 * The view is the real Workspace object's behaviour with four methods
 * replaced (read, exists, resolve, commit/writeAll), so every path still
 * goes through the same sandbox: `.editwarden/`, `.git/` and anything
 * outside the root are refused exactly as on disk. It must never write a
 * byte to the project, and never hand a write to a transaction layer.
 */
import { decodeText } from '../../edit/text.js';
import { unifiedDiff } from '../../edit/diff.js';
import { EditwardenError, ErrorCode } from '../../errors.js';
import type { ResolvedPath } from '../../workspace/paths.js';
import { fileSnapshot, type FileSnapshot, type FileWrite, type Workspace } from '../../workspace/workspace.js';

/** A proposed file: its new bytes and mode, or null when the proposal deletes it. */
type Entry = { bytes: Buffer; mode: number } | null;

export interface OverlayChange {
  path: string;
  kind: 'created' | 'modified' | 'deleted';
}

function flatten(data: FileWrite & { kind: 'write' }): Buffer {
  const bytes = data.bytes;
  return Array.isArray(bytes) ? Buffer.concat(bytes as readonly Uint8Array[]) : Buffer.from(bytes as Uint8Array);
}

export class Overlay {
  private readonly entries = new Map<string, Entry>();
  /** The workspace view tools and scouts are given (same root, same sandbox, writes kept here). */
  readonly ws: Workspace;

  constructor(readonly base: Workspace) {
    // The Workspace constructor is private (workspaces are opened, not built), so the view
    // inherits from the real object and replaces only what must see or keep the overlay.
    const view = Object.create(base) as Workspace;
    const overlay = this;
    Object.defineProperties(view, {
      resolve: { value: (requested: string): ResolvedPath => overlay.resolve(requested) },
      exists: { value: (requested: string): boolean => overlay.resolve(requested).exists },
      read: { value: (requested: string): FileSnapshot | null => overlay.read(requested) },
      commit: { value: (writes: FileWrite[]): void => overlay.store(writes) },
      writeAll: { value: (writes: FileWrite[]): void => overlay.store(writes) },
      // A transaction layer installed on the view must not route writes to the disk.
      setCommitter: { value: (): void => undefined },
    });
    this.ws = view;
  }

  resolve(requested: string): ResolvedPath {
    const resolved = this.base.resolve(requested);
    if (!this.entries.has(resolved.relative)) return resolved;
    return { ...resolved, exists: this.entries.get(resolved.relative) !== null };
  }

  read(requested: string): FileSnapshot | null {
    const resolved = this.base.resolve(requested);
    if (!this.entries.has(resolved.relative)) return this.base.read(requested);
    const entry = this.entries.get(resolved.relative) ?? null;
    if (entry === null) return null;
    if (entry.bytes.length > this.base.maxFileBytes) {
      throw new EditwardenError({
        code: ErrorCode.TOO_LARGE,
        message: `${resolved.relative} is ${entry.bytes.length} bytes, above the ${this.base.maxFileBytes}-byte limit for edits.`,
        hint: 'Edit a smaller file, or raise edit.max_file_bytes in .editwarden.yml if this is really intended.',
        path: resolved.relative,
      });
    }
    return fileSnapshot(resolved, entry.bytes, entry.mode);
  }

  /** Keeps a batch of writes; each path is resolved (sandboxed) before any is kept, so a refused batch keeps nothing. */
  store(writes: FileWrite[]): void {
    const resolved = writes.map((w) => ({ write: w, rel: this.base.resolve(w.path) }));
    for (const { write, rel } of resolved) {
      if (write.kind === 'delete') {
        const onDisk = this.base.resolve(rel.relative).exists;
        if (onDisk) this.entries.set(rel.relative, null);
        else this.entries.delete(rel.relative);
        continue;
      }
      const mode = write.mode ?? this.modeOf(rel.relative);
      this.entries.set(rel.relative, { bytes: flatten(write), mode });
    }
  }

  private modeOf(relative: string): number {
    const entry = this.entries.get(relative);
    if (entry) return entry.mode;
    try {
      // Through the race-free resolver: the mode of what is really at the path inside the root.
      const info = this.base.info(relative);
      return info.stat && info.type === 'file' ? info.stat.mode & 0o7777 : 0o644;
    } catch {
      return 0o644;
    }
  }

  /** Paths the proposal changes, sorted, with what happens to each (a write equal to the disk is no change). */
  changes(): OverlayChange[] {
    const out: OverlayChange[] = [];
    for (const rel of [...this.entries.keys()].sort()) {
      const entry = this.entries.get(rel) ?? null;
      const disk = this.base.read(rel);
      if (entry === null) {
        if (disk) out.push({ path: rel, kind: 'deleted' });
      } else if (!disk) out.push({ path: rel, kind: 'created' });
      else if (!disk.bytes.equals(entry.bytes)) out.push({ path: rel, kind: 'modified' });
    }
    return out;
  }

  /** Proposed text of a path (null: absent in the proposal), or undefined when the overlay does not touch it. */
  proposed(relative: string): string | null | undefined {
    if (!this.entries.has(relative)) return undefined;
    const entry = this.entries.get(relative) ?? null;
    return entry === null ? null : entry.bytes.toString('utf8');
  }

  /** Relative paths the overlay adds that the disk does not have. */
  created(): string[] {
    return this.changes().filter((c) => c.kind === 'created').map((c) => c.path);
  }

  deleted(): string[] {
    return this.changes().filter((c) => c.kind === 'deleted').map((c) => c.path);
  }

  /** Each changed file's diff and line counts. */
  fileDiffs(): Array<OverlayChange & { diff: string; added: number; removed: number }> {
    return this.changes().map((change) => {
      const disk = this.base.read(change.path);
      const entry = this.entries.get(change.path) ?? null;
      const before = disk ? decodeText(disk.bytes, change.path).text : null;
      const after = entry ? decodeText(entry.bytes, change.path).text : null;
      const mode = 0o100000 | (entry?.mode ?? disk?.mode ?? 0o644);
      return { ...change, ...unifiedDiff({ oldPath: change.path, newPath: change.path, before, after, mode }) };
    });
  }

  /** Everything the overlay changes, as one git-style unified diff (empty when nothing changed). */
  diff(): string {
    return this.fileDiffs()
      .map((f) => f.diff)
      .join('');
  }
}
