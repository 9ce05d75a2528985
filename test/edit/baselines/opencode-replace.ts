/**
 * A faithful re-implementation of opencode's edit replacer chain
 * (sst/opencode, packages/opencode/src/tool/edit.ts: `replace` and its
 * replacers, in the same order and with the same thresholds), written here
 * from reading it, as a baseline for the tolerance corpus. Test code only:
 * it must never be used to edit anything.
 */

type Replacer = (content: string, find: string) => Generator<string, void, unknown>;

const SINGLE_CANDIDATE_SIMILARITY_THRESHOLD = 0.0;
const MULTIPLE_CANDIDATES_SIMILARITY_THRESHOLD = 0.3;

function levenshtein(a: string, b: string): number {
  if (a === '' || b === '') return Math.max(a.length, b.length);
  let prev = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const cur = [i];
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      cur[j] = Math.min((prev[j] as number) + 1, (cur[j - 1] as number) + 1, (prev[j - 1] as number) + cost);
    }
    prev = cur;
  }
  return prev[b.length] as number;
}

const offsetOfLine = (lines: string[], line: number): number => {
  let at = 0;
  for (let k = 0; k < line; k++) at += (lines[k] as string).length + 1;
  return at;
};

const SimpleReplacer: Replacer = function* (_content, find) {
  yield find;
};

const LineTrimmedReplacer: Replacer = function* (content, find) {
  const originalLines = content.split('\n');
  const searchLines = find.split('\n');
  if (searchLines[searchLines.length - 1] === '') searchLines.pop();
  for (let i = 0; i <= originalLines.length - searchLines.length; i++) {
    let matches = true;
    for (let j = 0; j < searchLines.length; j++) {
      if ((originalLines[i + j] as string).trim() !== (searchLines[j] as string).trim()) {
        matches = false;
        break;
      }
    }
    if (matches) {
      const start = offsetOfLine(originalLines, i);
      let end = start;
      for (let k = 0; k < searchLines.length; k++) {
        end += (originalLines[i + k] as string).length;
        if (k < searchLines.length - 1) end += 1;
      }
      yield content.substring(start, end);
    }
  }
};

function blockText(content: string, lines: string[], startLine: number, endLine: number): string {
  const start = offsetOfLine(lines, startLine);
  let end = start;
  for (let k = startLine; k <= endLine; k++) {
    end += (lines[k] as string).length;
    if (k < endLine) end += 1;
  }
  return content.substring(start, end);
}

