/**
 * The files that govern the agent: editwarden's config and the settings
 * `editwarden init` writes for each client (hooks, MCP registration). An
 * agent that could edit them could switch its own guard off, so the hook
 * refuses every native write to them. Pure: paths in, yes/no out.
 */
import { CONFIG_FILE } from '../config/config.js';

/** Root-relative paths (POSIX separators). */
export const PROTECTED_CONFIG_FILES: readonly string[] = [CONFIG_FILE, '.mcp.json', '.claude/settings.json', '.claude/settings.local.json', '.codex/config.toml', '.gemini/settings.json', '.cursor/hooks.json', '.cursor/mcp.json'];

const LOWER = new Set(PROTECTED_CONFIG_FILES.map((p) => p.toLowerCase()));

/** Compared case-insensitively: on macOS and Windows `.Claude/Settings.json` is the same file. */
export function isProtectedConfig(relative: string): boolean {
  return LOWER.has(relative.replace(/^\.\//, '').toLowerCase());
}
