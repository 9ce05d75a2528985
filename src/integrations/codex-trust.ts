/**
 * Whether Codex will run editwarden's hooks in a project, as `doctor` and
 * `init codex` say it. Codex (0.171) loads a project's `.codex/config.toml`
 * only for a project the person trusted (`[projects."<root>"] trust_level =
 * "trusted"` in `$CODEX_HOME/config.toml`, default `~/.codex`), and runs a
 * hook only once the person trusted it: its review in the TUI (`/hooks`)
 * records `[hooks.state."<file>:<event>:<group>:<hook>"] trusted_hash =
 * "sha256:…"` in the same user config. Without both, Codex runs its tools
 * with no editwarden hook at all — the settings look right and guard
 * nothing. `codex exec` never asks; it runs only hooks trusted so.
 *
 * What this cannot see: whether a recorded hash is still the hooks' current
 * one (Codex computes it; after `init codex` changes the hooks, Codex asks
 * again and runs them only once trusted again). Reads only; never through a
 * link; never writes the person's Codex config — trusting hooks is the
 * person's review, not editwarden's.
 */
import fs from 'node:fs';
import path from 'node:path';
import { parse } from 'smol-toml';
import { readSmallFile } from '../small-file.js';

type Env = Readonly<Record<string, string | undefined>>;
type Table = Record<string, unknown>;

/** Codex's hook events as its trust keys spell them. */
const EVENTS = [
  ['PreToolUse', 'pre_tool_use'],
  ['PostToolUse', 'post_tool_use'],
] as const;

interface CodexTrust {
  /** The user config Codex records trust in (null: no HOME or CODEX_HOME). */
  file: string | null;
  /** editwarden's entries in the project's .codex/config.toml: none at all, the MCP server without the hooks, or the hooks. */
  setup: 'none' | 'hooks missing' | 'hooks';
  /** The project (or a folder holding it) is trusted, so Codex loads its .codex/config.toml. */
  projectTrusted: boolean;
  /** editwarden's hooks with no trust record (or one turned off), by Codex's key. */
  untrusted: string[];
}

function readToml(file: string): Table | null {
  try {
    return parse(readSmallFile(file, { maxBytes: 4 * 1024 * 1024, follow: false }).toString('utf8')) as Table;
  } catch {
    return null;
  }
}

function table(v: unknown): Table {
  return typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Table) : {};
}

function within(child: string, parent: string): boolean {
  const rel = path.relative(parent, child);
  return rel === '' || (!rel.startsWith('..') && !path.isAbsolute(rel));
}

function codexTrust(root: string, env: Env = process.env): CodexTrust {
  const home = env.CODEX_HOME || (env.HOME ? path.join(env.HOME, '.codex') : null);
  const file = home === null ? null : path.join(home, 'config.toml');
  let real = root;
  try {
    real = fs.realpathSync(root);
  } catch {
    // A root that cannot be resolved is judged as spelled.
  }
  const projectFile = path.join(real, '.codex', 'config.toml');
  const project = readToml(projectFile);
  const hooks = table(project?.hooks);
  // Codex's key of each of editwarden's hooks: `<file>:<event>:<group index>:<hook index>`.
  const ours: string[] = [];
  for (const [event, key] of EVENTS) {
    const groups = hooks[event];
    if (!Array.isArray(groups)) continue;
    groups.forEach((group, i) => {
      const list = table(group).hooks;
      if (!Array.isArray(list)) return;
      list.forEach((hook, j) => {
        const command = table(hook).command;
        if (typeof command === 'string' && command.includes(' hook codex ')) ours.push(`${projectFile}:${key}:${i}:${j}`);
      });
    });
  }
  const server = table(project?.mcp_servers).editwarden !== undefined;
  const setup = ours.length > 0 ? 'hooks' : server ? 'hooks missing' : 'none';
  const user = file === null ? null : readToml(file);
  const projects = table(user?.projects);
  const projectTrusted = Object.entries(projects).some(([folder, v]) => path.isAbsolute(folder) && table(v).trust_level === 'trusted' && within(real, path.resolve(folder)));
  const state = table(table(user?.hooks).state);
  const untrusted = ours.filter((key) => {
    const s = table(state[key]);
    return typeof s.trusted_hash !== 'string' || !s.trusted_hash.startsWith('sha256:') || s.enabled === false;
  });
  return { file, setup, projectTrusted, untrusted };
}

/** The one step a person takes so Codex runs editwarden's hooks here. */
function codexTrustStep(root: string): string {
  return `Start codex in ${root} once: trust the project when it asks, then type /hooks and trust editwarden's PreToolUse and PostToolUse hooks (Codex records both in ~/.codex/config.toml). Until then Codex runs its tools with no editwarden hook, and \`codex exec\` runs none.`;
}

/** The doctor line (and what init says after writing the hooks). */
export function codexTrustCheck(root: string, env: Env = process.env): { ok: boolean; detail: string; fix?: string } {
  const t = codexTrust(root, env);
  const where = t.file ?? '~/.codex/config.toml';
  if (t.setup === 'none') return { ok: true, detail: 'No editwarden setup for Codex here (editwarden init codex writes it).' };
  if (t.setup === 'hooks missing') {
    return {
      ok: false,
      detail: ".codex/config.toml registers editwarden's MCP server but holds none of its hooks: Codex's apply_patch and shell would run unguarded.",
      fix: 'Run editwarden init codex again.',
    };
  }
  if (!t.projectTrusted) {
    return { ok: false, detail: `Codex does not trust this project (no trust_level = "trusted" for it in ${where}): it does not load .codex/config.toml, so none of editwarden's hooks run.`, fix: codexTrustStep(root) };
  }
  if (t.untrusted.length > 0) {
    return {
      ok: false,
      detail: `Codex has no trust record for ${t.untrusted.length} of editwarden's hooks in ${where} (${t.untrusted.map((k) => k.split(':').slice(-3).join(':')).join(', ')}): it runs only hooks a person trusted, so those do not run.`,
      fix: codexTrustStep(root),
    };
  }
  return { ok: true, detail: `Codex trusts this project and editwarden's hooks (${where}); if the hooks change (init codex again), Codex asks in /hooks before it runs them again.` };
}
