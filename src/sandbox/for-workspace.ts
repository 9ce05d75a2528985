/**
 * The sandbox of a workspace: its policy from the root, the state folder and
 * the config, the kind that will be in force, and the refusal a headless run
 * gets when that kind is "none". Callers (the verifier, execute_command, the
 * Editor's scouts) use this one function, so no caller spells a policy.
 *
 * It must never report a sandbox that will not be in force.
 */
import { CONFIG_FILE_NAMES } from '../config/names.js';
import fs from 'node:fs';
import path from 'node:path';
import { PROTECTED_MEMBERS } from '../config/protected-set.js';
import { EditwardenError, ErrorCode } from '../errors.js';
import { findNestedGitDirs } from '../config/nested-repos.js';
import { detectSandbox, type SandboxInfo, type SandboxKind } from './detect.js';
import { DEFAULT_SANDBOX_CONFIG, sandboxPolicy, type SandboxConfig, type SandboxPolicy } from './policy.js';

export interface SandboxWorkspace {
  readonly root: string;
  readonly stateDir: string;
  /** The project's protected set (workspace/policy.ts): its existing members are bound read-only. Absent: the fixed members. */
  readonly policy?: { existingProtectedPaths(): string[] };
}

/** The fixed members of the protected set that exist under `root`, and every nested repository's `.git` unless commands may write it (a bare root without a project's Policy). */
function fixedProtectedPaths(root: string, gitWritable: boolean): string[] {
  const fixed = PROTECTED_MEMBERS.map((m) => path.join(root, m.path)).filter((p) => fs.existsSync(p) || isLink(p));
  return gitWritable ? fixed : [...fixed, ...findNestedGitDirs(root).map((rel) => path.join(root, ...rel.split('/')))];
}

function isLink(p: string): boolean {
  try {
    return fs.lstatSync(p).isSymbolicLink();
  } catch {
    return false;
  }
}

/** `config.sandbox` may be absent in a config built by hand (an older caller): then the defaults, never "off". */
export function commandSandbox(ws: SandboxWorkspace, config: { sandbox?: SandboxConfig }, extra: { configFiles?: readonly string[]; envDeny?: readonly string[] } = {}): SandboxPolicy {
  return sandboxPolicy({
    root: ws.root,
    stateDir: ws.stateDir,
    config: config.sandbox ?? DEFAULT_SANDBOX_CONFIG,
    configFiles: [...CONFIG_FILE_NAMES.map((n) => path.join(ws.root, n)), ...(extra.configFiles ?? [])],
    // Every existing member of the one protected set (nested repositories' .git included), read-only inside; a missing one is removed again after the command (governing.ts).
    protectedPaths: ws.policy ? ws.policy.existingProtectedPaths() : fixedProtectedPaths(ws.root, config.sandbox?.git_writable ?? false),
    ...(extra.envDeny ? { envDeny: extra.envDeny } : {}),
  });
}

/** The sandbox kind a command under `policy` will run in. */
export function sandboxInForce(policy: SandboxPolicy, info: SandboxInfo = detectSandbox()): SandboxKind {
  return policy.enabled ? info.kind : 'none';
}

/** The refusal of a command in a headless run without a sandbox. */
export function unsandboxedRefusal(policy: SandboxPolicy, info: SandboxInfo = detectSandbox()): EditwardenError {
  const why = policy.enabled ? `no OS sandbox is available (${info.detail})` : 'the sandbox is turned off (sandbox.enabled: false)';
  return new EditwardenError({
    code: ErrorCode.UNSANDBOXED,
    message: `Commands are refused in this headless run: ${why}, and an unsandboxed command could read or write anything the user can.`,
    hint: `Do the work with the file tools instead. A person can allow unsandboxed commands with --unsandboxed or sandbox.allow_unsandboxed: true in .editwarden.yml${info.fix && policy.enabled ? `, or get a sandbox: ${info.fix}` : ''}.`,
  });
}
