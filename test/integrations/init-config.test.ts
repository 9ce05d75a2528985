/**
 * An explicit `--config FILE` reaches the hooks: `editwarden init <client>
 * --config F` writes it into every command the client's settings run (the
 * hook and the MCP server), as a path relative to the root; the hook loads
 * that file (its tightenings apply to native edits) and protects it — and
 * its real target when it is a link — like .editwarden.yml. Without it, a
 * native Write rewrote the config that governs the session.
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { CLIENTS } from '../../src/integrations/index.js';
import { planInit, portableConfigPath } from '../../src/integrations/init.js';
import { codeOf } from '../error-code.js';
import { editwardenHere } from './cli-in-process.js';
import { cleanup, clientPath, editwarden, project, runClaude, toolResults } from './helpers.js';

afterAll(cleanup);

const CONFIG = 'constraints:\n  denied_patterns: ["secret/**"]\n';

/** A git project whose config lives at tools/ew.yml, a link to common/ew.yml (a monorepo habit). */
function linkedConfigProject(): string {
  const root = project({ 'common/ew.yml': CONFIG, 'notes.txt': 'notes\n' });
  fs.mkdirSync(path.join(root, 'tools'));
  fs.symlinkSync('../common/ew.yml', path.join(root, 'tools', 'ew.yml'));
  return root;
}

function write(file: string): string {
  return JSON.stringify({ tool_name: 'Write', tool_input: { file_path: file, content: 'constraints: {}\n' }, cwd: path.dirname(file) });
}

/**
 * The hook command `init` wrote into .claude/settings.json for PreToolUse, run as Claude Code runs it (sh -c, the
 * project dir in the environment): Claude Code's refusal is exit 0 with permissionDecision "deny" and the reason.
 */
function settingsHook(root: string, input: string): { denied: boolean; reason: string } {
  const settings = JSON.parse(fs.readFileSync(path.join(root, '.claude', 'settings.json'), 'utf8'));
  const command: string = settings.hooks.PreToolUse[0].hooks[0].command;
  // As on the person's machine: the hook reaches the run's warm server (decided there, or by itself when none answers yet).
  const r = spawnSync('sh', ['-c', command], { cwd: root, input, encoding: 'utf8', env: { ...process.env, PATH: clientPath(true), CLAUDE_PROJECT_DIR: root } });
  if (r.status !== 0) throw new Error(`hook exited ${r.status}: ${r.stderr}`);
  const out = r.stdout.trim() === '' ? {} : JSON.parse(r.stdout);
  return { denied: out.hookSpecificOutput?.permissionDecision === 'deny', reason: out.hookSpecificOutput?.permissionDecisionReason ?? '' };
}

