/**
 * Codex CLI: the project's `.codex/config.toml` gets the editwarden MCP
 * server (`[mcp_servers.editwarden]`) and Codex's PreToolUse/PostToolUse
 * command hooks on its edit tool `apply_patch` (Codex ≥ 0.124 runs hooks,
 * Claude-compatible: JSON on stdin, exit 2 blocks with stderr as the reason).
 * The patch is parsed by editwarden's own apply_patch parser and planned
 * like `apply_patch` over MCP.
 *
 * Codex loads a project's `.codex/config.toml` only once the project is
 * trusted, and may ask to trust new hooks (`/hooks`); init says so. The TOML
 * is parsed and rewritten with smol-toml: every key is kept, comments are not.
 */
import path from 'node:path';
import { parse, stringify } from 'smol-toml';
import type { ErrorInfo } from '../errors.js';
import { parseApplyPatch } from '../formats/apply-patch.js';
import {
  arrayAt,
  dropIfEmpty,
  editToolOf,
  guardedHookCommand,
  hookMatcher,
  mcpServer,
  objectAt,
  putServer,
  refusalText,
  removeOurHooks,
  settingsError,
  takeServer,
  upsertHookGroup,
  type ClientIntegration,
  type ClientTools,
} from './client.js';
import { NativeInputError, objectOf, stringField, type NativeEdit } from './native-edit.js';
import { defined } from '../defined.js';
import { codexTrustCheck } from './codex-trust.js';
import { putProfile, takeProfile } from './codex-profile.js';

/**
 * Codex's tools: its edit tool apply_patch (editwarden's own patch format); its shell (exec_command), which Codex
 * names Bash in hook inputs, rewritten as Claude Code's; and the names Codex has used for its shell in other
 * releases, whose hook input shape is unknown here: refused, never passed.
 */
const TOOLS = {
  edit: { apply_patch: 'apply_patch' },
  shell: ['Bash'],
  refusedShell: ['shell', 'exec_command', 'local_shell', 'unified_exec'],
} as const satisfies ClientTools;

function patchText(toolInput: unknown): string {
  if (typeof toolInput === 'string') return toolInput;
  const ti = objectOf(toolInput, 'tool_input');
  for (const key of ['command', 'patch', 'input']) {
    const v = ti[key];
    if (typeof v === 'string') return v;
    if (Array.isArray(v)) {
      const text = v.find((x) => typeof x === 'string' && x.includes('*** Begin Patch'));
      if (typeof text === 'string') return text;
    }
  }
  throw new NativeInputError('the apply_patch input holds no patch text');
}

export function codexNativeEdit(input: Record<string, unknown>): NativeEdit | null {
  const tool = typeof input.tool_name === 'string' ? input.tool_name : '';
  const as = editToolOf(TOOLS, tool);
  if (as === undefined) return null;
  const parsed = parseApplyPatch(patchText(input.tool_input));
  const first = parsed.errors[0];
  // A patch editwarden cannot read cannot be vetted: refused, not waved through.
  if (first) throw new NativeInputError(`the patch does not parse: ${first.error.message}`);
  if (parsed.requests.length === 0) throw new NativeInputError('the patch changes no file');
  return { client: 'codex', tool, as, ...defined({ call: typeof input.tool_use_id === 'string' ? input.tool_use_id : undefined }), requests: parsed.requests, pathsOnly: [] };
}

type Table = Record<string, unknown>;

function parseToml(existing: string | null): Table {
  try {
    return existing === null || existing.trim() === '' ? {} : (parse(existing) as Table);
  } catch {
    throw settingsError('.codex/config.toml', 'is not valid TOML');
  }
}

