/**
 * `editwarden init <client> [--root DIR] [--dry-run]`: wires editwarden
 * into Claude Code, Codex, Gemini CLI or Cursor (hooks on the client's own
 * edit tools, MCP registration). Thin: the settings are computed in
 * integrations/; this prints the diff or writes it.
 */
import path from 'node:path';
import type { Command } from 'commander';
import { EditwardenError, ErrorCode, toErrorInfo, ExitCode } from '../../errors.js';
import { CLIENTS } from '../../integrations/index.js';
import { applyInit, diffOf, planInit, portableConfigPath } from '../../integrations/init.js';
import { launcherBundle } from '../../integrations/client.js';
import { guardOnPath, recordGuard } from '../../integrations/guard-install.js';
import { projectLimitsLines } from '../../integrations/limits-summary.js';
import { networkOfferLines } from '../../integrations/network-offer.js';
import { paintDiff, useColor, writeJson, type Io, refuseCommand } from '../output.js';
import { defined } from '../../defined.js';
import { appendAll } from '../../arrays.js';

export function registerInit(program: Command, io: Io, setExit: (code: number) => void): void {
  program
    .command('init')
    .description(`Protect the agent you use: hooks on its own edit tools and the editwarden MCP server (${Object.keys(CLIENTS).join(', ')}).`)
    .argument('<client>', Object.keys(CLIENTS).join(' | '))
    .option('--root <dir>', 'project folder (default: current folder)')
    .option('--config <file>', 'the config file editwarden reads for this project (default: <root>/.editwarden.yml): the hooks and the MCP server load it and protect it')
    .option('--dry-run', 'print the diff of the settings; write nothing')
    .option('--remove', 'take out exactly what init added (every other setting stays)')
    .option('--json', 'print JSON')
    .action((name: string, flags: { root?: string; config?: string; dryRun?: boolean; json?: boolean; remove?: boolean }) => {
      try {
        const client = CLIENTS[name];
        if (!client) throw new EditwardenError({ code: ErrorCode.USAGE, message: `Unknown client ${JSON.stringify(name)}.`, hint: `Use one of: ${Object.keys(CLIENTS).join(', ')}.` });
        const root = path.resolve(flags.root ?? process.cwd());
        const setup = flags.config !== undefined && !flags.remove ? { configFile: portableConfigPath(root, flags.config) } : {};
        const changes = planInit(client, root, flags.remove ? 'remove' : 'add', setup);
        const switches = changes.flatMap((c) => c.switchesRemoved);
        if (!flags.dryRun) applyInit(changes, flags.remove ? 'remove' : 'add');
        // The person's word on the project-local editwarden as it is now: the hooks run it only while it still matches.
        const guard = flags.dryRun || flags.remove ? null : recordGuard(root, launcherBundle());
        if (flags.json) {
          writeJson(io, {
            ok: true,
            client: name,
            root,
            dry_run: flags.dryRun === true,
            removed: flags.remove === true,
            hook_switches_removed: switches,
            ...defined({ guard: guard === null ? undefined : { parts: guard.parts, digest: guard.digest } }),
            files: changes.map((c) => ({ path: c.relative, changed: c.changed, ...defined({ diff: flags.dryRun && c.changed ? diffOf(c) : undefined }) })),
            // What applies in this project by mode and where to change it (the same lines the text output prints).
            ...defined({ limits: flags.remove ? undefined : projectLimitsLines(root, name, flags.config === undefined ? undefined : path.resolve(root, flags.config)) }),
          });
        } else {
          const color = useColor(io);
          const out: string[] = [];
          for (const c of changes) {
            if (!c.changed) out.push(`unchanged ${c.relative}`);
            else if (flags.dryRun) out.push(paintDiff(color, diffOf(c).trimEnd()));
            else out.push(`${c.before === null ? 'created' : c.after === null ? 'removed' : 'updated'} ${c.relative}`);
          }
          for (const s of switches) out.push(`took out ${s}: it turned every hook off, editwarden's included`);
          if (guard !== null) out.push(guardRecorded(guard.parts[0] as string, guard.digest));
          // `npx editwarden init` from npm's cache installs nothing the hooks may run (docs/integrations.md, "Which editwarden runs").
          else if (!flags.dryRun && !flags.remove && !guardOnPath(root)) out.push(NO_GUARD_NOTE);
          if (flags.dryRun) out.push('dry run: nothing was written.');
          if (flags.remove) out.push('', `editwarden no longer guards ${name} in this project: its hooks and MCP entry are gone; every other setting is as it was.`);
          else
            appendAll(out, [
              '',
              client.coverage,
              '',
              // Trust the person gives in the client itself (Codex: the project and its hooks): without it the hooks do not run.
              ...personTrustLines(client, root),
              // What applies in this project and where to change it (the hooks enforce exactly this).
              ...projectLimitsLines(root, name, flags.config === undefined ? undefined : path.resolve(root, flags.config)),
              // The network stays off; the line that would allow the project's registry, for the person to copy.
              ...networkOfferLines(root, flags.config === undefined ? undefined : path.resolve(root, flags.config)),
              '',
              'Undo the last change with: editwarden undo (a whole session: editwarden undo --session last)',
              `Take this out again with: editwarden init ${name} --remove`,
            ]);
          io.stdout.write(`${out.join('\n')}\n`);
        }
        setExit(ExitCode.OK);
      } catch (error) {
        const info = toErrorInfo(error);
        setExit(refuseCommand(info, flags.json === true, io));
      }
    });
}

function personTrustLines(client: { hookTrust?: (root: string) => { ok: boolean; fix?: string } }, root: string): string[] {
  const t = client.hookTrust?.(root);
  return t === undefined || t.ok || t.fix === undefined ? [] : [`next step (yours, in the client): ${t.fix}`, ''];
}

/** What init and `trust --guard` say after recording the project-local install. */
export function guardRecorded(pkg: string, digest: string): string {
  return `recorded the project-local editwarden (${pkg}, sha256 ${digest.slice(0, 16)}…) outside the repository: the hooks, the guarded shell and the MCP server run it only while it matches (re-record after an update: npx editwarden trust --guard)`;
}

const NO_GUARD_NOTE =
  "note: no editwarden the hooks may run was found on this machine (none on PATH outside the project, no node_modules/editwarden): until one is installed, every guarded tool call is blocked (E_GUARD_UNAVAILABLE). Install it globally (npm install -g editwarden), or as a devDependency (npm install -D editwarden, then npx editwarden trust --guard). An `npx editwarden` run from npm's cache is not an install the hooks use.";
