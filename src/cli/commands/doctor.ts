/**
 * `editwarden doctor`: checks what editwarden needs on this machine and in
 * this project, and for each problem says how to fix it. The checks are a
 * plain list of `{ name, run }`, so a new one is one more entry.
 *
 * Must never: change anything (no state folder created, no lock taken, no
 * recovery run) — a doctor that writes could hide the problem it looks for.
 */
import { describeNetwork, type NetworkSetting } from '../../config/network-setting.js';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Command } from 'commander';
import { CONFIG_FILE } from '../../config/config.js';
import { configuredKeys } from '../../config/configured.js';
import { limitsLines } from '../../integrations/limits-summary.js';
import { DEFAULT_CONFIG } from '../../config/defaults.js';
import { type ConfigInspection, inspectConfig, loadConfig } from '../../config/load.js';
import { trustRefusal } from '../../config/trust-state.js';
import { EditwardenError, ErrorCode, toErrorInfo, ExitCode, type ErrorInfo } from '../../errors.js';
import { Policy } from '../../workspace/policy.js';
import { Resolver } from '../../workspace/resolver.js';
import { JOURNAL_DIR } from '../../workspace/journal.js';
import { LOCK_FILE, isGone, readLockOwner } from '../../workspace/lock.js';
import { paint, refuseCommand, useColor, writeJson, type Io } from '../output.js';
import { STATE_DIR } from '../../config/protected-set.js';
import { greatestOf } from '../../arrays.js';

export interface CheckResult {
  ok: boolean;
  detail: string;
  /** What to do about it; present whenever `ok` is false, and as advice when something works but should change. */
  fix?: string;
}

export interface DoctorCheck {
  name: string;
  run(): Promise<CheckResult>;
}

interface DoctorFlags {
  root?: string;
  config?: string;
  only?: string;
  json?: boolean;
}

export interface DoctorContext {
  root: string;
  configFile?: string;
  /** The Node version to judge (default: this process's). */
  nodeVersion?: string;
}

/** Node major versions with upstream support that editwarden is tested on. */
export const SUPPORTED_NODE_MAJORS = [22, 24] as const;

/** The package's own manifest (shipped with the package). */
function packageManifest(): { engines?: { node?: string } } {
  const file = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../../package.json');
  return JSON.parse(fs.readFileSync(file, 'utf8')) as { engines?: { node?: string } };
}

/** `major.minor.patch` of a version string such as `v22.11.0` or `>=20.12`. */
function versionOf(text: string): [number, number, number] {
  const m = text.match(/(\d+)(?:\.(\d+))?(?:\.(\d+))?/);
  return [Number(m?.[1] ?? 0), Number(m?.[2] ?? 0), Number(m?.[3] ?? 0)];
}

function atLeast(a: readonly number[], b: readonly number[]): boolean {
  for (let i = 0; i < 3; i++) if ((a[i] ?? 0) !== (b[i] ?? 0)) return (a[i] ?? 0) > (b[i] ?? 0);
  return true;
}

export function nodeCheck(version: string, engines: string): CheckResult {
  const have = versionOf(version);
  const floor = versionOf(engines);
  const supported = SUPPORTED_NODE_MAJORS.map((m) => String(m)).join(' or ');
  if (!atLeast(have, floor)) {
    return { ok: false, detail: `Node ${version} is older than the ${engines} editwarden needs.`, fix: `Install Node ${supported} (nodejs.org, or your version manager: \`nvm install 24\`).` };
  }
  if (!(SUPPORTED_NODE_MAJORS as readonly number[]).includes(have[0]) && have[0] < greatestOf(SUPPORTED_NODE_MAJORS)) {
    return {
      ok: true,
      detail: `Node ${version} runs editwarden, but Node ${have[0]} is past its end of life and no longer supported.`,
      fix: `Move to Node ${supported}.`,
    };
  }
  return { ok: true, detail: `Node ${version} (supported: ${supported}).` };
}

/** What a command opening this project would judge: the config, and the project's Policy carrying its trust state (built read-only: no state folder, no recovery). */
export type JudgedProject = { root: string; inspection: ConfigInspection; policy: Policy } | { error: ErrorInfo };

