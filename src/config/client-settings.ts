/**
 * The files each client editwarden integrates with reads as its settings or
 * runs at start, by client: its part of the protected set
 * (protected-set.ts spreads this table into the one list). A client whose
 * settings an agent could write could have its hooks switched off, or a
 * command of the agent's choosing started with the person's rights.
 *
 * Keyed by the client's name: a client record (integrations/client.ts
 * `ClientIntegration.name` is a `ClientName`) cannot exist without its row
 * here — the compiler refuses it — and test/package/architecture.test.ts
 * fails when a file the record's `init` writes is not covered by its row.
 * It sits on the config floor, not in the client's module, because the
 * protected set is read by the floors below the integrations (the Policy,
 * the sandbox's binds, restores). Pure data.
 */

export interface ClientSetting {
  /** Root-relative, '/' separators. */
  readonly path: string;
  /** Everything below it is covered too. */
  readonly folder: boolean;
  /** Why an agent must never write it, for a person. */
  readonly reason: string;
}

export const CLIENT_SETTINGS = {
  claude: [
    { path: '.claude', folder: true, reason: 'Claude Code project settings: hooks and permissions (settings.json, settings.local.json), commands, agents and skills it loads' },
    { path: '.mcp.json', folder: false, reason: 'Claude Code project MCP servers: commands the client starts with your rights' },
  ],
  gemini: [{ path: '.gemini', folder: true, reason: 'Gemini CLI project settings: hooks, MCP servers, tool discovery commands, extensions and custom commands' }],
  codex: [{ path: '.codex', folder: true, reason: 'Codex project config (config.toml): hooks and MCP servers it starts' }],
  cursor: [{ path: '.cursor', folder: true, reason: 'Cursor project settings: hooks.json, mcp.json, environment.json and rules it loads' }],
  opencode: [
    { path: '.opencode', folder: true, reason: 'opencode project folder: plugins (code opencode loads at start with your rights), agents, commands, and the packages it installs there' },
    { path: 'opencode.json', folder: false, reason: 'opencode project config: plugins, MCP servers and commands it starts with your rights' },
    { path: 'opencode.jsonc', folder: false, reason: 'opencode project config: plugins, MCP servers and commands it starts with your rights' },
  ],
  copilot: [
    { path: '.github/hooks', folder: true, reason: 'GitHub Copilot CLI repository hooks: commands it runs around every tool call' },
    { path: '.github/copilot', folder: true, reason: 'GitHub Copilot CLI repository settings (settings.json, settings.local.json): hooks and permissions' },
  ],
  qwen: [{ path: '.qwen', folder: true, reason: 'Qwen Code project settings: hooks, MCP servers, commands and agents it loads' }],
} as const satisfies Readonly<Record<string, readonly ClientSetting[]>>;

/** The name of a client editwarden integrates with (`editwarden init <client>`, `editwarden hook <client> …`). */
export type ClientName = keyof typeof CLIENT_SETTINGS;
