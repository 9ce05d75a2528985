/**
 * Reading the configuration: the one function every route uses (the CLI
 * commands, the MCP server, the hooks, the demo, the library's
 * `loadConfig`). Layers, lowest first:
 *
 *   defaults < the person's own config (outside the repository) < the repository's file < flags
 *
 * Defends against: a cloned repository configuring its own guard. The
 * repository's `.editwarden.yml` (or a `--config` file inside the root) may
 * only tighten what the layers below it set, key by key (trust-keys.ts), until
 * the person trusts that file by its content hash (`editwarden trust`). A
 * loosening from an untrusted file is refused before anything runs, with
 * every such key named and the command that trusts the file — except a
 * bound (a limit, a timeout, a size: trust-keys.ts `isBound`), whose raise is
 * not applied and named in a notice instead: keeping the person's value is
 * always safe, so it must not stop every edit. A `--config` file outside the
 * root is the person's own, like their user config.
 *
 * The person's own config is the person's word: a bound set there applies
 * for them even where the repository's file sets another value (`doctor`
 * says so); the repository's file still tightens for everyone who did not
 * set it. Which layer set each key in force is returned (layers.ts), so a
 * mode's own defaults give way to exactly those and a refusal names the file.
 */
import fs from 'node:fs';
import path from 'node:path';
import { EditwardenError, ErrorCode } from '../errors.js';
import { NotASmallFile, readSmallFile } from '../small-file.js';
import { type Config, mergeRaw, parseYaml, validateConfig } from './config.js';
import { CONFIG_FILE, MAX_CONFIG_BYTES } from './names.js';
import { type ConfigLayers, type Layer, leafKeys, NO_LAYERS } from './layers.js';
import { isBound, type Loosening, loosenings, setValueAt, TRUST_RULES, valueAt, withBaselineDenials } from './trust-keys.js';
import { type ConfigTrust, trustRefusal } from './trust-state.js';
import { ownPath, type TrustState, trustDir, trustStateOf, userConfigFile } from './trust-store.js';
import { isWithin } from './path-within.js';

type Env = Readonly<Record<string, string | undefined>>;

/** What was read and how far each file is trusted: `doctor` prints it, `loadConfig` acts on it. */
export interface ConfigInspection {
  /** The merged, validated config (the repository file's loosenings included: check `refusal` before using it). */
  config: Config;
  /** The person's config file, and whether it exists. */
  user: { file: string | null; exists: boolean };
  /** The repository's (or `--config`) file, when one was read; `own` when it lies outside the root. */
  repository: { file: string; trust: TrustState | 'own' } | null;
  /** Keys of the repository file that loosen the person's baseline (in effect when trusted or own). */
  loosenings: Loosening[];
  /** The refusal `loadConfig` throws: an untrusted file loosens the guard (the same value as `trust`'s). */
  refusal: EditwardenError | null;
  /** The trust state as one value (config/trust-state.ts): what the project's Policy carries and `doctor` prints. */
  trust: ConfigTrust;
  /** Which layer set each key in force, the bounds not applied, the bounds where yours won (layers.ts). */
  layers: ConfigLayers;
}

function real(p: string): string {
  try {
    return fs.realpathSync(p);
  } catch {
    return path.resolve(p);
  }
}

/**
 * The file's bytes; null when there is none. One that is there but cannot be
 * read as a config (a FIFO or device a hostile clone put in its place, a huge
 * file, no permission) is refused: its rules are unknown, so nothing runs
 * under them (readSmallFile: never waits on a FIFO).
 */
function readBytes(file: string): Buffer | null {
  try {
    return readSmallFile(file, { maxBytes: MAX_CONFIG_BYTES, follow: true });
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') return null;
    const why = error instanceof NotASmallFile ? error.reason : `cannot be read (${code ?? (error as Error).message})`;
    throw new EditwardenError({
      code: ErrorCode.CONFIG,
      message: `Config file ${file} ${why}: the rules it holds are unknown, so nothing runs under them.`,
      hint: `Make ${path.basename(file)} a readable regular file (or remove it), then try again.`,
    });
  }
}

