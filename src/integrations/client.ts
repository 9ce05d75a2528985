/**
 * What each client module provides: how its hook input becomes a
 * NativeEdit, how a verdict is answered in its hook protocol, and which
 * settings files `editwarden init` merges into. The shared parts — the
 * refusal text a model reads, the command line of the running binary, JSON
 * merging that keeps every existing key — live here once.
 * Nothing here touches the disk.
 */
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { EditwardenError, ErrorCode, type ErrorInfo, formatRefusal } from '../errors.js';
import type { ClientName } from '../config/client-settings.js';
import type { EditwardenWriteTool, NativeEdit } from './native-edit.js';

export interface HookOutput {
  exitCode: number;
  stdout?: string;
  stderr?: string;
}

/** `settle`: a point where every earlier tool call of the session has ended (Claude Code's Stop): its pending records land (hook-settle.ts). */
export type HookEventKind = 'pre' | 'post' | 'settle';

interface ConfigFile {
  /** Absolute path. */
  path: string;
  /** The new text, given the current text (null: no file yet); null: leave the file absent. Must keep what it does not own, and take out every switch that turns the hooks off. */
  render(existing: string | null): string | null;
  /** The text without what `render` added (null: remove the file — it held nothing else). Every other setting stays as it was. `sibling` reads another settings file of the client as it is now (its path relative to the root). */
  remove(existing: string | null, sibling: (relative: string) => string | null): string | null;
  /** The settings in this text that turn editwarden's hooks off (`disableAllHooks`, a disabled hook list…), described for a person. */
  switches(existing: string | null): string[];
}

/**
 * The client's tool names, and what each is to editwarden: the one place a client's tool is named (its hook
 * matchers, its translation and the architecture test read it from here).
 */
export interface ClientTools {
  /** The client's own file-writing tools → the editwarden tool each is judged as (`allowed_tools`, the records). */
  edit: Readonly<Record<string, EditwardenWriteTool>>;
  /** Its shell tools whose input the pre-tool hook rewrites to run through `editwarden shell` (editwarden's execute_command). */
  shell?: readonly string[];
  /** Shell tools a hook can only refuse (no rewrite relied on): refused, with the way through editwarden's MCP execute_command. */
  refusedShell?: readonly string[];
  /**
   * How the client names editwarden's own MCP tools (the prefix, then the tool's name), where its pre-tool hook sees
   * them: their writes are charged to the session's ledger there (integrations/mcp-call.ts). Absent: not seen.
   */
  mcpPrefix?: string;
}

export interface ClientIntegration {
  name: ClientName;
  /** Hook event names as the CLI takes them (`editwarden hook <client> <event>`) → pre or post. */
  events: Record<string, HookEventKind>;
  /**
   * The hook-input field(s) in which the client sends its session id, as the real client sends them (before
   * `hookInput`), first found wins. Read by `sessionOf` (session-id.ts) alone. Empty: the client sends none.
   */
  sessionFields: readonly string[];
  /** Its tool names and what each is to editwarden. */
  tools: ClientTools;
  /** The environment variable in which the client names the project folder to its hooks (absent: none; the input's cwd is used). */
  projectDirEnv?: string;
  /** The native edit a pre-tool hook input describes; null when the tool is not an edit this hook guards. */
  nativeEdit(input: Record<string, unknown>): NativeEdit | null;
  /**
   * The tool and call id of a post-tool hook input; null: a tool this hook does not record (a client whose hooks see
   * every tool). `paths`: the files the input names, for a client whose edits no pre-tool hook vetted (Cursor's
   * afterFileEdit) — with no checkpoint to diff against, they are what the record can say.
   */
  postCall(input: Record<string, unknown>): { tool: string; call?: string; paths?: string[] } | null;
  /**
   * The client's hook input in the common shape the rest reads (`tool_name`, `tool_input`, `tool_use_id`, `cwd`),
   * for a client whose hooks name them otherwise (Copilot's `toolName`/`toolArgs`). The session id is not part of
   * it: `sessionFields` names where the client sends that.
   * Absent: the input already has that shape.
   */
  hookInput?(input: Record<string, unknown>): Record<string, unknown>;
  deny(error: ErrorInfo): HookOutput;
  allow(): HookOutput;
  /** The settings init writes (portable: no path of this machine's install); `setup` carries what `init` was told beyond the client. */
  configFiles(root: string, setup?: InitSetup): ConfigFile[];
  /** What the protection covers and what it does not, printed by init. */
  coverage: string;
  /** How the pre-tool hook rewrites a call of the client's shell tools (`tools.shell`): absent exactly when the client has none. */
  shell?: ShellRewrite;
  /**
   * Whether the client will run the hooks init wrote here: trust the person must give in the client itself (Codex's
   * project and hook trust). `doctor` reports it; `init` prints `fix` — the one step — when not `ok`. Reads only.
   */
  hookTrust?(root: string, env?: Readonly<Record<string, string | undefined>>): { ok: boolean; detail: string; fix?: string };
}

