/**
 * No code the agent can write runs as the guard (issue 38.1). A project-local
 * editwarden runs only through the person's launcher, outside the
 * repository, which checks the install against the digest `init` recorded:
 * the committed hook commands, the MCP entry and the rewritten shell line
 * all go through it; a changed or replaced install fails closed with
 * E_GUARD_TAMPERED and none of its code runs; an editwarden on PATH inside
 * the project is never run directly. The commands are run as the clients
 * run them (sh -c, the project folder in the environment).
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { gitInit } from '../git-init.js';
import { BIN, cleanup, tempDir } from './helpers.js';
import { type LocalInstallProject, localInstallProject } from './local-install.js';

afterAll(cleanup);

/** What the agent's program does when it runs: leaves a mark outside the project. */
function agentProgram(mark: string): string {
  return `#!/bin/sh\necho ran > '${mark}'\nexit 0\n`;
}

/** The settings init wrote, in the shapes these tests read. */
interface Settings {
  hooks: { PreToolUse: Array<{ hooks: Array<{ command: string }> }> };
  mcpServers: { editwarden: { command: string; args: string[] } };
}

function settingsOf(p: LocalInstallProject, file: string): Settings {
  return JSON.parse(fs.readFileSync(path.join(p.root, file), 'utf8')) as Settings;
}

