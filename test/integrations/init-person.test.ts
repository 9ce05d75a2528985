/**
 * `init` and `init --remove` touch only what editwarden added (issue 38.7),
 * in every client's settings format, through the real binary:
 * - a hook of the person's that shares a matcher group with editwarden's
 *   stays on a second `init` and on `--remove`;
 * - an MCP server of the person's named `editwarden` is never overwritten
 *   (init refuses with E_SETTINGS_CONFLICT, writing nothing) nor removed;
 * - `--remove` gives the person's file back byte for byte where
 *   editwarden's entries were the only change — their indentation, key
 *   order, one-line lists, TOML comments.
 */
import fs from 'node:fs';
import path from 'node:path';
import { parse, stringify } from 'smol-toml';
import { afterAll, describe, expect, it } from 'vitest';
import { editwardenHere } from './cli-in-process.js';
import { cleanup, editwarden, project, tempDir } from './helpers.js';

afterAll(cleanup);

type Table = Record<string, unknown>;
type Group = { matcher?: string; hooks: Array<{ command?: string }> };

/** Where each client keeps its hook groups and MCP servers, and how its file is read and written. */
const FORMATS = {
  claude: { hooks: '.claude/settings.json', event: 'PreToolUse', servers: '.mcp.json', serversKey: 'mcpServers', toml: false },
  gemini: { hooks: '.gemini/settings.json', event: 'BeforeTool', servers: '.gemini/settings.json', serversKey: 'mcpServers', toml: false },
  codex: { hooks: '.codex/config.toml', event: 'PreToolUse', servers: '.codex/config.toml', serversKey: 'mcp_servers', toml: true },
  qwen: { hooks: '.qwen/settings.json', event: 'PreToolUse', servers: '.qwen/settings.json', serversKey: 'mcpServers', toml: false },
} as const;

function read(root: string, rel: string, toml: boolean): Table {
  const text = fs.readFileSync(path.join(root, rel), 'utf8');
  return (toml ? parse(text) : JSON.parse(text)) as Table;
}

function write(root: string, rel: string, data: Table, toml: boolean): void {
  fs.writeFileSync(path.join(root, rel), toml ? `${stringify(data)}\n` : `${JSON.stringify(data, null, 2)}\n`);
}

function groups(root: string, f: (typeof FORMATS)[keyof typeof FORMATS]): Group[] {
  return ((read(root, f.hooks, f.toml).hooks as Table | undefined)?.[f.event] as Group[] | undefined) ?? [];
}

const ours = (g: Group): boolean => g.hooks.some((h) => h.command?.includes(' hook ') === true);

function init(root: string, client: string, ...more: string[]) {
  const r = editwarden(['init', client, '--root', root, ...more]);
  return { ...r, out: `${r.stdout}${r.stderr}` };
}

/**
 * The first init of a test whose subject is what comes after it (a second init, --remove): setup, so the built CLI in
 * this process (cli-in-process.ts); every call a test asserts on stays the real binary (init above).
 */
async function initHere(root: string, client: string): Promise<number | null> {
  return (await editwardenHere(['init', client, '--root', root])).code;
}

describe.each(Object.entries(FORMATS))('%s: a hook of the person’s in editwarden’s matcher group', (client, f) => {
  it('stays, with the group’s matcher, on a second init and on init --remove; editwarden’s hook is there once, then gone', async () => {
    const root = project({});
    expect(await initHere(root, client)).toBe(0);
    // The person adds their own hook to the group init wrote (same matcher: it runs on the same tools).
    const data = read(root, f.hooks, f.toml);
    const list = (data.hooks as Table)[f.event] as Group[];
    const group = list.find(ours) as Group;
    group.hooks.push({ type: 'command', command: './scripts/lint-staged.sh' } as { command: string });
    write(root, f.hooks, data, f.toml);
    const matcher = group.matcher;

    expect(init(root, client).code).toBe(0);
    const after = groups(root, f);
    const mine = after.filter((g) => g.hooks.some((h) => h.command === './scripts/lint-staged.sh'));
    expect(mine, JSON.stringify(after)).toHaveLength(1);
    expect(mine[0]?.matcher).toBe(matcher);
    expect(after.flatMap((g) => g.hooks).filter((h) => h.command?.includes(` hook ${client} `))).toHaveLength(1);
    // A third init changes nothing.
    expect(init(root, client).out).not.toMatch(/^(created|updated) /m);

    expect(init(root, client, '--remove').code).toBe(0);
    const left = groups(root, f);
    expect(left.flatMap((g) => g.hooks).map((h) => h.command)).toEqual(['./scripts/lint-staged.sh']);
    expect(left[0]?.matcher).toBe(matcher);
  });
});