/** The config judged once, and the Policy a command would open the project with (its `trust` is what the trust check prints). */
export function judgeProject(context: Pick<DoctorContext, 'root' | 'configFile'>): JudgedProject {
  try {
    const inspection = inspectConfig(context.root, context.configFile);
    const root = fs.realpathSync(context.root);
    const policy = new Policy(root, new Resolver(root), {
      gitWritable: inspection.config.sandbox.git_writable,
      trust: inspection.trust,
      ...(context.configFile ? { configFiles: [path.resolve(context.configFile)] } : {}),
    });
    return { root: context.root, inspection, policy };
  } catch (error) {
    return { error: toErrorInfo(error) };
  }
}

export function doctorChecks(context: DoctorContext): DoctorCheck[] {
  const stateDir = path.join(context.root, STATE_DIR);
  // Judged once for every check that reads it (config, trust), as a command judges it once when it opens the project.
  let judged: JudgedProject | null = null;
  const project = (): JudgedProject => {
    judged ??= judgeProject(context);
    return judged;
  };
  return [
    {
      name: 'node',
      run: async () => nodeCheck(context.nodeVersion ?? process.version, packageManifest().engines?.node ?? '>=0'),
    },
    {
      name: 'git',
      run: async () => {
        const git = spawnSync('git', ['--version'], { encoding: 'utf8' });
        if (git.error || git.status !== 0) {
          return {
            ok: false,
            detail: 'git was not found on PATH.',
            fix: 'Install git (`apt-get install git`, `brew install git`, git-scm.com): integrations and the tests of your project use it.',
          };
        }
        return { ok: true, detail: git.stdout.trim() };
      },
    },
    {
      name: 'grammars',
      run: async () => {
        const { LANGUAGES } = await import('../../ast/languages/index.js');
        const { grammarsThatDoNotLoad } = await import('../../ast/grammars.js');
        const grammars = [...new Set(LANGUAGES.map((l) => l.grammar))];
        const failed = await grammarsThatDoNotLoad(grammars);
        if (failed.length > 0) {
          return {
            ok: false,
            detail: `${failed.length} of ${grammars.length} tree-sitter grammars did not load: ${failed.join(', ')}.`,
            fix: 'Reinstall editwarden (`npm ci` in a clone, or reinstall the package) so that tree-sitter-wasms and web-tree-sitter are complete; until then AST paths and the syntax guard are off for those languages.',
          };
        }
        return { ok: true, detail: `${grammars.length} tree-sitter grammars load.` };
      },
    },
    {
      name: 'config',
      run: async () => {
        const file = context.configFile ?? path.join(context.root, CONFIG_FILE);
        if (!context.configFile && !fs.existsSync(file)) return { ok: true, detail: `No ${CONFIG_FILE}: the defaults apply.` };
        const judgedNow = project();
        if ('error' in judgedNow) return { ok: false, detail: judgedNow.error.message, fix: judgedNow.error.hint };
        return { ok: true, detail: `${path.relative(context.root, file) || file} is valid.` };
      },
    },
    {
      name: 'trust',
      run: async () => trustCheck(project()),
    },
    {
      name: 'limits',
      run: async () => limitsCheck(project()),
    },
    {
      name: 'state folder',
      run: async () => stateFolderCheck(stateDir),
    },
    {
      name: 'sandbox',
      run: async () => {
        const { detectSandbox } = await import('../../sandbox/index.js');
        const info = detectSandbox();
        if (info.kind === 'none') {
          return {
            ok: false,
            detail: `No OS sandbox: ${info.detail}. Commands would run with your full rights, and headless runs refuse execute_command.`,
            fix: info.fix ?? 'Install bubblewrap (Debian/Ubuntu: apt-get install bubblewrap).',
          };
        }
        return { ok: true, detail: `Commands run in ${info.kind}: ${info.detail}. ${networkLine(context)}` };
      },
    },
    {
      name: 'client hooks',
      run: async () => {
        const { CLIENTS } = await import('../../integrations/index.js');
        const { hookSettings } = await import('../../integrations/init.js');
        const reports = Object.values(CLIENTS).map((client) => hookSettings(client, context.root));
        const found = reports.flatMap((r) => r.switches);
        const unreadable = [...new Set(reports.flatMap((r) => r.unreadable))];
        if (unreadable.length > 0) {
          return {
            ok: false,
            detail: `A client settings file is no file to read: ${unreadable.join('; ')}. The client cannot load its settings (editwarden's hooks included) from it.${found.length > 0 ? ` Also: ${found.join('; ')}.` : ''}`,
            fix: 'Replace it with a regular file (or remove it), then run editwarden init <client>.',
          };
        }
        if (found.length === 0) return { ok: true, detail: "No project setting turns the clients' hooks off." };
        return {
          ok: false,
          detail: `A project setting turns the clients' hooks (editwarden's guard) off: ${found.join('; ')}.`,
          fix: 'Run editwarden init <client> again (it takes the switch out), or remove it by hand.',
        };
      },
    },
    {
      // Copilot CLI runs a repository's hooks only in a folder the person trusted: settings that look right may guard nothing.
      name: 'copilot folder trust',
      run: async () => (await import('../../integrations/copilot-trust.js')).copilotTrustCheck(context.root),
    },
    {
      // Codex loads a project's hooks only in a project the person trusted, and runs each only once the person trusted it.
      name: 'client hook trust',
      run: async () => {
        const { CLIENTS } = await import('../../integrations/index.js');
        const found = Object.values(CLIENTS).flatMap((c) => (c.hookTrust ? [{ name: c.name, ...c.hookTrust(context.root) }] : []));
        const bad = found.filter((f) => !f.ok);
        if (bad.length === 0) return { ok: true, detail: found.map((f) => `${f.name}: ${f.detail}`).join(' ') };
        return {
          ok: false,
          detail: bad.map((f) => `${f.name}: ${f.detail}`).join(' '),
          fix: bad
            .map((f) => f.fix)
            .filter((x) => x !== undefined)
            .join(' '),
        };
      },
    },
    { name: 'guard install', run: async () => guardCheck(context.root) },
  ];
}

