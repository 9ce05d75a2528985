/**
 * The OS sandbox every command editwarden runs goes through: policy (what a
 * command may read, write and reach), its bubblewrap and sandbox-exec
 * spellings, the environment allowlist, and detection of what this machine
 * offers. docs/sandbox.md is the user's description of it.
 */
export { detectSandbox, BWRAP_LOCATIONS, type SandboxInfo, type SandboxKind, type DetectOptions } from './detect.js';
export { sandboxPolicy, DEFAULT_SANDBOX_CONFIG, HOME_SECRETS, HOME_TOOLCHAINS, type SandboxConfig, type SandboxPolicy, type PolicyInput } from './policy.js';
export { commandEnv, BASE_ENV_ALLOWLIST } from './env.js';
export { isSecretEnvName, ENV_PATTERN } from '../config/env-names.js';
export { bwrapArgs } from './bwrap.js';
export { sandboxExecProfile, sandboxExecArgs } from './sbpl.js';
export { sandboxedSpawn, type CommandSandbox, type SpawnSpec } from './spawn.js';
export { commandSandbox, sandboxInForce, unsandboxedRefusal, type SandboxWorkspace } from './for-workspace.js';
export { CONFIG_FILE_NAMES } from '../config/names.js';
