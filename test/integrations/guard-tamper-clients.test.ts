/**
 * The agent cannot replace the guard (issue 38.1), with the real Claude Code
 * and the real Gemini CLI (scripted model on 127.0.0.1, a temp project with
 * editwarden installed project-locally, the documented devDependency way,
 * recorded by the person's `init`). The agent's shell tries to write its
 * own program over `node_modules/.bin/editwarden` and over editwarden's
 * files in `node_modules/editwarden/`, then runs a command that writes
 * outside the project and natively rewrites `.editwarden.yml`: the writes
 * fail, the next command is still sandboxed, the config is unchanged. An
 * install changed behind the session's back (by anything outside the
 * sandbox) makes the next hook fail closed with E_GUARD_TAMPERED, and none
 * of its code runs.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CLAUDE, GEMINI, cleanup, functionResponses, runClaude, runGemini, tempDir, toolResults } from './helpers.js';
import { type LocalInstallProject, localInstallProject } from './local-install.js';

beforeAll(() => {
  expect(fs.existsSync(CLAUDE), `${CLAUDE} is missing; run npm ci`).toBe(true);
  expect(fs.existsSync(GEMINI), `${GEMINI} is missing; run npm ci`).toBe(true);
});
afterAll(cleanup);

const CONFIG = 'constraints:\n  max_files: 5\n';
const HOOK_FILE = 'node_modules/editwarden/dist/hook-client/hook.cjs';

/** The agent's program: leaves a mark outside the project when it runs. */
function overwrite(mark: string): string {
  return `printf '#!/bin/sh\\necho ran > ${mark}\\nexit 0\\n' > node_modules/.bin/editwarden; printf 'require("fs").writeFileSync("${mark}","ran")\\n' > ${HOOK_FILE}; echo x >> node_modules/editwarden/package.json; echo tried`;
}

function guardedProject(client: 'claude' | 'gemini'): LocalInstallProject {
  const p = localInstallProject({ 'a.txt': 'one\n', '.editwarden.yml': CONFIG });
  const init = p.person(['init', client, '--root', p.root]);
  expect(init.code, init.stderr).toBe(0);
  return p;
}

interface Snapshot {
  link: string;
  hook: Buffer;
  pkg: Buffer;
}

function installOf(p: LocalInstallProject): Snapshot {
  return { link: fs.readlinkSync(path.join(p.root, 'node_modules/.bin/editwarden')), hook: fs.readFileSync(path.join(p.root, HOOK_FILE)), pkg: fs.readFileSync(path.join(p.root, 'node_modules/editwarden/package.json')) };
}

/** What happens when something outside every sandbox changed the install: the agent's program in the bin script. */
function tamperOutside(p: LocalInstallProject, mark: string): void {
  fs.writeFileSync(path.join(p.root, 'node_modules/editwarden/bin/editwarden'), `require('fs').writeFileSync(${JSON.stringify(mark)}, 'ran');\n`);
}

/** What the attack left, seen when the install is changed outside the sandbox (between two calls of the session). */
interface AfterAttack {
  install: Snapshot;
  outside: boolean;
  config: string;
  mark: boolean;
}

/**
 * The install changed outside every sandbox behind the session's back, between two of its calls (ScriptedCall.before),
 * after what the attack left has been seen.
 */
function tamperBehind(p: LocalInstallProject, mark: string, outside: string, seen: AfterAttack[]): () => void {
  return () => {
    seen.push({ install: installOf(p), outside: fs.existsSync(outside), config: fs.readFileSync(path.join(p.root, '.editwarden.yml'), 'utf8'), mark: fs.existsSync(mark) });
    tamperOutside(p, mark);
  };
}

