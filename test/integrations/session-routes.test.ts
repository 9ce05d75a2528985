/**
 * One ledger per client session, every route, through the real binary's
 * hook: a native Write, the client's shell and editwarden's own MCP tools
 * (`mcp__editwarden__*`, which Claude Code's PreToolUse sees) are charged to
 * the same session's limits — and the session's limits are the interactive
 * profile's: none unless the config sets them.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { cleanup, editwarden, project, tempDir } from './helpers.js';

afterAll(cleanup);

function hook(root: string, input: unknown): ReturnType<typeof editwarden> {
  return editwarden(['hook', 'claude', 'pre-tool-use', '--root', root], { input: JSON.stringify(input) });
}

function denial(out: string): string | null {
  if (out.trim() === '') return null;
  const parsed = JSON.parse(out) as { hookSpecificOutput: { permissionDecision?: string; permissionDecisionReason?: string } };
  return parsed.hookSpecificOutput.permissionDecision === 'deny' ? (parsed.hookSpecificOutput.permissionDecisionReason ?? '') : null;
}

describe("editwarden's MCP tools count against the client session's ledger", () => {
  it('under max_files: 1, a native Write then mcp__editwarden__write_file of another file in the same session is refused; another session, a dry run and a read are not charged', () => {
    const root = project({ '.editwarden.yml': 'constraints:\n  max_files: 1\n', 'seen.txt': 'x\n' });
    const native = hook(root, { session_id: 's-1', tool_name: 'Write', tool_use_id: 't1', tool_input: { file_path: path.join(root, 'native.txt'), content: 'native\n' } });
    expect(denial(native.stdout)).toBeNull();
    // A preview and a read write nothing: never charged.
    expect(denial(hook(root, { session_id: 's-1', tool_name: 'mcp__editwarden__write_file', tool_input: { path: 'mcp.txt', content: 'mcp\n', dry_run: true } }).stdout)).toBeNull();
    expect(denial(hook(root, { session_id: 's-1', tool_name: 'mcp__editwarden__read_file', tool_input: { path: 'seen.txt' } }).stdout)).toBeNull();
    const mcp = denial(hook(root, { session_id: 's-1', tool_name: 'mcp__editwarden__write_file', tool_input: { path: 'mcp.txt', content: 'mcp\n' } }).stdout);
    expect(mcp).toContain('E_CONSTRAINT');
    expect(mcp).toContain('2 of 1 files used in this session: native.txt, mcp.txt');
    expect(mcp).toContain(`constraints.max_files, set in ${path.join(root, '.editwarden.yml')}`);
    // The same call in another session fits that session's own ledger.
    expect(denial(hook(root, { session_id: 's-2', tool_name: 'mcp__editwarden__write_file', tool_input: { path: 'mcp.txt', content: 'mcp\n' } }).stdout)).toBeNull();
    // An edit_file the server would refuse (its old_text is not there) is the server's to refuse: not charged here.
    expect(denial(hook(root, { session_id: 's-3', tool_name: 'mcp__editwarden__edit_file', tool_input: { path: 'seen.txt', old_text: 'absent', new_text: 'y' } }).stdout)).toBeNull();
    expect(denial(hook(root, { session_id: 's-3', tool_name: 'Write', tool_input: { file_path: path.join(root, 'other.txt'), content: 'o\n' } }).stdout)).toBeNull();
  });

  it("under a cap, MCP execute_command (counted only by the server's own run) is refused with the client's shell named; with no cap it runs", () => {
    const capped = project({ '.editwarden.yml': 'constraints:\n  max_lines_changed: 50\n' });
    const refused = denial(hook(capped, { session_id: 's-1', tool_name: 'mcp__editwarden__execute_command', tool_input: { command: 'touch a b c' } }).stdout);
    expect(refused).toContain('E_SESSION_ROUTE');
    expect(refused).toContain('constraints.max_lines_changed = 50');
    expect(refused).toContain('Bash');
    // The shell the hint names is rewritten through the guarded shell, which charges this session's ledger.
    const bash = JSON.parse(hook(capped, { session_id: 's-1', tool_name: 'Bash', tool_input: { command: 'touch a b c' } }).stdout) as { hookSpecificOutput: { updatedInput?: { command?: string } } };
    expect(bash.hookSpecificOutput.updatedInput?.command).toContain('--session');
    const free = project({});
    expect(denial(hook(free, { session_id: 's-1', tool_name: 'mcp__editwarden__execute_command', tool_input: { command: 'touch a' } }).stdout)).toBeNull();
  });

  it('opencode, Copilot CLI and Qwen Code: a native write and an MCP write (or the rewritten shell) count in one ledger per session', () => {
    const root = project({ '.editwarden.yml': 'constraints:\n  max_files: 1\n' });
    const call = (client: string, event: string, input: unknown) => editwarden(['hook', client, event, '--root', root], { input: JSON.stringify(input) });
    // opencode (its plugin sends the common shape; answers are JSON decisions).
    expect(JSON.parse(call('opencode', 'tool-before', { session_id: 'oc', tool_name: 'write', tool_use_id: 'c1', tool_input: { filePath: 'one.txt', content: '1\n' }, cwd: root }).stdout)).toEqual({ decision: 'allow' });
    const oc = JSON.parse(call('opencode', 'tool-before', { session_id: 'oc', tool_name: 'editwarden_write_file', tool_input: { path: 'two.txt', content: '2\n' }, cwd: root }).stdout) as { decision: string; reason: string };
    expect(oc.decision).toBe('deny');
    expect(oc.reason).toContain('2 of 1 files used in this session');
    // Qwen Code (Claude-style input, exit 2 to refuse).
    expect(call('qwen', 'pre-tool-use', { session_id: 'qw', tool_name: 'write_file', tool_input: { file_path: path.join(root, 'one.txt'), content: '1\n' } }).code).toBe(0);
    const qw = call('qwen', 'pre-tool-use', { session_id: 'qw', tool_name: 'mcp__editwarden__write_file', tool_input: { path: 'two.txt', content: '2\n' } });
    expect(qw.code).toBe(2);
    expect(qw.stderr).toContain('2 of 1 files used in this session');
    // Qwen's shell is refused, and under a cap so is execute_command: the hint says so plainly, naming no shell Qwen cannot use.
    const cmd = call('qwen', 'pre-tool-use', { session_id: 'qw', tool_name: 'mcp__editwarden__execute_command', tool_input: { command: 'touch a' } });
    expect(cmd.code).toBe(2);
    expect(cmd.stderr).toContain('E_SESSION_ROUTE');
    expect(cmd.stderr).toContain("This client's own shell cannot be guarded either");
    expect(cmd.stderr).not.toContain('Bash');
    // Copilot CLI (toolName/toolArgs in; JSON permission decisions out): a native create, then its bash rewritten with the session named.
    const create = JSON.parse(call('copilot', 'pre-tool-use', { sessionId: 'cp', cwd: root, toolName: 'create', toolArgs: { path: 'one.txt', file_text: '1\n' } }).stdout) as Record<string, unknown>;
    expect(create).toEqual({});
    const edit = JSON.parse(call('copilot', 'pre-tool-use', { sessionId: 'cp', cwd: root, toolName: 'create', toolArgs: JSON.stringify({ path: 'two.txt', file_text: '2\n' }) }).stdout) as {
      permissionDecision: string;
      permissionDecisionReason: string;
    };
    expect(edit.permissionDecision).toBe('deny');
    expect(edit.permissionDecisionReason).toContain('2 of 1 files used in this session');
    const bash = JSON.parse(call('copilot', 'pre-tool-use', { sessionId: 'cp', cwd: root, toolName: 'bash', toolArgs: { command: 'touch x', description: 'd', mode: 'sync' } }).stdout) as {
      permissionDecision: string;
      modifiedArgs: Record<string, string>;
    };
    expect(bash.permissionDecision).toBe('allow');
    expect(bash.modifiedArgs.command).toContain("'--session' 'cp'");
    expect(bash.modifiedArgs).toMatchObject({ description: 'd', mode: 'sync' });
  });

  it('with no config, a session has no file cap: 12 native Writes and an MCP write of a 13th file pass the hook', () => {
    const root = project({});
    for (let i = 0; i < 12; i++) {
      const r = hook(root, { session_id: 's', tool_name: 'Write', tool_use_id: `t${i}`, tool_input: { file_path: path.join(root, `f${i}.txt`), content: `${i}\n` } });
      expect(denial(r.stdout), r.stderr).toBeNull();
      fs.writeFileSync(path.join(root, `f${i}.txt`), `${i}\n`);
    }
    const long = Array.from({ length: 600 }, (_, i) => `l${i}`).join('\n');
    expect(denial(hook(root, { session_id: 's', tool_name: 'mcp__editwarden__write_file', tool_input: { path: 'long.txt', content: long } }).stdout)).toBeNull();
  });
});

describe('init says what limits apply in the project and where to change them', () => {
  it('no config: a claude session has no caps, a headless run the defaults; a raise of an untrusted repository file is named as not applied', () => {
    const root = project({});
    const home = tempDir('ew-home-');
    const env = { ...process.env, HOME: home, XDG_CONFIG_HOME: '', XDG_DATA_HOME: '' };
    const none = editwarden(['init', 'claude', '--root', root], { env });
    expect(none.code, none.stderr).toBe(0);
    expect(none.stdout).toContain("claude sessions (its edit tools, its shell, editwarden's MCP tools; a person watches and undo covers them): no file, line, token or time caps");
    expect(none.stdout).toContain('headless runs (editwarden exec, run, the GitHub Action, mcp --headless): max_files 10, max_lines_changed 500, max_tokens 50000, timeout 300 s');
    expect(none.stdout).toContain(`Change them in your own config ${path.join(home, '.config', 'editwarden', 'config.yml')}`);
    fs.writeFileSync(path.join(root, '.editwarden.yml'), 'constraints:\n  max_files: 40\n');
    const raised = editwarden(['init', 'claude', '--root', root], { env });
    expect(raised.stdout).toContain('Not applied: ');
    expect(raised.stdout).toContain('constraints.max_files: 40 (in force: 10)');
    expect(raised.stdout).toContain(`editwarden trust --root ${root}`);
    // --json carries the same lines.
    const json = JSON.parse(editwarden(['init', 'claude', '--root', root, '--json'], { env }).stdout) as { limits: string[] };
    expect(json.limits).toContain('Limits in this project:');
    expect(json.limits.some((l) => l.includes('constraints.max_files: 40 (in force: 10)'))).toBe(true);
  });
});
