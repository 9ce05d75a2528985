/**
 * The bearer token of `editwarden mcp --http`. Defends against: another
 * local user (or any local process not given the token) driving the
 * server, which edits files and runs commands with the rights of the person
 * who started it. 127.0.0.1 is open to every account on the machine, so the
 * port alone proves nothing; the token does.
 *
 * The token is 32 random bytes (hex), made fresh at every start unless the
 * person names a token file that already holds one (`--token-file`, so a
 * client's settings survive a restart). It is written with mode 0600 into a
 * folder of the person's own: `$XDG_RUNTIME_DIR/editwarden/` (a tmpfs of the
 * person's own on systemd machines), else `<tmp>/editwarden-<uid>/`, created
 * 0700 and refused when it is someone else's, a link, or writable by others
 * (a folder planted by another user could be read or the file swapped). Comparison
 * is constant-time over SHA-256 digests, so neither the length nor a prefix
 * of the token leaks through timing.
 */
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { EditwardenError, ErrorCode } from '../errors.js';

/** Shortest token accepted from a `--token-file` the person wrote: 128 bits of hex. */
const MIN_TOKEN_LENGTH = 32;

type Env = Readonly<Record<string, string | undefined>>;

function uid(): number | null {
  return typeof process.getuid === 'function' ? process.getuid() : null;
}

/** The folder for token files: `$XDG_RUNTIME_DIR/editwarden`, or `<tmp>/editwarden-<uid>`. */
function tokenDir(env: Env = process.env): string {
  const runtime = env.XDG_RUNTIME_DIR;
  if (runtime && path.isAbsolute(runtime)) return path.join(runtime, 'editwarden');
  return path.join(os.tmpdir(), `editwarden-${uid() ?? 'user'}`);
}

/**
 * Refuses a path that is someone else's or a link, a file that group or others may read or write, or a
 * folder they may write (where a token file could be swapped).
 */
function ensurePrivate(p: string, what: string): void {
  const st = fs.lstatSync(p);
  const mine = uid() === null || st.uid === uid();
  const open = st.isDirectory() ? st.mode & 0o022 : st.mode & 0o077;
  if (st.isSymbolicLink() || !mine || open !== 0) {
    throw new EditwardenError({
      code: ErrorCode.USAGE,
      message: `The ${what} ${p} is not private (it must be yours, not a link, ${st.isDirectory() ? 'and not writable by group or others' : 'and closed to group and others (mode 0600)'}).`,
      hint: `Remove it or fix it (chown to you; chmod ${st.isDirectory() ? '700' : '600'}), or name another file with --token-file. Nothing was served.`,
    });
  }
}

/** A fresh token: 32 random bytes, hex. */
export function newToken(): string {
  return randomBytes(32).toString('hex');
}

/** Where a server on `port` writes its token when no --token-file is named. */
export function defaultTokenFile(port: number, env: Env = process.env): string {
  return path.join(tokenDir(env), `mcp-${port}.token`);
}

/** Writes `token` to `file` (0600, in a private 0700 folder), under a temporary name renamed into place. */
export function writeTokenFile(file: string, token: string): void {
  const dir = path.dirname(file);
  fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
  ensurePrivate(dir, 'token folder');
  const temp = path.join(dir, `.${path.basename(file)}.${randomBytes(6).toString('hex')}.tmp`);
  fs.writeFileSync(temp, `${token}\n`, { mode: 0o600, flag: 'wx' });
  fs.renameSync(temp, file);
}

/**
 * The token a person keeps in `file` (so a client's settings survive a restart), or null when the file does
 * not exist. It must be private and hold one word of at least MIN_TOKEN_LENGTH characters.
 */
export function readTokenFile(file: string): string | null {
  if (!fs.existsSync(file)) return null;
  ensurePrivate(file, 'token file');
  const token = fs.readFileSync(file, 'utf8').trim();
  if (token.length < MIN_TOKEN_LENGTH || /\s/.test(token)) {
    throw new EditwardenError({
      code: ErrorCode.USAGE,
      message: `The token in ${file} is ${token.length < MIN_TOKEN_LENGTH ? `shorter than ${MIN_TOKEN_LENGTH} characters` : 'not one word'}: too easy to guess.`,
      hint: `Put a long random token there (e.g. \`openssl rand -hex 32 > ${file}; chmod 600 ${file}\`), or delete the file and editwarden writes one.`,
    });
  }
  return token;
}

function digest(text: string): Buffer {
  return createHash('sha256').update(text).digest();
}

/** Whether an Authorization header carries `Bearer <token>`, compared in constant time. */
export function authorized(header: string | string[] | undefined, token: string): boolean {
  const value = Array.isArray(header) ? header[0] : header;
  const m = value === undefined ? null : /^Bearer[ \t]+(\S+)[ \t]*$/i.exec(value);
  const offered = m?.[1] ?? '';
  // Digests have one length, so timingSafeEqual never throws and the offered length does not show in timing.
  return timingSafeEqual(digest(offered), digest(token)) && offered !== '';
}
