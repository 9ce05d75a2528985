/**
 * What each layer of a project's config set, as the loader found it
 * (load.ts `inspectConfig`): the keys set and in force, with the layer that
 * set each — a mode's own defaults give way to exactly these (runs/profile.ts:
 * an interactive session has no caps but the ones set here) —, the bounds an
 * untrusted repository file raised (not applied: a notice, never a refusal),
 * the bounds where the person's own value replaced the repository's, and the
 * text that tells a person (or a model) which file and key change a limit.
 *
 * Pure data and text: it must never read a file or judge trust (the loader
 * did both once).
 */
import type { Loosening } from './trust-keys.js';
import { appendAll } from '../arrays.js';

/** Who set a key: the person's own config outside the repository, the repository's file (or --config), or flags. */
export type Layer = 'yours' | 'repository' | 'flags';

export interface ConfigLayers {
  /** The person's own config file (null: no home to hold one). */
  readonly userFile: string | null;
  /** The repository's config file (or `--config`) as read, when there is one. */
  readonly repositoryFile: string | null;
  /** The command that trusts the repository's file, when it is not believed (for the notice and hints). */
  readonly trustCommand: string | null;
  /** Every leaf key a layer set that is in force (dotted), and the layer whose value applies. */
  readonly setBy: Readonly<Record<string, Layer>>;
  /** Bounds the repository's file loosened without the person's trust: not applied, the person's value stands. */
  readonly ignored: readonly Loosening[];
  /** Bounds the person's own config set where the repository's file set another value: the person's applies. */
  readonly yoursOver: readonly { key: string; yours: string; repository: string }[];
}

/** The dotted paths of the leaves of a config-shaped value (`{constraints: {max_files: 3}}` → `constraints.max_files`); lists are leaves. */
export function leafKeys(data: unknown, prefix = ''): string[] {
  if (data === null || typeof data !== 'object' || Array.isArray(data)) return prefix === '' ? [] : [prefix];
  const out: string[] = [];
  for (const [key, value] of Object.entries(data)) {
    if (value === undefined) continue;
    appendAll(out, leafKeys(value, prefix === '' ? key : `${prefix}.${key}`));
  }
  return out;
}

/** No file read: the defaults alone (or a library caller's own Config). */
export const NO_LAYERS: ConfigLayers = { userFile: null, repositoryFile: null, trustCommand: null, setBy: {}, ignored: [], yoursOver: [] };

/** The keys set and in force, sorted (what a mode's own defaults give way to). */
export function configuredOf(layers: ConfigLayers): string[] {
  return Object.keys(layers.setBy).sort();
}

/** `layers` with the keys the command-line flags set (`leafKeys` of the overrides) on top. */
export function withFlagKeys(layers: ConfigLayers, keys: readonly string[]): ConfigLayers {
  if (keys.length === 0) return layers;
  return { ...layers, setBy: { ...layers.setBy, ...Object.fromEntries(keys.map((k) => [k, 'flags' as const])) } };
}

/** Where a limit comes from and how to raise it, for a refusal's message and hint. */
export interface LimitSource {
  /** Where the value comes from, as a clause: "set in /p/.editwarden.yml", "set on the command line", "editwarden's default (no config sets it)". */
  where: string;
  /** One clause saying which file and key to change, e.g. "raise constraints.max_files in /home/me/.config/editwarden/config.yml". */
  raise: string;
}

/**
 * The source of `key` (dotted, e.g. `constraints.max_files`) and the way to raise it. The person's own
 * config is always the way for the person: a bound set there wins over the repository's file, and needs no trust.
 */
export function limitSource(layers: ConfigLayers, key: string): LimitSource {
  const yours = layers.userFile ?? 'your own config (~/.config/editwarden/config.yml)';
  const ignored = layers.ignored.find((l) => l.key === key);
  const notice = ignored && layers.repositoryFile ? ` (${layers.repositoryFile} sets ${key}: ${ignored.value}, not applied until you trust that file${layers.trustCommand ? `: ${layers.trustCommand}` : ''})` : '';
  switch (layers.setBy[key]) {
    case 'yours':
      return { where: `set in ${yours}`, raise: `raise ${key} in ${yours}` };
    case 'repository':
      return {
        where: `set in ${layers.repositoryFile ?? 'the repository config'}`,
        raise: `raise ${key} in your own config ${yours} (your value wins over ${layers.repositoryFile ?? "the repository's file"} for you, no trust needed), or in ${layers.repositoryFile ?? "the repository's file"} for everyone`,
      };
    case 'flags':
      return { where: 'set on the command line', raise: `raise ${key} with its command-line flag or in ${yours}` };
    default:
      return { where: `editwarden's default for this kind of run, no config sets it${notice}`, raise: `set ${key} in your own config ${yours} (no trust needed)` };
  }
}

/** The notice for bounds an untrusted repository file raised (null when none): what was not applied and how to apply it. */
export function ignoredNotice(layers: ConfigLayers): string | null {
  if (layers.ignored.length === 0 || layers.repositoryFile === null) return null;
  const keys = layers.ignored.map((l) => `${l.key}: ${l.value} (in force: ${l.baseline})`).join(', ');
  return `${layers.repositoryFile} raises ${keys}; a repository's file may only tighten until you trust it, so these are not applied. To apply them: ${layers.trustCommand ?? 'editwarden trust'}; or set them in your own config ${layers.userFile ?? '(~/.config/editwarden/config.yml)'}.`;
}
