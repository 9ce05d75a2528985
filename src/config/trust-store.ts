/**
 * Where a person's own settings live, outside every repository, and the
 * record of which repository config files they trusted — the `direnv allow`
 * model: `editwarden trust` records a file's own path with the SHA-256 of
 * its bytes; the record counts only while the file still hashes the same,
 * so one changed byte makes the file untrusted again.
 *
 * Defends against: a repository (or an agent working in it) granting itself
 * a trust record. The records live under `$XDG_DATA_HOME/editwarden/trust/`
 * (default `~/.local/share/editwarden/trust/`), one file per trusted config
 * named by the hash of its path (no read-modify-write of a shared file, so
 * two `trust` commands never lose one another's record), each written under
 * a temporary name with mode 0600 and renamed into place. A folder that is
 * not the person's own or that others may write is not believed: nothing in
 * it counts as trusted (fail closed).
 */
import { createHash, randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { readSmallFile } from '../small-file.js';
import { MAX_CONFIG_BYTES } from './names.js';

type Env = Readonly<Record<string, string | undefined>>;

function base(env: Env, xdg: string, fallback: string): string | null {
  const set = env[xdg];
  // The XDG spec: a relative value is invalid and ignored.
  if (set && path.isAbsolute(set)) return set;
  const home = env.HOME || os.homedir();
  return home ? path.join(home, fallback) : null;
}

/** The person's own config: `$XDG_CONFIG_HOME/editwarden/config.yml` (default `~/.config/editwarden/config.yml`). */
export function userConfigFile(env: Env = process.env): string | null {
  const dir = base(env, 'XDG_CONFIG_HOME', '.config');
  return dir === null ? null : path.join(dir, 'editwarden', 'config.yml');
}

/** The folder of trust records: `$XDG_DATA_HOME/editwarden/trust` (default `~/.local/share/editwarden/trust`). */
export function trustDir(env: Env = process.env): string | null {
  const dir = base(env, 'XDG_DATA_HOME', path.join('.local', 'share'));
  return dir === null ? null : path.join(dir, 'editwarden', 'trust');
}

/**
 * The folder of the person's records of a project-local editwarden install (its digest, by project) and of the
 * launcher the committed hooks run it through: `$XDG_DATA_HOME/editwarden/guard` (integrations/guard-install.ts).
 */
export function guardDir(env: Env = process.env): string | null {
  const dir = base(env, 'XDG_DATA_HOME', path.join('.local', 'share'));
  return dir === null ? null : path.join(dir, 'editwarden', 'guard');
}

/** The folder of what `editwarden init` found in the settings files it changed (integrations/init-record.ts): `$XDG_DATA_HOME/editwarden/init`. */
export function initDir(env: Env = process.env): string | null {
  const dir = base(env, 'XDG_DATA_HOME', path.join('.local', 'share'));
  return dir === null ? null : path.join(dir, 'editwarden', 'init');
}

/** `trusted`: recorded with these bytes; `changed`: recorded, but the file changed since; `untrusted`: no record. */
export type TrustState = 'trusted' | 'changed' | 'untrusted';

export interface TrustRecord {
  /** The config file's own path (its folder's real path and its own name: a link is not followed, see ownPath). */
  path: string;
  /** SHA-256 (hex) of its bytes when it was trusted. */
  sha256: string;
  /** ISO time of the `editwarden trust`. */
  trusted_at: string;
}

/** A trust record: small, and never read through a link (a planted record is not believed anyway; it must not hang or flood either). */
const RECORD_READ = { maxBytes: 64 * 1024, follow: false } as const;

function sha256(bytes: Uint8Array | string): string {
  return createHash('sha256').update(bytes).digest('hex');
}

function realPath(file: string): string {
  try {
    return fs.realpathSync(file);
  } catch {
    return path.resolve(file);
  }
}

/**
 * The path a record is keyed by: the file's own name in its folder's real
 * location — the last component is NOT followed. Attack: a clone whose
 * `.editwarden.yml` is a link to a sibling project's trusted file would
 * otherwise find that project's record under the link's target and be
 * governed by its trust (issue 38.6); keyed by its own path, the clone has
 * no record until a person trusts it there.
 */
export function ownPath(file: string): string {
  const abs = path.resolve(file);
  return path.join(realPath(path.dirname(abs)), path.basename(abs));
}

function recordFile(dir: string, file: string): string {
  return path.join(dir, `${sha256(ownPath(file)).slice(0, 32)}.json`);
}

/** The folder is believed only when it is ours and nobody else may write it (else a record could be planted). */
export function believable(dir: string): boolean {
  try {
    const st = fs.statSync(dir);
    const ours = typeof process.geteuid !== 'function' || st.uid === process.geteuid();
    return st.isDirectory() && ours && (st.mode & 0o022) === 0;
  } catch {
    return false;
  }
}

function parseRecord(text: string): TrustRecord | null {
  try {
    const r = JSON.parse(text) as Partial<TrustRecord>;
    if (typeof r.path === 'string' && typeof r.sha256 === 'string' && /^[0-9a-f]{64}$/.test(r.sha256)) return { path: r.path, sha256: r.sha256, trusted_at: String(r.trusted_at ?? '') };
  } catch {
    // A torn or foreign file is no record.
  }
  return null;
}

function readRecord(dir: string, file: string): TrustRecord | null {
  if (!believable(dir)) return null;
  try {
    const record = parseRecord(readSmallFile(recordFile(dir, file), RECORD_READ).toString('utf8'));
    return record !== null && record.path === ownPath(file) ? record : null;
  } catch {
    return null;
  }
}

/** Whether the person trusted `file` with exactly these bytes. */
export function trustStateOf(file: string, bytes: Uint8Array, env: Env = process.env): TrustState {
  const dir = trustDir(env);
  const record = dir === null ? null : readRecord(dir, file);
  if (record === null) return 'untrusted';
  return record.sha256 === sha256(bytes) ? 'trusted' : 'changed';
}

function noStore(): Error {
  return new Error('no folder for trust records: set HOME or XDG_DATA_HOME');
}

/** Records `file` (as it is now) as trusted; returns the record. Throws when the file cannot be read. */
export function trustFile(file: string, env: Env = process.env, now: Date = new Date()): TrustRecord {
  const dir = trustDir(env);
  if (dir === null) throw noStore();
  const bytes = readSmallFile(file, { maxBytes: MAX_CONFIG_BYTES, follow: true });
  const record: TrustRecord = { path: ownPath(file), sha256: sha256(bytes), trusted_at: now.toISOString() };
  fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
  if (!believable(dir)) throw new Error(`${dir} is not yours alone (owner or group/other write): fix its owner and mode (chmod 700) first`);
  const target = recordFile(dir, file);
  const temp = path.join(dir, `.${path.basename(target)}.${randomBytes(6).toString('hex')}.tmp`);
  const fd = fs.openSync(temp, fs.constants.O_WRONLY | fs.constants.O_CREAT | fs.constants.O_EXCL, 0o600);
  try {
    fs.writeSync(fd, `${JSON.stringify(record)}\n`);
    fs.fsyncSync(fd);
  } finally {
    fs.closeSync(fd);
  }
  fs.renameSync(temp, target);
  return record;
}

/** Removes the record of `file`; false when there was none. */
export function revokeFile(file: string, env: Env = process.env): boolean {
  const dir = trustDir(env);
  if (dir === null) throw noStore();
  try {
    fs.unlinkSync(recordFile(dir, file));
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return false;
    throw error;
  }
}

/** Every record, with whether its file still has the trusted bytes (`changed`) or is gone (`missing`). */
export function listTrusted(env: Env = process.env): Array<TrustRecord & { state: 'trusted' | 'changed' | 'missing' }> {
  const dir = trustDir(env);
  if (dir === null || !believable(dir)) return [];
  const out: Array<TrustRecord & { state: 'trusted' | 'changed' | 'missing' }> = [];
  for (const name of fs.readdirSync(dir).sort()) {
    if (!name.endsWith('.json') || name.startsWith('.')) continue;
    let record: TrustRecord | null = null;
    try {
      record = parseRecord(readSmallFile(path.join(dir, name), RECORD_READ).toString('utf8'));
    } catch {
      continue;
    }
    if (record === null) continue;
    let state: 'trusted' | 'changed' | 'missing';
    try {
      state = sha256(readSmallFile(record.path, { maxBytes: MAX_CONFIG_BYTES, follow: true })) === record.sha256 ? 'trusted' : 'changed';
    } catch {
      state = 'missing';
    }
    out.push({ ...record, state });
  }
  return out;
}
