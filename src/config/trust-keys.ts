/**
 * Who may set each configuration key: the one table. A repository is
 * untrusted until a person trusts it (SECURITY.md, "The repository's own
 * config"), so its `.editwarden.yml` may only TIGHTEN the guard; a key that
 * LOOSENS it counts only from the person's own config outside the
 * repository, from command-line flags, or from a repository file the person
 * trusted by its content hash (`editwarden trust`).
 *
 * Each leaf key of the schema has one rule that compares the value the
 * repository's file produces with the person's baseline (the defaults under
 * the person's own config, so a person who raised `max_files` to 50 lets the
 * repository choose anything up to 50). test/config/trust-keys.test.ts walks
 * the schema and fails when a key has no rule here, so a new key cannot slip
 * through unclassified. Pure: it reads no file.
 */
import type { Config } from './config.js';
import { TOOL_ALIASES } from './tool-aliases.js';
import { networkLoosens } from './network-setting.js';

/**
 * How a key may move without loosening the guard:
 * - `at-most`   a number that bounds something (a limit, a timeout): raising it loosens.
 * - `at-least`  a number below which a guard fires (the dramatic-reduction ratio): lowering it loosens.
 * - `stays-on`  a guard that is on by default: switching it off loosens.
 * - `stays-off` a door that is shut by default (network, unsandboxed, hard links): opening it loosens.
 * - `subset`    a list of what is granted (tools, environment names, host paths): adding an entry loosens.
 * - `superset`  a list of what is denied: dropping an entry loosens. From an untrusted file the list ADDS to
 *               the person's (withBaselineDenials), so it is never refused: the headless ADR's own example
 *               lists three of the four default denials and means "also deny these", not "allow vendor/**".
 * - `narrows`   an allow-list where empty means "everything" (allowed_patterns): widening it loosens.
 * - `ranked`    an enum from strictest to loosest: moving right loosens.
 * - `hosts`     the network (network-setting.ts): off < a host list < on; a list may only drop or narrow hosts.
 * - `person`    no direction is safe (retention of undo history, a second model that sees the code): any change loosens.
 * - `free`      not part of the guard (the build command runs sandboxed; keep or roll back partial work): the repository decides.
 */
export type TrustRule =
  | { kind: 'at-most' }
  | { kind: 'at-least' }
  | { kind: 'stays-on' }
  | { kind: 'stays-off' }
  | { kind: 'subset' }
  | { kind: 'superset' }
  | { kind: 'narrows' }
  | { kind: 'ranked'; order: readonly string[] }
  | { kind: 'hosts' }
  | { kind: 'person' }
  | { kind: 'free' };

/** Every leaf key of the schema, by its dotted path, and who may set it. */
export const TRUST_RULES: Readonly<Record<string, TrustRule>> = {
  'constraints.max_files': { kind: 'at-most' },
  'constraints.max_lines_changed': { kind: 'at-most' },
  'constraints.allowed_patterns': { kind: 'narrows' },
  'constraints.denied_patterns': { kind: 'superset' },
  'constraints.allowed_tools': { kind: 'subset' },
  'constraints.max_tokens': { kind: 'at-most' },
  'constraints.timeout': { kind: 'at-most' },
  // Keep or roll back partial work at a violation: either way the violation stops the run.
  'constraints.on_violation': { kind: 'free' },
  // The project's own build and test commands: they run in the sandbox like any command.
  'verify.build': { kind: 'free' },
  'verify.test': { kind: 'free' },
  'verify.timeout': { kind: 'at-most' },
  'verify.on_completion': { kind: 'stays-on' },
  'edit.strict': { kind: 'stays-on' },
  'edit.max_file_bytes': { kind: 'at-most' },
  // A larger min_lines spares more files from the guard; a smaller ratio lets a file shrink further.
  'edit.dramatic_reduction.min_lines': { kind: 'at-most' },
  'edit.dramatic_reduction.ratio': { kind: 'at-least' },
  'edit.syntax_guard': { kind: 'ranked', order: ['refuse', 'warn', 'off'] },
  // Written through the workspace resolver, so it stays inside the root wherever it points.
  'reports.controlled_edit': { kind: 'free' },
  // Fewer kept checkpoints (or a smaller store) prunes the person's undo history; more fills their disk.
  'checkpoints.keep_last': { kind: 'person' },
  'checkpoints.max_file_bytes': { kind: 'at-most' },
  'checkpoints.max_total_bytes': { kind: 'person' },
  // Deferring the checkpoint's fsync is a trade a repository may only take back (strict), never make for the person.
  'checkpoints.durability': { kind: 'ranked', order: ['strict', 'deferred'] },
  // Ignored files a command deletes are kept for undo: switching it off, lower caps or more rebuildable folders keep fewer.
  // Higher caps stay bounded by checkpoints.max_file_bytes / max_total_bytes, which only the person sets.
  'checkpoints.ignored.enabled': { kind: 'stays-on' },
  'checkpoints.ignored.max_file_bytes': { kind: 'at-least' },
  'checkpoints.ignored.max_total_bytes': { kind: 'at-least' },
  'checkpoints.ignored.rebuildable': { kind: 'subset' },
  'search.timeout': { kind: 'at-most' },
  // A second model that is sent the scouts' payloads (the code) on the person's key.
  'scouts.model': { kind: 'person' },
  'sandbox.enabled': { kind: 'stays-on' },
  'sandbox.network': { kind: 'hosts' },
  'sandbox.git_writable': { kind: 'stays-off' },
  'sandbox.allow_unsandboxed': { kind: 'stays-off' },
  'sandbox.env': { kind: 'subset' },
  'sandbox.readable': { kind: 'subset' },
  'sandbox.writable': { kind: 'subset' },
  'workspace.allow_hardlinks': { kind: 'stays-off' },
  // One more route from model text to a write (the edits are still checked): the person opts in.
  active_edit_enabled: { kind: 'stays-off' },
};

