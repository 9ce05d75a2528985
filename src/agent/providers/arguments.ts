/**
 * Tool-call arguments as models write them: JSON text that should hold one
 * object. Parsing says precisely what is wrong when it does not, because
 * that text goes back to the model as an error it can fix. Pure.
 */

export type ParsedArguments = { ok: true; value: Record<string, unknown> } | { ok: false; reason: string };

export function parseToolArguments(raw: string): ParsedArguments {
  // Models often send "" for a tool without parameters; that means {}.
  if (raw.trim() === '') return { ok: true, value: {} };
  let value: unknown;
  try {
    value = JSON.parse(raw);
  } catch (error) {
    return { ok: false, reason: `the arguments are not valid JSON (${(error as Error).message})` };
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    return { ok: false, reason: `the arguments must be one JSON object, not ${value === null ? 'null' : Array.isArray(value) ? 'an array' : typeof value}` };
  }
  return { ok: true, value: value as Record<string, unknown> };
}

/** The argument object, or undefined when the text is not one. */
export function argumentsObject(raw: string): Record<string, unknown> | undefined {
  const parsed = parseToolArguments(raw);
  return parsed.ok ? parsed.value : undefined;
}
