/**
 * What `doctor` says of GitHub Copilot CLI's folder trust: Copilot runs a
 * repository's hooks (`.github/hooks/*.json`, where `init copilot` puts
 * editwarden's) only in a folder the person trusted — `trusted_folders` in
 * `$COPILOT_HOME/config.json` (default `~/.copilot/config.json`), which its
 * first-start prompt writes. In a folder it does not trust, Copilot runs its
 * tools with no hook at all: the guard is off while the settings look right.
 * Hooks in the person's own `~/.copilot/settings.json` run in every folder:
 * the alternative named in the fix. Reads only; never through a link.
 */
import path from 'node:path';
import { isWithin } from '../config/path-within.js';
import { readSmallFile } from '../small-file.js';

type Env = Readonly<Record<string, string | undefined>>;

export interface CopilotTrust {
  /** The config file Copilot records trust in (null: no HOME or COPILOT_HOME). */
  file: string | null;
  /** Whether `init copilot`'s hooks are in this project. */
  hooks: boolean;
  /** Whether the project lies in a folder Copilot trusts. */
  trusted: boolean;
}

function readText(file: string): string | null {
  try {
    return readSmallFile(file, { maxBytes: 4 * 1024 * 1024, follow: false }).toString('utf8');
  } catch {
    return null;
  }
}

/** Copilot's config.json opens with `//` comment lines (seen with 1.0.102): read without them. */
function trustedFolders(text: string | null): string[] {
  if (text === null) return [];
  try {
    const data = JSON.parse(
      text
        .split('\n')
        .filter((l) => !l.trim().startsWith('//'))
        .join('\n'),
    ) as { trusted_folders?: unknown };
    return Array.isArray(data.trusted_folders) ? data.trusted_folders.filter((f): f is string => typeof f === 'string' && path.isAbsolute(f)) : [];
  } catch {
    return [];
  }
}

export function copilotTrust(root: string, env: Env = process.env): CopilotTrust {
  const home = env.COPILOT_HOME || (env.HOME ? path.join(env.HOME, '.copilot') : null);
  const file = home === null ? null : path.join(home, 'config.json');
  const ours = readText(path.join(root, '.github', 'hooks', 'editwarden.json'));
  const hooks = ours?.includes(' hook copilot ') === true;
  const trusted = file !== null && trustedFolders(readText(file)).some((folder) => isWithin(path.resolve(root), path.resolve(folder)));
  return { file, hooks, trusted };
}

/** The doctor line: nothing to say without editwarden's Copilot hooks; a finding when Copilot would not run them here. */
export function copilotTrustCheck(root: string, env: Env = process.env): { ok: boolean; detail: string; fix?: string } {
  const t = copilotTrust(root, env);
  if (!t.hooks) return { ok: true, detail: 'No editwarden hooks for Copilot CLI here (editwarden init copilot writes them).' };
  if (t.trusted) return { ok: true, detail: `Copilot CLI trusts this folder (${t.file}), so it runs editwarden's hooks in .github/hooks/editwarden.json.` };
  return {
    ok: false,
    detail: `Copilot CLI runs a repository's hooks only in a folder you trusted, and this one is not in trusted_folders of ${t.file ?? '~/.copilot/config.json'}: started here, Copilot would run its tools with no editwarden hook at all.`,
    fix: 'Start copilot here once and trust the folder when it asks (or add this folder to trusted_folders in ~/.copilot/config.json); or copy the hooks of .github/hooks/editwarden.json into the `hooks` of your own ~/.copilot/settings.json, which Copilot runs in every folder.',
  };
}