/**
 * Attack: a clone commits `.editwarden.yml` as a link to a sibling project's
 * config (`../other/.editwarden.yml`), which the person trusted there; read
 * through the link it would carry that project's file — and, keyed by the
 * target, its trust — into this one (issue 38.6). A repository's config must
 * be the repository's own: its real target (a link inside the root, a
 * monorepo habit, is fine) lies inside the root, else it is refused. Its
 * trust is then judged by its own path (trust-store.ts `ownPath`).
 */
function refuseBorrowedConfig(root: string, source: string, file: string): void {
  const target = real(file);
  if (isWithin(target, real(root))) return;
  throw new EditwardenError({
    code: ErrorCode.CONFIG_SYMLINK,
    message: `${source} leads out of the repository (its real file is ${target}): a repository's config must be its own file, so nothing runs under it.`,
    hint: `Replace ${source} with a regular file (a copy of the settings you want), or pass your own file outside the repository with --config; then trust it with editwarden trust if it loosens the guard.`,
    path: source,
  });
}

/** Trust records kept inside the root (a HOME that is the project) are the repository's to write: not believed. */
function storeOutside(root: string, env: Env): boolean {
  const dir = trustDir(env);
  return dir !== null && !isWithin(real(dir), real(root));
}

/** A shell word a person can paste (single-quoted when it holds anything but safe characters). */
function shellWord(word: string): string {
  return /^[A-Za-z0-9_@%+=:,./-]+$/.test(word) ? word : `'${word.replace(/'/g, `'\\''`)}'`;
}

/** The command that trusts `file` of `root`, as the refusal and `doctor` print it. */
function trustCommand(root: string, file: string): string {
  const defaultFile = real(path.join(root, CONFIG_FILE)) === real(file);
  return `editwarden trust --root ${shellWord(path.resolve(root))}${defaultFile ? '' : ` ${shellWord(path.resolve(file))}`}`;
}

function show(value: unknown): string {
  return typeof value === 'string' ? value : JSON.stringify(value);
}

/** Which layer's value of each schema key applies: the repository's, except a bound the person set (theirs is their word). */
function layersOf(userRaw: unknown, raw: unknown, ignored: readonly Loosening[]): Record<string, Layer> {
  const out: Record<string, Layer> = {};
  const known = (k: string) => k in TRUST_RULES;
  for (const key of leafKeys(userRaw).filter(known)) out[key] = 'yours';
  for (const key of leafKeys(raw).filter(known)) {
    if (ignored.some((l) => l.key === key)) continue;
    if (out[key] === 'yours' && isBound(key)) continue;
    out[key] = 'repository';
  }
  return out;
}

/** `source`: the file as the person named it (for the message); `file`: its absolute path (for the command). */
function refusal(root: string, source: string, file: string, trust: TrustState, found: Loosening[], userFile: string | null): EditwardenError {
  const keys = found.map((l) => `${l.key}: ${l.value} (yours: ${l.baseline})`).join('; ');
  const why = trust === 'changed' ? 'it changed since you trusted it' : 'you have not trusted it';
  return new EditwardenError({
    code: ErrorCode.UNTRUSTED_CONFIG,
    message: `${source} loosens the guard, and ${why}: ${keys}. A repository's config may only tighten the guard (lower limits, more denied patterns, fewer tools) until a person trusts it.`,
    hint: `If you wrote this file and accept these settings, trust it: ${trustCommand(root, file)} (recorded by content hash outside the repository; any change to the file voids it). Or set the keys in your own config${userFile ? ` (${userFile})` : ''} or with the command-line flags that set them, or remove them. Nothing ran.`,
  });
}

