/**
 * What `init` found in each settings file it changed, kept in the person's
 * own data folder (`$XDG_DATA_HOME/editwarden/init/`, outside every
 * repository), so `init --remove` gives the person's file back byte for
 * byte — their formatting, key order and comments (Codex's TOML) — where
 * editwarden's entries were the only change since (issue 38.7). A file
 * changed since init wrote it (a hook the person added, a teammate's
 * commit) is not restored from the record: only editwarden's entries are
 * taken out of it (the clients' `remove`), in the file's own indentation.
 *
 * A record holds the text before the first `init` and the SHA-256 of the
 * text the last `init` wrote; it counts only while the file still hashes
 * the same. Never read through a link; a folder others may write is not
 * believed (a planted record could put back any text).
 */
import { createHash, randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { believable, initDir, ownPath } from '../config/trust-store.js';
import { readSmallFile } from '../small-file.js';

type Env = Readonly<Record<string, string | undefined>>;

interface InitRecord {
  /** The settings file (its own path). */
  path: string;
  /** Its text before the first init (null: there was none). */
  before: string | null;
  /** SHA-256 of the text init last wrote. */
  after_sha256: string;
}

function sha256(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}

function recordFile(dir: string, file: string): string {
  return path.join(dir, `${sha256(ownPath(file)).slice(0, 32)}.json`);
}

function read(dir: string | null, file: string): InitRecord | null {
  if (dir === null || !believable(dir)) return null;
  try {
    const r = JSON.parse(readSmallFile(recordFile(dir, file), { maxBytes: 8 * 1024 * 1024, follow: false }).toString('utf8')) as Partial<InitRecord>;
    if (r.path === ownPath(file) && (typeof r.before === 'string' || r.before === null) && typeof r.after_sha256 === 'string') return { path: r.path, before: r.before, after_sha256: r.after_sha256 };
  } catch {
    // No record, or a torn or foreign one: no byte-exact restore.
  }
  return null;
}

/** The person's text to put back for `file` whose current text is `current`: recorded, and unchanged since init wrote it. */
export function recordedBefore(file: string, current: string | null, env: Env = process.env): { before: string | null } | null {
  if (current === null) return null;
  const record = read(initDir(env), file);
  return record !== null && record.after_sha256 === sha256(current) ? { before: record.before } : null;
}

/**
 * Notes that init changed `file` from `before` to `after`. A file init had already changed and that nobody changed
 * since keeps its first `before` (a second init after an upgrade still gives back the person's original); otherwise
 * `before` is recorded only when it held nothing of editwarden's (`pristine`) — a text that did (the person's hook
 * added to editwarden's group since) is no original to go back to.
 */
export function noteInit(file: string, before: string | null, after: string, pristine: boolean, env: Env = process.env): void {
  const dir = initDir(env);
  if (dir === null) return;
  const kept = recordedBefore(file, before, env);
  if (kept === null && !pristine) {
    forgetInit(file, env);
    return;
  }
  fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
  if (!believable(dir)) return;
  const record: InitRecord = { path: ownPath(file), before: kept ? kept.before : before, after_sha256: sha256(after) };
  const target = recordFile(dir, file);
  const temp = path.join(dir, `.${path.basename(target)}.${randomBytes(6).toString('hex')}.tmp`);
  fs.writeFileSync(temp, `${JSON.stringify(record)}\n`, { mode: 0o600, flag: 'wx' });
  fs.renameSync(temp, target);
}

/** Forgets the record of `file` (after `--remove` gave it back). */
export function forgetInit(file: string, env: Env = process.env): void {
  const dir = initDir(env);
  if (dir !== null) fs.rmSync(recordFile(dir, file), { force: true });
}
