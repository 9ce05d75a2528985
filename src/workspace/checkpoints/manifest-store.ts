/**
 * Checkpoint manifests on disk: `.editwarden/checkpoints/manifests/<scope>/<id>.json`,
 * each written atomically (temp + fsync + rename), so a crash leaves either
 * the whole manifest or none. Ids sort by creation time. This module never
 * touches blobs or project files.
 */
import fs from 'node:fs';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import { EditwardenError, ErrorCode } from '../../errors.js';
import { atomicWriteAt } from '../atomic.js';
import { READ_FLAGS } from '../resolver.js';
import type { Resolver } from '../resolver.js';
import { readStateFile, StateFolder } from '../state-dir.js';
import type { CheckpointScope, Manifest } from './types.js';

const SCOPES: readonly CheckpointScope[] = ['files', 'workspace'];
const ID_PATTERN = /^\d{8}-\d{6}-\d{3}-[0-9a-f]{4}$/;

export class ManifestStore {
  readonly dir: string;
  private lastStamp = '';
  private readonly folders: Record<CheckpointScope, StateFolder>;

  constructor(resolver: Resolver, sub: string) {
    this.folders = { files: new StateFolder(resolver, `${sub}/files`), workspace: new StateFolder(resolver, `${sub}/workspace`) };
    this.dir = path.dirname(this.folders.files.dir);
  }

  /** A new id: `YYYYMMDD-HHMMSS-mmm-xxxx` (UTC), sortable by time; unique within this store object even within one millisecond. */
  newId(now: Date): string {
    let stamp = formatStamp(now);
    // Two checkpoints in one ms (a restore's safety checkpoint and the next edit) must still sort in order.
    if (stamp <= this.lastStamp) stamp = formatStamp(new Date(parseStamp(this.lastStamp) + 1));
    this.lastStamp = stamp;
    return `${stamp}-${randomBytes(2).toString('hex')}`;
  }

  /**
   * Writes a manifest (temp + rename: whole or absent). Durable on return,
   * unless `deferred` is given: then the manifest and its folder are added
   * to it, and the caller makes them durable before anything relies on them.
   */
  write(manifest: Manifest, deferred?: string[]): void {
    if (!ID_PATTERN.test(manifest.id)) throw unknownCheckpoint(manifest.id);
    const name = `${manifest.id}.json`;
    const folder = this.folders[manifest.scope];
    folder.with(true, undefined, (dir) => atomicWriteAt(dir, name, Buffer.from(JSON.stringify(manifest)), { mode: 0o644, noSync: deferred !== undefined }));
    deferred?.push(path.join(folder.dir, name), folder.dir);
  }

  /** Ids of every manifest, oldest first (optionally of one scope). */
  ids(scope?: CheckpointScope): Array<{ id: string; scope: CheckpointScope }> {
    const out: Array<{ id: string; scope: CheckpointScope }> = [];
    for (const s of scope ? [scope] : SCOPES) {
      let names: string[];
      try {
        names = this.folders[s].with(false, [] as string[], (dir) => fs.readdirSync(dir.self));
      } catch {
        continue;
      }
      for (const name of names) {
        if (!name.endsWith('.json')) continue;
        const id = name.slice(0, -'.json'.length);
        if (ID_PATTERN.test(id)) out.push({ id, scope: s });
      }
    }
    return out.sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  }

  scopeOf(id: string): CheckpointScope | null {
    // Ids come from journal records and requests too: never build a path from one that is not an id.
    if (!ID_PATTERN.test(id)) return null;
    for (const s of SCOPES) if (this.folders[s].with(false, false, (dir) => fs.existsSync(dir.at(`${id}.json`)))) return s;
    return null;
  }

