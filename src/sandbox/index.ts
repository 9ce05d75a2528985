/**
 * The OS sandbox every command editwarden runs goes through: policy (what a
 * command may read, write and reach), its bubblewrap and sandbox-exec
 * spellings, the environment allowlist, and detection of what this machine
 * offers. docs/sandbox.md is the user's description of it.
 */
export { detectSandbox } from './detect.js';
export { sandboxPolicy, DEFAULT_SANDBOX_CONFIG, type SandboxPolicy } from './policy.js';
export { commandEnv, BASE_ENV_ALLOWLIST } from './env.js';
export { isSecretEnvName } from '../config/env-names.js';
export { bwrapArgs } from './bwrap.js';
export { sandboxExecProfile } from './sbpl.js';
export { commandSandbox } from './for-workspace.js';