/**
 * What `editwarden init` was told beyond the client, carried into every
 * command the settings run. `configFile`: an explicit `--config`, as a path
 * relative to the project root (absolute when outside it) in safe characters
 * only (init.ts checks): the hook then loads that file and protects it (and
 * its real target) as a member of the protected set.
 */
export interface InitSetup {
  configFile?: string;
}

/** ` --config F` for the commands the settings run, or nothing. F is already a safe shell word (init.ts `portableConfigPath`). */
function configArg(setup?: InitSetup): string {
  return setup?.configFile ? ` --config ${setup.configFile}` : '';
}

/** How a client's shell tool call is turned into the same call running `editwarden shell … -- '<command>'` (shell.ts). */
interface ShellRewrite {
  /** The command line the model asked for (throws NativeInputError when the input holds none). */
  commandOf(toolInput: Record<string, unknown>): string;
  /** The folder the model asked the command to run in (opencode's `workdir`), relative to the root or absolute; it must lie inside the root. Absent: the client's own folder. */
  workdirOf?(toolInput: Record<string, unknown>): string | undefined;
  /** The hook's answer that makes the client run `line` instead (every other input field kept). */
  rewrite(toolInput: Record<string, unknown>, line: string): HookOutput;
  /** The client's own shell carries the working folder from one call to the next (`cd` sticks): the guarded one does too (shell-cwd.ts). */
  carriesCwd?: boolean;
}

/**
 * The command line that runs `command` through the guarded shell: this
 * editwarden (absolute: the hook runs on this machine, so this path exists
 * when the client runs the line), the root and the session, and the
 * command as ONE single-quoted argument — whatever quotes, `$`, backticks,
 * newlines or `--` it holds, the shell hands it over byte for byte.
 */
