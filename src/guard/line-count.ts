/**
 * Lines changed between two versions of a file of any size or kind, counted
 * by streaming fixed-size chunks — never by loading or diffing the whole
 * file — so that a file's size or a NUL byte can never make a change free.
 *
 * The count: skip the lines both versions share at the start and at the end;
 * every line left on the old side is removed, every line left on the new
 * side is added. For one changed region (the usual edit, an append, a new or
 * deleted file) that is exactly what a line diff reports; for changes
 * scattered through a file it is more (the lines between them count too),
 * never less — a limit is never under-charged.
 *
 * Lines are runs of bytes ending in "\n" (or at the end of the file), for
 * text and binary files alike: a binary change counts its newline bytes as
 * lines, and a changed region without any still counts as one line. It only
 * reads; it never follows a symlink when it opens a path.
 */
import fs from 'node:fs';

/** Where the bytes of one side come from: in memory, or a file read in chunks. */
export type ByteSource = { kind: 'bytes'; bytes: Uint8Array } | { kind: 'file'; path: string };

const CHUNK = 64 * 1024;
const NEWLINE = 0x0a;

interface Reader {
  size: number;
  /** Reads up to `length` bytes at `position` into `buf`; returns how many. */
  read(buf: Buffer, length: number, position: number): number;
  close(): void;
}

function open(source: ByteSource | null): Reader {
  if (source === null) return { size: 0, read: () => 0, close: () => undefined };
  if (source.kind === 'bytes') {
    const bytes = Buffer.from(source.bytes.buffer, source.bytes.byteOffset, source.bytes.byteLength);
    return {
      size: bytes.length,
      read: (buf, length, position) => bytes.copy(buf, 0, position, Math.min(bytes.length, position + length)),
      close: () => undefined,
    };
  }
  // O_NOFOLLOW: a file swapped for a symlink after the scan is not read through it.
  const fd = fs.openSync(source.path, fs.constants.O_RDONLY | fs.constants.O_NOFOLLOW);
  const size = fs.fstatSync(fd).size;
  return {
    size,
    read: (buf, length, position) => {
      let done = 0;
      while (done < length) {
        const n = fs.readSync(fd, buf, done, length - done, position + done);
        if (n === 0) break;
        done += n;
      }
      return done;
    },
    close: () => fs.closeSync(fd),
  };
}

/** Newline bytes in [start, end). */
function countNewlines(r: Reader, start: number, end: number, buf: Buffer): number {
  let count = 0;
  for (let pos = start; pos < end; pos += CHUNK) {
    const n = r.read(buf, Math.min(CHUNK, end - pos), pos);
    let i = buf.indexOf(NEWLINE, 0);
    while (i !== -1 && i < n) {
      count++;
      i = buf.indexOf(NEWLINE, i + 1);
    }
    if (n === 0) break;
  }
  return count;
}

/** Position of the last newline before `end`, or -1. */
function lastNewlineBefore(r: Reader, end: number, buf: Buffer): number {
  for (let stop = end; stop > 0; stop -= CHUNK) {
    const start = Math.max(0, stop - CHUNK);
    const n = r.read(buf, stop - start, start);
    const i = buf.subarray(0, n).lastIndexOf(NEWLINE);
    if (i !== -1) return start + i;
  }
  return -1;
}

function byteAt(r: Reader, position: number, buf: Buffer): number | null {
  if (position < 0 || position >= r.size) return null;
  return r.read(buf, 1, position) === 1 ? (buf[0] as number) : null;
}

/** Length of the common prefix of a and b. */
function commonPrefix(a: Reader, b: Reader, bufA: Buffer, bufB: Buffer): number {
  const limit = Math.min(a.size, b.size);
  for (let pos = 0; pos < limit; pos += CHUNK) {
    const want = Math.min(CHUNK, limit - pos);
    const n = Math.min(a.read(bufA, want, pos), b.read(bufB, want, pos));
    for (let i = 0; i < n; i++) if (bufA[i] !== bufB[i]) return pos + i;
    if (n < want) return pos + n;
  }
  return limit;
}

/** Length of the common suffix of a and b, at most `limit` bytes. */
function commonSuffix(a: Reader, b: Reader, limit: number, bufA: Buffer, bufB: Buffer): number {
  let matched = 0;
  while (matched < limit) {
    const want = Math.min(CHUNK, limit - matched);
    const na = a.read(bufA, want, a.size - matched - want);
    const nb = b.read(bufB, want, b.size - matched - want);
    if (na < want || nb < want) return matched;
    for (let i = want - 1; i >= 0; i--) {
      if (bufA[i] !== bufB[i]) return matched + (want - 1 - i);
    }
    matched += want;
  }
  return matched;
}

function lineStartsAt(r: Reader, position: number, buf: Buffer): boolean {
  return position === 0 || byteAt(r, position - 1, buf) === NEWLINE;
}

function lineCount(newlines: number, r: Reader, buf: Buffer): number {
  if (r.size === 0) return 0;
  return byteAt(r, r.size - 1, buf) === NEWLINE ? newlines : newlines + 1;
}

/** Lines removed (old side) and added (new side); null stands for "no file". */
export function countChangedLines(before: ByteSource | null, after: ByteSource | null): { added: number; removed: number } {
  const a = open(before);
  let b: Reader | undefined;
  try {
    b = open(after);
    const bufA = Buffer.allocUnsafe(CHUNK);
    const bufB = Buffer.allocUnsafe(CHUNK);
    const p = commonPrefix(a, b, bufA, bufB);
    if (p === a.size && p === b.size) return { added: 0, removed: 0 };
    // Complete lines before the first difference are the same on both sides; the suffix may reach back to where they end.
    const lineStart = lastNewlineBefore(a, p, bufA) + 1;
    const prefixLines = countNewlines(a, 0, lineStart, bufA);
    const s = commonSuffix(a, b, Math.min(a.size, b.size) - lineStart, bufA, bufB);
    // Lines wholly inside the common suffix: they start after a newline that is itself in the suffix…
    let suffixLines = s > 1 ? countNewlines(a, a.size - s, a.size - 1, bufA) : 0;
    // …or exactly where the suffix begins, when both sides break the line just before it.
    if (s > 0 && lineStartsAt(a, a.size - s, bufA) && lineStartsAt(b, b.size - s, bufB)) suffixLines++;
    const linesA = lineCount(countNewlines(a, 0, a.size, bufA), a, bufA);
    const linesB = lineCount(countNewlines(b, 0, b.size, bufB), b, bufB);
    const shared = Math.min(prefixLines + suffixLines, linesA, linesB);
    const removed = Math.max(0, linesA - shared);
    const added = Math.max(0, linesB - shared);
    // A change is never free: a difference inside one line (no newline in it) is one line each way.
    if (removed === 0 && added === 0) return { added: b.size > 0 ? 1 : 0, removed: a.size > 0 ? 1 : 0 };
    return { added, removed };
  } finally {
    a.close();
    b?.close();
  }
}