const BlockAnchorReplacer: Replacer = function* (content, find) {
  const originalLines = content.split('\n');
  const searchLines = find.split('\n');
  if (searchLines.length < 3) return;
  if (searchLines[searchLines.length - 1] === '') searchLines.pop();
  const firstLineSearch = (searchLines[0] as string).trim();
  const lastLineSearch = (searchLines[searchLines.length - 1] as string).trim();
  const searchBlockSize = searchLines.length;
  const candidates: Array<{ startLine: number; endLine: number }> = [];
  for (let i = 0; i < originalLines.length; i++) {
    if ((originalLines[i] as string).trim() !== firstLineSearch) continue;
    for (let j = i + 2; j < originalLines.length; j++) {
      if ((originalLines[j] as string).trim() === lastLineSearch) {
        candidates.push({ startLine: i, endLine: j });
        break;
      }
    }
  }
  if (candidates.length === 0) return;
  if (candidates.length === 1) {
    const { startLine, endLine } = candidates[0] as { startLine: number; endLine: number };
    const actualBlockSize = endLine - startLine + 1;
    let similarity = 0;
    const linesToCheck = Math.min(searchBlockSize - 2, actualBlockSize - 2);
    if (linesToCheck > 0) {
      for (let j = 1; j < searchBlockSize - 1 && j < actualBlockSize - 1; j++) {
        const originalLine = (originalLines[startLine + j] as string).trim();
        const searchLine = (searchLines[j] as string).trim();
        const maxLen = Math.max(originalLine.length, searchLine.length);
        if (maxLen === 0) continue;
        similarity += (1 - levenshtein(originalLine, searchLine) / maxLen) / linesToCheck;
        if (similarity >= SINGLE_CANDIDATE_SIMILARITY_THRESHOLD) break;
      }
    } else {
      similarity = 1.0;
    }
    if (similarity >= SINGLE_CANDIDATE_SIMILARITY_THRESHOLD) yield blockText(content, originalLines, startLine, endLine);
    return;
  }
  let bestMatch: { startLine: number; endLine: number } | null = null;
  let maxSimilarity = -1;
  for (const candidate of candidates) {
    const { startLine, endLine } = candidate;
    const actualBlockSize = endLine - startLine + 1;
    let similarity = 0;
    const linesToCheck = Math.min(searchBlockSize - 2, actualBlockSize - 2);
    if (linesToCheck > 0) {
      for (let j = 1; j < searchBlockSize - 1 && j < actualBlockSize - 1; j++) {
        const originalLine = (originalLines[startLine + j] as string).trim();
        const searchLine = (searchLines[j] as string).trim();
        const maxLen = Math.max(originalLine.length, searchLine.length);
        if (maxLen === 0) continue;
        similarity += 1 - levenshtein(originalLine, searchLine) / maxLen;
      }
      similarity /= linesToCheck;
    } else {
      similarity = 1.0;
    }
    if (similarity > maxSimilarity) {
      maxSimilarity = similarity;
      bestMatch = candidate;
    }
  }
  if (maxSimilarity >= MULTIPLE_CANDIDATES_SIMILARITY_THRESHOLD && bestMatch) {
    yield blockText(content, originalLines, bestMatch.startLine, bestMatch.endLine);
  }
};

