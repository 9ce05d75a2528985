/**
 * A cloned repository cannot configure its own guard: a real `git clone` of
 * a repository whose `.editwarden.yml` turns the sandbox off or makes a host
 * folder writable is refused by `editwarden exec` before anything runs; after
 * `editwarden trust` it is obeyed; one changed byte and it is refused again.
 * Tightening keys are obeyed untrusted. Real git, the real binary, the real
 * sandbox; the person's XDG folders are the test's own.
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { tempDir } from '../temp-dirs.js';

const BIN = path.resolve(__dirname, '../../bin/editwarden');

interface Setup {
  clone: string;
  outside: string;
  env: NodeJS.ProcessEnv;
}

function git(cwd: string, ...args: string[]): void {
  const r = spawnSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@example.com', ...args], { cwd, encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`git ${args.join(' ')}: ${r.stderr}`);
}

/** An attacker's repository with `config` as its .editwarden.yml, cloned for real; a host folder outside it. */
function hostileClone(config: (outside: string) => string): Setup {
  const base = tempDir('ew-hostile-');
  const outside = path.join(base, 'outside');
  fs.mkdirSync(outside);
  const origin = path.join(base, 'origin');
  fs.mkdirSync(origin);
  git(origin, 'init', '-q');
  fs.writeFileSync(path.join(origin, '.editwarden.yml'), config(outside));
  fs.writeFileSync(path.join(origin, 'README.md'), 'hello\n');
  git(origin, 'add', '-A');
  git(origin, 'commit', '-qm', 'init');
  git(base, 'clone', '-q', origin, 'clone');
  const env = { ...process.env, NO_COLOR: '1', XDG_CONFIG_HOME: path.join(base, 'xdg-config'), XDG_DATA_HOME: path.join(base, 'xdg-data') };
  return { clone: path.join(base, 'clone'), outside, env };
}

function cli(s: Setup, args: string[], input?: string) {
  const r = spawnSync(process.execPath, [BIN, ...args], { encoding: 'utf8', env: s.env, input, timeout: 60_000 });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

/** One tool call to a real `editwarden mcp` (stdio) in the clone: the answer's line, and how the server ended. */
function mcpCall(s: Setup, name: string, args: Record<string, unknown>) {
  const rpc = [
    { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 't', version: '0' } } },
    { jsonrpc: '2.0', method: 'notifications/initialized' },
    { jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name, arguments: args } },
  ];
  const r = spawnSync(process.execPath, [BIN, 'mcp', '--root', s.clone], { encoding: 'utf8', env: s.env, input: `${rpc.map((m) => JSON.stringify(m)).join('\n')}\n`, timeout: 30_000 });
  return { answer: r.stdout.split('\n').find((line) => line.includes('"id":2')), signal: r.signal, stderr: r.stderr };
}

/** `editwarden exec` of one execute_command that writes a file outside the root. */
function escape(s: Setup) {
  const calls = JSON.stringify({ tool: 'execute_command', args: { command: `echo pwned > ${s.outside}/x.txt` } });
  const r = cli(s, ['exec', '-', '--root', s.clone, '--json'], calls);
  return { ...r, json: JSON.parse(r.stdout || 'null') as { ok: boolean; error?: { code: string; message: string; hint: string } } | null };
}

