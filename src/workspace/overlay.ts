/**
 * OverlayView: a FileView whose writes are held in memory over a base
 * view. Reads see the held writes (a file edited twice is edited on top of
 * the first edit); nothing reaches the base, let alone the disk. One class
 * serves the tools' planning view (plan a call's writes without writing,
 * remembering what the plan saw) and the Editor's dry run (its changes come
 * out as one git-style unified diff — the proposal).
 *
 * Every path still goes through the base's sandbox: `.editwarden/`, `.git/`
 * and anything outside the root are refused exactly as on disk. It
 * implements every FileView method itself — never by inheriting from or
 * wrapping the disk workspace's methods — so a writing method added to the
 * workspace later cannot write through a dry run. It must never write a
 * byte to the project, and never hand a write to a transaction layer.
 */
import { decodeText } from '../edit/text.js';
import { unifiedDiff } from '../edit/diff.js';
import { EditwardenError, ErrorCode } from '../errors.js';
import type { ResolvedPath } from './paths.js';
import { entryRelative, type FileView, type WriteTransaction } from './view.js';
import { protectedRefusal } from './policy.js';
import type { FileData } from './atomic.js';
import { fileSnapshot, type FileSnapshot, type FileWrite, type PathInfo } from './workspace.js';

/**
 * A held file: its new bytes and mode, or null when the overlay deletes it.
 * The bytes are kept as the write gave them (a planned edit's three pieces
 * of the file) and joined into one buffer only when something reads them: a
 * planning view is mostly never read back, and joining a large file's pieces
 * cost a copy of it per call (10k-line file through MCP: ~1 ms and the
 * garbage of a 0.8 MB buffer).
 */
type Entry = { data: FileData; mode: number; joined?: Buffer } | null;

export interface OverlayChange {
  path: string;
  kind: 'created' | 'modified' | 'deleted';
}

/** What a reader of the overlay saw of its base: a path's resolution, or a file's bytes (null: no file). */
export type Observation = { kind: 'resolve'; requested: string; resolved: ResolvedPath } | { kind: 'read'; requested: string; snapshot: FileSnapshot | null };

export interface OverlayOptions {
  /** Told of every resolution and read the overlay answered from its base (the planning view's record of what a plan saw). */
  observe?: ((observation: Observation) => void) | undefined;
}

/** The held bytes as one buffer, joined (and copied) on first use. */
function bytesOf(entry: NonNullable<Entry>): Buffer {
  if (entry.joined === undefined) {
    const data = entry.data;
    entry.joined = Array.isArray(data) ? Buffer.concat(data as readonly Uint8Array[]) : Buffer.from(data as Uint8Array);
  }
  return entry.joined;
}

export class OverlayView implements FileView {
  private readonly entries = new Map<string, Entry>();
  private readonly batches: FileWrite[][] = [];
  private readonly observe: ((observation: Observation) => void) | undefined;
  /** The one transaction of this view: its writes stay here. */
  private readonly tx: WriteTransaction = Object.freeze({ view: this });

  constructor(
    readonly base: FileView,
    options: OverlayOptions = {},
  ) {
    this.observe = options.observe;
  }

  get root(): string {
    return this.base.root;
  }

  get stateDir(): string {
    return this.base.stateDir;
  }

  get maxFileBytes(): number {
    return this.base.maxFileBytes;
  }

  resolve(requested: string): ResolvedPath {
    const resolved = this.base.resolve(requested);
    this.observe?.({ kind: 'resolve', requested, resolved });
    if (!this.entries.has(resolved.relative)) return resolved;
    return { ...resolved, exists: this.entries.get(resolved.relative) !== null };
  }

  exists(requested: string): boolean {
    return this.resolve(requested).exists;
  }

  read(requested: string): FileSnapshot | null {
    const resolved = this.base.resolve(requested);
    if (!this.entries.has(resolved.relative)) {
      const snapshot = this.base.read(requested);
      this.observe?.({ kind: 'read', requested, snapshot });
      return snapshot;
    }
    const entry = this.entries.get(resolved.relative) ?? null;
    if (entry === null) return null;
    const bytes = bytesOf(entry);
    if (bytes.length > this.maxFileBytes) {
      throw new EditwardenError({
        code: ErrorCode.TOO_LARGE,
        message: `${resolved.relative} is ${bytes.length} bytes, above the ${this.maxFileBytes}-byte limit for edits.`,
        hint: 'Edit a smaller file, or raise edit.max_file_bytes in .editwarden.yml if this is really intended.',
        path: resolved.relative,
      });
    }
    return fileSnapshot(resolved, bytes, entry.mode);
  }

