/**
 * The configuration file editwarden reads from a root, and how much of it.
 * The name itself is a member of the protected set (config/protected-set.ts,
 * the one table of protected names), so every agent write is denied it and
 * every sandbox binds it read-only (an agent that rewrites the file that
 * limits it would lift its own limits). It imports nothing but that table
 * (pure data), so the workspace can depend on it without a cycle.
 */
import { CONFIG_FILE } from './protected-set.js';

/** The project configuration, at the root. */
export { CONFIG_FILE };

/** Largest config file read (a YAML config is a few KiB): a larger one is refused, never read whole. */
export const MAX_CONFIG_BYTES = 1024 * 1024;
