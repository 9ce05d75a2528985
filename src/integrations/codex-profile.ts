/**
 * The Codex permission profile `init codex` writes into the project's
 * `.codex/config.toml`: Codex's own `:workspace` sandbox (writes to the
 * project, /tmp and $TMPDIR; `.git/`, `.codex/`, `.agents/` read-only; no
 * network) with the rest of editwarden's protected set read-only too —
 * `.editwarden/`, the config, every client's settings. Codex 0.171 honours
 * `default_permissions` from a trusted project's config and binds each
 * "read" entry read-only in its bubblewrap (seen: `touch .editwarden.yml`
 * → Read-only file system), so a guarded command running under Codex's
 * sandbox (sandbox/outer.ts) keeps the protected set out of reach as
 * editwarden's own sandbox does.
 *
 * A member that does not exist is bound as a read-only placeholder by
 * Codex: right for a top-level member (the agent may not create it
 * either), wrong for a nested one (`.github/hooks` missing would turn
 * `.github` into a placeholder and break `.github/workflows`), so nested
 * members are listed only when they exist. Codex ignores profiles when a
 * legacy `sandbox_mode` is in force (`-s workspace-write`, or one in any
 * loaded config): then the outer-sandbox line says which members were left
 * writable. A project that selects a profile of its own keeps it.
 */
import fs from 'node:fs';
import path from 'node:path';
import { CLIENT_SETTINGS } from '../config/client-settings.js';
import { GIT_DIR, PROJECT_INSTALL, PROTECTED_MEMBERS, STATE_DIR } from '../config/protected-set.js';

const PROFILE = 'editwarden';

type Table = Record<string, unknown>;

function exists(p: string): boolean {
  try {
    fs.lstatSync(p);
    return true;
  } catch {
    return false;
  }
}

/** Root-relative members the profile keeps read-only (Codex keeps `.git` and `.codex` so already). */
function profileMembers(root: string, configFile?: string): string[] {
  // Not the state folder: editwarden's own process runs inside the same sandbox as the command, and writes it there.
  const codexKeeps = new Set<string>([GIT_DIR, STATE_DIR, ...CLIENT_SETTINGS.codex.map((m) => m.path)]);
  const fixed = PROTECTED_MEMBERS.map((m) => m.path).filter((p) => !codexKeeps.has(p));
  const install = [PROJECT_INSTALL.bin, PROJECT_INSTALL.package, ...PROJECT_INSTALL.externals];
  const extra = configFile !== undefined && !path.isAbsolute(configFile) && !configFile.split('/').includes('..') ? [configFile] : [];
  return [...new Set([...fixed, ...install, ...extra])].filter((p) => !p.includes('/') || exists(path.join(root, p)));
}

/** Puts the profile into a parsed `.codex/config.toml` (selected unless the project selects another one). */
export function putProfile(data: Table, root: string, configFile?: string): void {
  const entries: Table = { '.': 'write' };
  for (const m of profileMembers(root, configFile)) entries[m] = 'read';
  const permissions = (typeof data.permissions === 'object' && data.permissions !== null ? data.permissions : {}) as Table;
  permissions[PROFILE] = { extends: ':workspace', filesystem: { ':project_roots': entries } };
  data.permissions = permissions;
  if (data.default_permissions === undefined) data.default_permissions = PROFILE;
}

/** Takes the profile (and its selection) out again; every other key stays. */
export function takeProfile(data: Table): void {
  if (data.default_permissions === PROFILE) delete data.default_permissions;
  const permissions = data.permissions;
  if (typeof permissions !== 'object' || permissions === null) return;
  delete (permissions as Table)[PROFILE];
  if (Object.keys(permissions).length === 0) delete data.permissions;
}
