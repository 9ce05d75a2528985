/**
 * The lines a hunk is matched against: the file as a line image (lines plus
 * whether the last one ends with a newline), and the matching passes of
 * increasing leniency — exact, trailing whitespace, surrounding whitespace,
 * unicode look-alikes (the one table in lookalikes.ts) — with a per-pass
 * cache of normalised lines. Pure; must never decide where a hunk goes
 * (hunks.ts does) or know any patch format.
 */
import { replaceLookalikes } from './lookalikes.js';

/** Matching passes, strictest first; the tolerant mode tries them in this order. */
export type Level = 'exact' | 'trailing-whitespace' | 'surrounding-whitespace' | 'unicode';
export const TOLERANT_LEVELS: readonly Level[] = ['exact', 'trailing-whitespace', 'surrounding-whitespace', 'unicode'];
export const STRICT_LEVELS: readonly Level[] = ['exact'];

export function normalize(level: Level, line: string): string {
  switch (level) {
    case 'exact':
      return line;
    case 'trailing-whitespace':
      return line.trimEnd();
    case 'surrounding-whitespace':
      return line.trim();
    case 'unicode':
      return replaceLookalikes(line).trim();
    default: {
      const never: never = level;
      throw new Error(`unknown level ${String(never)}`);
    }
  }
}

/** The file as lines plus whether its last line ends with a newline ("" has no lines and counts as ending with one). */
export interface LineImage {
  lines: string[];
  eofNewline: boolean;
}

export function toLineImage(text: string): LineImage {
  if (text === '') return { lines: [], eofNewline: true };
  const lines = text.split('\n');
  if (lines[lines.length - 1] === '') {
    lines.pop();
    return { lines, eofNewline: true };
  }
  return { lines, eofNewline: false };
}

export function fromLineImage(image: LineImage): string {
  if (image.lines.length === 0) return '';
  return image.lines.join('\n') + (image.eofNewline ? '\n' : '');
}

/** Normalised file lines per level, computed on demand: most searches never leave the exact pass. */
export class LineCache {
  private readonly byLevel = new Map<Level, (string | undefined)[]>();
  constructor(private readonly lines: readonly string[]) {}
  get(level: Level, index: number): string {
    const raw = this.lines[index] as string;
    if (level === 'exact') return raw;
    let cache = this.byLevel.get(level);
    if (!cache) {
      cache = new Array<string | undefined>(this.lines.length);
      this.byLevel.set(level, cache);
    }
    let value = cache[index];
    if (value === undefined) {
      value = normalize(level, raw);
      cache[index] = value;
    }
    return value;
  }
}

export function matchesAt(cache: LineCache, pattern: readonly string[], at: number, level: Level): boolean {
  for (let k = 0; k < pattern.length; k++) {
    if (cache.get(level, at + k) !== pattern[k]) return false;
  }
  return true;
}

/** What a pass ignores, for the notes a tolerant match reports. */
export function describeLevel(level: Level): string {
  switch (level) {
    case 'exact':
      return 'nothing';
    case 'trailing-whitespace':
      return 'trailing whitespace';
    case 'surrounding-whitespace':
      return 'leading and trailing whitespace';
    case 'unicode':
      return 'whitespace and typographic punctuation (smart quotes, dashes, non-breaking spaces)';
    default: {
      const never: never = level;
      return String(never);
    }
  }
}
