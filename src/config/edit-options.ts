/**
 * The engine's options as the config sets them (edit.strict, edit.max_file_bytes, edit.dramatic_reduction).
 * Called once per project, by host/project.ts (test/package/architecture.test.ts): every route reads the
 * project's `applyOptions`; a command-line override is a config value set before the project opens.
 */
import type { EditOptions } from '../edit/types.js';
import type { Config } from './config.js';

export function editOptionsFromConfig(config: Config): EditOptions {
  return {
    strict: config.edit.strict,
    maxFileBytes: config.edit.max_file_bytes,
    dramaticMinLines: config.edit.dramatic_reduction.min_lines,
    dramaticRatio: config.edit.dramatic_reduction.ratio,
  };
}