const WhitespaceNormalizedReplacer: Replacer = function* (content, find) {
  const normalizeWhitespace = (text: string): string => text.replace(/\s+/g, ' ').trim();
  const normalizedFind = normalizeWhitespace(find);
  const lines = content.split('\n');
  for (const line of lines) {
    if (normalizeWhitespace(line) === normalizedFind) {
      yield line;
    } else if (normalizeWhitespace(line).includes(normalizedFind)) {
      const words = find.trim().split(/\s+/);
      if (words.length > 0) {
        const pattern = words.map((word) => word.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')).join('\\s+');
        try {
          const match = line.match(new RegExp(pattern));
          if (match) yield match[0];
        } catch {
          // an invalid pattern is skipped, as in the original
        }
      }
    }
  }
  const findLines = find.split('\n');
  if (findLines.length > 1) {
    for (let i = 0; i <= lines.length - findLines.length; i++) {
      const block = lines.slice(i, i + findLines.length);
      if (normalizeWhitespace(block.join('\n')) === normalizedFind) yield block.join('\n');
    }
  }
};

const IndentationFlexibleReplacer: Replacer = function* (content, find) {
  const removeIndentation = (text: string): string => {
    const lines = text.split('\n');
    const nonEmpty = lines.filter((line) => line.trim().length > 0);
    if (nonEmpty.length === 0) return text;
    const minIndent = Math.min(...nonEmpty.map((line) => (line.match(/^(\s*)/)?.[1] ?? '').length));
    return lines.map((line) => (line.trim().length === 0 ? line : line.slice(minIndent))).join('\n');
  };
  const normalizedFind = removeIndentation(find);
  const contentLines = content.split('\n');
  const findLines = find.split('\n');
  for (let i = 0; i <= contentLines.length - findLines.length; i++) {
    const block = contentLines.slice(i, i + findLines.length).join('\n');
    if (removeIndentation(block) === normalizedFind) yield block;
  }
};

const EscapeNormalizedReplacer: Replacer = function* (content, find) {
  const unescapeString = (str: string): string =>
    str.replace(/\\(n|t|r|'|"|`|\\|\n|\$)/g, (match, c: string) => {
      switch (c) {
        case 'n':
          return '\n';
        case 't':
          return '\t';
        case 'r':
          return '\r';
        case "'":
          return "'";
        case '"':
          return '"';
        case '`':
          return '`';
        case '\\':
          return '\\';
        case '\n':
          return '\n';
        case '$':
          return '$';
        default:
          return match;
      }
    });
  const unescapedFind = unescapeString(find);
  if (content.includes(unescapedFind)) yield unescapedFind;
  const lines = content.split('\n');
  const findLines = unescapedFind.split('\n');
  for (let i = 0; i <= lines.length - findLines.length; i++) {
    const block = lines.slice(i, i + findLines.length).join('\n');
    if (unescapeString(block) === unescapedFind) yield block;
  }
};

const MultiOccurrenceReplacer: Replacer = function* (content, find) {
  let startIndex = 0;
  for (;;) {
    const index = content.indexOf(find, startIndex);
    if (index === -1) break;
    yield find;
    startIndex = index + find.length;
  }
};

const TrimmedBoundaryReplacer: Replacer = function* (content, find) {
  const trimmedFind = find.trim();
  if (trimmedFind === find) return;
  if (content.includes(trimmedFind)) yield trimmedFind;
  const lines = content.split('\n');
  const findLines = find.split('\n');
  for (let i = 0; i <= lines.length - findLines.length; i++) {
    const block = lines.slice(i, i + findLines.length).join('\n');
    if (block.trim() === trimmedFind) yield block;
  }
};

const ContextAwareReplacer: Replacer = function* (content, find) {
  const findLines = find.split('\n');
  if (findLines.length < 3) return;
  if (findLines[findLines.length - 1] === '') findLines.pop();
  const contentLines = content.split('\n');
  const firstLine = (findLines[0] as string).trim();
  const lastLine = (findLines[findLines.length - 1] as string).trim();
  for (let i = 0; i < contentLines.length; i++) {
    if ((contentLines[i] as string).trim() !== firstLine) continue;
    for (let j = i + 2; j < contentLines.length; j++) {
      if ((contentLines[j] as string).trim() === lastLine) {
        const blockLines = contentLines.slice(i, j + 1);
        const block = blockLines.join('\n');
        if (blockLines.length === findLines.length) {
          let matchingLines = 0;
          let totalNonEmptyLines = 0;
          for (let k = 1; k < blockLines.length - 1; k++) {
            const blockLine = (blockLines[k] as string).trim();
            const findLine = (findLines[k] as string).trim();
            if (blockLine.length > 0 || findLine.length > 0) {
              totalNonEmptyLines++;
              if (blockLine === findLine) matchingLines++;
            }
          }
          if (totalNonEmptyLines === 0 || matchingLines / totalNonEmptyLines >= 0.5) {
            yield block;
            break;
          }
        }
        break;
      }
    }
  }
};

/** opencode's `replace`: the first replacer whose candidate occurs exactly once wins; throws when none does. */
export function opencodeReplace(content: string, oldString: string, newString: string, replaceAll = false): string {
  if (oldString === newString) throw new Error('No changes to apply: oldString and newString are identical.');
  let notFound = true;
  for (const replacer of [
    SimpleReplacer,
    LineTrimmedReplacer,
    BlockAnchorReplacer,
    WhitespaceNormalizedReplacer,
    IndentationFlexibleReplacer,
    EscapeNormalizedReplacer,
    TrimmedBoundaryReplacer,
    ContextAwareReplacer,
    MultiOccurrenceReplacer,
  ]) {
    for (const search of replacer(content, oldString)) {
      const index = content.indexOf(search);
      if (index === -1) continue;
      notFound = false;
      if (replaceAll) return content.replaceAll(search, newString);
      const lastIndex = content.lastIndexOf(search);
      if (index !== lastIndex) continue;
      return content.substring(0, index) + newString + content.substring(index + search.length);
    }
  }
  if (notFound) throw new Error('Could not find oldString in the file.');
  throw new Error('Found multiple matches for oldString.');
}
