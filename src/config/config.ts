/**
 * `.editwarden.yml`: defaults < file < CLI flags. An invalid file is refused
 * with the offending key named before anything runs. The `constraints:`
 * section is spelled exactly as the headless-mode ADR spells it.
 */
import { z } from 'zod';
import YAML from 'yaml';
import picomatch from 'picomatch';
import { nearest } from './did-you-mean.js';
import { EditwardenError, ErrorCode } from '../errors.js';
import { ENV_PATTERN, isSecretEnvName } from './env-names.js';
import { globProblem } from './glob-bounds.js';
import { HostSyntaxError, parseHostPattern } from './host-patterns.js';
import { normalizeNetwork } from './network-setting.js';

import { CONFIG_FILE } from './names.js';
import { DEFAULT_ALLOWED_TOOLS, DEFAULT_CONFIG, freshDefaultConfig } from './defaults.js';
import { TOOL_ALIASES } from './tool-aliases.js';

export { CONFIG_FILE };

function balanced(text: string, open: string, close: string): boolean {
  let depth = 0;
  for (const ch of text) {
    if (ch === open) depth++;
    else if (ch === close && --depth < 0) return false;
  }
  return depth === 0;
}

export { DEFAULT_ALLOWED_TOOLS };

/**
 * Every tool name allowed_tools may list: the agent's and the Editor's tools, the MCP server's, and the
 * ADR's own names (`apply_diff` is the ADR's name for applying a diff: our apply_patch; `converse`
 * is an interactive tool the ADR names). The config floor parses a file before any tool exists, so it
 * keeps this copy of the names (and the defaults, the aliases, the loop-breaking tools); everything
 * else reads the tools' metadata through tools/toolset.ts, and test/tools/toolset.test.ts pins this
 * copy equal to what the toolset derives.
 */
export const KNOWN_TOOL_NAMES: readonly string[] = [
  ...DEFAULT_ALLOWED_TOOLS,
  'apply_diff',
  'active_edit',
  'ask_question',
  'converse',
  'scout_codebase',
  'scout_environment',
  'verify',
  'record_hypothesis',
  'checkpoint_create',
  'checkpoint_list',
  'checkpoint_restore',
  'undo_list',
  'undo_steps',
  'redo_steps',
  'detect',
  'edit_file_dry_run',
  'write_file_dry_run',
  'apply_patch_dry_run',
];

/** The ADR's loop-breaking tool: always allowed, whatever allowed_tools lists ("loop-breaking tools always allowed"). */
const ALWAYS_ALLOWED_TOOLS: readonly string[] = ['task_completion'];

/** An allowed_tools list as the guard reads it: aliases add the tool they name, loop-breaking tools are always in. */
function effectiveTools(list: string[]): string[] {
  if (list.length === 0) return list;
  const out = new Set(list);
  for (const name of list) if (TOOL_ALIASES[name]) out.add(TOOL_ALIASES[name] as string);
  for (const name of ALWAYS_ALLOWED_TOOLS) out.add(name);
  return [...out];
}

/**
 * The config schema, built on first use: building it is ~11 ms of CPU (zod compiles every field and check), which a
 * command that only reads the defaults, or imports a name from here, need not pay (validateConfig takes the
 * defaults without it when there is nothing to validate).
 */