  read(id: string): Manifest {
    if (!ID_PATTERN.test(id)) throw unknownCheckpoint(id);
    const scope = this.scopeOf(id);
    if (scope === null) throw unknownCheckpoint(id);
    let parsed: unknown;
    try {
      parsed = JSON.parse(this.folders[scope].with(false, Buffer.from('null'), (dir) => readStateFile(dir, `${id}.json`)).toString('utf8'));
    } catch (error) {
      throw new EditwardenError(
        {
          code: ErrorCode.IO,
          message: `Checkpoint ${id} has an unreadable manifest.`,
          hint: 'The checkpoint store was changed by hand or damaged; drop this checkpoint and use another.',
        },
        { cause: error },
      );
    }
    const manifest = parsed as Manifest;
    if (typeof manifest !== 'object' || manifest === null || manifest.format !== 1 || manifest.id !== id || manifest.scope !== scope || !Array.isArray(manifest.entries)) {
      throw new EditwardenError({
        code: ErrorCode.IO,
        message: `Checkpoint ${id} has a manifest of an unknown format.`,
        hint: 'It was written by another editwarden version; use that version or drop the checkpoint.',
      });
    }
    return manifest;
  }

  /**
   * Whether manifest `id` is of origin `index`, from its first bytes only (a
   * 50k-file manifest is an 11 MB JSON: parsing it just to read its origin
   * cost as much as the command's walk). `save` writes `origin` before
   * `entries`, and inside a JSON string a quote is escaped, so the unescaped
   * text below can only be the origin itself.
   */
  isIndex(id: string): boolean {
    const scope = this.scopeOf(id);
    if (scope === null) return false;
    try {
      const head = this.folders[scope].with(false, '', (dir) => {
        const fd = fs.openSync(dir.at(`${id}.json`), READ_FLAGS);
        try {
          const buf = Buffer.alloc(4096);
          return buf.toString('utf8', 0, fs.readSync(fd, buf, 0, buf.length, 0));
        } finally {
          fs.closeSync(fd);
        }
      });
      const entries = head.indexOf('"entries":');
      const origin = head.indexOf(',"origin":{"kind":"index"},');
      return head.startsWith(`{"format":1,"id":"${id}",`) && origin !== -1 && (entries === -1 || origin < entries);
    } catch {
      return false;
    }
  }

  /** The newest workspace manifest, for incremental checkpoints; null when there is none. */
  latestWorkspace(): Manifest | null {
    const ids = this.ids('workspace');
    for (let i = ids.length - 1; i >= 0; i--) {
      try {
        return this.read((ids[i] as { id: string }).id);
      } catch {
        // A damaged manifest is no base for reuse; try an older one.
      }
    }
    return null;
  }

  remove(id: string): void {
    const scope = this.scopeOf(id);
    if (scope === null) throw unknownCheckpoint(id);
    this.folders[scope].with(false, undefined, (dir) => {
      fs.rmSync(dir.at(`${id}.json`), { force: true });
      dir.fsync();
    });
  }
}

export function unknownCheckpoint(id: string): EditwardenError {
  return new EditwardenError({
    code: ErrorCode.NOT_FOUND,
    message: `There is no checkpoint ${JSON.stringify(id)}.`,
    hint: 'Run `editwarden checkpoint list` to see the checkpoint ids of this root.',
  });
}

function pad(n: number, width: number): string {
  return String(n).padStart(width, '0');
}

function formatStamp(d: Date): string {
  return `${pad(d.getUTCFullYear(), 4)}${pad(d.getUTCMonth() + 1, 2)}${pad(d.getUTCDate(), 2)}-` + `${pad(d.getUTCHours(), 2)}${pad(d.getUTCMinutes(), 2)}${pad(d.getUTCSeconds(), 2)}-${pad(d.getUTCMilliseconds(), 3)}`;
}

function parseStamp(stamp: string): number {
  const m = /^(\d{4})(\d{2})(\d{2})-(\d{2})(\d{2})(\d{2})-(\d{3})$/.exec(stamp);
  if (!m) return Date.now();
  const [, y, mo, d, h, mi, s, ms] = m.map(Number) as number[];
  return Date.UTC(y as number, (mo as number) - 1, d, h, mi, s, ms);
}