/** Which editwarden the committed hooks would run here (docs/integrations.md, "Which editwarden runs"), and whether it may run. */
async function guardCheck(root: string): Promise<CheckResult> {
  const { guardOnPath, localInstall, verifyGuard } = await import('../../integrations/guard-install.js');
  if (guardOnPath(root)) return { ok: true, detail: 'The hooks run the editwarden on PATH (it lies outside the project).' };
  const install = localInstall(root);
  if (install === null) {
    return {
      ok: true,
      detail: 'No editwarden the hooks may run on this machine: none on PATH outside the project, no node_modules/editwarden. Hooks written by editwarden init block every guarded call until one is installed.',
      fix: 'npm install -g editwarden, or npm install -D editwarden && npx editwarden trust --guard.',
    };
  }
  const verdict = verifyGuard(root);
  if (verdict.ok) return { ok: true, detail: `The hooks run the project-local editwarden (${install.parts[0]}) through your launcher; it matches what you recorded.` };
  return { ok: verdict.error.code !== 'E_GUARD_TAMPERED', detail: `${verdict.error.code}: ${verdict.error.message}`, fix: verdict.error.hint };
}

/**
 * The sandbox's network per mode, as this project's config leaves it: off
 * for headless, interactive and controlled runs unless sandbox.network is
 * on or lists hosts; on for the Editor (its specification: "Network Access —
 * Unrestricted") unless the config sets sandbox.network.
 */
export function networkLine(context: Pick<DoctorContext, 'root' | 'configFile'>): string {
  let network: NetworkSetting = DEFAULT_CONFIG.sandbox.network;
  let configured: string[] = [];
  try {
    network = loadConfig(context.root, context.configFile).sandbox.network;
    configured = configuredKeys(context.root, context.configFile);
  } catch {
    // The config check reports a config that does not load; the defaults are described here.
  }
  const setByUser = configured.includes('sandbox.network');
  const others = `Network: ${describeNetwork(network)} for headless, interactive and controlled runs`;
  const editor = setByUser
    ? `${describeNetwork(network)} for the Editor too (sandbox.network is set in the config)`
    : 'on for the Editor (run --mode editor, apply-proposal), whose specification gives it unrestricted network access; set sandbox.network: off (or a list of hosts) to narrow it';
  return `${others}; ${editor}.`;
}

