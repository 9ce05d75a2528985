/**
 * What the scouts read: the files of the workspace that git would not
 * ignore (never `.git/` or `.editwarden/`), and their text — through the
 * workspace view, so in a dry run the scouts see the overlay's proposed
 * files like every other reader. Texts are cached by size and mtime so a
 * second query in the same session reads only what changed. Read-only.
 */
import type fs from 'node:fs';
import { walkFiles } from '../../workspace/file-walk.js';
import type { OverlayView } from '../../workspace/overlay.js';
import type { FileView } from '../../workspace/view.js';

export interface FileSource {
  readonly root: string;
  /** Relative paths ("/" separators), sorted; at most `maxFiles`. */
  files(): string[];
  /** Whether the listing stopped at `maxFiles`. */
  readonly truncated: boolean;
  /** The file's text; null when it is missing, binary, too large or outside the sandbox. */
  text(relative: string): string | null;
}

export interface SourceLimits {
  maxFiles?: number;
  /** Larger files are listed but not read (bytes). */
  maxFileBytes?: number;
}

const DEFAULT_MAX_FILES = 20_000;
const DEFAULT_MAX_TEXT_BYTES = 1024 * 1024;

interface Cached {
  size: number;
  mtimeMs: number;
  text: string | null;
}

export function workspaceSource(ws: FileView, overlay?: OverlayView, limits: SourceLimits = {}): FileSource {
  const maxFiles = limits.maxFiles ?? DEFAULT_MAX_FILES;
  const maxBytes = limits.maxFileBytes ?? DEFAULT_MAX_TEXT_BYTES;
  const cache = new Map<string, Cached>();
  let truncated = false;
  return {
    root: ws.root,
    get truncated() {
      return truncated;
    },
    files(): string[] {
      const out: string[] = [];
      truncated = false;
      walkFiles(ws.root, (rel, type) => {
        if (type !== 'file') return undefined;
        if (out.length >= maxFiles) {
          truncated = true;
          return false;
        }
        out.push(rel);
        return undefined;
      });
      if (!overlay) return out;
      const deleted = new Set(overlay.deleted());
      const all = new Set(out.filter((f) => !deleted.has(f)));
      for (const f of overlay.created()) all.add(f);
      return [...all].sort();
    },
    text(relative: string): string | null {
      const proposed = overlay?.proposed(relative);
      if (proposed !== undefined) return proposed !== null && proposed.length <= maxBytes && !proposed.includes('\0') ? proposed : null;
      // Through the race-free resolver (src/workspace/resolver.ts): never a path string that a swapped folder could redirect.
      let stat: fs.Stats;
      try {
        const info = ws.info(relative);
        if (info.type !== 'file' || info.stat === null) return null;
        stat = info.stat;
      } catch {
        return null;
      }
      const hit = cache.get(relative);
      if (hit && hit.size === stat.size && hit.mtimeMs === stat.mtimeMs) return hit.text;
      let text: string | null = null;
      if (stat.size <= maxBytes) {
        try {
          const bytes = ws.read(relative)?.bytes ?? null;
          // A NUL byte in the first 8 KB: binary, as git and grep judge it.
          text = bytes === null || bytes.subarray(0, 8192).includes(0) ? null : bytes.toString('utf8');
        } catch {
          text = null;
        }
      }
      cache.set(relative, { size: stat.size, mtimeMs: stat.mtimeMs, text });
      return text;
    },
  };
}