export function shellRunnerLine(self: readonly string[], opts: { root: string; client: string; tool: string; session?: string; configFile?: string }, command: string): string {
  const argv = [
    ...self,
    'shell',
    '--client',
    opts.client,
    '--tool',
    opts.tool,
    '--root',
    opts.root,
    ...(opts.session !== undefined ? ['--session', opts.session] : []),
    ...(opts.configFile !== undefined ? ['--config', opts.configFile] : []),
    '--',
    command,
  ];
  return argv.map((a) => `'${a.replace(/'/g, `'\\''`)}'`).join(' ');
}

/**
 * The matcher of a client's pre-tool or post-tool hook (a regular expression of tool names, as Claude Code, Gemini
 * CLI, Codex and Qwen Code read it), from its tool names: the pre-tool hook sees its edit tools, its shells (rewritten
 * or refused) and editwarden's MCP tools; the post-tool hook records edits only.
 */
export function hookMatcher(tools: ClientTools, kind: HookEventKind): string {
  const edits = Object.keys(tools.edit);
  if (kind === 'post') return edits.join('|');
  return [...edits, ...(tools.shell ?? []), ...(tools.refusedShell ?? []), ...(tools.mcpPrefix !== undefined ? [`${tools.mcpPrefix}.*`] : [])].join('|');
}

/** The client's own edit tool named `tool`, or undefined (an own property only: `constructor` is no tool). */
export function editToolOf(tools: ClientTools, tool: unknown): EditwardenWriteTool | undefined {
  return typeof tool === 'string' && Object.hasOwn(tools.edit, tool) ? tools.edit[tool] : undefined;
}

/** The text a model reads when its edit is refused: the code first, so it can act on it. */
export function refusalText(error: ErrorInfo): string {
  return `editwarden refused this edit: ${formatRefusal(error)}\nNothing was written.`;
}

/**
 * argv of the running editwarden: this Node and this package's bin script, both absolute — it works when
 * editwarden is not on PATH. A project-local install started by the person's launcher (guard-install.ts) is run
 * through that launcher again, so a rewritten shell command checks the install before any of its code runs.
 */
export function selfCommand(env: NodeJS.ProcessEnv = process.env): string[] {
  const launcher = env.EDITWARDEN_LAUNCHER;
  const root = env.EDITWARDEN_LAUNCH_ROOT;
  if (launcher && root && path.isAbsolute(launcher) && path.isAbsolute(root)) return [process.execPath, launcher, root];
  const bin = fileURLToPath(new URL('../../bin/editwarden', import.meta.url));
  return [process.execPath, path.resolve(bin)];
}

/** This build's launcher bundle (scripts/bundle-cli.mjs), which `init` and `trust --guard` copy to the person's guard folder. */
export function launcherBundle(): string {
  return fileURLToPath(new URL('../guard-launcher/launch.cjs', import.meta.url));
}

export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

export function parseJsonObject(text: string | null, file: string): { [key: string]: Json } {
  if (text === null || text.trim() === '') return {};
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch {
    throw settingsError(file, 'is not valid JSON');
  }
  if (typeof data !== 'object' || data === null || Array.isArray(data)) throw settingsError(file, 'does not hold a JSON object');
  return data as { [key: string]: Json };
}

/**
 * A settings object as parsed: JSON (`Json`) for Claude Code, Gemini CLI and Cursor, TOML (`unknown` values) for
 * Codex. The merging helpers below work on either, so each rule of merging lives once.
 */
type Table<V> = { [key: string]: V };

function isTable(v: unknown): v is Table<unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

export function objectAt<V>(parent: Table<V>, key: string): Table<V> {
  const v = parent[key];
  if (isTable(v)) return v as Table<V>;
  const fresh: Table<V> = {};
  parent[key] = fresh as V;
  return fresh;
}

export function arrayAt<V>(parent: Table<V>, key: string): V[] {
  const v = parent[key];
  if (Array.isArray(v)) return v as V[];
  const fresh: V[] = [];
  parent[key] = fresh as V;
  return fresh;
}

/** Takes `value` out of `parent[key]`'s list, and the list itself when that leaves it empty. */
export function removeFromList<V>(parent: Table<V>, key: string, keep: (v: V) => boolean): void {
  const list = parent[key];
  if (!Array.isArray(list)) return;
  const left = (list as V[]).filter(keep);
  if (left.length === list.length) return;
  if (left.length === 0) delete parent[key];
  else parent[key] = left as V;
}

/** Deletes `parent[key]` when it is an empty object (a container only editwarden's entries lived in). */
export function dropIfEmpty<V>(parent: Table<V>, key: string): void {
  const v = parent[key];
  if (isTable(v) && Object.keys(v).length === 0) delete parent[key];
}

/** Whether one hook entry (`{type, command}`) is editwarden's (recognised by `marker` in its command). */
function isOurHook(h: unknown, marker: string): boolean {
  return isTable(h) && typeof h.command === 'string' && h.command.includes(marker);
}

/** Whether a hook group (`{matcher, hooks: [{command}]}`) runs editwarden's hook (recognised by `marker` in its command). */
function isOurGroup(g: unknown, marker: string): boolean {
  return isTable(g) && Array.isArray(g.hooks) && g.hooks.some((h) => isOurHook(h, marker));
}

/** Whether every hook of a group is editwarden's: a group it may replace or take out whole. */
function isOurGroupAlone(g: unknown, marker: string): boolean {
  return isOurGroup(g, marker) && (g as { hooks: unknown[] }).hooks.every((h) => isOurHook(h, marker));
}

/**
 * Takes editwarden's hook entries (by `marker`) out of every group of `parent[key]`, entry by entry: a hook of the
 * person's that shares a group with editwarden's stays, with the group's matcher; a group left with no hook goes,
 * and the list when that leaves it empty (issue 38.7).
 */
export function removeOurHooks<V>(parent: Table<V>, key: string, marker: string): void {
  const list = parent[key];
  if (!Array.isArray(list)) return;
  const kept: unknown[] = [];
  for (const g of list as unknown[]) {
    if (!isOurGroup(g, marker)) kept.push(g);
    else if (!isOurGroupAlone(g, marker)) kept.push({ ...(g as Table<unknown>), hooks: (g as { hooks: unknown[] }).hooks.filter((h) => !isOurHook(h, marker)) });
  }
  if (kept.length === 0) delete parent[key];
  else parent[key] = kept as V;
}

/** A JSON settings text after removal, formatted like `like`: null when nothing is left (the file was editwarden's alone). */
export function jsonOrNothing(data: { [key: string]: Json }, like: string | null): string | null {
  return Object.keys(data).length === 0 ? null : jsonText(data, like);
}

/** Adds `value` to a list once. */
export function addOnce(list: Json[], value: string): void {
  if (!list.includes(value)) list.push(value);
}

/**
 * Claude-style hook lists (`[{matcher, hooks: [{type, command, …}]}]`, also
 * Gemini's and Codex's): editwarden's own group (every hook in it
 * editwarden's, recognised by `marker` in its command, so a moved binary is
 * updated in place) is replaced where it stands, or appended. A hook of the
 * person's that shares a group with editwarden's keeps that group and its
 * matcher: only editwarden's entry leaves it (issue 38.7: a second init
 * dropped the person's hook with the group).
 */
export function upsertHookGroup<V>(list: V[], marker: string, group: V): void {
  const at = list.findIndex((g) => isOurGroupAlone(g, marker));
  for (let i = list.length - 1; i >= 0; i--) {
    const g = list[i];
    if (i === at || !isOurGroup(g, marker)) continue;
    if (isOurGroupAlone(g, marker)) list.splice(i, 1);
    else list[i] = { ...(g as Table<unknown>), hooks: (g as { hooks: unknown[] }).hooks.filter((h) => !isOurHook(h, marker)) } as V;
  }
  const own = list.findIndex((g) => isOurGroupAlone(g, marker));
  if (own >= 0) list[own] = group;
  else list.push(group);
}

/** The name every client's settings give editwarden's MCP server. */
export const MCP_SERVER_NAME = 'editwarden';

/** Whether an MCP server entry is editwarden's own (any release's: its command line execs editwarden's `mcp`). */
export function isOurServer(entry: unknown): boolean {
  return isTable(entry) && entry.command === 'sh' && Array.isArray(entry.args) && entry.args.some((a) => typeof a === 'string' && a.includes('exec "$ew" mcp'));
}

/**
 * Puts editwarden's MCP server into `servers` under its name; a server of the person's under that name is never
 * overwritten (issue 38.7): init refuses with E_SETTINGS_CONFLICT and writes nothing.
 */
export function putServer<V>(servers: Table<V>, entry: V, file: string): void {
  const existing = servers[MCP_SERVER_NAME];
  if (existing !== undefined && !isOurServer(existing)) {
    throw new EditwardenError({
      code: ErrorCode.SETTINGS_CONFLICT,
      message: `${file} already has an MCP server named "${MCP_SERVER_NAME}" that is not editwarden's (${JSON.stringify(existing).slice(0, 200)}); editwarden init does not overwrite it, so nothing was changed.`,
      hint: `Rename your server in ${file} (its tools are named after it), then run editwarden init again; or keep it and register editwarden yourself under that name.`,
      path: file,
    });
  }
  servers[MCP_SERVER_NAME] = entry;
}