/**
 * Who configures the guard: the person's own config (its path, whether it exists), and the trust state the
 * project's Policy carries (config/trust-state.ts) — the repository's file trusted, untrusted or changed since it
 * was trusted, with the loosening keys in effect or refused (the refusal is the one every command would give).
 */
export function trustCheck(judged: JudgedProject): CheckResult {
  if ('error' in judged) return { ok: true, detail: 'Not judged: the config check names what is wrong with the file.' };
  const { user } = judged.inspection;
  const trust = judged.policy.trust;
  const userLine = user.file === null ? 'Your own config: none (no HOME or XDG_CONFIG_HOME).' : `Your own config: ${user.file}${user.exists ? '' : ' (none yet)'}.`;
  if (trust.state === 'none') return { ok: true, detail: `${userLine} No repository config.` };
  const name = path.relative(judged.root, trust.file) || trust.file;
  const state = trust.state === 'own' ? 'yours (outside the repository)' : trust.state === 'changed' ? 'changed since you trusted it' : trust.state;
  // A raised bound of an untrusted file is not applied (load.ts): it is no loosening in effect.
  const ignored = judged.inspection.layers.ignored;
  const inEffect = trust.loosenings.filter((l) => !ignored.some((i) => i.key === l.key));
  const keys = inEffect.map((l) => `${l.key}: ${l.value}`).join(', ');
  const refusal = trustRefusal(trust);
  if (refusal !== null) return { ok: false, detail: `${userLine} ${name} is ${state} and loosens the guard (${keys}): every command refuses it (${refusal.code}).`, fix: refusal.hint };
  const effect = inEffect.length === 0 ? 'it only tightens the guard.' : `loosening keys in effect: ${keys}.`;
  const notApplied = ignored.length === 0 ? '' : ` Not applied until you trust it: ${ignored.map((l) => `${l.key}: ${l.value} (in force: ${l.baseline})`).join(', ')}.`;
  return { ok: true, detail: `${userLine} ${name} is ${state}; ${effect}${notApplied}` };
}

/**
 * The limits by mode (an interactive client session's caps, a headless run's), where to change them, where the
 * person's own config replaced a value of the repository's file, and a raise that is not applied.
 */
export function limitsCheck(judged: JudgedProject): CheckResult {
  if ('error' in judged) return { ok: true, detail: 'Not judged: the config check names what is wrong with the file.' };
  return { ok: true, detail: limitsLines(judged.inspection.config, judged.inspection.layers, 'client').join('\n') };
}

/** `.editwarden/`: a real, writable folder that git ignores, with no unfinished transaction or stale lock. Reads only. */
export function stateFolderCheck(stateDir: string): CheckResult {
  let stat: fs.Stats;
  try {
    stat = fs.lstatSync(stateDir);
  } catch {
    return { ok: true, detail: '.editwarden/ does not exist yet; the first command that writes creates it.' };
  }
  // A symlink here would send checkpoints and logs wherever its target points.
  if (stat.isSymbolicLink()) {
    return { ok: false, detail: '.editwarden is a symbolic link; editwarden refuses state it cannot trust.', fix: 'Remove the link (`rm .editwarden`); the next command creates a real folder.' };
  }
  if (!stat.isDirectory()) return { ok: false, detail: '.editwarden is not a folder.', fix: 'Move the file called .editwarden out of the way.' };
  try {
    fs.accessSync(stateDir, fs.constants.W_OK);
  } catch {
    return { ok: false, detail: '.editwarden/ is not writable by this user.', fix: 'Give your user write access to .editwarden/ (for example `chown -R "$USER" .editwarden`).' };
  }
  const problems: string[] = [];
  const fixes: string[] = [];
  const ignore = path.join(stateDir, '.gitignore');
  if (!fs.existsSync(ignore) || !/^\*$/m.test(fs.readFileSync(ignore, 'utf8'))) {
    problems.push('.editwarden/.gitignore is missing, so git may show editwarden state as untracked files');
    fixes.push("Write a line `*` into .editwarden/.gitignore (`echo '*' > .editwarden/.gitignore`).");
  }
  const journal = path.join(stateDir, JOURNAL_DIR);
  const pendingTx = fs.existsSync(journal) ? fs.readdirSync(journal).filter((f) => f.endsWith('.json')).length : 0;
  if (pendingTx > 0) {
    problems.push(`${pendingTx} unfinished transaction(s) from a process that stopped mid-write`);
    fixes.push('Run any editwarden command in this folder (e.g. `editwarden checkpoint list`): it rolls them back and keeps the interrupted state as a checkpoint.');
  }
  const owner = readLockOwner(path.join(stateDir, LOCK_FILE));
  if (owner === 'unreadable') {
    problems.push('.editwarden/lock cannot be read');
    fixes.push('If no editwarden process is running here, delete .editwarden/lock.');
  } else if (owner && isGone(owner)) {
    problems.push(`a lock left by process ${owner.pid}, which has ended`);
    fixes.push('Nothing to do: the next command breaks a lock whose holder is gone.');
  }
  if (problems.length > 0) return { ok: false, detail: `.editwarden/: ${problems.join('; ')}.`, fix: fixes.join(' ') };
  return { ok: true, detail: '.editwarden/ is a writable folder, ignored by git, with no unfinished transaction.' };
}

