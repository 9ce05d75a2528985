/**
 * The default configuration as a plain object, so commands that run without
 * a config file start without loading the schema library (~100 ms of
 * start-up an agent would pay on every edit). A test pins it equal to the
 * schema's defaults.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { Config } from './config.js';

export const DEFAULT_CONFIG: Config = {
  constraints: {
    max_files: 10,
    max_lines_changed: 500,
    allowed_patterns: [],
    denied_patterns: ['.git/**', 'vendor/**', 'node_modules/**', '**/*_generated.*'],
    allowed_tools: ['read_file', 'list_files', 'search_files', 'edit_file', 'write_file', 'apply_patch', 'execute_command', 'task_completion'],
    max_tokens: 50_000,
    timeout: 300,
    on_violation: 'keep',
  },
  verify: { timeout: 600, on_completion: true },
  edit: {
    strict: false,
    max_file_bytes: 10 * 1024 * 1024,
    dramatic_reduction: { min_lines: 20, ratio: 1 / 3 },
    syntax_guard: 'refuse',
  },
  reports: { controlled_edit: 'docs/telemetry/controlled_edit_report.md' },
  checkpoints: { keep_last: 500, max_file_bytes: 256 * 1024 * 1024, max_total_bytes: 8 * 1024 * 1024 * 1024 },
  search: { timeout: 30 },
  scouts: {},
  sandbox: { enabled: true, network: false, git_writable: false, allow_unsandboxed: false, env: [], readable: [], writable: [] },
  workspace: { allow_hardlinks: false },
  active_edit_enabled: false,
};

/** Loads the config, touching the schema only when there is a file to validate. */
export async function loadConfigFast(root: string, explicitFile?: string): Promise<Config> {
  if (explicitFile === undefined && !fs.existsSync(path.join(root, '.editwarden.yml'))) return structuredClone(DEFAULT_CONFIG);
  const { loadConfig } = await import('./config.js');
  return loadConfig(root, explicitFile);
}
