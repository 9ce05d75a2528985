/**
 * The policy spelled as a macOS sandbox-exec (Seatbelt, SBPL) profile. In
 * SBPL the LAST matching rule wins, so the order here IS the policy: deny
 * everything, allow what a build needs, read everywhere, then deny the home
 * folders, re-allow the toolchains, allow writes to the root, deny writes to
 * what governs the agent, and deny the secrets last. Pure: text out.
 *
 * Weaker than bwrap (docs/sandbox.md says how): no private /tmp (the shared
 * temporary folders are writable), no pid namespace (a process that escapes
 * the process group can outlive the command), HOME is not replaced (its
 * toolchain caches are unreadable, not empty). It must never allow a write
 * outside the root, the temporary folders and `writable`.
 */
import type { SandboxPolicy } from './policy.js';

/** An SBPL string literal: backslash and double quote escaped; control characters refused by the caller's paths. */
function sbplString(text: string): string {
  return `"${text.replace(/\\/g, '\\\\').replace(/"/g, '\\"')}"`;
}

const subpath = (p: string): string => `(subpath ${sbplString(p)})`;
const literal = (p: string): string => `(literal ${sbplString(p)})`;

/** Temporary folders a macOS build writes to (shared with the user's other processes). */
const MACOS_TEMP = ['/private/tmp', '/private/var/folders'];

export function sandboxExecProfile(policy: SandboxPolicy): string {
  const lines: string[] = [
    '(version 1)',
    '(deny default)',
    // What any build needs: run programs, fork, signal its own processes, read system settings.
    '(allow process-exec process-fork)',
    '(allow signal (target same-sandbox))',
    '(allow sysctl-read)',
    '(allow mach-lookup)',
    '(allow ipc-posix-shm)',
    '(allow file-ioctl)',
    // Reads: the whole file system …
    '(allow file-read*)',
  ];
  // … but not the home folders (secrets) …
  if (policy.hidden.length > 0) lines.push(`(deny file-read* ${policy.hidden.map(subpath).join(' ')})`);
  // … except toolchains and what the config exposes; the root itself is readable and writable.
  if (policy.readable.length > 0) lines.push(`(allow file-read* ${policy.readable.map(subpath).join(' ')})`);
  lines.push(`(allow file-read* file-write* ${[policy.root, ...policy.writable, ...MACOS_TEMP].map(subpath).join(' ')})`);
  lines.push('(allow file-write* (literal "/dev/null") (literal "/dev/zero") (literal "/dev/tty") (regex #"^/dev/fd/"))');
  // .git's machinery, .editwarden/ and the config: read-only inside (a path, so a rename over one is a write to it too).
  const readOnly = [...policy.readOnly, ...(policy.absentState ? [policy.absentState] : [])];
  // Each gitdir itself (its data stays writable): it cannot be renamed away and made again. (Not run on macOS here.)
  const fixed = [...readOnly.map(subpath), ...policy.gitDirs.map(literal)];
  if (fixed.length > 0) lines.push(`(deny file-write* ${fixed.join(' ')})`);
  // Network: none unless the config turns it on. A host list needs the proxy bridge of the Linux sandbox
  // (network/bridge.ts), which sandbox-exec has no namespace for: there it is no network at all (fail closed).
  lines.push(policy.networkAccess.mode === 'on' ? '(allow network*)' : '(deny network*)');
  // Sockets to agents and daemons, and the secret stores, denied last so nothing above re-opens them.
  const denied = [...policy.sockets, ...policy.secrets];
  if (policy.sockets.length > 0) lines.push(`(deny network-outbound ${policy.sockets.map((p) => `(remote unix-socket (path-literal ${sbplString(p)}))`).join(' ')})`);
  if (denied.length > 0) lines.push(`(deny file-read* file-write* ${denied.map((p) => `${subpath(p)} ${literal(p)}`).join(' ')})`);
  return `${lines.join('\n')}\n`;
}

/** The argv that runs `command` under the profile (sandbox-exec has no --chdir: the spawn's cwd is kept). */
export function sandboxExecArgs(policy: SandboxPolicy, command: readonly string[]): string[] {
  return ['-p', sandboxExecProfile(policy), '--', ...command];
}
