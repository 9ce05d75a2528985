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
import { atomicWriteFile, fsyncDir, TEMP_PREFIX } from './atomic.js';
import type { CheckpointScope } from './checkpoints/types.js';

export const JOURNAL_DIR = 'journal';

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
}

export class Journal {
  readonly dir: string;

  constructor(stateDir: string) {
    this.dir = path.join(stateDir, JOURNAL_DIR);
  }

  private fileOf(tx: string): string {
    return path.join(this.dir, `${tx}.json`);
  }

  /** Durably records the transaction (first call) or its new checkpoint list. Returns once it is on disk. */
  write(record: JournalRecord): void {
    fs.mkdirSync(this.dir, { recursive: true });
    atomicWriteFile(this.fileOf(record.tx), Buffer.from(JSON.stringify(record)), { mode: 0o644 });
  }

  /** Marks the transaction finished (committed, rolled back or kept): its record is gone for good. */
  close(tx: string): void {
    try {
      // unlink, not rmSync: rmSync stats the path first, one more metadata call on every write.
      fs.unlinkSync(this.fileOf(tx));
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
    }
    fsyncDir(this.dir);
  }

  /** Records of transactions that never finished, without cleaning anything (safe without the lock). */
  unfinishedReadOnly(): JournalRecord[] {
    return this.read(false);
  }

  /** Records of transactions that never finished; also removes temp files of killed journal writes. Call under the root lock. */
  unfinished(): JournalRecord[] {
    return this.read(true);
  }

  private read(clean: boolean): JournalRecord[] {
    let names: string[];
    try {
      names = fs.readdirSync(this.dir);
    } catch {
      return [];
    }
    const out: JournalRecord[] = [];
    for (const name of names) {
      if (name.startsWith(TEMP_PREFIX)) {
        // A journal write killed before its rename: the transaction had not begun writing.
        if (clean) fs.rmSync(path.join(this.dir, name), { force: true });
        continue;
      }
      if (!name.endsWith('.json')) continue;
      try {
        const record = JSON.parse(fs.readFileSync(path.join(this.dir, name), 'utf8')) as JournalRecord;
        if (record.format === 1 && typeof record.tx === 'string') out.push(record);
      } catch {
        // Records are written by rename, so an unparseable one was made by hand; it is left for a person to look at.
      }
    }
    return out.sort((a, b) => (a.startedAt < b.startedAt ? -1 : 1));
  }

  /** Whether any record exists (no parsing): lets open() skip the lock when there is nothing to recover. */
  hasAny(): boolean {
    try {
      return fs.readdirSync(this.dir).length > 0;
    } catch {
      return false;
    }
  }
}
