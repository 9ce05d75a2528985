/** The engine's options as the config sets them (edit.strict, edit.max_file_bytes, edit.dramatic_reduction). */
import type { EditOptions } from '../edit/types.js';
import type { Config } from './config.js';

export function editOptionsFromConfig(config: Config, overrides: { strict?: boolean } = {}): EditOptions {
  return {
    strict: overrides.strict === true || config.edit.strict,
    maxFileBytes: config.edit.max_file_bytes,
    dramaticMinLines: config.edit.dramatic_reduction.min_lines,
    dramaticRatio: config.edit.dramatic_reduction.ratio,
  };
}