describe('init --config writes the file into every command the settings run', () => {
  it('every client: the hook commands and the MCP server (where init registers one) carry --config tools/ew.yml (root-relative, portable)', () => {
    const root = linkedConfigProject();
    const setup = { configFile: portableConfigPath(root, path.join(root, 'tools', 'ew.yml')) };
    expect(setup.configFile).toBe('tools/ew.yml');
    for (const client of Object.values(CLIENTS)) {
      const texts = planInit(client, root, 'add', setup).map((c) => c.after ?? '');
      const hooks = texts.join('\n').match(/hook \w+ [\w-]+[^;"]*/g) ?? [];
      expect(hooks.length, client.name).toBeGreaterThan(0);
      for (const h of hooks) expect(h, client.name).toContain('--config tools/ew.yml');
      // init copilot registers no MCP server (the project's .mcp.json Copilot reads is Claude Code's: docs/integrations.md, Copilot's page).
      if (client.name === 'copilot') expect(texts.join('\n'), client.name).not.toMatch(/\bmcp\b/);
      else expect(texts.join('\n'), client.name).toMatch(/mcp --config tools\/ew\.yml/);
    }
  });

  it('refuses a path the command line cannot carry safely, and a file that does not exist', () => {
    const root = project({ 'my cfg.yml': CONFIG, 'a$b.yml': CONFIG });
    expect(codeOf(() => portableConfigPath(root, path.join(root, 'my cfg.yml')))).toBe('E_USAGE');
    expect(codeOf(() => portableConfigPath(root, path.join(root, 'a$b.yml')))).toBe('E_USAGE');
    expect(codeOf(() => portableConfigPath(root, path.join(root, 'missing.yml')))).toBe('E_CONFIG');
  });
});

describe('the hook loads the --config file and protects it', () => {
  it('a native Write of the config and of its real target is refused; the file’s own tightening applies; without --config neither held', () => {
    const root = linkedConfigProject();
    const init = editwarden(['init', 'claude', '--root', root, '--config', 'tools/ew.yml'], { cwd: root });
    expect(init.code, init.stderr).toBe(0);
    for (const target of ['tools/ew.yml', 'common/ew.yml', 'secret/key.txt']) {
      const r = settingsHook(root, write(path.join(root, target)));
      expect(r.denied, target).toBe(true);
      expect(r.reason, target).toMatch(target === 'secret/key.txt' ? /E_CONSTRAINT|E_DENIED_PATH/ : /E_DENIED_PATH/);
    }
    expect(settingsHook(root, write(path.join(root, 'notes.txt'))).denied).toBe(false);
    // Today's settings (no --config): the hook knew neither the file nor its rules.
    const plain = editwarden(['init', 'claude', '--root', root], { cwd: root });
    expect(plain.code, plain.stderr).toBe(0);
    for (const target of ['common/ew.yml', 'secret/key.txt']) expect(settingsHook(root, write(path.join(root, target))).denied, target).toBe(false);
  });

  it('a Bash call the hook rewrites runs `editwarden shell --config`: the sandboxed command cannot change the config’s real target', async () => {
    const root = linkedConfigProject();
    // Setup (the binary's init --config is pinned above): the built CLI, in this process.
    const init = await editwardenHere(['init', 'claude', '--root', root, '--config', path.join(root, 'tools', 'ew.yml')]);
    expect(init.code, init.stderr).toBe(0);
    const settings = JSON.parse(fs.readFileSync(path.join(root, '.claude', 'settings.json'), 'utf8'));
    const hook: string = settings.hooks.PreToolUse[0].hooks[0].command;
    const env = { ...process.env, PATH: clientPath(true), CLAUDE_PROJECT_DIR: root };
    const input = JSON.stringify({ tool_name: 'Bash', tool_input: { command: 'printf "constraints: {}\\n" > common/ew.yml; echo done' }, cwd: root });
    const answered = spawnSync('sh', ['-c', hook], { cwd: root, input, encoding: 'utf8', env });
    const line: string = JSON.parse(answered.stdout).hookSpecificOutput.updatedInput.command;
    expect(line).toContain("'--config'");
    const ran = spawnSync('sh', ['-c', line], { cwd: root, encoding: 'utf8', env });
    expect(ran.stdout + ran.stderr).toContain('done');
    expect(fs.readFileSync(path.join(root, 'common', 'ew.yml'), 'utf8')).toBe(CONFIG);
  });

  it('the real Claude Code: a native Edit of the --config file is refused with E_DENIED_PATH and the file is unchanged', async () => {
    const root = linkedConfigProject();
    // Setup (the binary's init --config is pinned above): the built CLI, in this process.
    const init = await editwardenHere(['init', 'claude', '--root', root, '--config', path.join(root, 'tools', 'ew.yml')]);
    expect(init.code, init.stderr).toBe(0);
    const target = path.join(root, 'common', 'ew.yml');
    const run = await runClaude(root, [
      { name: 'Read', args: { file_path: target } },
      { name: 'Edit', args: { file_path: target, old_string: 'secret/**', new_string: 'nothing' } },
    ]);
    expect(run.code, run.stderr).toBe(0);
    expect(toolResults(run.requests)[1]).toContain('E_DENIED_PATH');
    expect(fs.readFileSync(target, 'utf8')).toBe(CONFIG);
  }, 120_000);
});
