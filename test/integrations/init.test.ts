/**
 * `editwarden init <client>` through the real binary: idempotent, keeps
 * every existing setting, --dry-run shows a diff and writes nothing, and
 * the commands it writes run this editwarden by absolute path (no PATH).
 */
import fs from 'node:fs';
import path from 'node:path';
import { parse } from 'smol-toml';
import { afterAll, describe, expect, it } from 'vitest';
import { BIN, cleanup, editwarden, project } from './helpers.js';

afterAll(cleanup);

const EXISTING: Record<string, Record<string, string>> = {
  claude: {
    '.claude/settings.json': JSON.stringify({ model: 'opus', permissions: { allow: ['Bash(npm test)'], deny: ['Read(./.env)'] }, hooks: { PreToolUse: [{ matcher: 'Bash', hooks: [{ type: 'command', command: 'audit.sh' }] }] } }),
    '.mcp.json': JSON.stringify({ mcpServers: { other: { command: 'other-server', args: ['--x'] } } }),
  },
  codex: { '.codex/config.toml': 'model = "o3"\n\n[mcp_servers.other]\ncommand = "other-server"\n\n[sandbox_workspace_write]\nnetwork_access = false\n' },
  gemini: { '.gemini/settings.json': JSON.stringify({ theme: 'dark', mcpServers: { other: { command: 'x' } }, hooks: { BeforeTool: [{ matcher: 'run_shell_command', hooks: [{ type: 'command', command: 'check.sh' }] }] } }) },
  cursor: { '.cursor/mcp.json': JSON.stringify({ mcpServers: { other: { url: 'http://localhost:1' } } }), '.cursor/hooks.json': JSON.stringify({ version: 1, hooks: { beforeShellExecution: [{ command: 'guard.sh' }] } }) },
};

/** Whether `now` still holds everything `old` held: objects key by key, lists element by element (new elements may be added). */
function keeps(old: unknown, now: unknown): boolean {
  if (Array.isArray(old)) return Array.isArray(now) && old.every((o) => now.some((n) => keeps(o, n) && keeps(n, o)));
  if (typeof old === 'object' && old !== null) {
    if (typeof now !== 'object' || now === null) return false;
    return Object.entries(old).every(([k, v]) => keeps(v, (now as Record<string, unknown>)[k]));
  }
  return old === now;
}

function snapshot(root: string, files: string[]): Record<string, string | null> {
  return Object.fromEntries(files.map((f) => [f, fs.existsSync(path.join(root, f)) ? fs.readFileSync(path.join(root, f), 'utf8') : null]));
}

const FILES: Record<string, string[]> = {
  claude: ['.claude/settings.json', '.mcp.json'],
  codex: ['.codex/config.toml'],
  gemini: ['.gemini/settings.json'],
  cursor: ['.cursor/mcp.json', '.cursor/hooks.json'],
};

describe.each(Object.keys(FILES))('editwarden init %s', (client) => {
  it('run twice changes nothing the second time and keeps every existing setting', () => {
    const root = project(EXISTING[client] as Record<string, string>);
    const first = editwarden(['init', client, '--root', root]);
    expect(first.code, first.stderr).toBe(0);
    const after = snapshot(root, FILES[client] as string[]);
    const second = editwarden(['init', client, '--root', root]);
    expect(second.code).toBe(0);
    expect(second.stdout.match(/^unchanged /gm)).toHaveLength((FILES[client] as string[]).length);
    expect(snapshot(root, FILES[client] as string[])).toEqual(after);
    const text = Object.values(after).join('\n');
    // Every existing setting is still there.
    for (const [file, before] of Object.entries(EXISTING[client] as Record<string, string>)) {
      const now = after[file] as string;
      if (file.endsWith('.toml')) {
        const old = parse(before) as Record<string, Record<string, unknown>>;
        const cur = parse(now) as Record<string, Record<string, unknown>>;
        expect(cur.model).toBe(old.model);
        expect(cur.mcp_servers?.other).toEqual(old.mcp_servers?.other);
        expect(cur.sandbox_workspace_write).toEqual(old.sandbox_workspace_write);
      } else {
        expect(keeps(JSON.parse(before), JSON.parse(now)), `${file} lost a setting:\n${now}`).toBe(true);
      }
    }
    // The command is this Node and this binary, by absolute path: it works without editwarden on PATH.
    expect(text).toContain(process.execPath);
    expect(text).toContain(BIN);
  });

  it('--dry-run prints the diff and writes nothing', () => {
    const root = project(EXISTING[client] as Record<string, string>);
    const before = snapshot(root, FILES[client] as string[]);
    const dry = editwarden(['init', client, '--root', root, '--dry-run']);
    expect(dry.code).toBe(0);
    expect(dry.stdout).toMatch(/^\+\+\+ b\//m);
    expect(dry.stdout).toContain('dry run: nothing was written.');
    expect(snapshot(root, FILES[client] as string[])).toEqual(before);
  });
});

describe('what init writes for Claude Code', () => {
  it('adds PreToolUse and PostToolUse hooks on Edit|Write|MultiEdit|NotebookEdit and enables the MCP server for the project', () => {
    const root = project({});
    expect(editwarden(['init', 'claude', '--root', root]).code).toBe(0);
    const settings = JSON.parse(fs.readFileSync(path.join(root, '.claude/settings.json'), 'utf8')) as {
      hooks: Record<string, Array<{ matcher: string; hooks: Array<{ command: string }> }>>;
      enabledMcpjsonServers: string[];
    };
    expect(settings.hooks.PreToolUse?.[0]?.matcher).toBe('Edit|Write|MultiEdit|NotebookEdit');
    expect(settings.hooks.PreToolUse?.[0]?.hooks[0]?.command).toMatch(/ hook claude pre-tool-use$/);
    expect(settings.hooks.PostToolUse?.[0]?.hooks[0]?.command).toMatch(/ hook claude post-tool-use$/);
    expect(settings.enabledMcpjsonServers).toContain('editwarden');
    const mcp = JSON.parse(fs.readFileSync(path.join(root, '.mcp.json'), 'utf8')) as { mcpServers: Record<string, { command: string; args: string[] }> };
    expect(mcp.mcpServers.editwarden).toMatchObject({ command: process.execPath, args: [BIN, 'mcp'] });
  });

  it('refuses to merge into a settings file that is not JSON, and changes nothing', () => {
    const root = project({ '.claude/settings.json': '{ not json' });
    const r = editwarden(['init', 'claude', '--root', root]);
    expect(r.code).toBe(64); // E_CONFIG: the settings file is configuration (docs/errors.md)
    expect(r.stderr).toContain('not valid JSON');
    expect(fs.readFileSync(path.join(root, '.claude/settings.json'), 'utf8')).toBe('{ not json');
    expect(fs.existsSync(path.join(root, '.mcp.json'))).toBe(false);
  });

  it('refuses an unknown client with a usage error', () => {
    const r = editwarden(['init', 'vim', '--root', project({})]);
    expect(r.code).toBe(64);
    expect(r.stderr).toContain('E_USAGE');
  });
});
