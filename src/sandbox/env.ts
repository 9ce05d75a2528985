/**
 * The environment a command gets: an ALLOWLIST of names taken from
 * editwarden's own environment (what a shell, a compiler and the common
 * toolchains need), plus names the config adds — never "everything but the
 * names we know to be secret". A name that looks like a secret is dropped
 * even when a list names it. Pure: a record in, a record out.
 *
 * It must never pass a model API key, a cloud credential or a token to a
 * command: whatever a command sees it can print, and what it prints reaches
 * the model and transcript.jsonl.
 */
import { isSecretEnvName } from '../config/env-names.js';

/**
 * Names a command receives (an entry ending in `*` is a prefix). Each one is
 * needed by a shell, the locale, or a toolchain's build; none carries a
 * credential by convention. Left out on purpose: SSH_AUTH_SOCK, GPG_AGENT_INFO,
 * DBUS_SESSION_BUS_ADDRESS (doors to agents holding keys), npm_config_* and
 * BUNDLE_* (may hold registry credentials), GOPROXY / PIP_INDEX_URL (URLs may
 * embed credentials), DISPLAY, XDG_RUNTIME_DIR. `sandbox.env` adds names.
 */
export const BASE_ENV_ALLOWLIST: readonly string[] = [
  // shell and session
  'PATH',
  'HOME',
  'USER',
  'LOGNAME',
  'SHELL',
  'TMPDIR',
  'TERM',
  'COLORTERM',
  'NO_COLOR',
  'FORCE_COLOR',
  'CI',
  'TZ',
  // locale
  'LANG',
  'LANGUAGE',
  'LC_*',
  // C / C++ / make / CMake / pkg-config
  'CC',
  'CXX',
  'CPP',
  'LD',
  'AR',
  'AS',
  'NM',
  'RANLIB',
  'STRIP',
  'CFLAGS',
  'CXXFLAGS',
  'CPPFLAGS',
  'LDFLAGS',
  'LDLIBS',
  'MAKEFLAGS',
  'MFLAGS',
  'CMAKE_GENERATOR',
  'CMAKE_BUILD_PARALLEL_LEVEL',
  'CMAKE_PREFIX_PATH',
  'PKG_CONFIG_PATH',
  'LD_LIBRARY_PATH',
  'LIBRARY_PATH',
  'CPATH',
  'C_INCLUDE_PATH',
  'CPLUS_INCLUDE_PATH',
  // Node
  'NODE_OPTIONS',
  'NODE_PATH',
  'NODE_ENV',
  'NVM_DIR',
  'NVM_BIN',
  'NVM_INC',
  // Python
  'PYTHON*',
  'VIRTUAL_ENV',
  'CONDA_PREFIX',
  'CONDA_DEFAULT_ENV',
  // Go
  'GOPATH',
  'GOROOT',
  'GOFLAGS',
  'GOCACHE',
  'GOMODCACHE',
  'GOTOOLCHAIN',
  'GOOS',
  'GOARCH',
  'CGO_ENABLED',
  'GOPRIVATE',
  // Rust
  'CARGO_HOME',
  'RUSTUP_HOME',
  'RUSTUP_TOOLCHAIN',
  'RUSTFLAGS',
  'RUSTDOCFLAGS',
  'CARGO_TARGET_DIR',
  'CARGO_BUILD_JOBS',
  // JVM
  'JAVA_HOME',
  'JAVA_TOOL_OPTIONS',
  'MAVEN_OPTS',
  'M2_HOME',
  'GRADLE_USER_HOME',
  'GRADLE_OPTS',
  // others
  'DOTNET_ROOT',
  'DOTNET_CLI_TELEMETRY_OPTOUT',
  'DENO_DIR',
  'BUN_INSTALL',
  'GEM_HOME',
  'GEM_PATH',
  // Windows: what cmd.exe and any program need to start
  'SystemRoot',
  'SystemDrive',
  'windir',
  'ComSpec',
  'PATHEXT',
  'TEMP',
  'TMP',
  'USERPROFILE',
  'APPDATA',
  'LOCALAPPDATA',
  'ProgramFiles',
  'ProgramData',
];

export interface CommandEnvOptions {
  /** Names (or `PREFIX*`) added to the base allowlist (config `sandbox.env`). */
  allow?: readonly string[];
  /** Names removed whatever the lists say (the model key named by --api-key-env). */
  deny?: readonly string[];
  /** Values set last (HOME, TMPDIR inside the sandbox; a caller's own settings). undefined removes. */
  set?: Record<string, string | undefined>;
}

function matches(name: string, entry: string): boolean {
  return entry.endsWith('*') ? name.startsWith(entry.slice(0, -1)) : name === entry;
}

/** Whether `name` reaches commands (on the base allowlist or `extra`, and not secret-looking). */
export function isAllowlisted(name: string, extra: readonly string[] = []): boolean {
  return !isSecretEnvName(name) && [...BASE_ENV_ALLOWLIST, ...extra].some((entry) => matches(name, entry));
}

/** The environment of a command: the allowlisted part of `source`, then `set`. */
export function commandEnv(source: NodeJS.ProcessEnv, options: CommandEnvOptions = {}): Record<string, string> {
  const allow = [...BASE_ENV_ALLOWLIST, ...(options.allow ?? [])];
  const deny = new Set(options.deny ?? []);
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(source)) {
    if (value === undefined || deny.has(name) || isSecretEnvName(name)) continue;
    if (allow.some((entry) => matches(name, entry))) out[name] = value;
  }
  for (const [name, value] of Object.entries(options.set ?? {})) {
    if (value === undefined) delete out[name];
    else out[name] = value;
  }
  return out;
}
