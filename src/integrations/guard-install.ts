/**
 * A project-local editwarden (a devDependency) as the guard: what the person
 * recorded of it, and the check that runs before any of its code does.
 *
 * Attack (issue 38.1): the committed hooks fell back to
 * `<project>/node_modules/.bin/editwarden`, inside the root the agent
 * writes; one sandboxed `Bash` wrote `exit 0` over it, and every later hook
 * of the session was the agent's program. Now the install is a member of
 * the protected set (read-only in every sandbox, refused to every edit
 * route: config/protected-set.ts PROJECT_INSTALL), and its code runs only
 * through the launcher: a copy of this module's bundle
 * (dist/guard-launcher/launch.cjs) that `init` and `trust --guard` put in
 * the person's own data folder (`$XDG_DATA_HOME/editwarden/guard/`, outside
 * every repository and hidden from the sandbox), beside one record per
 * project — the install's folders and the SHA-256 of every file and link in
 * them. The launcher compares and only then loads the install; a changed or
 * replaced install fails closed with E_GUARD_TAMPERED.
 *
 * Latency: a hook runs on every native edit. The record also holds the
 * install's stat identity (device, inode, size, mtime, ctime and mode of
 * every entry — ctime cannot be set back by a process), so a hook reads
 * no file content unless something changed; a changed identity is
 * re-digested, and accepted (and re-cached) only when the bytes still match.
 *
 * Node's built-ins only (it is bundled alone into the launcher); it never
 * writes anything but its own records.
 */
import { createHash, randomBytes } from 'node:crypto';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { isWithin } from '../config/path-within.js';
import { PROJECT_INSTALL } from '../config/protected-set.js';
import { believable, guardDir } from '../config/trust-store.js';
import { ErrorCode, type ErrorInfo } from '../errors.js';

type Env = Readonly<Record<string, string | undefined>>;

/** The launcher's file name in the person's guard folder. */
export const LAUNCHER_FILE = 'launch.cjs';

/** A project-local install as it stands: real paths. */
export interface LocalInstall {
  /** The project root (real path). */
  root: string;
  /** The package folder and the run-time packages its CLI loads (real paths; the package first). */
  parts: string[];
  /** The package's own bin script, which the launcher loads. */
  bin: string;
  /** Where `node_modules/.bin/editwarden` leads (real path), or null when there is no such link. */
  binLink: string | null;
}

/** What the person recorded of a project's install (`init`, `trust --guard`). */
export interface GuardRecord {
  version: 1;
  root: string;
  parts: string[];
  binLink: string | null;
  /** SHA-256 over every entry's path, kind, executable bit and content (or link target). */
  digest: string;
  /** SHA-256 of the stat identity the digest was last found to match (the cache). */
  identity: string;
  recorded_at: string;
}

function realOrNull(p: string): string | null {
  try {
    return fs.realpathSync(p);
  } catch {
    return null;
  }
}

/** The project-local install of `root`, or null when the project has none (no `node_modules/editwarden`). */
export function localInstall(root: string): LocalInstall | null {
  const realRoot = realOrNull(root);
  if (realRoot === null) return null;
  const pkg = realOrNull(path.join(realRoot, ...PROJECT_INSTALL.package.split('/')));
  if (pkg === null) return null;
  const externals = PROJECT_INSTALL.externals.map((rel) => realOrNull(path.join(realRoot, ...rel.split('/')))).filter((p): p is string => p !== null);
  const link = path.join(realRoot, ...PROJECT_INSTALL.bin.split('/'));
  const binLink = fs.existsSync(link) || isLink(link) ? (realOrNull(link) ?? link) : null;
  return { root: realRoot, parts: [pkg, ...externals], bin: path.join(pkg, 'bin', 'editwarden'), binLink };
}

function isLink(p: string): boolean {
  try {
    return fs.lstatSync(p).isSymbolicLink();
  } catch {
    return false;
  }
}

