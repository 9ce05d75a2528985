/**
 * The names of the configuration files editwarden reads from a root. Owned
 * here so the workspace can deny them to every agent write (an agent that
 * rewrites the file that limits it would lift its own limits); it must never
 * import anything, so the workspace can depend on it without a cycle.
 */

/** The project configuration, at the root. */
export const CONFIG_FILE = '.editwarden.yml';

/** Largest config file read (a YAML config is a few KiB): a larger one is refused, never read whole. */
export const MAX_CONFIG_BYTES = 1024 * 1024;

/** Every root-relative name editwarden may read configuration from (compared case-insensitively: case-folding file systems). */
export const CONFIG_FILE_NAMES: readonly string[] = [CONFIG_FILE];
