/**
 * Which sandbox commands run in on this machine: bubblewrap on Linux (found
 * at a system location and proven to start), sandbox-exec on macOS, else
 * none — with what to do about it. `EDITWARDEN_BWRAP` names the bwrap
 * program to use (tests point it at a missing or failing program to see the
 * "no sandbox" behaviour with a real binary).
 *
 * It must never trust a bwrap found through PATH: `npx editwarden` puts the
 * project's own node_modules/.bin first, and a hostile repository could ship
 * a "bwrap" that runs the command unconfined.
 */
import fs from 'node:fs';
import { childProcess } from '../builtins.js';

/** 'outer': no sandbox of editwarden's own, the one editwarden runs inside proved to confine writes (outer.ts). */
export type SandboxKind = 'bwrap' | 'sandbox-exec' | 'outer' | 'none';

export interface SandboxInfo {
  kind: SandboxKind;
  /** What was found (program and version, or why there is none). */
  detail: string;
  /** How to get a sandbox, when there is none. */
  fix?: string;
  /** The program that runs the sandbox (absent for 'none'). */
  program?: string;
}

export interface DetectOptions {
  /** Default: process.platform. */
  platform?: NodeJS.Platform;
  /** Default: process.env (only EDITWARDEN_BWRAP is read). */
  env?: NodeJS.ProcessEnv;
}

/** System locations only (see the module comment). */
const BWRAP_LOCATIONS = ['/usr/bin/bwrap', '/usr/local/bin/bwrap', '/bin/bwrap'];
const SANDBOX_EXEC = '/usr/bin/sandbox-exec';

const INSTALL_FIX = 'Install bubblewrap (Debian/Ubuntu: apt-get install bubblewrap; Fedora: dnf install bubblewrap; Arch: pacman -S bubblewrap).';
const USERNS_FIX =
  'bubblewrap needs unprivileged user namespaces: sysctl -w kernel.unprivileged_userns_clone=1 (Debian), or kernel.apparmor_restrict_unprivileged_userns=0 (Ubuntu 24.04+); in a container, allow them (docker run --security-opt seccomp=unconfined, or use the host).';

/**
 * A probe costs one bwrap start and a `--version` (~10 ms). Its answer is kept for as long as what it depends on
 * is the same: the program file (its inode, size and change time: an upgrade or a replaced binary is probed again)
 * and the kernel's switches for unprivileged user namespaces. A long-lived process (the warm hook server) asks on
 * every command.
 */
const probed = new Map<string, { key: string; info: SandboxInfo }>();

const USERNS_SWITCHES = ['/proc/sys/kernel/unprivileged_userns_clone', '/proc/sys/user/max_user_namespaces', '/proc/sys/kernel/apparmor_restrict_unprivileged_userns'];

/** What a probe's answer depends on, as it stands now. */
function probeKey(program: string): string {
  const parts: string[] = [];
  try {
    const s = fs.statSync(program);
    parts.push(`${s.dev}:${s.ino}:${s.size}:${s.mtimeMs}:${s.ctimeMs}`);
  } catch {
    parts.push('missing');
  }
  for (const file of USERNS_SWITCHES) {
    try {
      parts.push(fs.readFileSync(file, 'utf8').trim());
    } catch {
      parts.push('-');
    }
  }
  return parts.join('\n');
}

function executable(p: string): boolean {
  try {
    fs.accessSync(p, fs.constants.X_OK);
    return fs.statSync(p).isFile();
  } catch {
    return false;
  }
}

/** Starts the exact namespace set commands use, running `true`: a bwrap that cannot do that cannot sandbox. */
function probeBwrap(program: string): SandboxInfo {
  const { spawnSync } = childProcess();
  const r = spawnSync(
    program,
    ['--die-with-parent', '--new-session', '--unshare-pid', '--unshare-ipc', '--unshare-net', '--unshare-user-try', '--cap-drop', 'ALL', '--ro-bind', '/', '/', '--dev', '/dev', '--proc', '/proc', '--tmpfs', '/tmp', '--', '/bin/true'],
    { encoding: 'utf8', timeout: 10_000, env: { PATH: '/usr/bin:/bin' }, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  if (r.status === 0) {
    const version = spawnSync(program, ['--version'], { encoding: 'utf8', timeout: 5000 }).stdout?.trim() || 'bubblewrap';
    return { kind: 'bwrap', detail: `${version} (${program})`, program };
  }
  const why = r.error ? r.error.message : (r.stderr || '').trim().split('\n')[0] || `exit code ${r.status ?? r.signal}`;
  return { kind: 'none', detail: `${program} cannot start a sandbox here: ${why}`, fix: USERNS_FIX };
}

export function detectSandbox(options: DetectOptions = {}): SandboxInfo {
  const platform = options.platform ?? process.platform;
  const env = options.env ?? process.env;
  if (platform === 'darwin') {
    if (executable(SANDBOX_EXEC)) return { kind: 'sandbox-exec', detail: `sandbox-exec (${SANDBOX_EXEC})`, program: SANDBOX_EXEC };
    return { kind: 'none', detail: `${SANDBOX_EXEC} is missing`, fix: 'sandbox-exec ships with macOS; check that /usr/bin is intact.' };
  }
  if (platform !== 'linux') {
    return { kind: 'none', detail: `no sandbox for ${platform}`, fix: 'Run editwarden on Linux (bubblewrap) or macOS (sandbox-exec) to sandbox commands.' };
  }
  const override = env.EDITWARDEN_BWRAP;
  const program = override !== undefined && override !== '' ? override : BWRAP_LOCATIONS.find(executable);
  if (program === undefined) return { kind: 'none', detail: 'bubblewrap (bwrap) is not installed', fix: INSTALL_FIX };
  if (!executable(program)) return { kind: 'none', detail: `${program} (EDITWARDEN_BWRAP) is not an executable file`, fix: INSTALL_FIX };
  const key = probeKey(program);
  const known = probed.get(program);
  if (known?.key === key) return known.info;
  const info = probeBwrap(program);
  probed.set(program, { key, info });
  return info;
}