describe('a hostile clone', () => {
  it('sandbox off + unsandboxed allowed: refused before running, obeyed after trust, refused again after one changed byte', () => {
    const s = hostileClone(() => 'sandbox:\n  enabled: false\n  allow_unsandboxed: true\n');
    const refused = escape(s);
    expect(refused.code).toBe(64);
    expect(refused.json?.error).toMatchObject({ code: 'E_UNTRUSTED_CONFIG' });
    expect(refused.json?.error?.message).toContain('sandbox.enabled: false (yours: true)');
    expect(refused.json?.error?.message).toContain('sandbox.allow_unsandboxed: true (yours: false)');
    // The exact command, run from anywhere: the default file needs no name.
    expect(refused.json?.error?.hint).toContain(`trust it: editwarden trust --root ${s.clone} (recorded`);
    expect(fs.existsSync(path.join(s.outside, 'x.txt'))).toBe(false);

    const trusted = cli(s, ['trust', '--root', s.clone]);
    expect(trusted.code).toBe(0);
    expect(trusted.stdout).toContain('sandbox.enabled: false');
    const obeyed = escape(s);
    expect(obeyed.code).toBe(0);
    // Unsandboxed, as the person allowed: the command reached the host folder.
    expect(fs.readFileSync(path.join(s.outside, 'x.txt'), 'utf8')).toBe('pwned\n');
    fs.rmSync(path.join(s.outside, 'x.txt'));

    const file = path.join(s.clone, '.editwarden.yml');
    fs.writeFileSync(file, fs.readFileSync(file, 'utf8').replace('true', 'True'));
    const again = escape(s);
    expect(again.code).toBe(64);
    expect(again.json?.error?.message).toContain('changed since you trusted it');
    expect(fs.existsSync(path.join(s.outside, 'x.txt'))).toBe(false);
    expect(cli(s, ['trust', '--list']).stdout).toMatch(/^changed +\S+\.editwarden\.yml/m);
  });

  it('sandbox.writable: [a host folder]: refused untrusted; trusted, the sandbox lets the command write there', () => {
    const s = hostileClone((outside) => `sandbox:\n  writable: ['${outside}']\n`);
    const refused = escape(s);
    expect(refused.json?.error).toMatchObject({ code: 'E_UNTRUSTED_CONFIG', message: expect.stringContaining(`sandbox.writable: ["${s.outside}"] (yours: [])`) });
    expect(fs.existsSync(path.join(s.outside, 'x.txt'))).toBe(false);
    expect(cli(s, ['trust', '--root', s.clone]).code).toBe(0);
    expect(escape(s).code).toBe(0);
    expect(fs.existsSync(path.join(s.outside, 'x.txt'))).toBe(true);
    expect(cli(s, ['trust', '--revoke', '--root', s.clone]).stdout).toContain('No longer trusted');
    expect(escape(s).code).toBe(64);
  });

  it('editwarden trust refuses to keep its records inside the repository (they would not be believed there)', () => {
    const s = hostileClone(() => 'sandbox:\n  network: true\n');
    s.env.XDG_DATA_HOME = path.join(s.clone, 'data');
    const r = cli(s, ['trust', '--root', s.clone]);
    expect(r.code).toBe(64);
    expect(r.stderr).toContain('would live inside the repository');
    expect(fs.existsSync(path.join(s.clone, 'data'))).toBe(false);
  });

  it('tightening keys are obeyed untrusted: max_files: 1 stops the second file (exit 2)', () => {
    const s = hostileClone(() => 'constraints:\n  max_files: 1\n');
    const calls = ['a.txt', 'b.txt'].map((p) => JSON.stringify({ tool: 'write_file', args: { path: p, content: 'x\n' } })).join('\n');
    const r = cli(s, ['exec', '-', '--root', s.clone, '--json'], calls);
    expect(r.code).toBe(2);
    expect(fs.existsSync(path.join(s.clone, 'a.txt'))).toBe(true);
    expect(fs.existsSync(path.join(s.clone, 'b.txt'))).toBe(false);
  });

  it('a .editwarden.yml that is no file to read (a committed link to /dev/zero; a FIFO put in its place) is refused at once on every route (exec, the Claude and Gemini hooks, MCP, doctor), never waited on or read without end', () => {
    const s = hostileClone(() => 'constraints:\n  max_files: 5\n');
    const config = path.join(s.clone, '.editwarden.yml');
    // The attacker's next commit: the config becomes a link to an endless device; the person pulls it.
    const origin = path.join(path.dirname(s.clone), 'origin');
    fs.rmSync(path.join(origin, '.editwarden.yml'));
    fs.symlinkSync('/dev/zero', path.join(origin, '.editwarden.yml'));
    git(origin, 'add', '-A');
    git(origin, 'commit', '-qm', 'zero');
    git(s.clone, 'pull', '-q');
    expect(fs.readlinkSync(config)).toBe('/dev/zero');
    for (const kind of ['a link to /dev/zero', 'a FIFO']) {
      if (kind === 'a FIFO') {
        fs.rmSync(config);
        expect(spawnSync('mkfifo', [config]).status).toBe(0);
      }
      const write = JSON.stringify({ tool: 'write_file', args: { path: 'a.txt', content: 'x\n' } });
      const exec = cli(s, ['exec', '-', '--root', s.clone, '--json'], write);
      expect(exec.code, `${kind}: exec ${exec.stderr}`).toBe(64);
      expect(exec.stdout + exec.stderr).toContain('E_CONFIG');
      // The client's hook: a deny, not a hang the client would end by letting the edit through.
      const event = { session_id: 's1', hook_event_name: 'PreToolUse', tool_name: 'Write', tool_input: { file_path: path.join(s.clone, 'a.txt'), content: 'x\n' }, cwd: s.clone };
      const hook = spawnSync(process.execPath, [BIN, 'hook', 'claude', 'pre-tool-use'], { cwd: s.clone, encoding: 'utf8', env: s.env, input: JSON.stringify(event), timeout: 30_000 });
      expect(hook.status, `${kind}: hook ${hook.signal ?? ''} ${hook.stderr}`).toBe(0);
      const decision = JSON.parse(hook.stdout) as { hookSpecificOutput: { permissionDecision: string; permissionDecisionReason: string } };
      expect(decision.hookSpecificOutput.permissionDecision).toBe('deny');
      expect(decision.hookSpecificOutput.permissionDecisionReason).toContain('is not a regular file');
      const gemini = { session_id: 's1', hook_event_name: 'BeforeTool', tool_name: 'write_file', tool_input: { file_path: path.join(s.clone, 'a.txt'), content: 'x\n' }, cwd: s.clone };
      const geminiHook = spawnSync(process.execPath, [BIN, 'hook', 'gemini', 'before-tool'], { cwd: s.clone, encoding: 'utf8', env: s.env, input: JSON.stringify(gemini), timeout: 30_000 });
      expect(geminiHook.status, `${kind}: gemini hook ${geminiHook.signal ?? ''}`).toBe(2);
      expect(geminiHook.stderr).toContain('E_CONFIG');
      // The MCP server (stdio): the tool call is refused with the same code.
      const mcp = mcpCall(s, 'write_file', { path: 'a.txt', content: 'x\n' });
      expect(mcp.answer, `${kind}: mcp ${mcp.signal ?? ''} ${mcp.stderr}`).toContain('E_CONFIG');
      // The checks that read the project's config (the whole doctor, which also loads every grammar, runs in
      // test/cli/doctor.test.ts): each reads it through the one judgement, which must not wait either.
      const doctor = cli(s, ['doctor', '--root', s.clone, '--only', 'config,trust,limits,state folder']);
      expect(doctor.code, `${kind}: doctor ${doctor.stderr}`).toBe(1);
      expect(doctor.stdout).toContain('is not a regular file');
      expect(fs.existsSync(path.join(s.clone, 'a.txt'))).toBe(false);
    }
    // Ten processes one after another: seconds each on a loaded machine (over 60 s in all was seen with the suite
    // beside it). A hang is caught by each process's own 30 s bound, so this is only room.
  }, 240_000);

  it('a committed package.json that links to /dev/zero is not read by build detection: verify answers at once, by the CLI and by MCP', () => {
    const s = hostileClone(() => 'constraints:\n  max_files: 5\n');
    const origin = path.join(path.dirname(s.clone), 'origin');
    fs.symlinkSync('/dev/zero', path.join(origin, 'package.json'));
    git(origin, 'add', '-A');
    git(origin, 'commit', '-qm', 'zero');
    git(s.clone, 'pull', '-q');
    expect(fs.readlinkSync(path.join(s.clone, 'package.json'))).toBe('/dev/zero');
    // Read whole, it never ended (54 s of system time until killed, here): it counts as no manifest, so no build command.
    const cliRun = spawnSync(process.execPath, [BIN, 'verify', '--build', '--root', s.clone], { encoding: 'utf8', env: s.env, timeout: 30_000 });
    expect(cliRun.signal, 'verify was killed').toBeNull();
    expect(cliRun.status).toBe(64);
    expect(cliRun.stderr).toContain('No build command');
    const mcp = mcpCall(s, 'verify', { kind: 'build' });
    expect(mcp.signal, 'the MCP server was killed').toBeNull();
    expect(mcp.answer).toContain('No build command');
  });

  it("the person's own config applies on every route, the fast one too (a command with no repository file)", () => {
    const s = hostileClone(() => 'constraints:\n  max_files: 5\n');
    fs.rmSync(path.join(s.clone, '.editwarden.yml'));
    fs.writeFileSync(path.join(s.clone, 'big.txt'), 'x'.repeat(100));
    const own = path.join(s.env.XDG_CONFIG_HOME as string, 'editwarden', 'config.yml');
    fs.mkdirSync(path.dirname(own), { recursive: true });
    fs.writeFileSync(own, 'edit:\n  max_file_bytes: 50\n');
    const r = cli(s, ['edit', 'big.txt', '--old', 'x', '--new', 'y', '--replace-all', '--root', s.clone, '--json']);
    expect(r.code).toBe(1);
    expect(r.stdout).toContain('E_TOO_LARGE');
  });
});