export async function runChecks(checks: readonly DoctorCheck[]): Promise<Array<CheckResult & { name: string }>> {
  const results: Array<CheckResult & { name: string }> = [];
  for (const check of checks) {
    try {
      results.push({ name: check.name, ...(await check.run()) });
    } catch (error) {
      results.push({ name: check.name, ok: false, detail: `The check itself failed: ${toErrorInfo(error).message}`, fix: 'Report this, with the output of `editwarden doctor --json`.' });
    }
  }
  return results;
}

export function registerDoctor(program: Command, io: Io, setExit: (code: number) => void): void {
  program
    .command('doctor')
    .description('Check Node, git, the tree-sitter grammars, the config and the state folder; say how to fix each problem.')
    .option('--root <dir>', 'project folder (default: current folder)')
    .option('--config <file>', 'config file (default: <root>/.editwarden.yml)')
    .option('--only <names>', 'run only these checks (comma-separated: node, git, grammars, config, "state folder")')
    .option('--json', 'print {ok, checks: [{name, ok, detail, fix?}]}')
    .action(async (flags: DoctorFlags) => {
      const context: DoctorContext = { root: path.resolve(flags.root ?? process.cwd()) };
      if (flags.config !== undefined) context.configFile = flags.config;
      let checks = doctorChecks(context);
      if (flags.only !== undefined) {
        const wanted = flags.only.split(',').map((n) => n.trim());
        const unknown = wanted.filter((n) => !checks.some((c) => c.name === n));
        if (unknown.length > 0) {
          setExit(
            refuseCommand(
              new EditwardenError({
                code: ErrorCode.USAGE,
                message: `--only names no check called ${unknown.map((n) => `"${n}"`).join(', ')}.`,
                hint: `The checks are: ${checks.map((c) => c.name).join(', ')}.`,
              }),
              flags.json === true,
              io,
            ),
          );
          return;
        }
        checks = checks.filter((c) => wanted.includes(c.name));
      }
      const results = await runChecks(checks);
      const ok = results.every((r) => r.ok);
      if (flags.json) writeJson(io, { ok, checks: results });
      else {
        const color = useColor(io);
        for (const r of results) {
          io.stdout.write(`${r.ok ? paint(color, 'green', 'ok  ') : paint(color, 'red', 'FAIL')} ${paint(color, 'bold', r.name)}: ${r.detail}\n`);
          if (r.fix) io.stdout.write(`     ${paint(color, 'dim', r.ok ? 'advice:' : 'fix:')} ${r.fix}\n`);
        }
        io.stdout.write(ok ? 'Everything editwarden needs is in place.\n' : `${results.filter((r) => !r.ok).length} problem(s) found.\n`);
      }
      setExit(ok ? ExitCode.OK : ExitCode.REJECTED);
    });
}