function buildSchemas() {
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

  const toolName = z
    .string()
    .min(1)
    .superRefine((name, ctx) => {
      if (KNOWN_TOOL_NAMES.includes(name)) return;
      // The same suggestion rule as for mistyped keys (did-you-mean.ts): one distance, one threshold.
      const near = nearest(name, KNOWN_TOOL_NAMES);
      ctx.addIssue({ code: 'custom', message: `unknown tool "${name}"${near ? ` (did you mean "${near}"?)` : ''}; known tools: ${KNOWN_TOOL_NAMES.join(', ')}` });
    });

  const ConstraintsSchema = z
    .object({
      max_files: z.number().int().nonnegative().default(DEFAULT_CONFIG.constraints.max_files),
      max_lines_changed: z.number().int().nonnegative().default(DEFAULT_CONFIG.constraints.max_lines_changed),
      allowed_patterns: z.array(glob).default(() => [...DEFAULT_CONFIG.constraints.allowed_patterns]),
      denied_patterns: z.array(glob).default(() => [...DEFAULT_CONFIG.constraints.denied_patterns]),
      allowed_tools: z
        .array(toolName)
        .default(() => [...DEFAULT_ALLOWED_TOOLS])
        .transform(effectiveTools),
      max_tokens: z.number().int().nonnegative().default(DEFAULT_CONFIG.constraints.max_tokens),
      /** Seconds. */
      timeout: z.number().positive().default(DEFAULT_CONFIG.constraints.timeout),
      on_violation: z.enum(['keep', 'rollback']).default(DEFAULT_CONFIG.constraints.on_violation),
    })
    .strict();

  const VerifySchema = z
    .object({
      build: z.string().min(1).optional(),
      test: z.string().min(1).optional(),
      /** Seconds. */
      timeout: z.number().positive().default(DEFAULT_CONFIG.verify.timeout),
      /** Headless runs: task_completion (status done) verifies first when a build or test command is configured or detected. */
      on_completion: z.boolean().default(DEFAULT_CONFIG.verify.on_completion),
    })
    .strict();

  const EditSchema = z
    .object({
      strict: z.boolean().default(DEFAULT_CONFIG.edit.strict),
      max_file_bytes: z.number().int().positive().default(DEFAULT_CONFIG.edit.max_file_bytes),
      dramatic_reduction: z
        .object({
          min_lines: z.number().int().nonnegative().default(DEFAULT_CONFIG.edit.dramatic_reduction.min_lines),
          ratio: z.number().min(0).max(1).default(DEFAULT_CONFIG.edit.dramatic_reduction.ratio),
        })
        .strict()
        .default(() => ({ ...DEFAULT_CONFIG.edit.dramatic_reduction })),
      syntax_guard: z.enum(['refuse', 'warn', 'off']).default(DEFAULT_CONFIG.edit.syntax_guard),
    })
    .strict();

  const ReportsSchema = z
    .object({
      controlled_edit: z.string().min(1).default(DEFAULT_CONFIG.reports.controlled_edit),
    })
    .strict();

  const IgnoredCoverageSchema = z
    .object({
      /** Whether a command's checkpoint covers the ignored files it deletes or rewrites. */
      enabled: z.boolean().default(DEFAULT_CONFIG.checkpoints.ignored.enabled),
      /** Largest ignored file kept; a larger one a command changes is named as not kept. */
      max_file_bytes: z.number().int().positive().default(DEFAULT_CONFIG.checkpoints.ignored.max_file_bytes),
      /** Largest total of ignored files' bytes the store keeps for the project. */
      max_total_bytes: z.number().int().positive().default(DEFAULT_CONFIG.checkpoints.ignored.max_total_bytes),
      /** Folders (gitignore patterns, e.g. `vendor/`) whose ignored files are not kept: they can be rebuilt; `!build/` takes one off the built-in list. */
      rebuildable: z.array(z.string().min(1)).default(() => [...DEFAULT_CONFIG.checkpoints.ignored.rebuildable]),
    })
    .strict();

  const CheckpointsSchema = z
    .object({
      /** Automatic retention: commands prune to the newest N checkpoints once there are N + 10% more. 0 keeps all. */
      keep_last: z.number().int().nonnegative().default(DEFAULT_CONFIG.checkpoints.keep_last),
      /** Largest file (apparent size) a checkpoint copies; a larger one is refused with E_CHECKPOINT_TOO_LARGE. */
      max_file_bytes: z.number().int().positive().default(DEFAULT_CONFIG.checkpoints.max_file_bytes),
      /** Largest total the checkpoint store holds; old checkpoints are pruned to make room, then E_CHECKPOINT_TOO_LARGE. */
      max_total_bytes: z.number().int().positive().default(DEFAULT_CONFIG.checkpoints.max_total_bytes),
      /** `deferred`: a long-lived server answers a lone edit once its file is in place, and makes its checkpoint durable right after (before its next answer); `strict`: before the answer. */
      durability: z.enum(['deferred', 'strict']).default(DEFAULT_CONFIG.checkpoints.durability),
      ignored: IgnoredCoverageSchema.default(() => IgnoredCoverageSchema.parse({})),
    })
    .strict();

  const SearchSchema = z
    .object({
      /** Seconds a search_files with a regular expression may run before it is stopped (E_SEARCH_TIMEOUT); never past constraints.timeout. */
      timeout: z.number().positive().default(DEFAULT_CONFIG.search.timeout),
    })
    .strict();

  const WorkspaceSchema = z
    .object({
      /** Read regular files with more than one hard link (a second name may lie outside the root; docs/workspace-boundary.md). */
      allow_hardlinks: z.boolean().default(DEFAULT_CONFIG.workspace.allow_hardlinks),
    })
    .strict();

  const ScoutsSchema = z
    .object({
      /** A model (provider:model) that summarises scout payloads for the Editor; unset: raw payloads. */
      model: z.string().min(3).optional(),
    })
    .strict();

  const hostPath = z
    .string()
    .min(1)
    .refine((p) => p.startsWith('/') || p === '~' || p.startsWith('~/'), { message: 'must be an absolute path or start with ~/' })
    .refine((p) => !/[\u0000-\u001f]/.test(p), { message: 'must not hold control characters' });

  const hostPattern = z.string().superRefine((text, ctx) => {
    try {
      parseHostPattern(text);
    } catch (error) {
      if (!(error instanceof HostSyntaxError)) throw error;
      ctx.addIssue({ code: 'custom', message: `not a host pattern (registry.npmjs.org, *.pypi.org, host:port, an IP address): ${error.message}` });
    }
  });

  /** `sandbox.network`: off | on | [host patterns] (network-setting.ts; true/false read as on/off). */
  const NetworkSchema = z.union([z.boolean(), z.literal('off'), z.literal('on'), z.array(hostPattern)]).transform(normalizeNetwork);

  /** docs/sandbox.md describes each key. */
  const SandboxSchema = z
    .object({
      enabled: z.boolean().default(DEFAULT_CONFIG.sandbox.enabled),
      network: NetworkSchema.default(DEFAULT_CONFIG.sandbox.network),
      git_writable: z.boolean().default(DEFAULT_CONFIG.sandbox.git_writable),
      allow_unsandboxed: z.boolean().default(DEFAULT_CONFIG.sandbox.allow_unsandboxed),
      env: z
        .array(
          z
            .string()
            .regex(ENV_PATTERN, 'must be a variable name, optionally ending in *')
            // A secret never reaches a command: a list cannot change that.
            .refine((name) => !isSecretEnvName(name), { message: 'looks like a secret (token, key, password, AWS_*): secrets are never passed to commands' }),
        )
        .default(() => []),
      readable: z.array(hostPath).default(() => []),
      writable: z.array(hostPath).default(() => []),
    })
    .strict();

  const ConfigSchema = z
    .object({
      constraints: ConstraintsSchema.default(() => ConstraintsSchema.parse({})),
      verify: VerifySchema.default(() => VerifySchema.parse({})),
      edit: EditSchema.default(() => EditSchema.parse({})),
      reports: ReportsSchema.default(() => ReportsSchema.parse({})),
      checkpoints: CheckpointsSchema.default(() => CheckpointsSchema.parse({})),
      search: SearchSchema.default(() => SearchSchema.parse({})),
      scouts: ScoutsSchema.default(() => ScoutsSchema.parse({})),
      sandbox: SandboxSchema.default(() => SandboxSchema.parse({})),
      workspace: WorkspaceSchema.default(() => WorkspaceSchema.parse({})),
      active_edit_enabled: z.boolean().default(DEFAULT_CONFIG.active_edit_enabled),
    })
    .strict();
  return { ConfigSchema, ConstraintsSchema };
}

