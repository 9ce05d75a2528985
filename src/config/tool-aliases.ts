/**
 * The ADR's names for our tools (`apply_diff` is the ADR's name for applying
 * a diff: our apply_patch). Its own module so the trust table (trust-keys.ts)
 * can compare tool lists without importing the schema.
 */
export const TOOL_ALIASES: Readonly<Record<string, string>> = { apply_diff: 'apply_patch' };