/** One key a file sets past what an untrusted file may. */
export interface Loosening {
  /** Dotted key, e.g. `sandbox.enabled`. */
  key: string;
  /** What the file asks for and what the person's baseline is, as short text for the message. */
  value: string;
  baseline: string;
}

/** The value at a dotted path of a config object (undefined where a section or key is absent). */
export function valueAt(config: unknown, key: string): unknown {
  let node: unknown = config;
  for (const part of key.split('.')) {
    if (node === null || typeof node !== 'object') return undefined;
    node = (node as Record<string, unknown>)[part];
  }
  return node;
}

/** `config` with `value` at the dotted `key` (the sections on the way exist: a validated config has them all). */
export function setValueAt(config: unknown, key: string, value: unknown): void {
  const parts = key.split('.');
  let node = config as Record<string, unknown>;
  for (const part of parts.slice(0, -1)) node = node[part] as Record<string, unknown>;
  node[parts.at(-1) as string] = value;
}

/**
 * A bound: a number that limits something (`at-most`: files, lines, tokens, seconds, bytes) or below which a
 * guard fires (`at-least`). Bounds are where the person's own value is their word over the repository's
 * (load.ts), and where an untrusted repository file's loosening is ignored with a notice instead of refused:
 * keeping the person's value is always safe, so no edit need fail for it.
 */
export function isBound(key: string): boolean {
  const kind = TRUST_RULES[key]?.kind;
  return kind === 'at-most' || kind === 'at-least';
}

function list(value: unknown): string[] {
  return Array.isArray(value) ? value.map(String) : [];
}

/** Tool lists compare by the tool an alias names (`apply_diff` is `apply_patch`). */
function canonicalTools(names: string[]): string[] {
  return names.map((n) => TOOL_ALIASES[n] ?? n);
}

/** Whether `value` (from the file) loosens the guard against `baseline` (the person's) under `rule`. */
function loosens(rule: TrustRule, value: unknown, baseline: unknown, key = ''): boolean {
  switch (rule.kind) {
    case 'free':
      return false;
    case 'person':
      return JSON.stringify(value) !== JSON.stringify(baseline);
    case 'at-most':
      return typeof value === 'number' && typeof baseline === 'number' && value > baseline;
    case 'at-least':
      return typeof value === 'number' && typeof baseline === 'number' && value < baseline;
    case 'stays-on':
      return baseline === true && value !== true;
    case 'stays-off':
      return value === true && baseline !== true;
    case 'subset': {
      const tools = key === 'constraints.allowed_tools';
      const granted = new Set(tools ? canonicalTools(list(baseline)) : list(baseline));
      return (tools ? canonicalTools(list(value)) : list(value)).some((v) => !granted.has(v));
    }
    case 'superset': {
      const denied = new Set(list(value));
      return list(baseline).some((b) => !denied.has(b));
    }
    case 'narrows': {
      // Empty allows every path: a file may narrow an empty baseline to anything, a non-empty one only to a subset.
      const base = list(baseline);
      const mine = list(value);
      if (base.length === 0) return false;
      return mine.length === 0 || mine.some((v) => !base.includes(v));
    }
    case 'ranked': {
      const at = (v: unknown) => rule.order.indexOf(String(v));
      return at(value) > at(baseline);
    }
    case 'hosts':
      return networkLoosens(value, baseline);
  }
}

function show(value: unknown): string {
  if (value === undefined) return '(unset)';
  return typeof value === 'string' ? value : JSON.stringify(value);
}

/** Every key where `effective` (baseline with the file over it) loosens `baseline`, in table order. */
export function loosenings(baseline: Config, effective: Config): Loosening[] {
  const out: Loosening[] = [];
  for (const [key, rule] of Object.entries(TRUST_RULES)) {
    const value = valueAt(effective, key);
    const base = valueAt(baseline, key);
    if (loosens(rule, value, base, key)) out.push({ key, value: show(value), baseline: show(base) });
  }
  return out;
}

/**
 * `config` with every `superset` list (the denials) holding the baseline's entries too: how an untrusted
 * repository file's deny lists are read — it can deny more, never less. A trusted file's lists replace.
 */
export function withBaselineDenials(baseline: Config, config: Config): Config {
  const out = structuredClone(config);
  for (const [key, rule] of Object.entries(TRUST_RULES)) {
    if (rule.kind !== 'superset') continue;
    const mine = list(valueAt(out, key));
    setValueAt(out, key, [...mine, ...list(valueAt(baseline, key)).filter((b) => !mine.includes(b))]);
  }
  return out;
}
