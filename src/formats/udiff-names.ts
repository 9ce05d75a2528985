/**
 * File names in unified diffs: git's C-quoted names, the `--- `/`+++ ` name
 * with its timestamp, and the two halves of a `diff --git a/X b/Y` header.
 * Pure string work; must never touch the file system or decide which file a
 * patch edits (udiff.ts does, from these names).
 */

const DEV_NULL = '/dev/null';

/** Undoes git's C-style quoting of names with spaces, quotes or non-ASCII bytes. */
export function unquoteGitPath(raw: string): string {
  if (!raw.startsWith('"') || !raw.endsWith('"') || raw.length < 2) return raw;
  const body = raw.slice(1, -1);
  const bytes: number[] = [];
  for (let i = 0; i < body.length; i++) {
    const ch = body[i] as string;
    if (ch !== '\\') {
      for (const b of Buffer.from(ch, 'utf8')) bytes.push(b);
      continue;
    }
    const next = body[++i];
    if (next === undefined) break;
    const simple: Record<string, number> = { n: 10, t: 9, r: 13, '"': 34, '\\': 92, a: 7, b: 8, f: 12, v: 11 };
    if (simple[next] !== undefined) bytes.push(simple[next] as number);
    else if (/[0-7]/.test(next)) {
      const oct = body.slice(i, i + 3);
      bytes.push(parseInt(oct, 8) & 0xff);
      i += 2;
    } else for (const b of Buffer.from(next, 'utf8')) bytes.push(b);
  }
  return Buffer.from(bytes).toString('utf8');
}

/** The name on a ---/+++ line: timestamps after a tab and trailing blanks go; null for /dev/null. */
export function nameOf(rest: string): string | null {
  let name = rest;
  if (name.startsWith('"')) {
    const end = findClosingQuote(name);
    name = unquoteGitPath(name.slice(0, end + 1));
  } else {
    const tab = name.indexOf('\t');
    if (tab !== -1) name = name.slice(0, tab);
    name = name.trimEnd();
    // `diff -u` without tabs (python difflib, some tools): "name  2009-12-27 16:08:28" or "name Sun Dec 27 …".
    const stamp = name.match(/^(\S+)\s+(?:\d{4}-\d\d-\d\d|(?:Mon|Tue|Wed|Thu|Fri|Sat|Sun) \w{3} +\d)/);
    if (stamp) name = stamp[1] as string;
  }
  return name === DEV_NULL ? null : name;
}

function findClosingQuote(text: string): number {
  for (let i = 1; i < text.length; i++) {
    if (text[i] === '\\') i++;
    else if (text[i] === '"') return i;
  }
  return text.length - 1;
}

/** Splits "a/X b/Y" of a git header; with spaces in names, the split where both halves agree wins. */
export function splitGitHeader(rest: string): { a?: string; b?: string } {
  if (rest.startsWith('"')) {
    const end = findClosingQuote(rest);
    const a = unquoteGitPath(rest.slice(0, end + 1));
    const tail = rest.slice(end + 1).trim();
    return { a, b: unquoteGitPath(tail) };
  }
  const candidates: number[] = [];
  for (let i = rest.indexOf(' '); i !== -1; i = rest.indexOf(' ', i + 1)) candidates.push(i);
  for (const i of candidates) {
    const a = rest.slice(0, i);
    const b = rest.slice(i + 1);
    if (stripPrefix(a, 'a/') === stripPrefix(b, 'b/')) return { a, b };
  }
  const i = candidates.find((c) => rest.slice(c + 1).startsWith('b/') || rest.slice(c + 1).startsWith('"')) ?? candidates[0];
  if (i === undefined) return { a: rest };
  return { a: rest.slice(0, i), b: unquoteGitPath(rest.slice(i + 1)) };
}

export function stripPrefix(name: string, prefix: string): string {
  return name.startsWith(prefix) ? name.slice(prefix.length) : name;
}