  info(requested: string): PathInfo {
    const info = this.base.info(requested);
    if (!this.entries.has(info.relative)) return info;
    const entry = this.entries.get(info.relative) ?? null;
    if (entry === null) return { ...info, type: 'absent', stat: null };
    // A held file is a file; the disk's stat (when there is a file under it) still says its size and times on disk.
    return { ...info, type: 'file', stat: info.type === 'file' ? info.stat : null };
  }

  /** No lock: nothing is written, so nothing needs excluding. */
  transact<T>(work: (tx: WriteTransaction) => T): T {
    return work(this.tx);
  }

  /** Keeps a batch; each path is resolved (sandboxed) before any is kept, so a refused batch keeps nothing. */
  commit(tx: WriteTransaction, writes: FileWrite[]): void {
    // Defends against a disk transaction handed to a dry run (or another overlay's): it never carries writes here.
    if (tx !== this.tx) throw foreignTransaction();
    const resolved = writes.map((w) => ({ write: w, rel: this.base.resolve(w.path) }));
    // A dry run or a plan refuses a protected path exactly as the disk commit would (the hook's verdict is this plan's).
    for (const { write, rel } of resolved) if (rel.protectedBy) throw protectedRefusal(write.path, rel.protectedBy);
    for (const { write, rel } of resolved) {
      if (write.kind === 'delete') {
        // The entry is deleted, a link as a link (as the disk writer's unlink does).
        const entry = entryRelative(this.base, write.path);
        if (this.base.info(entry).type !== 'absent') this.entries.set(entry, null);
        else this.entries.delete(entry);
        continue;
      }
      const mode = write.mode ?? this.modeOf(rel.relative);
      this.entries.set(rel.relative, { data: write.bytes, mode });
    }
    this.batches.push([...writes]);
  }

  /** Every write committed to this view, in order (what a planned call will write). */
  written(): FileWrite[] {
    return this.batches.flat();
  }

  private modeOf(relative: string): number {
    const entry = this.entries.get(relative);
    if (entry) return entry.mode;
    try {
      // Through the base's race-free resolver: the mode of what is really at the path inside the root.
      const info = this.base.info(relative);
      return info.stat && info.type === 'file' ? info.stat.mode & 0o7777 : 0o644;
    } catch {
      return 0o644;
    }
  }

  /** Paths the overlay changes, sorted, with what happens to each (a write equal to the base is no change). */
  changes(): OverlayChange[] {
    const out: OverlayChange[] = [];
    for (const rel of [...this.entries.keys()].sort()) {
      const entry = this.entries.get(rel) ?? null;
      const disk = this.base.read(rel);
      if (entry === null) {
        if (disk) out.push({ path: rel, kind: 'deleted' });
      } else if (!disk) out.push({ path: rel, kind: 'created' });
      else if (!disk.bytes.equals(bytesOf(entry))) out.push({ path: rel, kind: 'modified' });
    }
    return out;
  }

  /** Held text of a path (null: absent in the overlay), or undefined when the overlay does not touch it. */
  proposed(relative: string): string | null | undefined {
    if (!this.entries.has(relative)) return undefined;
    const entry = this.entries.get(relative) ?? null;
    return entry === null ? null : bytesOf(entry).toString('utf8');
  }

  /** Relative paths the overlay adds that the base does not have. */
  created(): string[] {
    return this.changes()
      .filter((c) => c.kind === 'created')
      .map((c) => c.path);
  }

  deleted(): string[] {
    return this.changes()
      .filter((c) => c.kind === 'deleted')
      .map((c) => c.path);
  }

  /** Each changed file's diff and line counts. */
  fileDiffs(): Array<OverlayChange & { diff: string; added: number; removed: number }> {
    return this.changes().map((change) => {
      const disk = this.base.read(change.path);
      const entry = this.entries.get(change.path) ?? null;
      const before = disk ? decodeText(disk.bytes, change.path).text : null;
      const after = entry ? decodeText(bytesOf(entry), change.path).text : null;
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

function foreignTransaction(): EditwardenError {
  return new EditwardenError({
    code: ErrorCode.INTERNAL,
    message: 'A write reached an overlay view with a transaction of another view; nothing was kept.',
    hint: 'Write through the transaction this view hands out (view.transact).',
  });
}
