/**
 * `editwarden init <client>`: the settings changes that wire editwarden into
 * a client, computed as (file, before, after) so a dry run can show the
 * diff and a real run writes only what differs. Merging keeps every key it
 * does not own; editwarden's own entries are replaced in place, so a second
 * run changes nothing; `--remove` takes out exactly those entries. Switches
 * a repository ships to turn hooks off (`disableAllHooks`, Gemini's
 * `hooksConfig`) are taken out and named, so "Covered" is never printed
 * over a guard that will not run. It writes only the client's settings
 * files, never a project file, and never through a symbolic link; what it
 * found in each file it changed is kept in the person's own data folder, so
 * `--remove` can give back the person's bytes (init-record.ts).
 */
import fs from 'node:fs';
import path from 'node:path';
import { isDeepStrictEqual } from 'node:util';
import { createTwoFilesPatch } from 'diff';
import { parse as parseToml } from 'smol-toml';
import { EditwardenError, ErrorCode } from '../errors.js';
import { atomicWriteFile } from '../workspace/atomic.js';
import { isWithin } from '../config/path-within.js';
import { NotASmallFile, readSmallFile } from '../small-file.js';
import type { ClientIntegration, InitSetup } from './client.js';
import { forgetInit, noteInit, recordedBefore } from './init-record.js';
import { appendAll } from '../arrays.js';

export interface SettingsChange {
  path: string;
  /** Relative to the root, for messages. */
  relative: string;
  before: string | null;
  /** null: the file is (or stays) absent. */
  after: string | null;
  changed: boolean;
  /** Switches that turned the hooks off in `before`, taken out in `after` (init) — or still there (remove leaves them). */
  switchesRemoved: string[];
  /** `before` held nothing of editwarden's (init): what --remove may give back byte for byte. */
  pristine: boolean;
}

/** Whether two settings texts hold the same value (JSON, or TOML for a `.toml` file); null is the absent file. */
function sameValue(a: string | null, b: string | null, relative: string): boolean {
  if (a === null || b === null) return a === b;
  try {
    const read = (t: string): unknown => (relative.endsWith('.toml') ? parseToml(t) : t.trim() === '' ? {} : JSON.parse(t));
    return isDeepStrictEqual(read(a), read(b));
  } catch {
    return a === b;
  }
}

export type InitMode = 'add' | 'remove';

/** Largest settings file read (a client's settings are a few KiB). */
const MAX_SETTINGS_BYTES = 4 * 1024 * 1024;

/** A client settings file's text: a regular file only, never through a link, never waited on (small-file.ts). */
function readSettings(file: string): string {
  return readSmallFile(file, { maxBytes: MAX_SETTINGS_BYTES, follow: false }).toString('utf8');
}

/** The refusal of a settings file that is no file to read (a FIFO, a device): init leaves it as it is. */
function notSettings(relative: string, error: NotASmallFile): EditwardenError {
  return new EditwardenError({
    code: ErrorCode.NOT_REGULAR,
    message: `${relative} ${error.reason}; editwarden init reads and writes settings only in regular files, so nothing was changed.`,
    hint: `Look at what ${relative} is. If it should be this project's settings, replace it with a regular file (or remove it) and run editwarden init again.`,
    path: relative,
  });
}

export function planInit(client: ClientIntegration, root: string, mode: InitMode = 'add', setup: InitSetup = {}): SettingsChange[] {
  const files = client.configFiles(root, setup).map((file) => {
    const relative = path.relative(root, file.path).split(path.sep).join('/');
    refuseSymlinks(root, relative);
    let before: string | null = null;
    try {
      before = readSettings(file.path);
    } catch (error) {
      if (error instanceof NotASmallFile) throw notSettings(relative, error);
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
    }
    return { file, relative, before };
  });
  const sibling = (relative: string): string | null => files.find((f) => f.relative === relative)?.before ?? null;
  return files.map(({ file, relative, before }) => {
    // Where editwarden's entries were the only change since init, the person's own bytes go back (init-record.ts).
    const recorded = mode === 'remove' ? recordedBefore(file.path, before) : null;
    const computed = mode === 'add' ? file.render(before) : recorded ? recorded.before : file.remove(before, sibling);
    // The same settings value: the person's bytes stay as they are (nothing of editwarden's to add or take out).
    const after = recorded === null && sameValue(before, computed, relative) ? before : computed;
    // A file that held nothing of editwarden's before this init can be given back byte for byte by --remove.
    const pristine = mode === 'add' && (before === null || sameValue(before, file.remove(before, sibling), relative));
    const switchesRemoved = mode === 'add' ? file.switches(before).filter((s) => !file.switches(after).includes(s)) : [];
    return { path: file.path, relative, before, after, changed: after !== before, switchesRemoved, pristine };
  });
}