/**
 * Files Node never loads as code, left out of the identity and the digest (a hook stats every other entry, so
 * fewer is faster): type declarations, source maps, documentation. Anything else — every script, JSON, wasm,
 * native addon and extension-less file (the bin script) — and every folder and link counts.
 */
const INERT = /\.(d\.ts|d\.mts|d\.cts|map|md|markdown|txt|tsbuildinfo)$/i;

/** Every entry below each part, sorted, with its lstat: `visit(partIndex, relative, absolute, stats)`. Never follows a link. */
function walk(install: LocalInstall, visit: (part: number, rel: string, abs: string, st: fs.Stats) => void): void {
  install.parts.forEach((part, index) => {
    const go = (rel: string, abs: string, st: fs.Stats): void => {
      visit(index, rel, abs, st);
      if (!st.isDirectory()) return;
      for (const entry of fs.readdirSync(abs, { withFileTypes: true }).sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))) {
        // A regular file Node never runs is passed by name alone: no stat.
        if (entry.isFile() && INERT.test(entry.name)) continue;
        const child = path.join(abs, entry.name);
        go(rel === '' ? entry.name : `${rel}/${entry.name}`, child, fs.lstatSync(child));
      }
    };
    go('', part, fs.lstatSync(part));
  });
}

function kindOf(st: fs.Stats): string {
  return st.isFile() ? 'f' : st.isDirectory() ? 'd' : st.isSymbolicLink() ? 'l' : 'o';
}

/** The install's stat identity, hashed: what changes when any entry is written, replaced, added, removed or renamed. */
export function statIdentity(install: LocalInstall): string {
  const lines = [`${install.parts.join('\0')}\0${install.binLink ?? ''}`];
  walk(install, (part, rel, _abs, st) => {
    lines.push(`${part}\0${rel}\0${kindOf(st)}\0${st.dev}:${st.ino}:${st.size}:${st.mtimeMs}:${st.ctimeMs}:${st.mode}`);
  });
  return createHash('sha256').update(lines.join('\n')).digest('hex');
}

/** The install's content digest: every entry's path, kind, executable bit and bytes (a link: its target). */
export function contentDigest(install: LocalInstall): string {
  const h = createHash('sha256');
  walk(install, (part, rel, abs, st) => {
    let body = '';
    if (st.isFile()) body = createHash('sha256').update(fs.readFileSync(abs)).digest('hex');
    else if (st.isSymbolicLink()) body = fs.readlinkSync(abs);
    h.update(`${part}\0${rel}\0${kindOf(st)}\0${st.mode & 0o111 ? 'x' : '-'}\0${body}\n`);
  });
  return h.digest('hex');
}

function recordFile(dir: string, root: string): string {
  return path.join(dir, `${createHash('sha256').update(root).digest('hex').slice(0, 32)}.json`);
}

function writeAtomic(file: string, text: string, mode: number): void {
  const temp = path.join(path.dirname(file), `.${path.basename(file)}.${randomBytes(6).toString('hex')}.tmp`);
  const fd = fs.openSync(temp, fs.constants.O_WRONLY | fs.constants.O_CREAT | fs.constants.O_EXCL, mode);
  try {
    fs.writeSync(fd, text);
    fs.fsyncSync(fd);
  } finally {
    fs.closeSync(fd);
  }
  fs.renameSync(temp, file);
}

function parseRecord(text: string): GuardRecord | null {
  try {
    const r = JSON.parse(text) as Partial<GuardRecord>;
    const hex = (v: unknown): v is string => typeof v === 'string' && /^[0-9a-f]{64}$/.test(v);
    if (r.version === 1 && typeof r.root === 'string' && Array.isArray(r.parts) && r.parts.every((p) => typeof p === 'string') && hex(r.digest) && hex(r.identity)) {
      return { version: 1, root: r.root, parts: r.parts, binLink: typeof r.binLink === 'string' ? r.binLink : null, digest: r.digest, identity: r.identity, recorded_at: String(r.recorded_at ?? '') };
    }
  } catch {
    // A torn or foreign file is no record.
  }
  return null;
}

