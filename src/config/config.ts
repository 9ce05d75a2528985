/**
 * `.editwarden.yml`: defaults < file < CLI flags. An invalid file is refused
 * with the offending key named before anything runs. The `constraints:`
 * section is spelled exactly as the headless-mode ADR spells it.
 */
import fs from 'node:fs';
import path from 'node:path';
import { z } from 'zod';
import YAML from 'yaml';
import picomatch from 'picomatch';
import { EditwardenError, ErrorCode } from '../errors.js';
import { globProblem } from '../guard/glob-bounds.js';

export const CONFIG_FILE = '.editwarden.yml';

const glob = z
  .string()
  .min(1)
  .superRefine((g, ctx) => {
    // Bounded before it is compiled: a repository's config must not be able to stall every path check (docs/limits.md).
    const problem = globProblem(g);
    if (problem !== null) {
      ctx.addIssue({ code: 'custom', message: `glob too complex (E_GLOB_TOO_COMPLEX): ${problem}` });
      return;
    }
    let valid: boolean;
    try {
      picomatch.makeRe(g, { dot: true, strictBrackets: true });
      valid = !/\[[^\]]*$/.test(g) && balanced(g, '{', '}');
    } catch {
      valid = false;
    }
    if (!valid) ctx.addIssue({ code: 'custom', message: 'not a valid glob pattern' });
  });

function balanced(text: string, open: string, close: string): boolean {
  let depth = 0;
  for (const ch of text) {
    if (ch === open) depth++;
    else if (ch === close && --depth < 0) return false;
  }
  return depth === 0;
}

export const DEFAULT_ALLOWED_TOOLS = [
  'read_file',
  'list_files',
  'search_files',
  'edit_file',
  'write_file',
  'apply_patch',
  'execute_command',
  'task_completion',
] as const;

export const ConstraintsSchema = z
  .object({
    max_files: z.number().int().nonnegative().default(10),
    max_lines_changed: z.number().int().nonnegative().default(500),
    allowed_patterns: z.array(glob).default([]),
    denied_patterns: z.array(glob).default(['.git/**', 'vendor/**', 'node_modules/**', '**/*_generated.*']),
    allowed_tools: z.array(z.string().min(1)).default([...DEFAULT_ALLOWED_TOOLS]),
    max_tokens: z.number().int().nonnegative().default(50_000),
    /** Seconds. */
    timeout: z.number().positive().default(300),
    on_violation: z.enum(['keep', 'rollback']).default('keep'),
  })
  .strict();

export const VerifySchema = z
  .object({
    build: z.string().min(1).optional(),
    test: z.string().min(1).optional(),
    /** Seconds. */
    timeout: z.number().positive().default(600),
  })
  .strict();

export const EditSchema = z
  .object({
    strict: z.boolean().default(false),
    max_file_bytes: z.number().int().positive().default(10 * 1024 * 1024),
    dramatic_reduction: z
      .object({
        min_lines: z.number().int().nonnegative().default(20),
        ratio: z.number().min(0).max(1).default(1 / 3),
      })
      .strict()
      .default({ min_lines: 20, ratio: 1 / 3 }),
    syntax_guard: z.enum(['refuse', 'warn', 'off']).default('refuse'),
  })
  .strict();

export const ReportsSchema = z
  .object({
    controlled_edit: z.string().min(1).default('docs/telemetry/controlled_edit_report.md'),
  })
  .strict();

export const CheckpointsSchema = z
  .object({
    /** Automatic retention: commands prune to the newest N checkpoints once there are N + 10% more. 0 keeps all. */
    keep_last: z.number().int().nonnegative().default(500),
    /** Largest file (apparent size) a checkpoint copies; a larger one is refused with E_CHECKPOINT_TOO_LARGE. */
    max_file_bytes: z.number().int().positive().default(256 * 1024 * 1024),
    /** Largest total the checkpoint store holds; old checkpoints are pruned to make room, then E_CHECKPOINT_TOO_LARGE. */
    max_total_bytes: z.number().int().positive().default(8 * 1024 * 1024 * 1024),
  })
  .strict();