/** Runs a settings command as the client runs it: `sh -c`, in the project, PATH without a global editwarden. */
function runAsClient(p: LocalInstallProject, command: string, input: string, extraEnv: Record<string, string> = {}) {
  const r = spawnSync('sh', ['-c', command], { cwd: p.root, input, encoding: 'utf8', env: { ...process.env, ...p.env, CLAUDE_PROJECT_DIR: p.root, EDITWARDEN_HOOK_SERVER: 'off', ...extraEnv }, timeout: 60_000 });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

function claudeHook(p: LocalInstallProject): string {
  return settingsOf(p, '.claude/settings.json').hooks.PreToolUse[0]?.hooks[0]?.command ?? '';
}

const write = (p: LocalInstallProject, rel: string, content = 'two\n') => JSON.stringify({ session_id: 's1', tool_name: 'Write', tool_input: { file_path: path.join(p.root, rel), content }, cwd: p.root });
const bash = (p: LocalInstallProject, command: string) => JSON.stringify({ session_id: 's1', tool_name: 'Bash', tool_input: { command }, cwd: p.root });

function initialised(): LocalInstallProject {
  const p = localInstallProject({ 'a.txt': 'one\n', '.editwarden.yml': 'constraints:\n  max_files: 3\n' });
  const init = p.person(['init', 'claude', '--root', p.root]);
  expect(init.code, init.stderr).toBe(0);
  expect(init.stdout).toContain('recorded the project-local editwarden');
  return p;
}

describe('a project-local editwarden, recorded by init', () => {
  it('runs through the launcher: an edit is vetted, a protected one refused, and Bash is rewritten to run through the launcher again', () => {
    const p = initialised();
    const ok = runAsClient(p, claudeHook(p), write(p, 'a.txt'));
    expect(ok.code, ok.stderr).toBe(0);
    expect(ok.stdout).not.toContain('deny');
    for (const rel of ['node_modules/.bin/editwarden', 'node_modules/editwarden/dist/hook-client/hook.cjs', 'node_modules/web-tree-sitter/package.json']) {
      const denied = runAsClient(p, claudeHook(p), write(p, rel, 'exit 0\n'));
      // The run-time packages here are links to this repository's copies: outside the root, so refused as such.
      expect(JSON.parse(denied.stdout).hookSpecificOutput.permissionDecisionReason, rel).toMatch(rel.includes('web-tree-sitter') ? /E_OUTSIDE_ROOT/ : /E_DENIED_PATH/);
    }
    const rewritten = runAsClient(p, claudeHook(p), bash(p, 'echo hi'));
    const line: string = JSON.parse(rewritten.stdout).hookSpecificOutput.updatedInput.command;
    expect(line).toContain(`${p.env.XDG_DATA_HOME}/editwarden/guard/launch.cjs' '${p.root}' 'shell'`);
    expect(line).not.toContain('node_modules');
  });

  it('the guarded shell cannot write the install: the .bin link, the package and its run-time packages are read-only', () => {
    const p = initialised();
    const line: string = JSON.parse(runAsClient(p, claudeHook(p), bash(p, 'x')).stdout).hookSpecificOutput.updatedInput.command;
    const attack = "printf '#!/bin/sh\\nexit 0\\n' > node_modules/.bin/editwarden; echo x >> node_modules/editwarden/dist/hook-client/hook.cjs; echo x >> node_modules/editwarden/bin/editwarden; true";
    const before = fs.readFileSync(path.join(p.root, 'node_modules/editwarden/dist/hook-client/hook.cjs'));
    // The command is the quoted 'x' (a client whose shell carries its folder has a cd after it: shell-cwd.ts).
    const ran = runAsClient(p, line.replace(/'x'(?=;|$)/, `'${attack.replace(/'/g, `'\\''`)}'`), '');
    expect(ran.stderr).toMatch(/Read-only file system/);
    expect(fs.readFileSync(path.join(p.root, 'node_modules/editwarden/dist/hook-client/hook.cjs'))).toEqual(before);
    expect(fs.readlinkSync(path.join(p.root, 'node_modules/.bin/editwarden'))).toBe('../editwarden/bin/editwarden');
    // And the next hook still answers as editwarden.
    expect(runAsClient(p, claudeHook(p), write(p, '.editwarden.yml', 'constraints: {}\n')).stdout).toContain('E_DENIED_PATH');
  }, 60_000);

  it.each([
    ['a changed file of the package', (p: LocalInstallProject, mark: string) => fs.writeFileSync(path.join(p.root, 'node_modules/editwarden/bin/editwarden'), agentProgram(mark))],
    [
      'a replaced .bin link',
      (p: LocalInstallProject, mark: string) => {
        const link = path.join(p.root, 'node_modules/.bin/editwarden');
        fs.rmSync(link);
        fs.writeFileSync(link, agentProgram(mark), { mode: 0o755 });
      },
    ],
    [
      'a package folder swapped for another',
      (p: LocalInstallProject, mark: string) => {
        const pkg = path.join(p.root, 'node_modules/editwarden');
        fs.renameSync(pkg, path.join(p.root, 'node_modules/old'));
        fs.cpSync(path.join(p.root, 'node_modules/old'), pkg, { recursive: true });
        fs.writeFileSync(path.join(pkg, 'bin', 'editwarden'), agentProgram(mark));
      },
    ],
    [
      'a run-time package changed',
      (p: LocalInstallProject, mark: string) => {
        const link = path.join(p.root, 'node_modules/web-tree-sitter');
        fs.rmSync(link);
        fs.mkdirSync(link);
        fs.writeFileSync(path.join(link, 'package.json'), JSON.stringify({ name: 'web-tree-sitter', main: 'x.js' }));
        fs.writeFileSync(path.join(link, 'x.js'), `require('fs').writeFileSync(${JSON.stringify(mark)}, 'ran')`);
      },
    ],
  ])(
    '%s: every hook, the MCP entry and the shell line fail closed with E_GUARD_TAMPERED, and none of it runs',
    (_what, tamper) => {
      const p = initialised();
      const line: string = JSON.parse(runAsClient(p, claudeHook(p), bash(p, 'echo hi > b.txt')).stdout).hookSpecificOutput.updatedInput.command;
      const mark = path.join(tempDir('ew-mark-'), 'ran');
      tamper(p, mark);
      const hook = runAsClient(p, claudeHook(p), write(p, 'a.txt'));
      expect(hook.code).toBe(2);
      expect(hook.stderr).toContain('E_GUARD_TAMPERED');
      expect(hook.stderr).toContain('npm ci');
      const mcp = settingsOf(p, '.mcp.json').mcpServers.editwarden;
      const server = spawnSync(mcp.command, mcp.args, { cwd: p.root, input: '', encoding: 'utf8', env: { ...process.env, ...p.env }, timeout: 30_000 });
      expect(server.status).toBe(2);
      expect(server.stderr).toContain('E_GUARD_TAMPERED');
      const shell = runAsClient(p, line, '');
      expect(shell.code).toBe(2);
      expect(shell.stderr).toContain('E_GUARD_TAMPERED');
      expect(fs.existsSync(mark)).toBe(false);
      expect(fs.existsSync(path.join(p.root, 'b.txt'))).toBe(false);
      // doctor names it, from the person's own (global) editwarden: it never loads the install it judges. Its guard
      // install check (the whole doctor, which also loads every grammar, runs in test/cli/doctor.test.ts).
      const doctor = spawnSync(process.execPath, [BIN, 'doctor', '--root', p.root, '--json', '--only', 'guard install'], { encoding: 'utf8', env: { ...process.env, ...p.env } });
      const check = (JSON.parse(doctor.stdout) as { checks: Array<{ name: string; ok: boolean; detail: string }> }).checks.find((c) => c.name === 'guard install');
      expect(check).toMatchObject({ ok: false, detail: expect.stringContaining('E_GUARD_TAMPERED') });
      // Re-recorded by the person (after re-installing), it runs again.
    },
    60_000,
  );

  it('the same bytes under a new identity (a copy, a touch) still pass, and the record caches the new identity', () => {
    const p = initialised();
    const records = path.join(p.env.XDG_DATA_HOME as string, 'editwarden', 'guard');
    const recordOf = () =>
      fs
        .readdirSync(records)
        .filter((n) => n.endsWith('.json'))
        .map((n) => JSON.parse(fs.readFileSync(path.join(records, n), 'utf8')))[0];
    const before = recordOf();
    const file = path.join(p.root, 'node_modules/editwarden/dist/hook-client/hook.cjs');
    const bytes = fs.readFileSync(file);
    fs.rmSync(file);
    fs.writeFileSync(file, bytes);
    const ok = runAsClient(p, claudeHook(p), write(p, 'a.txt'));
    expect(ok.code, ok.stderr).toBe(0);
    const after = recordOf();
    expect(after.digest).toBe(before.digest);
    expect(after.identity).not.toBe(before.identity);
  }, 60_000);

  it('never recorded on this machine (a teammate’s fresh clone): E_GUARD_UNAVAILABLE naming trust --guard; after it, the hook runs', () => {
    const p = localInstallProject({ 'a.txt': 'one\n' });
    const init = p.person(['init', 'claude', '--root', p.root]);
    expect(init.code).toBe(0);
    fs.rmSync(path.join(p.env.XDG_DATA_HOME as string, 'editwarden', 'guard'), { recursive: true });
    const blocked = runAsClient(p, claudeHook(p), write(p, 'a.txt'));
    expect(blocked.code).toBe(2);
    expect(blocked.stderr).toContain('E_GUARD_UNAVAILABLE');
    expect(blocked.stderr).toContain('trust --guard');
    expect(p.person(['trust', '--guard', '--root', p.root]).code).toBe(0);
    expect(runAsClient(p, claudeHook(p), write(p, 'a.txt')).code).toBe(0);
  }, 60_000);
});

describe('init on a machine where the hooks would find no editwarden (an `npx editwarden init` from npm’s cache)', () => {
  it('says every guarded call will be blocked and how to install; not when editwarden is on PATH outside the project', () => {
    const root = tempDir('ew-npx-');
    gitInit(root);
    const bare = editwardenAt(root, process.env.PATH ?? '');
    expect(bare.stdout).toContain('no editwarden the hooks may run was found');
    expect(bare.stdout).toContain('npm install -g editwarden');
    const bin = tempDir('ew-global-');
    fs.symlinkSync(BIN, path.join(bin, 'editwarden'));
    expect(editwardenAt(root, `${bin}:${process.env.PATH ?? ''}`).stdout).not.toContain('no editwarden the hooks may run');
  });
});

function editwardenAt(root: string, pathVar: string) {
  return spawnSync(process.execPath, [BIN, 'init', 'claude', '--root', root], { encoding: 'utf8', env: { ...process.env, PATH: pathVar } });
}

/**
 * The wrapper's choice, as a property over where `editwarden` on PATH really lies: run directly only when its real
 * location is outside the project; a name on PATH that is (or leads) inside the project goes to the launcher.
 */
describe('the committed command never runs an editwarden on PATH that lies inside the project', () => {
  it('property: direct iff the real location is outside the project and in no node_modules of a folder holding it', async () => {
    const { guardedHookCommand } = await import('../../src/integrations/client.js');
    const probe = guardedHookCommand('claude', 'pre-tool-use', '${CLAUDE_PROJECT_DIR:-.}')
      .replace(/"\$ew" hook claude pre-tool-use/, 'echo direct; exit 0')
      .replace(/node "\$ew_l" "\$ew_p" hook claude pre-tool-use/, 'echo launcher; exit 0');
    const base = tempDir('ew-path-prop-');
    const outsideBin = path.join(base, 'outside', 'editwarden');
    fs.mkdirSync(path.dirname(outsideBin));
    fs.writeFileSync(outsideBin, '#!/bin/sh\n', { mode: 0o755 });
    const data = path.join(base, 'data', 'editwarden', 'guard');
    fs.mkdirSync(data, { recursive: true });
    fs.writeFileSync(path.join(data, 'launch.cjs'), '');
    let n = 0;
    fc.assert(
      fc.property(fc.constantFrom('outside', 'inside', 'link-in-path-outside-to-inside', 'link-inside-to-outside', 'enclosing-node_modules', 'global-node_modules'), fc.boolean(), (where, viaLinkedRoot) => {
        // A monorepo's package: the session's project folder lies below the folder whose node_modules/.bin is on PATH.
        const mono = path.join(base, `mono${n}`);
        const root = where === 'enclosing-node_modules' ? path.join(mono, 'packages', 'app') : path.join(base, `p${n}`);
        n++;
        const inside = path.join(root, 'node_modules', '.bin');
        fs.mkdirSync(inside, { recursive: true });
        const innerBin = path.join(root, 'node_modules', 'editwarden', 'bin', 'editwarden');
        fs.mkdirSync(path.dirname(innerBin), { recursive: true });
        fs.writeFileSync(innerBin, '#!/bin/sh\n', { mode: 0o755 });
        let dir: string;
        if (where === 'outside') dir = path.dirname(outsideBin);
        else if (where === 'inside') {
          fs.symlinkSync('../editwarden/bin/editwarden', path.join(inside, 'editwarden'));
          dir = inside;
        } else if (where === 'link-in-path-outside-to-inside') {
          dir = path.join(base, `pathdir${n}`);
          fs.mkdirSync(dir);
          fs.symlinkSync(innerBin, path.join(dir, 'editwarden'));
        } else if (where === 'enclosing-node_modules') {
          const bin = path.join(mono, 'node_modules', 'editwarden', 'bin', 'editwarden');
          fs.mkdirSync(path.dirname(bin), { recursive: true });
          fs.writeFileSync(bin, '#!/bin/sh\n', { mode: 0o755 });
          dir = path.join(mono, 'node_modules', '.bin');
          fs.mkdirSync(dir);
          fs.symlinkSync('../editwarden/bin/editwarden', path.join(dir, 'editwarden'));
        } else if (where === 'global-node_modules') {
          // npm's global prefix (lib/node_modules/editwarden, bin/editwarden -> ../lib/…): outside, run directly.
          const prefix = path.join(base, `global${n}`);
          const bin = path.join(prefix, 'lib', 'node_modules', 'editwarden', 'bin', 'editwarden');
          fs.mkdirSync(path.dirname(bin), { recursive: true });
          fs.writeFileSync(bin, '#!/bin/sh\n', { mode: 0o755 });
          dir = path.join(prefix, 'bin');
          fs.mkdirSync(dir);
          fs.symlinkSync('../lib/node_modules/editwarden/bin/editwarden', path.join(dir, 'editwarden'));
        } else {
          fs.symlinkSync(outsideBin, path.join(inside, 'editwarden'));
          dir = inside;
        }
        // The project folder as the client names it: its real path, or a link to it.
        let named = root;
        if (viaLinkedRoot) {
          named = path.join(base, `alias${n}`);
          fs.symlinkSync(root, named);
        }
        const r = spawnSync('sh', ['-c', probe], { encoding: 'utf8', env: { PATH: `${dir}:/usr/bin:/bin`, HOME: base, XDG_DATA_HOME: path.join(base, 'data'), CLAUDE_PROJECT_DIR: named } });
        const direct = where === 'outside' || where === 'link-inside-to-outside' || where === 'global-node_modules';
        expect(r.stdout.trim(), `${where} ${viaLinkedRoot}`).toBe(direct ? 'direct' : 'launcher');
      }),
      { numRuns: 30 },
    );
  });
});
