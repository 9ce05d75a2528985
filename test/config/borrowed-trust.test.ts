/**
 * Trust is the repository's own (issue 38.6): a never-trusted clone whose
 * committed `.editwarden.yml` is a link to a sibling project's trusted file
 * is not governed by that trust. The config is refused (E_CONFIG_SYMLINK) on
 * every route — the CLI, the MCP server, a client hook — and nothing runs
 * under it; a link inside the root is judged by its own path, never by the
 * record of the file it points at. Real git clone, the real binary, the
 * person's XDG folders the test's own.
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { inspectConfig } from '../../src/config/load.js';
import { trustFile } from '../../src/config/trust-store.js';
import { tempDir } from '../temp-dirs.js';

const BIN = path.resolve(__dirname, '../../bin/editwarden');

function git(cwd: string, ...args: string[]): void {
  const r = spawnSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@example.com', ...args], { cwd, encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`git ${args.join(' ')}: ${r.stderr}`);
}

interface Setup {
  sibling: string;
  clone: string;
  outside: string;
  env: NodeJS.ProcessEnv;
}

/**
 * The person's own project `sibling`, whose config (a host folder writable) they trusted; an attacker's repository
 * that commits `.editwarden.yml -> ../sibling/.editwarden.yml`, cloned for real next to it.
 */
function borrowedTrust(): Setup {
  const base = tempDir('ew-borrow-');
  const outside = path.join(base, 'outside');
  fs.mkdirSync(outside);
  const env = { ...process.env, NO_COLOR: '1', EDITWARDEN_HOOK_SERVER: 'off', XDG_CONFIG_HOME: path.join(base, 'xdg-config'), XDG_DATA_HOME: path.join(base, 'xdg-data') };
  const sibling = path.join(base, 'sibling');
  fs.mkdirSync(sibling);
  git(sibling, 'init', '-q');
  fs.writeFileSync(path.join(sibling, '.editwarden.yml'), `sandbox:\n  writable: ['${outside}']\n`);
  const trusted = spawnSync(process.execPath, [BIN, 'trust', '--root', sibling], { encoding: 'utf8', env });
  if (trusted.status !== 0) throw new Error(`trust: ${trusted.stderr}`);
  const origin = path.join(base, 'origin');
  fs.mkdirSync(origin);
  git(origin, 'init', '-q');
  fs.symlinkSync('../sibling/.editwarden.yml', path.join(origin, '.editwarden.yml'));
  fs.writeFileSync(path.join(origin, 'a.txt'), 'one\n');
  git(origin, 'add', '-A');
  git(origin, 'commit', '-qm', 'init');
  git(base, 'clone', '-q', origin, 'clone');
  const clone = path.join(base, 'clone');
  expect(fs.readlinkSync(path.join(clone, '.editwarden.yml'))).toBe('../sibling/.editwarden.yml');
  return { sibling, clone, outside, env };
}

function cli(s: Setup, args: string[], input?: string) {
  const r = spawnSync(process.execPath, [BIN, ...args], { cwd: s.clone, encoding: 'utf8', env: s.env, input, timeout: 60_000 });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

function mcpCall(s: Setup, name: string, args: Record<string, unknown>): string {
  const rpc = [
    { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 't', version: '0' } } },
    { jsonrpc: '2.0', method: 'notifications/initialized' },
    { jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name, arguments: args } },
  ];
  const r = spawnSync(process.execPath, [BIN, 'mcp', '--root', s.clone], { encoding: 'utf8', env: s.env, input: `${rpc.map((m) => JSON.stringify(m)).join('\n')}\n`, timeout: 30_000 });
  return r.stdout.split('\n').find((line) => line.includes('"id":2')) ?? `no answer: ${r.stderr}`;
}

