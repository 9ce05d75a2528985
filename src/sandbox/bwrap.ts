/**
 * The policy spelled as a bubblewrap command line. Mounts are applied in
 * order, so the order here IS the policy: the whole system read-only first,
 * then what is hidden, then what is re-exposed, then the writable root, then
 * what is read-only inside the root, then the secret masks last so nothing
 * later can uncover them. Pure: no file system, no process.
 *
 * It must never bind a path writable that the policy does not list as
 * writable, and never emit a mount after the secret masks.
 */
import type { SandboxPolicy } from './policy.js';
import type { RootOnlyEntry } from './root-only.js';
import { isWithin } from '../config/path-within.js';
import { bwrapNetworkArgs } from './network/access.js';
import { appendAll } from '../arrays.js';

/** Where the command's private temporary folder is inside the sandbox. */
export const SANDBOX_TMP = '/tmp';

/**
 * The bwrap arguments that run `command` (an argv) in `cwd` under `policy`. `rootOnly`: when editwarden runs as
 * root, the system files only root may read (root-only.ts), masked so that uid 0 inside gives nothing.
 * `proxySocket`: the filtering proxy's socket when the policy's network is a host list (network/proxy.ts).
 */
export function bwrapArgs(policy: SandboxPolicy, cwd: string, command: readonly string[], isDir: (p: string) => boolean, rootOnly: readonly RootOnlyEntry[] = [], proxySocket: string | null = null): string[] {
  const a: string[] = [
    // A command must not outlive editwarden (SIGKILL of editwarden kills the sandbox's pid 1, and with it every process inside).
    '--die-with-parent',
    // setsid(): no controlling terminal to inject keystrokes into (TIOCSTI).
    '--new-session',
    // Own pid namespace: a background `setsid nohup … &` dies with the command; no view of editwarden's /proc/<pid>/environ.
    '--unshare-pid',
    // Own System V IPC (no reading another process's shared memory).
    '--unshare-ipc',
    // A user namespace where the kernel allows one (unprivileged bwrap needs it; as root it only narrows further).
    '--unshare-user-try',
    // No capability survives inside: nobody can remount the read-only binds.
    '--cap-drop',
    'ALL',
    '--ro-bind',
    '/',
    '/',
    '--dev',
    '/dev',
    '--proc',
    '/proc',
    // Private temporary folders: nothing left for, or read from, other processes.
    // (/dev/shm is already private: --dev makes a fresh tmpfs /dev.)
    '--tmpfs',
    '/tmp',
    '--tmpfs',
    '/var/tmp',
    // Unless the network is on: no network but a private loopback (and, for a host list, the proxy's socket under the private /tmp).
    ...bwrapNetworkArgs(policy.networkAccess, proxySocket),
  ];
  // Home folders hidden: ~/.ssh, ~/.aws, ~/.config/gh … are not even readable.
  for (const h of policy.hidden) a.push('--tmpfs', h);
  // Run as root, the command would still read root's 0600/0640 files through their owner bits (/etc/shadow): masked.
  // None of them lies inside or holds an exposed path, so no later bind uncovers them.
  for (const m of rootOnly) {
    if (m.dir) a.push('--tmpfs', m.path, '--remount-ro', m.path);
    else a.push('--ro-bind', '/dev/null', m.path);
  }
  a.push('--dir', policy.home);
  // ssh-agent, keyrings, the docker socket: connect() ignores read-only mounts, so hide them.
  for (const s of policy.sockets) {
    if (isDir(s)) a.push('--tmpfs', s);
    else a.push('--ro-bind', '/dev/null', s);
  }
  for (const p of policy.readable) a.push('--ro-bind-try', p, p);
  for (const p of policy.writable) a.push('--bind-try', p, p);
  a.push('--bind', policy.root, policy.root);
  // Each .git bound on itself: git writes its data, and no command can rename the folder away and make another (git-binds.ts).
  const mayVanish = new Set(policy.mayVanish ?? []);
  for (const g of policy.gitDirs) a.push(mayVanish.has(g) ? '--bind-try' : '--bind', g, g);
  // .git's machinery, .editwarden/ and the config: what governs the agent stays out of its commands' reach.
  for (const p of policy.readOnly) a.push(mayVanish.has(p) ? '--ro-bind-try' : '--ro-bind', p, p);
  // No .editwarden/ yet: an empty read-only one, so nothing can be planted for editwarden to trust later.
  if (policy.absentState) a.push('--tmpfs', policy.absentState, '--remount-ro', policy.absentState);
  // Secrets under an exposed path (the root holds HOME, a `readable` entry holds ~/.ssh) are hidden again, last.
  const exposed = [policy.root, ...policy.readable, ...policy.writable];
  for (const s of policy.secrets) {
    if (!exposed.some((e) => isWithin(s, e) || isWithin(e, s))) continue;
    if (isDir(s)) a.push('--tmpfs', s);
    else a.push('--ro-bind', '/dev/null', s);
  }
  appendAll(a, ['--chdir', cwd, '--', ...command]);
  return a;
}