export const codex: ClientIntegration = {
  name: 'codex',
  events: { 'pre-tool-use': 'pre', 'post-tool-use': 'post' },
  // Sent with every hook input (Codex's hooks, Claude-compatible; the real client in test/integrations/codex-cli.test.ts).
  sessionFields: ['session_id'],
  tools: TOOLS,
  nativeEdit: codexNativeEdit,
  postCall: (input) => ({ tool: typeof input.tool_name === 'string' ? input.tool_name : '', ...defined({ call: typeof input.tool_use_id === 'string' ? input.tool_use_id : undefined }) }),
  deny: (error: ErrorInfo) => ({ exitCode: 2, stderr: refusalText(error) }),
  allow: () => ({ exitCode: 0 }),
  configFiles(root, setup) {
    const MARK = (name: string): string => ` hook codex ${name}`;
    const EVENTS = [
      ['PreToolUse', 'pre-tool-use'],
      ['PostToolUse', 'post-tool-use'],
    ] as const;
    return [
      {
        path: path.join(root, '.codex', 'config.toml'),
        render(existing) {
          const data = parseToml(existing);
          putServer(objectAt(data, 'mcp_servers'), mcpServer(setup), '.codex/config.toml');
          const hooks = objectAt(data, 'hooks');
          for (const [event, name] of EVENTS) {
            // PreToolUse also sees Codex's shell (Bash): rewritten to run through `editwarden shell`.
            const matcher = hookMatcher(TOOLS, event === 'PreToolUse' ? 'pre' : 'post');
            upsertHookGroup(arrayAt(hooks, event), MARK(name), { matcher, hooks: [{ type: 'command', command: guardedHookCommand('codex', name, '.', setup), timeout: 60 }] });
          }
          // Codex's own sandbox keeps editwarden's protected set read-only too, where a guarded command runs under it (codex-profile.ts).
          putProfile(data, root, setup?.configFile);
          return `${stringify(data)}\n`;
        },
        remove(existing) {
          if (existing === null) return null;
          const data = parseToml(existing);
          takeServer(objectAt(data, 'mcp_servers'));
          dropIfEmpty(data, 'mcp_servers');
          const hooks = objectAt(data, 'hooks');
          for (const [event, name] of EVENTS) removeOurHooks(hooks, event, MARK(name));
          dropIfEmpty(data, 'hooks');
          takeProfile(data);
          return Object.keys(data).length === 0 ? null : `${stringify(data)}\n`;
        },
        switches: () => [],
      },
    ];
  },
  shell: {
    commandOf: (ti) => stringField(ti, 'command'),
    // Codex 0.171 runs `updatedInput` only together with permissionDecision "allow" (without it the hook "failed" and the original command ran — seen here).
    rewrite: (ti, line) => ({ exitCode: 0, stdout: JSON.stringify({ hookSpecificOutput: { hookEventName: 'PreToolUse', permissionDecision: 'allow', updatedInput: { ...ti, command: line } } }) }),
  },
  hookTrust: codexTrustCheck,
  coverage: [
    "Covered (once Codex trusts the project and its hooks — `editwarden doctor` says whether it does): Codex's apply_patch is vetted by editwarden before it runs and checkpointed for `editwarden undo`; every shell command (Codex's Bash) runs through `editwarden shell` — in editwarden's sandbox when Codex runs without its own, and under Codex's own sandbox (-s workspace-write, its default) when editwarden can prove from the kernel that it keeps writes inside the project and /tmp (the result says which held it); one undo step per command that changed files, counted against this session's limits; a shell tool under another name is refused with the way through editwarden's MCP tool execute_command; the editwarden MCP tools are registered. If editwarden cannot run, the tool call is blocked.",
    "Not covered: hooks Codex has not been told to trust, or a project it does not trust (it then runs none — the step below); under Codex's own sandbox, .editwarden/ read-only (editwarden's own process writes it there; the permission profile init wrote keeps the config and every client's settings read-only — with -s workspace-write Codex ignores it, and they are only put back after the command), a private /tmp and the write witness; a rewritten command is approved by the hook (Codex's own approval prompt is skipped for it). Codex's shell starts each command in its workdir, so a `cd` does not carry over (as in Codex itself).",
  ].join('\n'),
};
