/**
 * The default configuration as a plain object — the one place each default
 * lives. The schema (config.ts) takes its `.default()` values from
 * DEFAULT_CONFIG, and commands that run without a config file use it without
 * loading the schema library (~100 ms of start-up an agent would pay on
 * every edit). The edit limits come from the engine's own defaults
 * (edit/types.ts), which the workspace uses too. DEFAULT_CONFIG is
 * deliberately not annotated with `Config` (the schema that defines `Config`
 * reads it); `loadConfigFast` returning it as a `Config` checks that it is one.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { Config } from './config.js';
import { DEFAULT_EDIT_OPTIONS } from '../edit/types.js';
import { NO_REPOSITORY_CONFIG } from './trust-state.js';
import { userConfigFile } from './trust-store.js';
import { NO_LAYERS } from './layers.js';
import type { LoadedConfig } from './load.js';
import type { NetworkSetting } from './network-setting.js';
import { CONFIG_FILE, GIT_DIR } from './protected-set.js';

/** The tools a run may use when the config names none. */
export const DEFAULT_ALLOWED_TOOLS = ['read_file', 'list_files', 'search_files', 'edit_file', 'write_file', 'apply_patch', 'execute_command', 'task_completion'] as const;

export const DEFAULT_CONFIG = {
  constraints: {
    max_files: 10,
    max_lines_changed: 500,
    allowed_patterns: [],
    // `.git/**` as the ADR's own YAML lists it, its name from the protected set: the Policy refuses every write there
    // (E_DENIED_PATH); this glob makes a headless attempt the ADR's Pattern violation that stops the run (tools/runner.ts `plan`).
    denied_patterns: [`${GIT_DIR}/**`, 'vendor/**', 'node_modules/**', '**/*_generated.*'],
    allowed_tools: [...DEFAULT_ALLOWED_TOOLS] as string[],
    max_tokens: 50_000,
    timeout: 300,
    on_violation: 'keep' as 'keep' | 'rollback',
  },
  verify: { timeout: 600, on_completion: true },
  edit: {
    strict: false,
    // The engine's own defaults (edit/types.ts), so the limit exists once for the library, the CLI, MCP and the config.
    max_file_bytes: DEFAULT_EDIT_OPTIONS.maxFileBytes,
    dramatic_reduction: { min_lines: DEFAULT_EDIT_OPTIONS.dramaticMinLines, ratio: DEFAULT_EDIT_OPTIONS.dramaticRatio },
    syntax_guard: 'refuse' as 'refuse' | 'warn' | 'off',
  },
  reports: { controlled_edit: 'docs/telemetry/controlled_edit_report.md' },
  checkpoints: {
    keep_last: 500,
    max_file_bytes: 256 * 1024 * 1024,
    max_total_bytes: 8 * 1024 * 1024 * 1024,
    // A long-lived server (MCP, the hook server) answers a lone edit before its checkpoint's fsync (docs/checkpoints.md, "Durability").
    durability: 'deferred' as 'deferred' | 'strict',
    // Ignored files a command deletes or rewrites (docs/checkpoints.md, "Ignored files"); `rebuildable` adds to (or, `!name/`, takes from) the built-in list.
    ignored: { enabled: true, max_file_bytes: 16 * 1024 * 1024, max_total_bytes: 512 * 1024 * 1024, rebuildable: [] as string[] },
  },
  search: { timeout: 30 },
  scouts: {},
  sandbox: { enabled: true, network: 'off' as NetworkSetting, git_writable: false, allow_unsandboxed: false, env: [], readable: [], writable: [] },
  workspace: { allow_hardlinks: false },
  active_edit_enabled: false,
};

/** A copy of the defaults the caller may change: the config when no file sets anything. */
export function freshDefaultConfig(): Config {
  return structuredClone(DEFAULT_CONFIG);
}

/** Loads the config, touching the schema only when there is a file to validate. */
export async function loadConfigFast(root: string, explicitFile?: string): Promise<Config> {
  return (await loadProjectConfigFast(root, explicitFile)).config;
}

/** The config and its trust state (load.ts `loadProjectConfig`), touching the schema only when there is a file to validate. */
export async function loadProjectConfigFast(root: string, explicitFile?: string, env: Readonly<Record<string, string | undefined>> = process.env): Promise<LoadedConfig> {
  // The person's own config (outside the repository) counts too: without either file, the defaults are the config.
  const userFile = userConfigFile(env);
  if (explicitFile === undefined && !fs.existsSync(path.join(root, CONFIG_FILE)) && (userFile === null || !fs.existsSync(userFile))) return { config: freshDefaultConfig(), trust: NO_REPOSITORY_CONFIG, layers: { ...NO_LAYERS, userFile } };
  const { loadProjectConfig } = await import('./load.js');
  return loadProjectConfig(root, explicitFile, env);
}