let built: ReturnType<typeof buildSchemas> | undefined;

/** The config schema (built once, on first use). */
export function configSchema(): ReturnType<typeof buildSchemas>['ConfigSchema'] {
  built ??= buildSchemas();
  return built.ConfigSchema;
}

/** Whether this process has built the schema yet (for tests and diagnostics). */
export function configSchemaBuilt(): boolean {
  return built !== undefined;
}

export type Config = z.infer<ReturnType<typeof buildSchemas>['ConfigSchema']>;
export type ConstraintsConfig = z.infer<ReturnType<typeof buildSchemas>['ConstraintsSchema']>;

export function defaultConfig(): Config {
  return configSchema().parse({});
}

/** Parses config text; `source` names the file in errors. */
export function parseConfig(text: string, source = CONFIG_FILE): Config {
  return validateConfig(parseYaml(text, source), source);
}

/** The YAML of a config file, not yet validated (an empty file is `{}`); `source` names the file in errors. */
export function parseYaml(text: string, source = CONFIG_FILE): unknown {
  try {
    return YAML.parse(text) ?? {};
  } catch (error) {
    throw new EditwardenError({
      code: ErrorCode.CONFIG,
      message: `${source} is not valid YAML: ${(error as Error).message}`,
      hint: 'Fix the YAML syntax; docs/config.md has a complete example.',
    });
  }
}

