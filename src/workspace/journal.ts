/**
 * The write-ahead journal: one small record per open transaction in
 * `.editwarden/journal/<tx>.json`, written atomically and durably BEFORE the
 * transaction's first write to a project file, updated (again before the
 * writes) each time the transaction checkpoints more files, and removed when
 * the transaction ends. A record still present when no process holds the
 * root lock belongs to a process that died mid-transaction: recovery rolls it
 * back. This module only keeps the records; it never touches project files.
 */
import fs from 'node:fs';
import path from 'node:path';
import { atomicWriteAt, TEMP_PREFIX } from './atomic.js';
import { observe } from './durable.js';
import type { CheckpointScope } from './checkpoints/types.js';
import type { Resolver } from './resolver.js';
import { readStateFile, StateFolder, TX_ID, untrusted } from './state-dir.js';

export const JOURNAL_DIR = 'journal';
/** Records recovery could not verify or roll back: kept (nothing lost), never acted on, until a person drops or retries them. */
const HELD_DIR = 'journal/held';

export interface JournalRecord {
  format: 1;
  tx: string;
  name: string;
  reason: string;
  scope: CheckpointScope;
  pid: number;
  /** With `host`, tells a dead owner from a live one even if its pid was reused (see lock.ts). */
  processStart: number | null;
  host: string;
  startedAt: string;
  /**
   * Checkpoints that together hold the state before the transaction, oldest
   * first: a workspace checkpoint at begin (workspace scope) and one file
   * checkpoint for each batch of paths first written.
   */
  checkpoints: string[];
  /** The root this record was written for (device and inode): a record copied into another root is never acted on. */
  root?: { dev: number; ino: number };
}

/** A record file that could not be used as it is: unparseable, or not ours. */
export interface UnreadableRecord {
  file: string;
  why: string;
}

export class Journal {
  readonly dir: string;
  private readonly folder: StateFolder;
  private readonly held: StateFolder;

  constructor(private readonly resolver: Resolver) {
    this.folder = new StateFolder(resolver, JOURNAL_DIR);
    this.held = new StateFolder(resolver, HELD_DIR);
    this.dir = this.folder.dir;
  }

  /** Absolute path of the held-records folder (for messages). */
  get heldDir(): string {
    return this.held.dir;
  }

  /**
   * Durably records the transaction (first call) or its new checkpoint list.
   * Returns once it is on disk — unless `deferred` is given: then the record
   * and its folder are added to it, and the caller makes them durable (in
   * one group with the checkpoint and its own first temp file) before the
   * first write the record covers.
   */
  write(record: JournalRecord, deferred?: string[]): void {
    if (!TX_ID.test(record.tx)) throw untrusted(`Refusing to journal a transaction named ${JSON.stringify(record.tx)}.`);
    const bound: JournalRecord = { ...record, root: this.resolver.identity };
    const name = `${record.tx}.json`;
    this.folder.with(true, undefined, (dir) => atomicWriteAt(dir, name, Buffer.from(JSON.stringify(bound)), { mode: 0o644, noSync: deferred !== undefined }));
    deferred?.push(path.join(this.dir, name), this.dir);
    observe({ op: 'journal', tx: record.tx, action: 'write' });
  }

  /** Marks the transaction finished (committed, rolled back or kept): its record is gone for good. */
  close(tx: string): void {
    if (!TX_ID.test(tx)) return;
    this.folder.with(false, undefined, (dir) => {
      try {
        // unlink, not rmSync: rmSync stats the path first, one more metadata call on every write.
        fs.unlinkSync(dir.at(`${tx}.json`));
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
      }
      dir.fsync();
      observe({ op: 'journal', tx, action: 'close' });
    });
  }

  /** Records of transactions that never finished, without cleaning anything (safe without the lock). */
  unfinishedReadOnly(): JournalRecord[] {
    return this.read(false).records;
  }

  /** Records of transactions that never finished; also removes temp files of killed journal writes. Call under the root lock. */
  unfinished(): JournalRecord[] {
    return this.read(true).records;
  }

  /** Record files that are not usable records (with why): recovery holds them instead of stopping every command. */
  unreadable(): UnreadableRecord[] {
    return this.read(false).bad;
  }

