/**
 * Folder listings a walk may reuse instead of reading the folder again, as
 * git's untracked cache does: a folder's entries change only through its
 * own entries being added, removed, renamed or replaced, and every such
 * change moves the folder's mtime and ctime. So a listing recorded with the
 * folder's key (device, inode, mtime, ctime) holds as long as the key does.
 * A file's CONTENT changing does not move its folder's key: the walk still
 * takes every file's own lstat; only the readdir (and its sort) is saved.
 *
 * It must never hand a walk a listing the folder no longer has:
 * - the key is read from the opened folder BEFORE it is listed, so a change
 *   during the listing leaves a newer key than the one recorded;
 * - a listing is recorded only when the folder's mtime and ctime are strictly
 *   older than a clock read from the same file system before the walk began
 *   (stat-cache.ts's racy-clock rule): a later change in the same timestamp
 *   tick would keep an equal key, so a folder changed in or after the
 *   clock's tick is listed again next time, never trusted;
 * - a walk that reads no clock (a restore's, a command's diff) only reads
 *   listings; the recording walk (a workspace checkpoint's) replaces the
 *   root's whole table, so folders gone since leave with it.
 * Listings live in this process's memory only, per root (its device and
 * inode), the few most recent roots: a new process lists every folder once.
 */
import type fs from 'node:fs';
import type { FsClock } from './stat-cache.js';

/** A folder's entries as a walk read them, before any ignore rule (walk.ts's sort keys), and the key it had before the read. */
export interface Listing {
  dev: number;
  ino: number;
  mtimeMs: number;
  ctimeMs: number;
  /** The walk's sort keys (walk.ts DIR_MARK), sorted; never mutated once recorded. */
  keys: readonly string[];
  /** Each entry's path from the root, in the keys' order (made once, shared by every walk that reuses the listing). */
  paths: readonly string[];
  /** Whether the folder held an entry named .gitignore (the walk reads its rules then). */
  gitignore: boolean;
}

/** The folder's key, from an fstat of the opened folder. */
export type FolderKey = Pick<fs.Stats, 'dev' | 'ino' | 'mtimeMs' | 'ctimeMs'>;

/** How many roots' tables a process keeps (a test run opens hundreds; a server, one or two). */
const MAX_ROOTS = 8;

const roots = new Map<string, Map<string, Listing>>();

const rootKey = (identity: { dev: number; ino: number }): string => `${identity.dev}:${identity.ino}`;

/** The listings recorded for a root, by folder (relative, "" for the root); empty when none. */
export function listingsOf(identity: { dev: number; ino: number }): ReadonlyMap<string, Listing> {
  return roots.get(rootKey(identity)) ?? new Map();
}

/** Replaces the root's table with what a walk under `clock` recorded. */
export function keepListings(identity: { dev: number; ino: number }, table: Map<string, Listing>): void {
  const key = rootKey(identity);
  roots.delete(key);
  roots.set(key, table);
  while (roots.size > MAX_ROOTS) roots.delete(roots.keys().next().value as string);
}

/** Forgets every root's listings (tests; a process that wants every folder read again). */
export function forgetListings(): void {
  roots.clear();
}

/** Whether `listing` is still the folder's: its key now is the one recorded. */
export function stillListed(listing: Listing, now: FolderKey): boolean {
  return listing.ino === now.ino && listing.dev === now.dev && listing.mtimeMs === now.mtimeMs && listing.ctimeMs === now.ctimeMs;
}

/** Whether a listing read after `clock` under key `key` may be recorded: last changed strictly before the clock's tick, on its device. */
export function recordable(key: FolderKey, clock: FsClock): boolean {
  return key.dev === clock.dev && key.mtimeMs < clock.ms && key.ctimeMs < clock.ms;
}