function readRecord(dir: string, root: string): GuardRecord | null {
  if (!believable(dir)) return null;
  let text: string;
  try {
    const fd = fs.openSync(recordFile(dir, root), fs.constants.O_RDONLY | fs.constants.O_NOFOLLOW | fs.constants.O_NONBLOCK);
    try {
      if (!fs.fstatSync(fd).isFile()) return null;
      text = fs.readFileSync(fd, 'utf8');
    } finally {
      fs.closeSync(fd);
    }
  } catch {
    return null;
  }
  const record = parseRecord(text);
  return record !== null && record.root === root ? record : null;
}

/** Where the person's guard records live, made private if missing; throws when it cannot be believed. */
function ownGuardDir(env: Env, root: string): string {
  const dir = guardDir(env);
  if (dir === null) throw new Error('no folder for the guard record: set HOME or XDG_DATA_HOME');
  if (isWithin(path.resolve(dir), root)) throw new Error(`${dir} lies inside the project ${root}, where the agent could write it: set XDG_DATA_HOME (or HOME) to a folder outside it`);
  fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
  if (!believable(dir)) throw new Error(`${dir} is not yours alone (owner or group/other write): fix its owner and mode (chmod 700) first`);
  return dir;
}

/**
 * Records the project-local install of `root` as it is now (the person's word that it is the guard), and puts
 * `launcher` (this build's launcher bundle) beside the records. Returns the record, or null when the project has
 * no local install.
 */
export function recordGuard(root: string, launcher: string, env: Env = process.env, now: Date = new Date()): GuardRecord | null {
  const install = localInstall(root);
  if (install === null) return null;
  const dir = ownGuardDir(env, install.root);
  const record: GuardRecord = { version: 1, root: install.root, parts: install.parts, binLink: install.binLink, digest: contentDigest(install), identity: statIdentity(install), recorded_at: now.toISOString() };
  writeAtomic(recordFile(dir, install.root), `${JSON.stringify(record)}\n`, 0o600);
  writeAtomic(path.join(dir, LAUNCHER_FILE), fs.readFileSync(launcher, 'utf8'), 0o600);
  return record;
}

/**
 * Whether the committed hooks would run an `editwarden` from PATH on this machine: the first one on PATH (as `command
 * -v` finds it), when its real location is outside the project (client.ts `findGuard`, the same rule). `init` says
 * so when neither this nor a project-local install is there: the hooks would block every guarded tool.
 */
export function guardOnPath(root: string, env: Env = process.env): boolean {
  const realRoot = realOrNull(root) ?? path.resolve(root);
  for (const dir of (env.PATH ?? '').split(path.delimiter)) {
    if (dir === '') continue;
    const candidate = path.join(dir, 'editwarden');
    try {
      fs.accessSync(candidate, fs.constants.X_OK);
      if (!fs.statSync(candidate).isFile()) continue;
    } catch {
      continue;
    }
    const real = realOrNull(candidate) ?? candidate;
    const modules = real.indexOf(`${path.sep}node_modules${path.sep}`);
    return !isWithin(real, realRoot) && !(modules >= 0 && isWithin(realRoot, real.slice(0, modules)));
  }
  return false;
}

export type GuardVerdict = { ok: true; install: LocalInstall } | { ok: false; error: ErrorInfo };

const REINSTALL =
  "A person re-installs it from the lock file, which npm checks against each package's integrity (rm -rf node_modules && npm ci), reads what changed if they did not change it themselves, then records it: npx editwarden trust --guard (or editwarden init <client> again). Until then every hook, the guarded shell and the MCP server refuse.";

function tampered(message: string): GuardVerdict {
  return { ok: false, error: { code: ErrorCode.GUARD_TAMPERED, message: `${message}; none of its code ran, so the call is blocked.`, hint: REINSTALL } };
}