export function validateConfig(data: unknown, source = CONFIG_FILE): Config {
  // Nothing to check (no file, or an empty one): the defaults, without building the schema (test/config/config.test.ts pins them equal to what it gives).
  if (isEmptyPlainObject(data)) return freshDefaultConfig();
  const parsed = configSchema().safeParse(data);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0];
  const key = issue ? configKeyOf(issue) : '(root)';
  if (issue?.code === 'unrecognized_keys') {
    // Name the key and the nearest key that exists at that level: "max_file" → "max_files".
    const known = knownKeysAt(configSchema(), issue.path);
    const base = issue.path.map(String).join('.');
    const full = (k: string) => (base ? `${base}.${k}` : k);
    const guesses = issue.keys.map((k) => ({ key: k, guess: nearest(k, known) }));
    const named = guesses.map((g) => `"${full(g.key)}"${g.guess ? ` (did you mean "${full(g.guess)}"?)` : ''}`).join(', ');
    const fixes = guesses.filter((g) => g.guess).map((g) => `rename "${full(g.key)}" to "${full(g.guess!)}"`);
    throw new EditwardenError({
      code: ErrorCode.CONFIG,
      message: `${source}: unknown key ${named}.`,
      hint: `${fixes.length > 0 ? `In ${source}, ${fixes.join(' and ')}` : `Remove it from ${source}`}; the keys here are: ${known.join(', ')}. Nothing ran.`,
    });
  }
  throw new EditwardenError({
    code: ErrorCode.CONFIG,
    message: `${source}: invalid value at "${key}": ${issue?.message ?? 'invalid'}.`,
    hint: `Fix or remove "${key}" in ${source}; nothing ran.`,
  });
}

function isEmptyPlainObject(data: unknown): boolean {
  return typeof data === 'object' && data !== null && Object.getPrototypeOf(data) === Object.prototype && Object.keys(data).length === 0;
}

/** The zod internals walked to list an object's keys (defaults and optionals wrap the object). */
interface SchemaDef {
  _zod: { def: { type: string; shape?: Record<string, unknown>; innerType?: unknown } };
}

/** The keys a config object accepts at `path` (e.g. ["constraints"] → max_files, …). */
function knownKeysAt(schema: unknown, path: readonly PropertyKey[]): string[] {
  let node = schema as SchemaDef | undefined;
  const unwrap = () => {
    while (node && node._zod.def.innerType !== undefined && node._zod.def.type !== 'object') node = node._zod.def.innerType as SchemaDef;
  };
  unwrap();
  for (const segment of path) {
    node = node?._zod.def.shape?.[String(segment)] as SchemaDef | undefined;
    unwrap();
  }
  return Object.keys(node?._zod.def.shape ?? {});
}

function configKeyOf(issue: z.core.$ZodIssue): string {
  const base = issue.path.map(String).join('.');
  if (issue.code === 'unrecognized_keys') {
    const keys = issue.keys.join(', ');
    return base ? `${base}.${keys}` : keys;
  }
  return base || '(root)';
}

/** Deep-merges CLI overrides over a config and validates the result. */
export function withOverrides(config: Config, overrides: DeepPartial<Config>): Config {
  // Flags that set nothing (`exec` or `run` without a constraint flag): a copy of the config as loaded, which is valid
  // already, without building the schema to check it again (~10 ms of their start when the project has no config
  // file). test/config/lazy-schema.test.ts pins it equal to checking the merge.
  if (setsNothing(overrides, config)) return structuredClone(config);
  return validateConfig(mergeRaw(config, overrides), 'command-line flags');
}

/**
 * Whether merging `overrides` onto `base` (mergeRaw) changes nothing: every leaf undefined, and every object along the
 * way over an object of `base` (an empty object where `base` has none, or has a value, would add or replace one).
 */
function setsNothing(overrides: unknown, base: unknown): boolean {
  if (overrides === undefined) return true;
  const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
  if (!isObject(overrides) || !isObject(base)) return false;
  return Object.entries(overrides).every(([key, value]) => setsNothing(value, base[key]));
}

export type DeepPartial<T> = { [K in keyof T]?: T[K] extends (infer U)[] ? U[] : T[K] extends object ? DeepPartial<T[K]> : T[K] };

/** `over` deep-merged onto `base`: objects key by key, a list or a scalar replaces. */
export function mergeRaw(base: unknown, over: unknown): unknown {
  if (over === undefined) return base;
  if (Array.isArray(over) || typeof over !== 'object' || over === null) return over;
  const out: Record<string, unknown> = { ...(base as Record<string, unknown>) };
  for (const [k, v] of Object.entries(over)) {
    if (v !== undefined) out[k] = mergeRaw(out[k], v);
  }
  return out;
}
