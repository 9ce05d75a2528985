import type { SearchQuery } from '../../src/tools/search.js';

/** A literal, case-sensitive search of the whole root with no result or size cap that a test reaches, `over` on top. */
export const searchQuery = (pattern: string, over: Partial<SearchQuery> = {}): SearchQuery => ({
  pattern,
  regex: false,
  caseSensitive: true,
  start: '',
  globs: [],
  maxResults: 100_000,
  maxFileBytes: 10 * 1024 * 1024,
  ...over,
});
