/**
 * `editwarden hook <client> <event>` through the real binary, fed the hook
 * input each client documents (Claude Code and Codex: tool_name/tool_input
 * JSON, Codex's apply_patch carrying the patch text; Gemini CLI: write_file
 * / replace), answering in each client's protocol.
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { editwardenHere } from './cli-in-process.js';
import { BIN, THIRTY_LINES, cleanup, editwarden, hookRecordLines, project, tempDir } from './helpers.js';

afterAll(cleanup);

function hook(client: string, event: string, root: string, input: unknown): ReturnType<typeof editwarden> {
  return editwarden(['hook', client, event, '--root', root], { input: typeof input === 'string' ? input : JSON.stringify(input) });
}

function claudeDenial(out: string): string {
  const parsed = JSON.parse(out) as { hookSpecificOutput: { permissionDecision: string; permissionDecisionReason: string } };
  expect(parsed.hookSpecificOutput.permissionDecision).toBe('deny');
  return parsed.hookSpecificOutput.permissionDecisionReason;
}

/** The checkpoints the hook made, as `editwarden checkpoint list` shows them (the built CLI, in this process: a look, not the route). */
async function checkpoints(root: string): Promise<Array<{ id: string; origin: { kind: string; client?: string } }>> {
  return (JSON.parse((await editwardenHere(['checkpoint', 'list', '--root', root, '--json'])).stdout) as { checkpoints: Array<{ id: string; origin: { kind: string } }> }).checkpoints;
}

