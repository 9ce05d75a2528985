/**
 * How one command is started: the program, its arguments and its
 * environment, wrapped in the sandbox the machine has (bwrap, sandbox-exec)
 * or bare when there is none — and which of those it was, for the record.
 * The runner (src/verify/runner.ts) is its only caller, so every command
 * editwarden runs goes through here.
 *
 * It must never start a command with editwarden's own environment: the
 * allowlist (env.ts) applies in every case, sandbox or not.
 */
import fs from 'node:fs';
import { bwrapArgs, SANDBOX_TMP } from './bwrap.js';
import { detectSandbox, type SandboxInfo, type SandboxKind } from './detect.js';
import { detectOuterSandbox } from './outer.js';
import { commandEnv } from './env.js';
import type { SandboxPolicy } from './policy.js';
import { rootOnlyMasks } from './root-only.js';
import { sandboxExecArgs } from './sbpl.js';
import { traceFlags, witnessProgram } from './witness.js';
import { bridgedCommand, proxyEnv } from './network/bridge.js';

/** What the runner is told: a policy to enforce, or 'none' (no sandbox; the environment allowlist still applies). */
export type CommandSandbox = SandboxPolicy | 'none';

export interface SpawnSpec {
  file: string;
  args: string[];
  env: Record<string, string>;
  sandbox: SandboxKind;
}

function isDir(p: string): boolean {
  try {
    return fs.statSync(p).isDirectory();
  } catch {
    return false;
  }
}

/**
 * The spawn of `argv` in `cwd`. `callerEnv` (editwarden's own settings for
 * this command) is applied after the allowlist; undefined removes a name.
 * `proxySocket`: the running filtering proxy (network/proxy.ts) of a policy
 * whose network is a host list — the command then runs behind the bridge
 * (network/bridge.ts) with the proxy environment. Without it, such a policy
 * gives no network at all.
 */
export function sandboxedSpawn(argv: readonly string[], cwd: string, sandbox: CommandSandbox, callerEnv: Record<string, string | undefined> = {}, info: SandboxInfo = detectSandbox(), proxySocket: string | null = null): SpawnSpec {
  const [file, ...args] = argv;
  if (file === undefined) throw new TypeError('sandboxedSpawn: empty argv');
  // A plain-JS caller that forgot the policy must not get an unsandboxed command by default.
  if (sandbox === undefined || sandbox === null) throw new TypeError('runCommand: options.sandbox is required (a policy from commandSandbox(), or "none")');
  const policy = sandbox === 'none' || !sandbox.enabled ? null : sandbox;
  const envOptions = { allow: policy?.envAllow ?? [], deny: policy?.envDeny ?? [] };
  if (policy === null || info.kind === 'none' || info.program === undefined) {
    // Inside another sandbox where bubblewrap cannot start: the command runs under that one, only where it is proved to confine writes (outer.ts).
    const outer = policy !== null && info.kind === 'none' && detectOuterSandbox(policy.root, policy.networkAccess.mode === 'on').ok;
    return { file, args, env: commandEnv(process.env, { ...envOptions, set: callerEnv }), sandbox: outer ? 'outer' : 'none' };
  }
  if (info.kind === 'bwrap') {
    const proxied = policy.networkAccess.mode === 'hosts' && proxySocket !== null;
    // bwrap's own environment becomes that of the sandbox's pid 1 (readable in /proc/1/environ): it gets the filtered one.
    const env = commandEnv(process.env, { ...envOptions, set: { HOME: policy.home, TMPDIR: SANDBOX_TMP, ...(proxied ? proxyEnv() : {}), ...callerEnv } });
    // As root, uid 0 inside still owns root's files: what only root may read is masked (root-only.ts).
    const asRoot = typeof process.geteuid === 'function' && process.geteuid() === 0;
    const rootOnly = asRoot ? rootOnlyMasks([policy.root, ...policy.readable, ...policy.writable]) : [];
    const command = proxied ? bridgedCommand(argv) : argv;
    return { file: info.program, args: bwrapArgs(policy, cwd, command, isDir, rootOnly, proxied ? proxySocket : null), env, sandbox: 'bwrap' };
  }
  return { file: info.program, args: sandboxExecArgs(policy, argv), env: commandEnv(process.env, { ...envOptions, set: callerEnv }), sandbox: 'sandbox-exec' };
}

/**
 * The same spawn under the write witness (witness.ts): strace runs outside
 * the sandbox and writes `log`, a file the command cannot reach. Only a
 * sandboxed command is witnessed (an unsandboxed one could rewrite the log);
 * null when there is no sandbox or no usable strace.
 */
export function witnessedSpawn(spec: SpawnSpec, log: string, program: string | null = witnessProgram()): SpawnSpec | null {
  // Under an outer sandbox the log's folder (/tmp) is in the command's reach: no witness.
  if (spec.sandbox === 'none' || spec.sandbox === 'outer' || program === null) return null;
  return { ...spec, file: program, args: [...traceFlags(log), '--', spec.file, ...spec.args] };
}