export const SearchSchema = z
  .object({
    /** Seconds a search_files with a regular expression may run before it is stopped (E_SEARCH_TIMEOUT); never past constraints.timeout. */
    timeout: z.number().positive().default(30),
  })
  .strict();

export const ScoutsSchema = z
  .object({
    /** A model (provider:model) that summarises scout payloads for the Editor; unset: raw payloads. */
    model: z.string().min(3).optional(),
  })
  .strict();

export const ConfigSchema = z
  .object({
    constraints: ConstraintsSchema.default(ConstraintsSchema.parse({})),
    verify: VerifySchema.default(VerifySchema.parse({})),
    edit: EditSchema.default(EditSchema.parse({})),
    reports: ReportsSchema.default(ReportsSchema.parse({})),
    checkpoints: CheckpointsSchema.default(CheckpointsSchema.parse({})),
    search: SearchSchema.default(SearchSchema.parse({})),
    scouts: ScoutsSchema.default(ScoutsSchema.parse({})),
    active_edit_enabled: z.boolean().default(false),
  })
  .strict();

export type Config = z.infer<typeof ConfigSchema>;
export type ConstraintsConfig = z.infer<typeof ConstraintsSchema>;

export function defaultConfig(): Config {
  return ConfigSchema.parse({});
}

/** Parses config text; `source` names the file in errors. */
export function parseConfig(text: string, source = CONFIG_FILE): Config {
  let data: unknown;
  try {
    data = YAML.parse(text) ?? {};
  } catch (error) {
    throw new EditwardenError({
      code: ErrorCode.CONFIG,
      message: `${source} is not valid YAML: ${(error as Error).message}`,
      hint: 'Fix the YAML syntax; see README.md for a complete example.',
    });
  }
  return validateConfig(data, source);
}

export function validateConfig(data: unknown, source = CONFIG_FILE): Config {
  const parsed = ConfigSchema.safeParse(data);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0];
  const key = issue ? configKeyOf(issue) : '(root)';
  throw new EditwardenError({
    code: ErrorCode.CONFIG,
    message: `${source}: invalid value at "${key}": ${issue?.message ?? 'invalid'}.`,
    hint: `Fix or remove "${key}" in ${source}; nothing ran.`,
  });
}

function configKeyOf(issue: z.core.$ZodIssue): string {
  const base = issue.path.map(String).join('.');
  if (issue.code === 'unrecognized_keys') {
    const keys = issue.keys.join(', ');
    return base ? `${base}.${keys}` : keys;
  }
  return base || '(root)';
}

/** Loads `<root>/.editwarden.yml` (or an explicit file); defaults when there is none. */
export function loadConfig(root: string, explicitFile?: string): Config {
  const file = explicitFile ? path.resolve(explicitFile) : path.join(root, CONFIG_FILE);
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch {
    if (explicitFile) {
      throw new EditwardenError({
        code: ErrorCode.CONFIG,
        message: `Config file ${explicitFile} cannot be read.`,
        hint: 'Check the --config path.',
      });
    }
    return defaultConfig();
  }
  return parseConfig(text, explicitFile ?? CONFIG_FILE);
}

/** Deep-merges CLI overrides over a config and validates the result. */
export function withOverrides(config: Config, overrides: DeepPartial<Config>): Config {
  return validateConfig(merge(config, overrides), 'command-line flags');
}

export type DeepPartial<T> = { [K in keyof T]?: T[K] extends (infer U)[] ? U[] : T[K] extends object ? DeepPartial<T[K]> : T[K] };

function merge(base: unknown, over: unknown): unknown {
  if (over === undefined) return base;
  if (Array.isArray(over) || typeof over !== 'object' || over === null) return over;
  const out: Record<string, unknown> = { ...(base as Record<string, unknown>) };
  for (const [k, v] of Object.entries(over)) {
    if (v !== undefined) out[k] = merge(out[k], v);
  }
  return out;
}
