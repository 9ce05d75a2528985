/**
 * The one-shot commands' CommonJS bundles (dist/cli-command/<name>/cli.cjs), loaded with a V8 code cache: the
 * bytecode of every function a command ran, kept from an earlier run of the same bundle, so a later process skips
 * parsing and compiling them (Node 20 has no module compile cache; measured `undo --list` 77 → 54 ms of CPU,
 * docs/benchmarks.md, "The one-shot CLI's compile cache"). The entry is made at exit (`createCachedData()` then
 * holds the functions the run compiled, not only the top level) when it was missing or V8 rejected it.
 *
 * Trust: an entry is code this process runs, and V8 checks only the source's length and the flags against it — an
 * entry planted for our bundle would run as us. So entries live only in this user's private runtime folder
 * (compile-cache.ts privateCacheDir: $XDG_RUNTIME_DIR, 0700, ours, not a link; none → compiled as without a cache),
 * each file is opened without following a link and read only when it is a regular file of ours closed to others,
 * and its first line must equal the identity of the bundle on disk now (real path, device, inode, size, change and
 * modification times in ns) and of this runtime (Node's version, the architecture, the V8 flags the binary set):
 * a rebuilt bundle, even of the same length, never runs an old entry. An entry is written whole (a temp file of
 * ours, 0600, renamed over), so a reader sees the old entry or the new one; a rebuilt bundle's entry replaces the
 * old one under the same name. `EDITWARDEN_COMPILE_CACHE=off` turns it off.
 *
 * Loaded by bin/editwarden as one CommonJS file (dist/hook-client/code-cache.cjs): Node's built-ins only.
 */
import fs from 'node:fs';
import { createRequire, wrap } from 'node:module';
import path from 'node:path';
import vm from 'node:vm';
import { privateCacheDir } from './compile-cache.js';
import { fnv1a } from './hook-socket.js';

/** What an entry was made for: the bundle on disk and the runtime that compiled it. */
export interface CodeIdentity {
  file: string;
  dev: bigint;
  ino: bigint;
  size: bigint;
  mtimeNs: bigint;
  ctimeNs: bigint;
  node: string;
  arch: string;
  flags: readonly string[];
  /** Which of the commands a bundle serves made the entry: one entry each (the hook server's bundle serves three). */
  variant: string;
}

const MAGIC = 'editwarden-code-cache 1';

/** The folder entries go in, or null when none may be used (turned off, no private runtime folder of ours). */
export function codeCacheDir(env: NodeJS.ProcessEnv): string | null {
  if (env.EDITWARDEN_COMPILE_CACHE === 'off') return null;
  return privateCacheDir(env, 'code-cache');
}

/** The entry's file name: one per bundle path and runtime, so a rebuilt bundle's entry replaces the old one. */
export function entryName(id: CodeIdentity): string {
  return `${fnv1a([id.file, id.node, id.arch, id.variant, ...id.flags].join('\n'))}.code`;
}

/** The entry's first line: the whole identity, compared byte for byte before V8 sees the rest. */
export function entryHeader(id: CodeIdentity): string {
  const fields = [id.file, id.dev, id.ino, id.size, id.mtimeNs, id.ctimeNs, id.node, id.arch, id.flags.join(' '), id.variant].map(String);
  return `${MAGIC} ${JSON.stringify(fields)}\n`;
}

function uid(): number {
  return typeof process.getuid === 'function' ? process.getuid() : -1;
}

/** The code of `id`'s entry in `dir`, or undefined (missing, not a private file of ours, made for another bundle or runtime). */
export function readEntry(dir: string, id: CodeIdentity): Buffer | undefined {
  let fd: number;
  try {
    fd = fs.openSync(path.join(dir, entryName(id)), fs.constants.O_RDONLY | fs.constants.O_NOFOLLOW);
  } catch {
    return undefined;
  }
  try {
    const s = fs.fstatSync(fd);
    if (!s.isFile() || s.uid !== uid() || (s.mode & 0o077) !== 0) return undefined;
    const data = Buffer.allocUnsafe(s.size);
    let done = 0;
    while (done < data.length) {
      const n = fs.readSync(fd, data, done, data.length - done, done);
      if (n === 0) return undefined;
      done += n;
    }
    const header = Buffer.from(entryHeader(id), 'utf8');
    if (data.length <= header.length || !data.subarray(0, header.length).equals(header)) return undefined;
    return data.subarray(header.length);
  } catch {
    return undefined;
  } finally {
    fs.closeSync(fd);
  }
}

/** Writes `id`'s entry whole (temp file, 0600, renamed over any older one); a failure only costs the next compile. */
export function writeEntry(dir: string, id: CodeIdentity, code: Buffer): void {
  const file = path.join(dir, entryName(id));
  const temp = `${file}.${process.pid}.${Math.random().toString(36).slice(2)}.tmp`;
  let fd: number;
  try {
    fd = fs.openSync(temp, fs.constants.O_WRONLY | fs.constants.O_CREAT | fs.constants.O_EXCL | fs.constants.O_NOFOLLOW, 0o600);
  } catch {
    return;
  }
  try {
    try {
      fs.writeSync(fd, entryHeader(id), null, 'utf8');
      fs.writeSync(fd, code);
    } finally {
      fs.closeSync(fd);
    }
    fs.renameSync(temp, file);
  } catch {
    fs.rmSync(temp, { force: true });
  }
}

/**
 * Runs the CommonJS bundle `file` and returns its exports, its compiled code taken from the cache when an entry of
 * this very bundle and runtime is there, and the cache's entry written at exit when it was not (or V8 rejected it).
 * `flags`: the V8 flags the caller set (part of the identity); `variant`: which command of a bundle that serves
 * several this run is (each keeps its own entry: the code a run compiled is its command's). A dynamic `import()` in the bundle (another command
 * from the shared bundle, dist/cli-command/others/) goes through Node's own loader, relative to the bundle.
 */
export function loadBundle(file: string, env: NodeJS.ProcessEnv, flags: readonly string[], variant = ''): Record<string, unknown> {
  // Opened first: a bundle that is not there fails with its own path (bin/editwarden then takes the shared bundle).
  const fd = fs.openSync(file, 'r');
  let real: string;
  let source: string;
  let s: fs.BigIntStats;
  try {
    real = fs.realpathSync.native(file);
    s = fs.fstatSync(fd, { bigint: true });
    source = fs.readFileSync(fd, 'utf8');
  } finally {
    fs.closeSync(fd);
  }
  const id: CodeIdentity = { file: real, dev: s.dev, ino: s.ino, size: s.size, mtimeNs: s.mtimeNs, ctimeNs: s.ctimeNs, node: process.version, arch: process.arch, flags, variant };
  const dir = codeCacheDir(env);
  const cachedData = dir === null ? undefined : readEntry(dir, id);
  const script = new vm.Script(wrap(source), {
    filename: real,
    ...(cachedData === undefined ? {} : { cachedData }),
    importModuleDynamically: vm.constants.USE_MAIN_CONTEXT_DEFAULT_LOADER,
  });
  if (dir !== null && (cachedData === undefined || script.cachedDataRejected === true)) {
    // At exit: the code then holds every function this run compiled (the command's own path), not only the top level.
    process.once('exit', () => writeEntry(dir, id, script.createCachedData()));
  }
  const module = { exports: {} as Record<string, unknown> };
  const run = script.runInThisContext() as (exports: unknown, require: NodeJS.Require, module: unknown, filename: string, dirname: string) => void;
  run.call(module.exports, module.exports, createRequire(real), module, real, path.dirname(real));
  return module.exports;
}