/** Reads and validates the layers of `root`'s config (`explicitFile`: `--config`), and judges the repository file's trust. */
export function inspectConfig(root: string, explicitFile?: string, env: Env = process.env): ConfigInspection {
  const userFile = userConfigFile(env);
  const userBytes = userFile === null ? null : readBytes(userFile);
  const userRaw = userBytes === null ? {} : parseYaml(userBytes.toString('utf8'), userFile as string);
  // Validated alone first, so an error names the file it is in.
  const baseline = validateConfig(userRaw, userFile ?? 'your config');
  const user = { file: userFile, exists: userBytes !== null };

  const file = explicitFile ? path.resolve(explicitFile) : path.join(root, CONFIG_FILE);
  const bytes = readBytes(file);
  if (bytes === null) {
    if (explicitFile) throw new EditwardenError({ code: ErrorCode.CONFIG, message: `Config file ${explicitFile} cannot be read.`, hint: 'Check the --config path.' });
    return { config: baseline, user, repository: null, loosenings: [], refusal: null, trust: { state: 'none' }, layers: { ...NO_LAYERS, userFile, setBy: layersOf(userRaw, {}, []) } };
  }
  const source = explicitFile ?? CONFIG_FILE;
  // A --config outside the root is the person's own file; anything named inside the root (through a link or not) is the repository's.
  const own = explicitFile !== undefined && !isWithin(file, path.resolve(root)) && !isWithin(ownPath(file), real(root));
  if (!own) refuseBorrowedConfig(root, source, file);
  const raw = parseYaml(bytes.toString('utf8'), source);
  validateConfig(raw, source);
  const merged = validateConfig(mergeRaw(userRaw, raw), source);
  const trust: TrustState | 'own' = own ? 'own' : storeOutside(root, env) ? trustStateOf(file, bytes, env) : 'untrusted';
  const believed = trust === 'own' || trust === 'trusted';
  // Untrusted, a deny list adds to the person's (it can deny more, never less); believed, it replaces.
  const config = believed ? merged : withBaselineDenials(baseline, merged);
  // A bound the person set is theirs, whatever the repository's file says (it still tightens for everyone else).
  const yoursOver: ConfigLayers['yoursOver'][number][] = [];
  for (const key of leafKeys(userRaw).filter(isBound)) {
    const repository = valueAt(raw, key);
    const yours = valueAt(baseline, key);
    if (repository === undefined) continue;
    setValueAt(config, key, yours);
    if (repository !== yours) yoursOver.push({ key, yours: show(yours), repository: show(repository) });
  }
  const found = loosenings(baseline, config);
  // Untrusted, a raised bound is not applied (the person's value stands, named in a notice); anything else that loosens is refused.
  const ignored = believed ? [] : found.filter((l) => isBound(l.key));
  for (const l of ignored) setValueAt(config, l.key, valueAt(baseline, l.key));
  const refusing = found.filter((l) => !ignored.includes(l));
  const refused = refusing.length > 0 && !believed ? refusal(root, source, file, trust, refusing, userFile) : null;
  const state: ConfigTrust = trust === 'own' || trust === 'trusted' ? { state: trust, file, loosenings: found } : { state: trust, file, loosenings: found, refusal: refused };
  const layers: ConfigLayers = { userFile, repositoryFile: file, trustCommand: believed ? null : trustCommand(root, file), setBy: layersOf(userRaw, raw, ignored), ignored, yoursOver };
  return { config, user, repository: { file, trust }, loosenings: found, refusal: refused, trust: state, layers };
}

/** A project's config and its trust state, judged once (the Policy carries `trust`); throws what `loadConfig` throws. */
export function loadProjectConfig(root: string, explicitFile?: string, env: Env = process.env): LoadedConfig {
  const { config, trust, layers } = inspectConfig(root, explicitFile, env);
  const refused = trustRefusal(trust);
  if (refused) throw refused;
  return { config, trust, layers };
}

/** A project's config as the loader judged it: the value, its trust state and which layer set what. */
export interface LoadedConfig {
  config: Config;
  trust: ConfigTrust;
  layers: ConfigLayers;
}

/**
 * The config of `root` (or an explicit `--config` file) over the person's own, defaults when there is none.
 * Throws E_CONFIG for an invalid file and E_UNTRUSTED_CONFIG when an untrusted repository file loosens the guard.
 */
export function loadConfig(root: string, explicitFile?: string, env: Env = process.env): Config {
  return loadProjectConfig(root, explicitFile, env).config;
}