function unavailable(message: string, hint: string): GuardVerdict {
  return { ok: false, error: { code: ErrorCode.GUARD_UNAVAILABLE, message: `${message}, so nothing can be vetted and the call is blocked.`, hint } };
}

/**
 * Whether the project-local install of `projectDir` is the one the person recorded: the launcher's check before it
 * loads any of the install's code. Cheap when nothing changed (stat identity); re-digests otherwise, and caches a
 * matching identity again.
 */
export function verifyGuard(projectDir: string, env: Env = process.env, execPath: string = process.execPath): GuardVerdict {
  const root = realOrNull(projectDir);
  if (root === null) return unavailable(`The project folder ${projectDir} cannot be found`, 'Start the client in the project folder.');
  // A node inside the root (PATH naming the project's node_modules/.bin) is a program the agent could write.
  const node = realOrNull(execPath) ?? execPath;
  if (isWithin(node, root)) return tampered(`The node running the guard (${node}) lies inside the project, where the agent can write it`);
  const install = localInstall(root);
  if (install === null)
    return unavailable(
      'editwarden is not installed on this machine (not on PATH, no node_modules/editwarden in the project)',
      'A person installs editwarden (npm install -g editwarden, or as a devDependency and then: npx editwarden trust --guard).',
    );
  const dir = guardDir(env);
  const record = dir === null ? null : readRecord(dir, root);
  if (record === null || dir === null) {
    return unavailable(
      `The project-local editwarden (${install.parts[0]}) was never recorded on this machine`,
      'A person who installed it (npm ci checks it against package-lock.json) records it once: npx editwarden trust --guard (or editwarden init <client>).',
    );
  }
  if (record.parts.join('\0') !== install.parts.join('\0') || record.binLink !== install.binLink) {
    return tampered(`The project-local editwarden was replaced: it is now ${[...install.parts, install.binLink ?? '(no .bin link)'].join(', ')}, not the install recorded on ${record.recorded_at}`);
  }
  let identity: string;
  try {
    identity = statIdentity(install);
    if (identity === record.identity) return { ok: true, install };
    if (contentDigest(install) !== record.digest) return tampered(`The project-local editwarden (${install.parts[0]}) changed since it was recorded on ${record.recorded_at}`);
  } catch (error) {
    return tampered(`The project-local editwarden cannot be read whole (${error instanceof Error ? error.message : String(error)})`);
  }
  try {
    // Same bytes, new identity (a copy, a touch): cached, so the next hook is fast again.
    writeAtomic(recordFile(dir, root), `${JSON.stringify({ ...record, identity })}\n`, 0o600);
  } catch {
    // The cache is only time: a record that cannot be rewritten is checked in full next time.
  }
  return { ok: true, install };
}

/**
 * The launcher's main (dist/guard-launcher/launch.cjs, run from the person's guard folder as
 * `node launch.cjs <project dir> <editwarden argv…>`): verifies the install, then runs its bin in this process.
 * Refused: the reason on stderr, exit 2 (blocked, in every client's hook protocol).
 */
export function launchMain(argv: readonly string[] = process.argv): void {
  const [, launcher, projectDir = '.', ...args] = argv;
  const verdict = verifyGuard(projectDir);
  if (!verdict.ok) {
    process.stderr.write(`editwarden refused this tool call: ${verdict.error.code}: ${verdict.error.message}\nhint: ${verdict.error.hint}\n`);
    process.exit(2);
  }
  // A rewritten shell command runs through this launcher again (client.ts selfCommand), never the install directly.
  process.env.EDITWARDEN_LAUNCHER = launcher;
  process.env.EDITWARDEN_LAUNCH_ROOT = verdict.install.root;
  process.argv = [process.argv[0] as string, verdict.install.bin, ...args];
  createRequire(verdict.install.bin)(verdict.install.bin);
}
