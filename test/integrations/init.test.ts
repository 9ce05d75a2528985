/**
 * `editwarden init <client>` through the real binary: idempotent, keeps
 * every existing setting, --dry-run shows a diff and writes nothing, the
 * commands it writes name no path of this machine (the settings are
 * committed), hostile switches are taken out, symbolic links are never
 * followed, and --remove takes out exactly what init added.
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { parse } from 'smol-toml';
import { afterAll, describe, expect, it } from 'vitest';
import { editwardenHere } from './cli-in-process.js';
import { BIN, cleanup, editwarden, project, tempDir } from './helpers.js';

afterAll(cleanup);

const EXISTING: Record<string, Record<string, string>> = {
  claude: {
    '.claude/settings.json': JSON.stringify({ model: 'opus', permissions: { allow: ['Bash(npm test)'], deny: ['Read(./.env)'] }, hooks: { PreToolUse: [{ matcher: 'Bash', hooks: [{ type: 'command', command: 'audit.sh' }] }] } }),
    '.mcp.json': JSON.stringify({ mcpServers: { other: { command: 'other-server', args: ['--x'] } } }),
  },
  codex: { '.codex/config.toml': 'model = "o3"\n\n[mcp_servers.other]\ncommand = "other-server"\n\n[sandbox_workspace_write]\nnetwork_access = false\n' },
  gemini: { '.gemini/settings.json': JSON.stringify({ theme: 'dark', mcpServers: { other: { command: 'x' } }, hooks: { BeforeTool: [{ matcher: 'run_shell_command', hooks: [{ type: 'command', command: 'check.sh' }] }] } }) },
  cursor: { '.cursor/mcp.json': JSON.stringify({ mcpServers: { other: { url: 'http://localhost:1' } } }), '.cursor/hooks.json': JSON.stringify({ version: 1, hooks: { beforeShellExecution: [{ command: 'guard.sh' }] } }) },
  opencode: { 'opencode.json': JSON.stringify({ model: 'anthropic/claude-sonnet', mcp: { other: { type: 'remote', url: 'http://localhost:1' } }, plugin: ['opencode-wakatime'] }) },
  copilot: { '.github/hooks/editwarden.json': JSON.stringify({ version: 1, hooks: { sessionStart: [{ type: 'command', bash: 'echo hello' }], preToolUse: [{ type: 'command', bash: './audit.sh' }] } }) },
  qwen: { '.qwen/settings.json': JSON.stringify({ model: { name: 'qwen3-coder' }, mcpServers: { other: { command: 'x' } }, hooks: { PreToolUse: [{ matcher: 'run_shell_command', hooks: [{ type: 'command', command: 'check.sh' }] }] } }) },
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
  opencode: ['opencode.json', '.opencode/plugins/editwarden.js'],
  copilot: ['.github/hooks/editwarden.json'],
  qwen: ['.qwen/settings.json'],
};

describe.each(Object.keys(FILES))('editwarden init %s', (client) => {
  it('run twice changes nothing the second time and keeps every existing setting', () => {
    const root = project(EXISTING[client] as Record<string, string>);
    const first = editwarden(['init', client, '--root', root]);
    expect(first.code, first.stderr).toBe(0);
    const after = snapshot(root, FILES[client] as string[]);
    const second = editwarden(['init', client, '--root', root]);
    expect(second.code).toBe(0);
    expect(second.stdout).not.toMatch(/^(created|updated|removed) /m);
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
    // Committed settings name no path of this machine's install: they find editwarden on PATH or in the project's node_modules.
    expect(text).not.toContain(process.execPath);
    expect(text).not.toContain(path.dirname(BIN));
    expect(text).toContain('command -v editwarden');
  });

  it('--remove after init gives back the same settings value, and files init created are gone', async () => {
    const root = project(EXISTING[client] as Record<string, string>);
    const before = snapshot(root, FILES[client] as string[]);
    // The init being taken out is setup (the binary's init is pinned above): the built CLI, in this process.
    expect((await editwardenHere(['init', client, '--root', root])).code).toBe(0);
    const removed = editwarden(['init', client, '--remove', '--root', root]);
    expect(removed.code, removed.stderr).toBe(0);
    const now = snapshot(root, FILES[client] as string[]);
    for (const [file, text] of Object.entries(before)) {
      if (text === null) expect(now[file], file).toBeNull();
      else if (file.endsWith('.toml')) expect(parse(now[file] as string)).toEqual(parse(text));
      else expect(JSON.parse(now[file] as string)).toEqual(JSON.parse(text));
    }
    // On a project with no settings at all, --remove leaves none.
    const bare = project({});
    expect((await editwardenHere(['init', client, '--root', bare])).code).toBe(0);
    expect(editwarden(['init', client, '--remove', '--root', bare]).code).toBe(0);
    for (const file of FILES[client] as string[]) expect(fs.existsSync(path.join(bare, file)), file).toBe(false);
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
    expect(settings.hooks.PreToolUse?.[0]?.matcher).toBe('Edit|Write|MultiEdit|NotebookEdit|Bash|mcp__editwarden__.*');
    expect(settings.hooks.PostToolUse?.[0]?.matcher).toBe('Edit|Write|MultiEdit|NotebookEdit');
    expect(settings.hooks.PreToolUse?.[0]?.hooks[0]?.command).toContain('"$ew" hook claude pre-tool-use;');
    expect(settings.hooks.PostToolUse?.[0]?.hooks[0]?.command).toContain('"$ew" hook claude post-tool-use;');
    expect(settings.enabledMcpjsonServers).toContain('editwarden');
    const mcp = JSON.parse(fs.readFileSync(path.join(root, '.mcp.json'), 'utf8')) as { mcpServers: Record<string, { command: string; args: string[] }> };
    // Found as the hooks find it: on PATH outside the project, else the project-local install through the person's launcher (guard-install.ts).
    const line = mcp.mcpServers.editwarden?.args[1] ?? '';
    expect(mcp.mcpServers.editwarden?.command).toBe('sh');
    expect(line).toContain('then exec "$ew" mcp;');
    expect(line).toContain('exec node "$ew_l" "$ew_p" mcp;');
    // Never the project's own .bin link (an install the agent could write), as the hooks before issue 38.1 fell back to.
    expect(line).not.toContain('node_modules/.bin/editwarden');
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

describe('a repository that ships switches turning the hooks off', () => {
  it('init takes out disableAllHooks from .claude/settings.json and settings.local.json, and says so', () => {
    const root = project({ '.claude/settings.json': JSON.stringify({ disableAllHooks: true, model: 'opus' }), '.claude/settings.local.json': JSON.stringify({ disableAllHooks: true, env: { A: '1' } }) });
    const r = editwarden(['init', 'claude', '--root', root]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain('took out .claude/settings.json: disableAllHooks');
    expect(r.stdout).toContain('took out .claude/settings.local.json: disableAllHooks');
    const settings = JSON.parse(fs.readFileSync(path.join(root, '.claude/settings.json'), 'utf8')) as Record<string, unknown>;
    expect(settings.disableAllHooks).toBeUndefined();
    expect(settings.model).toBe('opus');
    expect(JSON.parse(fs.readFileSync(path.join(root, '.claude/settings.local.json'), 'utf8'))).toEqual({ env: { A: '1' } });
  });

  it("init takes out Qwen Code's disableAllHooks from .qwen/settings.json, and says so", () => {
    const root = project({ '.qwen/settings.json': JSON.stringify({ disableAllHooks: true, model: { name: 'qwen3-coder' } }) });
    const r = editwarden(['init', 'qwen', '--root', root]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain('took out .qwen/settings.json: disableAllHooks');
    const settings = JSON.parse(fs.readFileSync(path.join(root, '.qwen/settings.json'), 'utf8')) as Record<string, unknown>;
    expect(settings.disableAllHooks).toBeUndefined();
    expect(settings.model).toEqual({ name: 'qwen3-coder' });
  });

  it("init takes out Gemini's hooksConfig.enabled: false and a disabled list naming editwarden's hook, keeping other names", () => {
    const root = project({ '.gemini/settings.json': JSON.stringify({ hooksConfig: { enabled: false, disabled: ['editwarden-before-tool', 'their-hook'] } }) });
    const r = editwarden(['init', 'gemini', '--root', root]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain('took out .gemini/settings.json: hooksConfig.enabled: false');
    const settings = JSON.parse(fs.readFileSync(path.join(root, '.gemini/settings.json'), 'utf8')) as { hooksConfig: Record<string, unknown> };
    expect(settings.hooksConfig).toEqual({ disabled: ['their-hook'] });
  });

  it('doctor names a switch put back after init', async () => {
    const root = project({});
    expect((await editwardenHere(['init', 'claude', '--root', root])).code).toBe(0);
    fs.writeFileSync(path.join(root, '.claude/settings.local.json'), JSON.stringify({ disableAllHooks: true }));
    // Its check of the clients' hook switches (the whole doctor, which also loads every grammar, runs in test/cli/doctor.test.ts).
    const r = editwarden(['doctor', '--root', root, '--only', 'client hooks']);
    expect(r.code).toBe(1);
    expect(r.stdout + r.stderr).toContain('.claude/settings.local.json: disableAllHooks');
  });
});

describe('init never follows a symbolic link', () => {
  it('refuses a symlinked .mcp.json (its secrets are not copied in) and a symlinked .claude folder, writing nothing', () => {
    const outside = tempDir('ew-outside-');
    fs.writeFileSync(path.join(outside, 'mcp.json'), JSON.stringify({ mcpServers: { x: { env: { TOKEN: 'secret' } } } }));
    fs.mkdirSync(path.join(outside, 'claude'));
    for (const [link, target] of [
      ['.mcp.json', path.join(outside, 'mcp.json')],
      ['.claude', path.join(outside, 'claude')],
    ] as const) {
      const root = project({});
      fs.symlinkSync(target, path.join(root, link));
      const r = editwarden(['init', 'claude', '--root', root]);
      expect(r.code).toBe(64);
      expect(r.stderr).toContain('E_SETTINGS_SYMLINK');
      expect(r.stderr).toContain('hint:');
      expect(fs.readdirSync(path.join(outside, 'claude'))).toEqual([]);
      expect(fs.existsSync(path.join(root, '.claude', 'settings.json'))).toBe(false);
    }
    expect(fs.readFileSync(path.join(outside, 'mcp.json'), 'utf8')).toContain('secret');
  });
});

describe('init and doctor never wait on a settings file that is no file', () => {
  it('a FIFO where a client reads settings: init refuses at once (E_NOT_REGULAR, nothing written), doctor names it', () => {
    for (const [client, file] of [
      ['claude', '.claude/settings.json'],
      ['claude', '.mcp.json'],
      ['gemini', '.gemini/settings.json'],
    ] as const) {
      const root = project({});
      fs.mkdirSync(path.dirname(path.join(root, file)), { recursive: true });
      expect(spawnSync('mkfifo', [path.join(root, file)]).status).toBe(0);
      // A real process with a deadline: the old read waited for a writer that never came.
      const r = spawnSync(process.execPath, [BIN, 'init', client, '--root', root], { encoding: 'utf8', timeout: 20_000 });
      expect(r.signal, `${file}: init was killed`).toBeNull();
      expect(r.stderr).toContain('E_NOT_REGULAR');
      expect(r.stderr).toContain(`${file} is not a regular file (a FIFO)`);
      expect(r.stderr).toContain('hint:');
      expect(fs.lstatSync(path.join(root, file)).isFIFO()).toBe(true);
      const doctor = spawnSync(process.execPath, [BIN, 'doctor', '--root', root, '--only', 'client hooks'], { encoding: 'utf8', timeout: 20_000 });
      expect(doctor.signal, `${file}: doctor was killed`).toBeNull();
      expect(doctor.status).toBe(1);
      expect(doctor.stdout).toContain(`${file} is not a regular file (a FIFO)`);
      expect(doctor.stdout).toContain('Replace it with a regular file');
    }
  });
});

describe('init says per client what is covered and what is not', () => {
  it.each([
    ['claude', 'every Bash command runs through `editwarden shell`'],
    ['gemini', 'every run_shell_command runs through `editwarden shell`'],
    ['codex', "every shell command (Codex's Bash) runs through `editwarden shell`"],
    ['cursor', "Cursor's terminal commands are not wrapped"],
    ['opencode', 'every bash command runs through `editwarden shell`'],
    ['copilot', 'every bash command runs through `editwarden shell`'],
    ['qwen', "is refused with the way through editwarden's MCP tool execute_command"],
  ])('%s', (client, line) => {
    const r = editwarden(['init', client, '--root', project({})]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/^Covered/m);
    expect(r.stdout).toMatch(/^Not covered: /m);
    expect(r.stdout).toContain(line);
    expect(r.stdout).toContain(`Take this out again with: editwarden init ${client} --remove`);
  });
});
