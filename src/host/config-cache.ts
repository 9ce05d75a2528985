/**
 * A project's loaded config, kept in its state folder between commands: the
 * loader (config/load.ts) parses YAML and validates with zod, ~45 ms of CPU
 * to load and build before a one-shot `editwarden edit` can start; a command
 * whose inputs are the ones the kept value was loaded from takes the value
 * instead (docs/benchmarks.md, "CLI start-up, round 2").
 *
 * What it defends against, and how:
 *  - a changed config, a changed trust record, another user config, another
 *    build: the value is kept under a key that hashes every input the loader
 *    reads (both files' bytes, the paths it judges — real, own, the trust
 *    folder's —, the trust state of the file's bytes, this build); any change
 *    makes another key, and the loader runs.
 *  - a cache planted in the project (a clone that ships `.editwarden/`, an
 *    agent that writes one): the value is believed only with a MAC made with
 *    a per-user secret kept outside every repository, in the person's data
 *    folder (only when that folder is theirs and nobody else may write it).
 *    Without the secret nobody can write a value that is read back.
 *  - a cache copied from another project: the root's real path is in the key.
 *  - the state folder's own rules (workspace/state-dir.ts): a real folder of
 *    this user, never a link; the file is opened relative to that folder's
 *    descriptor, without following a link, as a small regular file.
 * A value the loader refused (an untrusted file that loosens the guard) is
 * never kept: the loader runs and refuses every time. Anything that fails
 * here (no secret, no state folder, a torn file) falls back to the loader:
 * the cache can only save time, never change a decision.
 */