describe('Claude Code hook', () => {
  it('vets MultiEdit as one all-or-nothing change: one bad edit refuses all', async () => {
    const root = project({ 'a.txt': 'one\ntwo\n' });
    const r = hook('claude', 'pre-tool-use', root, {
      tool_name: 'MultiEdit',
      tool_input: {
        file_path: path.join(root, 'a.txt'),
        edits: [
          { old_string: 'one', new_string: 'ONE' },
          { old_string: 'three', new_string: 'THREE' },
        ],
      },
    });
    expect(r.code).toBe(0);
    expect(claudeDenial(r.stdout)).toContain('E_NOT_FOUND');
    expect(await checkpoints(root)).toHaveLength(0);
  });

  it('allows a valid Write of a new file and checkpoints its absence, so undo removes it', async () => {
    const root = project({});
    const r = hook('claude', 'pre-tool-use', root, { tool_name: 'Write', tool_use_id: 'toolu_1', tool_input: { file_path: path.join(root, 'src/new.ts'), content: 'export const x = 1;\n' } });
    expect(r.code).toBe(0);
    expect(r.stdout).toBe('');
    expect((await checkpoints(root))[0]?.origin).toMatchObject({ kind: 'hook', client: 'claude' });
    fs.mkdirSync(path.join(root, 'src'));
    fs.writeFileSync(path.join(root, 'src/new.ts'), 'export const x = 1;\n');
    // The post hook confirms the write: only then is the checkpoint an undo step (steps.ts).
    expect(hook('claude', 'post-tool-use', root, { tool_name: 'Write', tool_use_id: 'toolu_1', tool_input: {} }).code).toBe(0);
    expect(editwarden(['undo', '--root', root]).code).toBe(0);
    expect(fs.existsSync(path.join(root, 'src/new.ts'))).toBe(false);
  });

  it('refuses code the syntax guard rejects, as edit_file would', () => {
    const root = project({ 'm.ts': 'export function f(): number {\n  return 1;\n}\n' });
    const r = hook('claude', 'pre-tool-use', root, { tool_name: 'Edit', tool_input: { file_path: path.join(root, 'm.ts'), old_string: '  return 1;\n}', new_string: '  return (1;\n}' } });
    expect(claudeDenial(r.stdout)).toContain('E_SYNTAX');
  });

  it('refuses paths the constraints deny, and edits to the client settings that hold the hook', () => {
    const root = project({ '.editwarden.yml': 'constraints:\n  denied_patterns: ["secrets/**"]\n', 'secrets/k.txt': 'k\n', '.claude/settings.json': '{}\n' });
    const denied = hook('claude', 'pre-tool-use', root, { tool_name: 'Edit', tool_input: { file_path: path.join(root, 'secrets/k.txt'), old_string: 'k', new_string: 'K' } });
    expect(claudeDenial(denied.stdout)).toContain('E_CONSTRAINT');
    const settings = hook('claude', 'pre-tool-use', root, { tool_name: 'Write', tool_input: { file_path: path.join(root, '.claude/settings.json'), content: '{"hooks":{}}\n' } });
    expect(claudeDenial(settings.stdout)).toContain('E_DENIED_PATH');
    const git = hook('claude', 'pre-tool-use', root, { tool_name: 'Write', tool_input: { file_path: path.join(root, '.git/config'), content: '' } });
    expect(claudeDenial(git.stdout)).toContain('E_DENIED_PATH');
  });

  it('vets a NotebookEdit by its path and checkpoints the notebook', async () => {
    const root = project({ 'n.ipynb': '{"cells":[]}\n' });
    const outside = hook('claude', 'pre-tool-use', root, { tool_name: 'NotebookEdit', tool_input: { notebook_path: '/etc/n.ipynb', new_source: 'x' } });
    expect(claudeDenial(outside.stdout)).toContain('E_OUTSIDE_ROOT');
    const ok = hook('claude', 'pre-tool-use', root, { tool_name: 'NotebookEdit', tool_input: { notebook_path: path.join(root, 'n.ipynb'), new_source: 'x' } });
    expect(ok.stdout).toBe('');
    expect(await checkpoints(root)).toHaveLength(1);
  });

  it('fails closed: input it cannot read is refused, other tools pass untouched', () => {
    const root = project({});
    expect(claudeDenial(hook('claude', 'pre-tool-use', root, 'not json').stdout)).toContain('E_PARSE');
    expect(claudeDenial(hook('claude', 'pre-tool-use', root, { tool_name: 'Edit', tool_input: { file_path: 'x' } }).stdout)).toContain('E_PARSE');
    const read = hook('claude', 'pre-tool-use', root, { tool_name: 'Read', tool_input: { file_path: 'x' } });
    expect(read).toMatchObject({ code: 0, stdout: '' });
    // A Bash call without a command string cannot be wrapped: refused, not run as it is.
    expect(claudeDenial(hook('claude', 'pre-tool-use', root, { tool_name: 'Bash', tool_input: { cmd: 'ls' } }).stdout)).toContain('E_PARSE');
  });

  it('a hook that cannot decide in time answers with a refusal before the client would time it out', async () => {
    // The client never finishes sending its input: the hook must not wait past its deadline (the client would then run the tool).
    const child = spawn(process.execPath, [BIN, 'hook', 'claude', 'pre-tool-use', '--root', project({}), '--deadline', '300'], { stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
    child.stdin.destroy();
    expect(code).toBe(0);
    expect(claudeDenial(stdout)).toContain('E_GUARD_UNAVAILABLE');
  }, 30_000);

  it("Codex's Bash is rewritten with an allow decision (Codex runs updatedInput only with it); a shell under another name is refused toward MCP execute_command", () => {
    const root = project({});
    const bash = hook('codex', 'pre-tool-use', root, { session_id: 's', tool_name: 'Bash', tool_input: { command: 'rm -rf src' } });
    expect(bash.code).toBe(0);
    const out = JSON.parse(bash.stdout) as { hookSpecificOutput: { permissionDecision: string; updatedInput: { command: string } } };
    expect(out.hookSpecificOutput.permissionDecision).toBe('allow');
    expect(out.hookSpecificOutput.updatedInput.command).toContain("'shell' '--client' 'codex' '--tool' 'Bash'");
    expect(out.hookSpecificOutput.updatedInput.command).toMatch(/'--' 'rm -rf src'$/);
    const other = hook('codex', 'pre-tool-use', root, { tool_name: 'local_shell', tool_input: { command: ['rm', '-rf', 'src'] } });
    expect(other.code).toBe(2);
    expect(other.stderr).toContain('E_SHELL_NOT_GUARDED');
    expect(other.stderr).toContain('execute_command');
  });

  it('an unknown client blocks (exit 2) rather than letting the edit through', () => {
    const r = hook('nope', 'pre-tool-use', project({}), { tool_name: 'Write' });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('E_USAGE');
  });
});

describe('Codex hook (apply_patch)', () => {
  const patch = (body: string): string => `*** Begin Patch\n${body}*** End Patch\n`;

  it('refuses a patch that wipes a 30-line file with exit 2 and the code on stderr', () => {
    const root = project({ 'big.txt': THIRTY_LINES });
    const removeAll = THIRTY_LINES.split('\n')
      .filter(Boolean)
      .map((l) => `-${l}\n`)
      .join('');
    const r = hook('codex', 'pre-tool-use', root, { tool_name: 'apply_patch', cwd: root, tool_input: { command: patch(`*** Update File: big.txt\n@@\n${removeAll}+x\n`) } });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('E_DRAMATIC_REDUCTION');
  });

  it('refuses a patch that adds a file outside the root or edits .editwarden.yml', () => {
    const root = project({ '.editwarden.yml': 'constraints: {}\n' });
    const out = hook('codex', 'pre-tool-use', root, { tool_name: 'apply_patch', tool_input: { command: patch('*** Add File: ../escape.txt\n+x\n') } });
    expect(out.code).toBe(2);
    expect(out.stderr).toContain('E_OUTSIDE_ROOT');
    const cfg = hook('codex', 'pre-tool-use', root, { tool_name: 'apply_patch', tool_input: { command: patch('*** Update File: .editwarden.yml\n@@\n-constraints: {}\n+constraints: {max_files: 1000}\n') } });
    expect(cfg.code).toBe(2);
    expect(cfg.stderr).toContain('E_DENIED_PATH');
  });

  it('allows a valid patch and checkpoints it; an unparsable patch is refused', async () => {
    const root = project({ 'a.txt': 'one\n' });
    const ok = hook('codex', 'pre-tool-use', root, { tool_name: 'apply_patch', tool_input: { command: patch('*** Update File: a.txt\n@@\n-one\n+uno\n') } });
    expect(ok.code).toBe(0);
    expect((await checkpoints(root))[0]?.origin).toMatchObject({ kind: 'hook', client: 'codex' });
    const bad = hook('codex', 'pre-tool-use', root, { tool_name: 'apply_patch', tool_input: { command: 'rm -rf /' } });
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('E_PARSE');
  });
});

describe('Gemini CLI hook (write_file, replace)', () => {
  it('refuses write_file wiping a 30-line file and replace outside the root, with exit 2', () => {
    const root = project({ 'big.txt': THIRTY_LINES });
    const wipe = hook('gemini', 'before-tool', root, { hook_event_name: 'BeforeTool', tool_name: 'write_file', tool_input: { file_path: path.join(root, 'big.txt'), content: '' } });
    expect(wipe.code).toBe(2);
    expect(wipe.stderr).toContain('E_DRAMATIC_REDUCTION');
    const other = path.join(tempDir(), 'x.txt');
    fs.writeFileSync(other, 'a\n');
    const outside = hook('gemini', 'before-tool', root, { tool_name: 'replace', tool_input: { file_path: other, old_string: 'a', new_string: 'b' } });
    expect(outside.code).toBe(2);
    expect(outside.stderr).toContain('E_OUTSIDE_ROOT');
  });

  it('allows a valid replace (answering {}), checkpoints it, and the after-tool hook records the change', () => {
    const root = project({ 'a.txt': 'one\n' });
    const ok = hook('gemini', 'before-tool', root, { tool_name: 'replace', tool_input: { file_path: path.join(root, 'a.txt'), old_string: 'one', new_string: 'uno' } });
    expect(ok).toMatchObject({ code: 0 });
    expect(ok.stdout.trim()).toBe('{}');
    fs.writeFileSync(path.join(root, 'a.txt'), 'uno\n');
    expect(hook('gemini', 'after-tool', root, { tool_name: 'replace', tool_input: {} }).code).toBe(0);
    expect(hookRecordLines(root)).toContain('"client":"gemini"');
    editwarden(['undo', '--root', root]);
    expect(fs.readFileSync(path.join(root, 'a.txt'), 'utf8')).toBe('one\n');
  });
});

describe('Cursor hook (afterFileEdit)', () => {
  it('records that Cursor edited a file (it cannot refuse: the documented hook runs after the edit)', () => {
    const root = project({ 'a.txt': 'one\n' });
    const r = hook('cursor', 'after-file-edit', root, { hook_event_name: 'afterFileEdit', file_path: path.join(root, 'a.txt'), edits: [{ old_string: 'one', new_string: 'uno' }] });
    expect(r.code).toBe(0);
    expect(hookRecordLines(root)).toContain('"client":"cursor"');
  });

  it('the record names the file Cursor says it edited (no checkpoint to diff against), and `editwarden log` shows it', () => {
    const root = project({ 'a.txt': 'one\n' });
    expect(hook('cursor', 'after-file-edit', root, { hook_event_name: 'afterFileEdit', file_path: path.join(root, 'a.txt'), edits: [{ old_string: 'one', new_string: 'uno' }] }).code).toBe(0);
    expect(hookRecordLines(root)).toContain('"changes":[{"path":"a.txt","change":"modified"}]');
    expect(editwarden(['log', '--root', root]).stdout).toMatch(/afterFileEdit a\.txt/);
  });
});

describe('every hook decides on the path the kernel will walk (a -> ., up -> a/.., cfgdir -> deep/X/..)', () => {
  /** A repository whose links make the text and the kernel disagree: `up/` is the root's parent, `cfgdir/` the root. */
  function linkGraph(): string {
    const root = project({ '.editwarden.yml': 'constraints:\n  max_files: 5\n', 'deep/keep.txt': 'k\n', 'sub/keep.txt': 's\n' });
    fs.symlinkSync('.', path.join(root, 'a'));
    fs.symlinkSync('a/..', path.join(root, 'up'));
    fs.symlinkSync('../sub', path.join(root, 'deep', 'X'));
    fs.symlinkSync('deep/X/..', path.join(root, 'cfgdir'));
    return root;
  }

  it('Claude Code: Write to up/x (outside) and to cfgdir/.editwarden.yml (the config) are denied', () => {
    const root = linkGraph();
    const up = hook('claude', 'pre-tool-use', root, { tool_name: 'Write', tool_input: { file_path: path.join(root, 'up/x'), content: 'x\n' } });
    expect(claudeDenial(up.stdout)).toContain('E_OUTSIDE_ROOT');
    const cfg = hook('claude', 'pre-tool-use', root, { tool_name: 'Write', tool_input: { file_path: path.join(root, 'cfgdir/.editwarden.yml'), content: 'constraints: {}\n' } });
    expect(claudeDenial(cfg.stdout)).toContain('E_DENIED_PATH');
  });

  it('Gemini CLI: write_file to up/x and cfgdir/.editwarden.yml exit 2', () => {
    const root = linkGraph();
    for (const target of ['up/x', 'cfgdir/.editwarden.yml']) {
      const r = hook('gemini', 'before-tool', root, { tool_name: 'write_file', tool_input: { file_path: path.join(root, target), content: 'constraints: {}\n' } });
      expect(r.code, `${target}: ${r.stdout}${r.stderr}`).toBe(2);
    }
  });

  it('Codex: *** Add File: a/../x and up/x are refused (a/.. is the root’s parent for the kernel)', () => {
    const root = linkGraph();
    for (const target of ['a/../x', 'up/x', 'cfgdir/.editwarden.yml']) {
      const r = hook('codex', 'pre-tool-use', root, { tool_name: 'apply_patch', tool_input: { command: `*** Begin Patch\n*** Add File: ${target}\n+x\n*** End Patch\n` } });
      expect(r.code, `${target}: ${r.stderr}`).toBe(2);
    }
    expect(fs.existsSync(path.join(path.dirname(root), 'x'))).toBe(false);
  });
});
