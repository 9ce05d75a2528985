/**
 * The sandbox of a workspace: its policy from the root, the state folder and
 * the config, the kind that will be in force, and the refusal a headless run
 * gets when that kind is "none". Callers (the verifier, execute_command, the
 * Editor's scouts) use this one function, so no caller spells a policy.
 *
 * It must never report a sandbox that will not be in force.
 */
import path from 'node:path';
import { EditwardenError, ErrorCode } from '../errors.js';
import { findNestedGitDirs } from '../config/nested-repos.js';
import { detectSandbox, type SandboxInfo, type SandboxKind } from './detect.js';
import { detectOuterSandbox, nestedSandboxSigns } from './outer.js';
import { DEFAULT_SANDBOX_CONFIG, fixedMemberPaths, sandboxPolicy, type SandboxConfig, type SandboxPolicy } from './policy.js';

export interface SandboxWorkspace {
  readonly root: string;
  readonly stateDir: string;
  /** The project's protected set (workspace/policy.ts): its existing members are bound read-only. Absent: the fixed members. */
  readonly policy?: { existingProtectedPaths(): string[] };
}

/** The fixed members of the protected set under `root`, and every nested repository's `.git` unless commands may write it (a bare root without a project's Policy). */
function fixedProtectedPaths(root: string, gitWritable: boolean): string[] {
  const fixed = fixedMemberPaths(root);
  return gitWritable ? fixed : [...fixed, ...findNestedGitDirs(root).map((rel) => path.join(root, ...rel.split('/')))];
}

/** `config.sandbox` may be absent in a config built by hand (an older caller): then the defaults, never "off". */
export function commandSandbox(ws: SandboxWorkspace, config: { sandbox?: SandboxConfig }, extra: { envDeny?: readonly string[] } = {}): SandboxPolicy {
  return sandboxPolicy({
    root: ws.root,
    stateDir: ws.stateDir,
    config: config.sandbox ?? DEFAULT_SANDBOX_CONFIG,
    // Every existing member of the one protected set (the config files editwarden reads and nested repositories' .git included), read-only inside; a missing one is removed again after the command (governing.ts).
    protectedPaths: ws.policy ? ws.policy.existingProtectedPaths() : fixedProtectedPaths(ws.root, config.sandbox?.git_writable ?? false),
    ...(extra.envDeny ? { envDeny: extra.envDeny } : {}),
  });
}

/** The sandbox kind a command under `policy` will run in: the machine's, else an outer sandbox proved to confine writes (outer.ts), else none. */
export function sandboxInForce(policy: SandboxPolicy, info: SandboxInfo = detectSandbox()): SandboxKind {
  if (!policy.enabled) return 'none';
  if (info.kind !== 'none') return info.kind;
  return detectOuterSandbox(policy.root, policy.networkAccess.mode === 'on').ok ? 'outer' : 'none';
}

const VIRTUAL = ['/dev', '/proc'];
const TEMP = ['/tmp', '/var/tmp'];

/** What holds the command under an outer sandbox, for the record and the model (null when it is not one). */
export function outerSandboxLine(policy: SandboxPolicy): string | null {
  // The state folder too when it does not exist yet: editwarden makes it before the command, where the command can write it.
  const v = detectOuterSandbox(policy.root, policy.networkAccess.mode === 'on', process.platform, [...policy.readOnly, ...(policy.absentState ? [policy.absentState] : [])]);
  if (!v.ok) return null;
  // The project, and each temp folder once (Codex binds its TMPDIR under /tmp as well): what a person needs to read.
  const places = [
    ...new Set(
      v.sandbox.writable.filter((w) => !VIRTUAL.some((d) => w === d || w.startsWith(`${d}/`))).map((w) => (w === policy.root || w.startsWith(`${policy.root}/`) ? 'the project' : (TEMP.find((t) => w === t || w.startsWith(`${t}/`)) ?? w))),
    ),
  ];
  const rel = v.sandbox.writableProtected.map((p) => path.relative(policy.root, p) || '.');
  const binds = rel.length === 0 ? 'every protected file was read-only under it too' : `it left ${rel.join(', ')} writable (editwarden puts its config and the clients' settings back after the command; its own state folder it cannot)`;
  return `this command ran under ${v.sandbox.name} (bubblewrap cannot start inside it), which kept its writes to ${places.join(' and ')}, ${v.sandbox.network ? 'with' : 'without'} network; ${binds}; the checkpoint, effects count and record are editwarden's as ever.`;
}

/** The refusal of a command in a headless run without a sandbox. */
export function unsandboxedRefusal(policy: SandboxPolicy, info: SandboxInfo = detectSandbox()): EditwardenError {
  const outer = policy.enabled ? detectOuterSandbox(policy.root, policy.networkAccess.mode === 'on') : null;
  // Inside another sandbox (no_new_privs and a seccomp filter: bubblewrap cannot start there) that was not proved to confine writes.
  const nested = outer !== null && !outer.ok && nestedSandboxSigns();
  const why = !policy.enabled
    ? 'the sandbox is turned off (sandbox.enabled: false)'
    : nested && outer && !outer.ok
      ? `editwarden runs inside another sandbox where bubblewrap cannot start (${info.detail}), and that sandbox could not be shown to keep writes inside the project: ${outer.why}`
      : `no OS sandbox is available (${info.detail})`;
  return new EditwardenError({
    code: ErrorCode.UNSANDBOXED,
    message: `Commands are refused in this headless run: ${why}, and an unsandboxed command could read or write anything the user can.`,
    hint: nested
      ? "Do the work with the file tools instead. A person can run the client with its own sandbox confining writes to the project (Codex: -s workspace-write, its default, without network), or run it without its own sandbox so editwarden's starts (docs/integrations.md, Codex)."
      : `Do the work with the file tools instead. A person can allow unsandboxed commands with --unsandboxed or sandbox.allow_unsandboxed: true in .editwarden.yml${info.fix && policy.enabled ? `, or get a sandbox: ${info.fix}` : ''}.`,
  });
}
