/**
 * How much text editwarden hands a model or an MCP client in one answer, and
 * how it is cut: one rule for every place output is bounded. A text over its
 * limit keeps its first `limit` characters and ends with a marker naming
 * what was cut and where, so a model knows it did not see everything (a
 * read_file page is cut the same way, at the last whole line, and says
 * where to read on: mcp/paging.ts).
 */

/** Characters per kind of output. A page and a diff always fit in one result. */
export const OUTPUT_LIMITS = {
  /** The diff in a write's result or a dry run's preview. */
  diff: 20_000,
  /** File text in one read_file page for an MCP client: ~15k tokens, under every client's limit for one tool result. */
  page: 60_000,
  /** Any one MCP result: far below the SDK's 10 MiB stdio buffer and what clients show. */
  result: 200_000,
} as const;

export type OutputKind = keyof typeof OUTPUT_LIMITS;

/** `text` as sent: whole when it fits `limit` (default: the kind's), else its start and a marker saying it was cut. */
export function cutOutput(text: string, kind: OutputKind, limit: number = OUTPUT_LIMITS[kind]): string {
  return text.length > limit ? `${text.slice(0, limit)}\n${cutMarker(kind, limit)}` : text;
}

/** The line that ends a cut text. */
export function cutMarker(kind: OutputKind, limit: number = OUTPUT_LIMITS[kind]): string {
  return `…[${kind} cut at ${limit} characters]`;
}