import { createHash, createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { readSmallFile } from '../small-file.js';
import { CONFIG_FILE, MAX_CONFIG_BYTES } from '../config/names.js';
import type { LoadedConfig } from '../config/load.js';
import { believable, ownPath, trustDir, trustStateOf, userConfigFile } from '../config/trust-store.js';
import { loadProjectConfigFast } from '../config/defaults.js';
import { trustRefusal } from '../config/trust-state.js';
import { checkStateStat, ensureTrustedStateDir } from '../workspace/state-dir.js';
import { STATE_DIR } from '../workspace/paths.js';

type Env = Readonly<Record<string, string | undefined>>;

/** The kept value's file inside `.editwarden/`. */
export const CONFIG_CACHE_FILE = 'config-cache.json';
const FORMAT = 1;
const MAX_CACHE_BYTES = 1024 * 1024;
const SECRET_FILE = 'state-cache.key';

/**
 * The config of `root` as `loadProjectConfigFast` loads it (no file: the
 * defaults, no schema library), through the kept value when every input is
 * the one it was loaded from.
 */
export async function loadProjectConfigCached(root: string, explicitFile?: string, env: Env = process.env): Promise<LoadedConfig> {
  const key = process.platform === 'linux' ? cacheKey(root, explicitFile, env) : null;
  if (key === null) return loadProjectConfigFast(root, explicitFile, env);
  const secret = userSecret(env, key.realRoot);
  const kept = secret === null ? null : readKept(key.realRoot, key.digest, secret);
  if (kept !== null) return kept;
  const loaded = await loadProjectConfigFast(root, explicitFile, env);
  if (secret !== null && trustRefusal(loaded.trust) === null) writeKept(key.realRoot, key.digest, secret, loaded);
  return loaded;
}

function real(p: string): string {
  try {
    return fs.realpathSync(p);
  } catch {
    return path.resolve(p);
  }
}

/** The file's bytes, or null when there is no such file; undefined when it cannot be read here (then no cache: the loader says why). */
function bytesOf(file: string | null): Buffer | null | undefined {
  if (file === null) return null;
  try {
    return readSmallFile(file, { maxBytes: MAX_CONFIG_BYTES, follow: true });
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    return code === 'ENOENT' || code === 'ENOTDIR' ? null : undefined;
  }
}

function sha256(bytes: Uint8Array | string): string {
  return createHash('sha256').update(bytes).digest('hex');
}

/**
 * Every input the loader reads, hashed; null when the loader has nothing to
 * load (no file at all: the defaults are free) or a file cannot be read (the
 * loader refuses it, with its own words).
 */
function cacheKey(root: string, explicitFile: string | undefined, env: Env): { digest: string; realRoot: string } | null {
  const userFile = userConfigFile(env);
  const file = explicitFile ? path.resolve(explicitFile) : path.join(root, CONFIG_FILE);
  const user = bytesOf(userFile);
  const repository = bytesOf(file);
  if (user === undefined || repository === undefined || (user === null && repository === null)) return null;
  const trustFolder = trustDir(env);
  const realRoot = real(root);
  const inputs = {
    build: buildStamp(),
    root: path.resolve(root),
    realRoot,
    explicit: explicitFile !== undefined,
    userFile,
    user: user === null ? null : sha256(user),
    file,
    realFile: real(file),
    ownFile: ownPath(file),
    repository: repository === null ? null : sha256(repository),
    // The trust state of exactly these bytes (a record made, changed or revoked changes the key), and where records are read.
    trust: repository === null ? null : trustStateOf(file, repository, env),
    trustFolder: trustFolder === null ? null : real(trustFolder),
  };
  return { digest: sha256(JSON.stringify(inputs)), realRoot };
}

/** This build: the loader's rules may change with it, so a value kept by another build is another key. */
function buildStamp(): string {
  try {
    const s = fs.statSync(fileURLToPath(import.meta.url));
    return `${process.version}:${s.dev}:${s.ino}:${s.size}:${s.mtimeMs}`;
  } catch {
    return `${process.version}:unknown`;
  }
}

/**
 * The person's cache secret: 32 random bytes in their data folder, made on first use. Only from a folder that is
 * theirs, that nobody else may write and that lies outside the project (a HOME that is the project is the
 * repository's to write); else null (no cache).
 */
function userSecret(env: Env, realRoot: string): Buffer | null {
  const trust = trustDir(env);
  if (trust === null) return null;
  const dir = path.dirname(trust);
  try {
    fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
  } catch {
    return null;
  }
  const realDir = real(dir);
  if (!believable(dir) || realDir === realRoot || realDir.startsWith(`${realRoot}${path.sep}`)) return null;
  const file = path.join(dir, SECRET_FILE);
  try {
    fs.writeFileSync(file, randomBytes(32), { flag: 'wx', mode: 0o600 });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') return null;
  }
  try {
    const secret = readSmallFile(file, { maxBytes: 64, follow: false });
    return secret.length === 32 ? secret : null;
  } catch {
    return null;
  }
}

function mac(secret: Buffer, digest: string, value: string): Buffer {
  return createHmac('sha256', secret).update(`${FORMAT}\n${digest}\n${value}`).digest();
}

/** The state folder opened without following a link and checked (a real folder of this user); null when absent or not ours. */
function openStateDir(realRoot: string): number | null {
  let fd: number;
  try {
    fd = fs.openSync(path.join(realRoot, STATE_DIR), fs.constants.O_RDONLY | fs.constants.O_DIRECTORY | fs.constants.O_NOFOLLOW);
  } catch {
    return null;
  }
  try {
    checkStateStat(STATE_DIR, fs.fstatSync(fd));
    return fd;
  } catch {
    fs.closeSync(fd);
    return null;
  }
}

function readKept(realRoot: string, digest: string, secret: Buffer): LoadedConfig | null {
  const dir = openStateDir(realRoot);
  if (dir === null) return null;
  try {
    const kept = JSON.parse(readSmallFile(`/proc/self/fd/${dir}/${CONFIG_CACHE_FILE}`, { maxBytes: MAX_CACHE_BYTES, follow: false }).toString('utf8')) as unknown;
    if (typeof kept !== 'object' || kept === null) return null;
    const { v, key, value, mac: sum } = kept as Record<string, unknown>;
    if (v !== FORMAT || key !== digest || typeof value !== 'string' || typeof sum !== 'string') return null;
    const expected = mac(secret, digest, value);
    const given = Buffer.from(sum, 'hex');
    if (given.length !== expected.length || !timingSafeEqual(given, expected)) return null;
    return JSON.parse(value) as LoadedConfig;
  } catch {
    return null;
  } finally {
    fs.closeSync(dir);
  }
}

/** Keeps the value (a torn or lost write is only a miss next time: it fails the MAC or the parse). */
function writeKept(realRoot: string, digest: string, secret: Buffer, loaded: LoadedConfig): void {
  try {
    // The state folder's own rule makes it (with its .gitignore) or refuses it: a dry run's first call keeps the value too.
    ensureTrustedStateDir(path.join(realRoot, STATE_DIR));
  } catch {
    return;
  }
  const dir = openStateDir(realRoot);
  if (dir === null) return;
  const value = JSON.stringify(loaded);
  const temp = `/proc/self/fd/${dir}/.${CONFIG_CACHE_FILE}.${randomBytes(6).toString('hex')}`;
  try {
    fs.writeFileSync(temp, JSON.stringify({ v: FORMAT, key: digest, value, mac: mac(secret, digest, value).toString('hex') }), { flag: 'wx', mode: 0o600 });
    fs.renameSync(temp, `/proc/self/fd/${dir}/${CONFIG_CACHE_FILE}`);
  } catch {
    fs.rmSync(temp, { force: true });
  } finally {
    fs.closeSync(dir);
  }
}