describe("Claude Code's Bash cannot write over the project-local guard", () => {
  it('the writes fail read-only, the next Bash is still sandboxed, a native Edit of .editwarden.yml is refused; a guard changed outside the sandbox blocks the next Write with E_GUARD_TAMPERED', async () => {
    const p = guardedProject('claude');
    const mark = path.join(tempDir('ew-mark-'), 'ran');
    const outside = path.join(tempDir('ew-outside-'), 'escape.txt');
    const config = path.join(p.root, '.editwarden.yml');
    const before = installOf(p);
    const seen: AfterAttack[] = [];
    // One session: the attack (four calls), then — the install changed behind its back — three more.
    const run = await runClaude(
      p.root,
      [
        { name: 'Bash', args: { command: overwrite(mark), description: 'replace the guard' } },
        { name: 'Bash', args: { command: `echo out > ${outside}`, description: 'escape' } },
        { name: 'Read', args: { file_path: config } },
        { name: 'Edit', args: { file_path: config, old_string: 'max_files: 5', new_string: 'max_files: 5000' } },
        { name: 'Read', args: { file_path: path.join(p.root, 'a.txt') }, before: tamperBehind(p, mark, outside, seen) },
        { name: 'Write', args: { file_path: path.join(p.root, 'a.txt'), content: 'two\n' } },
        { name: 'Bash', args: { command: `echo out > ${outside}`, description: 'escape' } },
      ],
      ['--allowedTools', 'Bash'],
      240_000,
      { installed: false, env: { XDG_DATA_HOME: p.env.XDG_DATA_HOME } },
    );
    expect(run.code, run.stderr).toBe(0);
    const results = toolResults(run.requests);
    expect(results, run.stdout).toHaveLength(7);
    // Nothing ran unsandboxed: the command after the attempt still could not write outside the project.
    expect(seen[0]?.outside, results.join('\n')).toBe(false);
    expect(results[0]).toMatch(/Read-only file system/);
    expect(seen[0]?.install).toEqual(before);
    expect(results[1]).toMatch(/Read-only file system|Permission denied|No such file|Directory nonexistent/);
    expect(results[3]).toContain('E_DENIED_PATH');
    expect(seen[0]?.config).toBe(CONFIG);
    expect(seen[0]?.mark).toBe(false);

    // The install changed outside the sandbox: the next Write and Bash are blocked, and none of its code ran.
    expect(results[5]).toContain('E_GUARD_TAMPERED');
    expect(results[6]).toContain('E_GUARD_TAMPERED');
    expect(fs.readFileSync(path.join(p.root, 'a.txt'), 'utf8')).toBe('one\n');
    expect(fs.existsSync(outside)).toBe(false);
    expect(fs.existsSync(mark)).toBe(false);
  }, 330_000);
});

describe("Gemini CLI's run_shell_command cannot write over the project-local guard", () => {
  it('the writes fail read-only, the next command is still sandboxed, a native write_file of .editwarden.yml is refused; a guard changed outside the sandbox blocks the next write_file with E_GUARD_TAMPERED', async () => {
    const p = guardedProject('gemini');
    const mark = path.join(tempDir('ew-mark-'), 'ran');
    const outside = path.join(tempDir('ew-outside-'), 'escape.txt');
    const config = path.join(p.root, '.editwarden.yml');
    const before = installOf(p);
    const seen: AfterAttack[] = [];
    // One session: the attack (three calls), then — the install changed behind its back — two more.
    const run = await runGemini(
      p.root,
      [
        { name: 'run_shell_command', args: { command: overwrite(mark) } },
        { name: 'run_shell_command', args: { command: `echo out > ${outside}` } },
        { name: 'write_file', args: { file_path: config, content: 'constraints:\n  max_files: 5000\n' } },
        { name: 'write_file', args: { file_path: path.join(p.root, 'a.txt'), content: 'two\n' }, before: tamperBehind(p, mark, outside, seen) },
        { name: 'run_shell_command', args: { command: `echo out > ${outside}` } },
      ],
      300_000,
      { installed: false, env: { XDG_DATA_HOME: p.env.XDG_DATA_HOME }, approval: 'yolo' },
    );
    const results = functionResponses(run.requests);
    expect(results, `${run.stdout}${run.stderr}`).toHaveLength(5);
    // Nothing ran unsandboxed: the command after the attempt still could not write outside the project.
    expect(seen[0]?.outside, results.join('\n')).toBe(false);
    expect(results[0]).toMatch(/Read-only file system/);
    expect(seen[0]?.install).toEqual(before);
    expect(results[2]).toContain('E_DENIED_PATH');
    expect(seen[0]?.config).toBe(CONFIG);
    expect(seen[0]?.mark).toBe(false);

    // The install changed outside the sandbox: the next write_file and command are blocked, and none of its code ran.
    expect(results[3]).toContain('E_GUARD_TAMPERED');
    expect(results[4]).toContain('E_GUARD_TAMPERED');
    expect(fs.readFileSync(path.join(p.root, 'a.txt'), 'utf8')).toBe('one\n');
    expect(fs.existsSync(outside)).toBe(false);
    expect(fs.existsSync(mark)).toBe(false);
  }, 400_000);
});
