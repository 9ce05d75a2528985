/**
 * Reading a call's arguments as the model sent them, before its schema has
 * checked them: what a tool's `describe` (tools/types.ts) needs to say what
 * a call does even when the arguments are malformed. Pure.
 */

/** An argument as text ('' when the model sent something else). */
export function textArg(value: unknown): string {
  return typeof value === 'string' ? value : '';
}

/** The file a call names, under any of the names models use for it. */
export function targetArg(args: Record<string, unknown>): string {
  return textArg(args.path) || textArg(args.filename) || textArg(args.file_path);
}