describe('an MCP server of the person’s named "editwarden"', () => {
  const theirs = { command: 'my-editwarden-fork', args: ['--serve'] };
  const cases = [
    { client: 'claude', file: '.mcp.json', text: `${JSON.stringify({ mcpServers: { editwarden: theirs } }, null, 2)}\n` },
    { client: 'gemini', file: '.gemini/settings.json', text: `${JSON.stringify({ mcpServers: { editwarden: theirs } }, null, 2)}\n` },
    { client: 'codex', file: '.codex/config.toml', text: '[mcp_servers.editwarden]\ncommand = "my-editwarden-fork"\nargs = ["--serve"]\n' },
    { client: 'cursor', file: '.cursor/mcp.json', text: `${JSON.stringify({ mcpServers: { editwarden: theirs } }, null, 2)}\n` },
    { client: 'qwen', file: '.qwen/settings.json', text: `${JSON.stringify({ mcpServers: { editwarden: theirs } }, null, 2)}\n` },
    { client: 'opencode', file: 'opencode.json', text: `${JSON.stringify({ mcp: { editwarden: { type: 'local', command: ['my-editwarden-fork', '--serve'] } } }, null, 2)}\n` },
  ];
  it.each(cases)('$client ($file): init refuses with E_SETTINGS_CONFLICT and writes nothing; --remove leaves it', ({ client, file, text }) => {
    const extra = client === 'claude' ? { '.claude/settings.json': `${JSON.stringify({ enabledMcpjsonServers: ['editwarden'] }, null, 2)}\n` } : {};
    const root = project({ [file]: text, ...extra });
    const before = Object.fromEntries([file, ...Object.keys(extra)].map((rel) => [rel, fs.readFileSync(path.join(root, rel), 'utf8')]));
    const refused = init(root, client);
    expect(refused.code).toBe(64);
    expect(refused.out).toContain('E_SETTINGS_CONFLICT');
    expect(refused.out).toContain('not editwarden');
    for (const [rel, t] of Object.entries(before)) expect(fs.readFileSync(path.join(root, rel), 'utf8'), rel).toBe(t);
    const removed = init(root, client, '--remove');
    expect(removed.code, removed.out).toBe(0);
    for (const [rel, t] of Object.entries(before)) expect(fs.readFileSync(path.join(root, rel), 'utf8'), rel).toBe(t);
  });
});

/** Settings as people write them by hand: their indentation, one-line lists, key order, comments (TOML). */
const HAND_WRITTEN: Record<string, Record<string, string>> = {
  claude: {
    '.claude/settings.json':
      '{\n    "model": "opus",\n    "permissions": { "allow": ["Bash(npm test)", "Read"], "deny": [] },\n    "hooks": {\n        "PreToolUse": [ { "matcher": "Bash", "hooks": [ { "type": "command", "command": "audit.sh" } ] } ]\n    }\n}\n',
    '.mcp.json': '{\n\t"mcpServers": {\n\t\t"other": { "command": "other-server", "args": ["--x"] }\n\t}\n}',
  },
  gemini: { '.gemini/settings.json': '{ "theme": "dark",\n  "mcpServers": { "other": { "command": "x" } } }\n' },
  codex: { '.codex/config.toml': '# my Codex settings\nmodel = "o3"   # the model I use\n\n[mcp_servers.other]\ncommand = "other-server"\n\n[sandbox_workspace_write]\nnetwork_access = false\n' },
  cursor: { '.cursor/mcp.json': '{"mcpServers":{"other":{"url":"http://localhost:1"}}}', '.cursor/hooks.json': '{\n   "version": 1,\n   "hooks": { "beforeShellExecution": [ { "command": "guard.sh" } ] }\n}\n' },
  opencode: { 'opencode.json': '{\n    "model": "anthropic/claude-sonnet",  "mcp": { "other": { "type": "remote", "url": "http://localhost:1" } }\n}\n' },
  copilot: { '.github/hooks/editwarden.json': '{ "version": 1, "hooks": { "sessionStart": [ { "type": "command", "bash": "echo hello" } ] } }' },
  qwen: { '.qwen/settings.json': '{\n  "$version": 4,\n  "model": { "name": "qwen3-coder" },\n  "mcpServers": { "other": { "command": "x" } }\n}\n' },
};

describe.each(Object.keys(HAND_WRITTEN))('%s: init --remove gives the person’s files back byte for byte', (client) => {
  const files = HAND_WRITTEN[client] as Record<string, string>;
  it('where editwarden’s entries were the only change (the record init kept outside the repository)', async () => {
    const root = project(files);
    expect(await initHere(root, client)).toBe(0);
    for (const rel of Object.keys(files)) expect(fs.readFileSync(path.join(root, rel), 'utf8'), rel).not.toBe(files[rel]);
    // A second init (nothing to change) keeps the person's original as what --remove gives back.
    expect(init(root, client).code).toBe(0);
    expect(init(root, client, '--remove').code).toBe(0);
    for (const [rel, text] of Object.entries(files)) expect(fs.readFileSync(path.join(root, rel), 'utf8'), rel).toBe(text);
  });
});

/** Clients whose settings are JSON: without a record, a value written back keeps the file's own indentation. */
describe.each(['claude', 'gemini', 'cursor', 'opencode', 'copilot', 'qwen'])('%s: init --remove on a machine with no record (a teammate’s)', (client) => {
  const files = HAND_WRITTEN[client] as Record<string, string>;
  it('takes editwarden’s entries out in the file’s own indentation, byte for byte where the file was formatted throughout', async () => {
    // Files as a formatter writes them (one indentation throughout): what a value written back can match.
    const formatted = Object.fromEntries(Object.entries(files).map(([rel, text], i) => [rel, `${JSON.stringify(JSON.parse(text), null, i % 2 === 0 ? 4 : '\t')}\n`]));
    const root = project(formatted);
    expect(await initHere(root, client)).toBe(0);
    const teammate = { ...process.env, XDG_DATA_HOME: tempDir('ew-teammate-') };
    const removed = editwarden(['init', client, '--remove', '--root', root], { env: teammate });
    expect(removed.code, removed.stderr).toBe(0);
    for (const [rel, text] of Object.entries(formatted)) expect(fs.readFileSync(path.join(root, rel), 'utf8'), rel).toBe(text);
  });
});
