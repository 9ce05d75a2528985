/**
 * Parse trees kept for the next edit of the same file: the tree of a text
 * seeds the incremental re-parse of the text an edit makes of it, and a text
 * asked about again (plan, then write; an edit retried after a refusal) is
 * never parsed twice.
 *
 * Keyed by path and text: a file keeps its two most recently used versions
 * (the text on disk and the last edit's result, which may have been refused),
 * and the cache as a whole a few files' worth.
 *
 * Must never: hand out a tree it has deleted, or hold more than `capacity`
 * trees (wasm memory is not garbage-collected; every tree dropped here is
 * deleted here).
 */
import type { Tree } from 'web-tree-sitter';

interface Entry {
  path: string;
  text: string;
  tree: Tree;
}

/** Versions of one file kept at most. */
const PER_PATH = 2;

export class TreeCache {
  /** Least recently used first. */
  private entries: Entry[] = [];

  constructor(private readonly capacity = 6) {}

  /** The tree of exactly this text of this file, if kept (and marks it used). */
  get(path: string, text: string): Tree | undefined {
    // Length first: comparing two different multi-megabyte texts of different length costs nothing.
    const i = this.entries.findIndex((e) => e.path === path && e.text.length === text.length && e.text === text);
    if (i === -1) return undefined;
    const [entry] = this.entries.splice(i, 1) as [Entry];
    this.entries.push(entry);
    return entry.tree;
  }

  /** Keeps `tree` as the tree of this text of this file; the cache owns it from now on. */
  keep(path: string, text: string, tree: Tree): void {
    const i = this.entries.findIndex((e) => e.path === path && e.text.length === text.length && e.text === text);
    if (i !== -1) {
      const [old] = this.entries.splice(i, 1) as [Entry];
      if (old.tree !== tree) old.tree.delete();
    }
    this.entries.push({ path, text, tree });
    let versions = this.entries.filter((e) => e.path === path).length;
    for (let j = 0; j < this.entries.length && versions > PER_PATH; ) {
      const entry = this.entries[j] as Entry;
      if (entry.path === path) {
        this.drop(j);
        versions--;
      } else j++;
    }
    while (this.entries.length > this.capacity) this.drop(0);
  }

  /** Deletes every tree. */
  clear(): void {
    for (const e of this.entries) e.tree.delete();
    this.entries = [];
  }

  get size(): number {
    return this.entries.length;
  }

  private drop(index: number): void {
    const [entry] = this.entries.splice(index, 1) as [Entry];
    entry.tree.delete();
  }
}