describe("a clone's config that is a link to a sibling project's trusted file", () => {
  it('is refused with E_CONFIG_SYMLINK on the CLI, the MCP server and the Claude and Gemini hooks; the host folder the sibling may write is never written', () => {
    const s = borrowedTrust();
    const escape = JSON.stringify({ tool: 'execute_command', args: { command: `echo pwned > ${s.outside}/x.txt` } });
    const exec = cli(s, ['exec', '-', '--root', s.clone, '--json'], escape);
    expect(exec.code, exec.stderr).toBe(64);
    expect(JSON.parse(exec.stdout).error).toMatchObject({ code: 'E_CONFIG_SYMLINK', message: expect.stringContaining('leads out of the repository') });

    const mcp = mcpCall(s, 'execute_command', { command: `echo pwned > ${s.outside}/x.txt` });
    expect(mcp).toContain('E_CONFIG_SYMLINK');

    const write = { session_id: 's1', hook_event_name: 'PreToolUse', tool_name: 'Write', tool_input: { file_path: path.join(s.clone, 'a.txt'), content: 'two\n' }, cwd: s.clone };
    const claude = cli(s, ['hook', 'claude', 'pre-tool-use'], JSON.stringify(write));
    expect(claude.code, claude.stderr).toBe(0);
    const decision = JSON.parse(claude.stdout).hookSpecificOutput;
    expect(decision.permissionDecision).toBe('deny');
    expect(decision.permissionDecisionReason).toContain('E_CONFIG_SYMLINK');

    const geminiWrite = { session_id: 's1', hook_event_name: 'BeforeTool', tool_name: 'write_file', tool_input: { file_path: path.join(s.clone, 'a.txt'), content: 'two\n' }, cwd: s.clone };
    const gemini = cli(s, ['hook', 'gemini', 'before-tool'], JSON.stringify(geminiWrite));
    expect(gemini.code).toBe(2);
    expect(gemini.stderr).toContain('E_CONFIG_SYMLINK');

    expect(fs.existsSync(path.join(s.outside, 'x.txt'))).toBe(false);
    expect(fs.readFileSync(path.join(s.clone, 'a.txt'), 'utf8')).toBe('one\n');
    // `editwarden trust` in the clone refuses it too: there is nothing of the clone's own to trust.
    const trust = cli(s, ['trust', '--root', s.clone]);
    expect(trust.code).toBe(64);
    expect(trust.stderr).toContain('E_CONFIG_SYMLINK');
    // The sibling itself stays trusted and obeyed.
    const own = spawnSync(process.execPath, [BIN, 'exec', '-', '--root', s.sibling, '--json'], { cwd: s.sibling, encoding: 'utf8', env: s.env, input: escape });
    expect(own.status, own.stdout).toBe(0);
    expect(fs.readFileSync(path.join(s.outside, 'x.txt'), 'utf8')).toBe('pwned\n');
  }, 120_000);
});

describe('a link inside the root is judged by its own path', () => {
  const LOOSE = 'sandbox:\n  network: true\n';

  it('trusting the file a link points at does not trust the link; trusting the link does, and one changed byte of the target voids it', () => {
    const base = tempDir('ew-own-path-');
    const root = path.join(base, 'repo');
    fs.mkdirSync(path.join(root, 'tools'), { recursive: true });
    fs.writeFileSync(path.join(root, 'tools', 'ew.yml'), LOOSE);
    fs.symlinkSync('tools/ew.yml', path.join(root, '.editwarden.yml'));
    const env = { XDG_CONFIG_HOME: path.join(base, 'cfg'), XDG_DATA_HOME: path.join(base, 'data') };
    trustFile(path.join(root, 'tools', 'ew.yml'), env);
    expect(inspectConfig(root, undefined, env).trust.state).toBe('untrusted');
    expect(inspectConfig(root, path.join(root, 'tools', 'ew.yml'), env).trust.state).toBe('trusted');
    trustFile(path.join(root, '.editwarden.yml'), env);
    expect(inspectConfig(root, undefined, env).trust.state).toBe('trusted');
    fs.appendFileSync(path.join(root, 'tools', 'ew.yml'), '# more\n');
    expect(inspectConfig(root, undefined, env).trust.state).toBe('changed');
  });

  it('property: a config whose real target leaves the root is refused, one inside is read; no record of another file ever trusts it', () => {
    const base = tempDir('ew-own-prop-');
    const env = { XDG_CONFIG_HOME: path.join(base, 'cfg'), XDG_DATA_HOME: path.join(base, 'data') };
    const other = path.join(base, 'other.yml');
    fs.writeFileSync(other, LOOSE);
    trustFile(other, env);
    let n = 0;
    fc.assert(
      fc.property(fc.array(fc.constantFrom('sub', 'deep', 'x'), { maxLength: 3 }), fc.constantFrom('inside', 'outside', 'dir-link-out', 'dir-link-in'), (segments, kind) => {
        const root = path.join(base, `r${n++}`);
        fs.mkdirSync(path.join(root, 'in'), { recursive: true });
        fs.writeFileSync(path.join(root, 'in', 'ew.yml'), LOOSE);
        const named = path.join(root, ...segments, '.editwarden.yml');
        fs.mkdirSync(path.dirname(named), { recursive: true });
        if (kind === 'dir-link-out' || kind === 'dir-link-in') {
          // The config's folder is a link: to the other file's folder, or to one inside the root.
          const dir = path.join(root, 'cfgdir');
          fs.symlinkSync(kind === 'dir-link-out' ? base : path.join(root, 'in'), dir);
          const file = path.join(dir, kind === 'dir-link-out' ? 'other.yml' : 'ew.yml');
          const judge = () => inspectConfig(root, file, env);
          if (kind === 'dir-link-out') expect(judge).toThrow(expect.objectContaining({ code: 'E_CONFIG_SYMLINK' }));
          else expect(judge().trust.state).toBe('untrusted');
          return;
        }
        fs.symlinkSync(kind === 'outside' ? other : path.join(root, 'in', 'ew.yml'), named);
        const judge = () => inspectConfig(root, segments.length === 0 ? undefined : named, env);
        if (kind === 'outside') expect(judge).toThrow(expect.objectContaining({ code: 'E_CONFIG_SYMLINK' }));
        else expect(judge().trust.state).toBe('untrusted');
      }),
      { numRuns: 40 },
    );
  });
});