/** Takes editwarden's MCP server out of `servers`; a same-named server of the person's stays. */
export function takeServer<V>(servers: Table<V>): void {
  if (isOurServer(servers[MCP_SERVER_NAME])) delete servers[MCP_SERVER_NAME];
}

/**
 * Takes editwarden's MCP server and its hooks (`hooks`: the client's event key → the marker of our command there)
 * out of a settings object, and the containers that leaves empty: what every client's `remove` does to its own file.
 */
export function takeOurSettings<V>(data: Table<V>, hooks: Readonly<Record<string, string>> = {}): void {
  takeServer(objectAt(data, 'mcpServers'));
  dropIfEmpty(data, 'mcpServers');
  if (Object.keys(hooks).length === 0) return;
  const table = objectAt(data, 'hooks');
  for (const [event, marker] of Object.entries(hooks)) removeOurHooks(table, event, marker);
  dropIfEmpty(data, 'hooks');
}

/**
 * JSON text of settings: a file init creates in two spaces with a final newline; a file of the person's in its own
 * indentation (tabs or N spaces, or none: one line), line ends and final newline (issue 38.7: init and `--remove`
 * rewrote a person's 4-space file in 2 spaces).
 */
export function jsonText(data: Json, like: string | null = null): string {
  if (like === null || like.trim() === '') return `${JSON.stringify(data, null, 2)}\n`;
  const body = like.trim();
  const indent = /^[{[]\r?\n([ \t]+)\S/.exec(body)?.[1] ?? (body.includes('\n') ? '  ' : '');
  const text = indent === '' ? JSON.stringify(data) : JSON.stringify(data, null, indent);
  const eol = like.includes('\r\n') ? '\r\n' : '\n';
  return `${eol === '\n' ? text : text.replace(/\n/g, eol)}${/\r?\n$/.test(like) ? eol : ''}`;
}

/**
 * How the committed settings find editwarden (docs/integrations.md, "Which
 * editwarden runs"), as POSIX sh words that end with `ew` set to an
 * editwarden outside the project, or empty:
 *
 * 1. `editwarden` on PATH (a global install), when its real location lies
 *    outside the project folder and in no `node_modules` of a folder that
 *    holds the project. One inside (PATH naming the project's
 *    `node_modules/.bin`, as `npx` and npm scripts do — a monorepo's too) is
 *    a program the agent could write: never run directly.
 * 2. Otherwise the project-local install (a devDependency), only through
 *    the person's launcher (`$XDG_DATA_HOME/editwarden/guard/launch.cjs`,
 *    outside every repository), which checks the install against the digest
 *    recorded by `init` / `trust --guard` before it loads any of its code
 *    (guard-install.ts): E_GUARD_TAMPERED when it changed.
 *
 * Never an absolute path of the machine that ran `init` (the settings are
 * committed and run on a teammate's machine and in CI), never `npx` (it runs
 * the project's `node_modules/.bin` first), never the project's `.bin` link.
 * `projectDir` is how the client names the project folder (braced, so
 * Gemini's textual $VAR expansion leaves it alone). Its own variables are
 * named `ew…`: Gemini CLI also replaces a `$NAME` its environment holds.
 */
function findGuard(projectDir: string): string {
  return [
    `ew_p="${projectDir}"`,
    // Inside the project, or in a node_modules of a folder that holds the project (a monorepo's, a subfolder session's): the agent's to write.
    'ew=$(command -v editwarden) && { ew_r=$(readlink -f "$ew" 2>/dev/null) || ew_r=$ew; ew_R=$(cd "$ew_p" 2>/dev/null && pwd -P); case "$ew_r/" in "$ew_R"/*) ew= ;; */node_modules/*) case "$ew_R/" in "${ew_r%%/node_modules/*}"/*) ew= ;; esac ;; esac; }',
    // No nested braces: Gemini CLI expands `${VAR:-default}` in its settings itself, up to the first `}`.
    'ew_d=${XDG_DATA_HOME:-}; [ -n "$ew_d" ] || ew_d=${HOME}/.local/share; ew_l=$ew_d/editwarden/guard/launch.cjs',
  ].join('; ');
}

/** The command that runs editwarden with `args` as findGuard found it: directly, or through the launcher (`prefix`: `exec ` for the MCP server). */
function runGuard(args: string, hint: string, prefix = ''): string {
  return `if [ -n "$ew" ]; then ${prefix}"$ew" ${args}; elif [ -f "$ew_l" ]; then ${prefix}node "$ew_l" "$ew_p" ${args}; else echo '${unavailableText()}' >&2; echo '${hint}' >&2; exit 2; fi`;
}

function unavailableText(): string {
  return `editwarden refused this tool call: ${ErrorCode.GUARD_UNAVAILABLE}: editwarden is not installed on this machine (not on PATH outside the project, no recorded project-local install), so nothing can be vetted and the call is blocked.`;
}

/**
 * The hook command `init` writes: a few POSIX sh words (no process of their
 * own before editwarden's) that fail closed. Clients treat a hook that
 * exits 1 or 127 as a non-blocking error and run the tool anyway; so a
 * missing editwarden, a crash or any exit other than 0 (answered) and 2
 * (refused) becomes exit 2 — "blocked" in Claude Code, Gemini CLI, Codex and
 * Cursor alike — with the reason (code and hint) on stderr for the model.
 */
export function guardedHookCommand(client: string, event: string, projectDir: string, setup?: InitSetup): string {
  const why = (what: string): string => `editwarden refused this tool call: ${ErrorCode.GUARD_UNAVAILABLE}: ${what}, so nothing can be vetted and the call is blocked.`;
  const hint = `hint: a person installs editwarden (npm install -g editwarden, or as a devDependency recorded with: npx editwarden trust --guard) or removes the hooks with: editwarden init ${client} --remove`;
  return [
    findGuard(projectDir),
    `{ ${runGuard(`hook ${client} ${event}${configArg(setup)}`, hint)}; }`,
    `s=$?; [ $s -eq 0 ] || [ $s -eq 2 ] || { echo "${why('the editwarden hook failed (exit $s)')}" >&2; echo '${hint}' >&2; exit 2; }`,
    // The hook's own answer (0, or 2 = refused in exit-code protocols) is the wrapper's: without this the test above would exit 0.
    'exit $s',
  ].join('; ');
}

/**
 * The hook command of an event that vets nothing (Claude Code's Stop: it only lets pending records land,
 * hook-settle.ts): the same words, but a failure is exit 1 — a non-blocking error — since exit 2 there would
 * keep the model working instead of blocking a tool.
 */
export function noticeHookCommand(client: string, event: string, projectDir: string, setup?: InitSetup): string {
  return `( ${guardedHookCommand(client, event, projectDir, setup)} ) || exit 1`;
}

/** The MCP server entry every client gets: editwarden found as the hooks find it, serving `mcp` (the client starts it in the project folder). */
export function mcpServer(setup?: InitSetup): { command: string; args: string[] } {
  return { command: 'sh', args: ['-c', `${findGuard('.')}; ${runGuard(`mcp${configArg(setup)}`, 'hint: npm install -g editwarden, or as a devDependency recorded with: npx editwarden trust --guard', 'exec ')}`] };
}

/** A client settings file init cannot merge into: nothing is written (every file is rendered before any is written). */
export function settingsError(file: string, what: string): EditwardenError {
  return new EditwardenError({ code: ErrorCode.CONFIG, message: `${file} ${what}; nothing was changed.`, hint: `Fix or move ${file}, then run editwarden init again.` });
}