  private read(clean: boolean): { records: JournalRecord[]; bad: UnreadableRecord[] } {
    return this.folder.with(false, { records: [], bad: [] }, (dir) => {
      const out: JournalRecord[] = [];
      const bad: UnreadableRecord[] = [];
      for (const name of fs.readdirSync(dir.self)) {
        if (name.startsWith(TEMP_PREFIX)) {
          // A journal write killed before its rename: the transaction had not begun writing.
          if (clean) fs.rmSync(dir.at(name), { force: true });
          continue;
        }
        if (!name.endsWith('.json')) continue;
        try {
          const record = JSON.parse(readStateFile(dir, name).toString('utf8')) as JournalRecord;
          const why = invalidRecord(record, name);
          if (why === null) out.push(record);
          else bad.push({ file: name, why });
        } catch (error) {
          bad.push({ file: name, why: `unreadable (${error instanceof Error ? error.message : String(error)})` });
        }
      }
      return { records: out.sort((a, b) => (a.startedAt < b.startedAt ? -1 : 1)), bad };
    });
  }

  /** Whether any record exists (no parsing): lets open() skip the lock when there is nothing to recover. */
  hasAny(): boolean {
    return this.folder.with(false, false, (dir) => fs.readdirSync(dir.self).some((n) => n !== 'held'));
  }

  /** Moves a record aside (journal/held/): kept whole for a person, never acted on again by recovery. */
  hold(file: string, why: string): string {
    const heldName = `${file.replace(/\.json$/, '')}.json`;
    this.held.with(true, undefined, (heldDir) => {
      this.folder.with(false, undefined, (dir) => {
        fs.renameSync(dir.at(file), heldDir.at(heldName));
        fs.writeFileSync(heldDir.at(`${heldName}.why`), `${why}\n`, { flag: 'w' });
        dir.fsync();
        heldDir.fsync();
      });
    });
    return heldName;
  }

  /** Held records: file names and why each was held. */
  heldRecords(): UnreadableRecord[] {
    return this.held.with(false, [] as UnreadableRecord[], (dir) =>
      fs
        .readdirSync(dir.self)
        .filter((n) => n.endsWith('.json'))
        .sort()
        .map((file) => {
          let why = 'held';
          try {
            why = readStateFile(dir, `${file}.why`).toString('utf8').trim();
          } catch {
            // No reason recorded.
          }
          return { file, why };
        }),
    );
  }

  /** Drops a held record for good (`editwarden checkpoint repair --drop`): the person has checked the files. */
  dropHeld(file: string): boolean {
    if (!/^[\w.-]+\.json$/.test(file) || file.startsWith('.')) return false;
    return this.held.with(false, false, (dir) => {
      try {
        fs.unlinkSync(dir.at(file));
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code === 'ENOENT') return false;
        throw error;
      }
      fs.rmSync(dir.at(`${file}.why`), { force: true });
      dir.fsync();
      return true;
    });
  }

  /** Puts a held record back in the journal so the next command tries to roll it back again. */
  retryHeld(file: string): boolean {
    if (!/^[\w.-]+\.json$/.test(file) || file.startsWith('.')) return false;
    return this.held.with(false, false, (heldDir) =>
      this.folder.with(false, false, (dir) => {
        try {
          fs.renameSync(heldDir.at(file), dir.at(file));
        } catch (error) {
          if ((error as NodeJS.ErrnoException).code === 'ENOENT') return false;
          throw error;
        }
        fs.rmSync(heldDir.at(`${file}.why`), { force: true });
        return true;
      }),
    );
  }
}

/** Why a parsed record cannot be trusted as one of ours for this root; null when it can. */
function invalidRecord(record: JournalRecord, file: string): string | null {
  if (typeof record !== 'object' || record === null || record.format !== 1) return 'not a journal record of this editwarden version';
  if (typeof record.tx !== 'string' || !TX_ID.test(record.tx) || `${record.tx}.json` !== file) return 'its transaction name does not match its file';
  if (!Array.isArray(record.checkpoints) || !record.checkpoints.every((c) => typeof c === 'string')) return 'its checkpoint list is malformed';
  if (typeof record.pid !== 'number' || typeof record.host !== 'string' || typeof record.startedAt !== 'string') return 'its owner is malformed';
  return null;
}