/** What `doctor` reports of a project's settings for a client: the switches that turn its hooks (editwarden's included) off, and settings files that are no file to read. */
export interface HookSettingsReport {
  switches: string[];
  unreadable: string[];
}

export function hookSettings(client: ClientIntegration, root: string): HookSettingsReport {
  const out: string[] = [];
  const unreadable: string[] = [];
  for (const file of client.configFiles(root)) {
    let text: string | null = null;
    try {
      // Never through a planted link, never waiting on a FIFO (small-file.ts).
      text = readSettings(file.path);
    } catch (error) {
      if (error instanceof NotASmallFile) unreadable.push(`${path.relative(root, file.path)} ${error.reason}`);
      continue;
    }
    try {
      appendAll(out, file.switches(text));
    } catch {
      out.push(`${path.relative(root, file.path)}: not valid settings (the client may ignore it)`);
    }
  }
  return { switches: out, unreadable };
}

/** Characters a config path may hold in the committed hook command: no quoting needed, nothing a shell or Gemini's $VAR expansion reads. */
const PORTABLE_PATH = /^[A-Za-z0-9_@%+=:,./-]+$/;

/**
 * The `--config` file as the settings name it: relative to the root when it
 * lies inside (the settings are committed and run on other machines, from
 * the project folder), else absolute (the person's own file on this
 * machine). It must exist, and be spelled in safe characters only: the path
 * lands in a shell command line.
 */
export function portableConfigPath(root: string, file: string, cwd: string = process.cwd()): string {
  const abs = path.resolve(cwd, file);
  if (!fs.existsSync(abs)) throw new EditwardenError({ code: ErrorCode.CONFIG, message: `Config file ${file} cannot be read; nothing was changed.`, hint: 'Check the --config path (relative to the current folder).' });
  const realRoot = fs.realpathSync(root);
  const named = isWithin(abs, root) ? path.relative(root, abs) : isWithin(abs, realRoot) ? path.relative(realRoot, abs) : abs;
  const portable = named.split(path.sep).join('/');
  if (!PORTABLE_PATH.test(portable) || portable.startsWith('-')) {
    throw new EditwardenError({
      code: ErrorCode.USAGE,
      message: `The config path ${JSON.stringify(portable)} holds characters the hook command line cannot carry safely (spaces, quotes, $, …); nothing was changed.`,
      hint: 'Rename or move the config file to a path of letters, digits and . _ - / only, then run editwarden init again.',
    });
  }
  return portable;
}

export function applyInit(changes: readonly SettingsChange[], mode: InitMode = 'add'): void {
  for (const c of changes) {
    if (mode === 'remove') forgetInit(c.path);
    if (!c.changed) continue;
    if (c.after === null) {
      fs.rmSync(c.path, { force: true });
      continue;
    }
    fs.mkdirSync(path.dirname(c.path), { recursive: true });
    atomicWriteFile(c.path, Buffer.from(c.after), { mode: 0o644 });
    // A switch init took out (disableAllHooks …) is never put back, so such a file is not restored from a record.
    if (mode === 'add') noteInit(c.path, c.before, c.after, c.pristine && c.switchesRemoved.length === 0);
  }
}

export function diffOf(c: SettingsChange): string {
  return createTwoFilesPatch(c.before === null ? '/dev/null' : `a/${c.relative}`, c.after === null ? '/dev/null' : `b/${c.relative}`, c.before ?? '', c.after ?? '', '', '', { context: 3 });
}

/**
 * Attack: a repository ships `.mcp.json` or `.claude/` as a symbolic link to
 * a file elsewhere; followed, init would copy that file's contents (secrets)
 * into the project or rewrite settings outside it. Every component from the
 * root down to the settings file must be a real folder or file.
 */
function refuseSymlinks(root: string, relative: string): void {
  let at = root;
  for (const part of relative.split('/')) {
    at = path.join(at, part);
    let st: fs.Stats;
    try {
      st = fs.lstatSync(at);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return;
      throw error;
    }
    if (st.isSymbolicLink()) {
      const shown = path.relative(root, at).split(path.sep).join('/');
      throw new EditwardenError({
        code: ErrorCode.SETTINGS_SYMLINK,
        message: `${shown} is a symbolic link (to ${fs.readlinkSync(at)}); editwarden init does not follow it, so nothing was changed.`,
        hint: `Look at where it points. If it should be a settings file of this project, replace the link with a real file or folder and run editwarden init again.`,
        path: shown,
      });
    }
  }
}
