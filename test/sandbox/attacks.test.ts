/**
 * The hostile agent against the command boundary, with real processes through
 * every entry point that runs a command: CLI verify (an agent-written
 * Makefile), exec's execute_command, run's transcript, MCP verify, the
 * controlled-edit build and the Editor's verification. Each attack here
 * succeeded before commands ran in the sandbox.
 */
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { spawn, spawnSync } from 'node:child_process';
import { afterAll, afterEach, beforeAll, describe, expect, test } from 'vitest';
import { trustRepoConfig } from '../trust-config.js';

const REPO = path.resolve(__dirname, '../..');
const BIN = path.join(REPO, 'bin/editwarden');
const SECRETS = { GITHUB_TOKEN: 'ghp_SECRETgithub0001', AWS_SECRET_ACCESS_KEY: 'awsSECRET0002', OPENAI_API_KEY: 'sk-SECRETopenai0003', MY_LLM_CRED: 'SECRETcustomkey0004' };

let base: string;
let home: string;
beforeAll(() => {
  if (!fs.existsSync(path.join(REPO, 'dist/sandbox/index.js'))) spawnSync('npx', ['tsc', '-p', 'tsconfig.build.json'], { cwd: REPO, stdio: 'inherit' });
  base = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'ew-attack-')));
  // A fake HOME with a fake key: the test's editwarden runs with HOME pointing here.
  home = path.join(base, 'home');
  fs.mkdirSync(path.join(home, '.ssh'), { recursive: true });
  fs.writeFileSync(path.join(home, '.ssh/id_rsa'), '-----BEGIN FAKE KEY----- SECRETsshkey0005\n');
  fs.writeFileSync(path.join(home, '.netrc'), 'machine github.com password SECRETnetrc0006\n');
});
afterAll(() => fs.rmSync(base, { recursive: true, force: true }));

const roots: string[] = [];
afterEach(() => {
  for (const r of roots.splice(0)) fs.rmSync(path.dirname(r), { recursive: true, force: true });
});

/** A project in a folder of its own (its parent is where `../x` would land), with .git and a config. */
function project(files: Record<string, string> = {}): string {
  const parent = fs.realpathSync(fs.mkdtempSync(path.join(base, 'p-')));
  const root = path.join(parent, 'proj');
  fs.mkdirSync(path.join(root, '.git/hooks'), { recursive: true });
  fs.mkdirSync(path.join(root, '.editwarden'), { recursive: true });
  fs.writeFileSync(path.join(root, '.editwarden.yml'), 'constraints:\n  max_files: 10\n');
  for (const [rel, text] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(root, rel)), { recursive: true });
    fs.writeFileSync(path.join(root, rel), text);
  }
  // These tests are the person's own configs (network, git_writable, sandbox off): trusted, as `editwarden trust` would.
  trustRepoConfig(root);
  roots.push(root);
  return root;
}

function env(extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
  return { ...process.env, HOME: home, NO_COLOR: '1', ...SECRETS, ...extra };
}

function cli(args: string[], extra: NodeJS.ProcessEnv = {}, input?: string) {
  const r = spawnSync(process.execPath, [BIN, ...args], { encoding: 'utf8', env: env(extra), input, timeout: 60_000 });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

function cliAsync(args: string[], extra: NodeJS.ProcessEnv = {}): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [BIN, ...args], { env: env(extra) });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

function exec(root: string, commands: string[], flags: string[] = [], extra: NodeJS.ProcessEnv = {}) {
  const calls = commands.map((command) => JSON.stringify({ tool: 'execute_command', args: { command } })).join('\n');
  const r = cli(['exec', '-', '--root', root, '--json', ...flags], extra, calls);
  return { ...r, out: r.stdout ? JSON.parse(r.stdout) : null };
}

function noSecretIn(text: string): void {
  for (const value of [...Object.values(SECRETS), 'SECRETsshkey0005', 'SECRETnetrc0006']) expect(text).not.toContain(value);
}

const HOSTILE_MAKEFILE = [
  'all:',
  '\t-cat $(HOME)/.ssh/id_rsa',
  '\t-cat $(HOME)/.netrc',
  '\t-echo pwned > ../x',
  '\t-echo hook > .git/hooks/pre-commit',
  '\t-echo x > .editwarden/planted',
  '\t-echo "constraints: {max_files: 1000}" > .editwarden.yml',
  '\tenv',
  '',
].join('\n');

function expectNothingEscaped(root: string): void {
  expect(fs.existsSync(path.join(path.dirname(root), 'x'))).toBe(false);
  expect(fs.existsSync(path.join(root, '.git/hooks/pre-commit'))).toBe(false);
  expect(fs.existsSync(path.join(root, '.editwarden/planted'))).toBe(false);
  expect(fs.readFileSync(path.join(root, '.editwarden.yml'), 'utf8')).toBe('constraints:\n  max_files: 10\n');
}

describe('CLI verify runs an agent-written Makefile in the sandbox', () => {
  test('it reads no key, writes nothing outside the root, cannot touch .git, .editwarden or the config, sees no secret', () => {
    const root = project({ Makefile: HOSTILE_MAKEFILE });
    const r = cli(['verify', '--root', root, '--cmd', 'make', '--json']);
    const out = JSON.parse(r.stdout);
    expect(out.steps[0].sandbox).toBe('bwrap');
    noSecretIn(r.stdout);
    noSecretIn(fs.readFileSync(path.join(root, out.steps[0].artifact_dir, 'combined.log'), 'utf8'));
    expect(out.steps[0].tail).toMatch(/No such file or directory|Read-only file system/);
    expectNothingEscaped(root);
  });

  test('the real builds still work inside: make + cc, CMake + g++ with ctest, tsc, npm test, python', () => {
    const root = project({
      'c/Makefile': 'all: hello\n\t./hello\nhello: hello.c\n\tcc -o hello hello.c\n',
      'c/hello.c': '#include <stdio.h>\nint main(void){puts("c-ok");return 0;}\n',
      'cm/CMakeLists.txt': 'cmake_minimum_required(VERSION 3.10)\nproject(h CXX)\nenable_testing()\nadd_executable(h main.cpp)\nadd_test(NAME h COMMAND h)\n',
      'cm/main.cpp': '#include <iostream>\nint main(){std::cout<<"cmake-ok\\n";}\n',
      // A lean tsconfig (no DOM library, libraries unchecked, as most projects set it): tsc itself is what must run here.
      'ts/tsconfig.json': '{"compilerOptions":{"strict":true,"outDir":"out","lib":["es2020"],"types":[],"skipLibCheck":true},"files":["a.ts"]}\n',
      'ts/a.ts': 'export const n: number = 1;\n',
      'js/package.json': '{"name":"t","version":"1.0.0","scripts":{"test":"node t.js"}}\n',
      'js/t.js': 'console.log("npm-test-ok")\n',
      'py/t.py': 'import json, tempfile\nprint("py-ok", tempfile.gettempdir())\n',
    });
    const tsc = path.join(REPO, 'node_modules/.bin/tsc');
    const cmd = `make -C c && cd cm && cmake -S . -B build >/dev/null && cmake --build build >/dev/null && ctest --test-dir build >/dev/null && echo ctest-ok && cd ../ts && ${tsc} -p . && echo tsc-ok && cd ../js && npm test --silent && cd ../py && python3 t.py`;
    const r = cli(['verify', '--root', root, '--cmd', cmd, '--json'], {}, undefined);
    const out = JSON.parse(r.stdout);
    expect(out.steps[0], out.steps[0].tail).toMatchObject({ passed: true, sandbox: 'bwrap' });
    for (const word of ['c-ok', 'ctest-ok', 'tsc-ok', 'npm-test-ok', 'py-ok /tmp']) expect(out.steps[0].tail).toContain(word);
    expect(fs.existsSync(path.join(root, 'ts/out/a.js'))).toBe(true);
  }, 60_000);
});

describe('exec: execute_command in the sandbox', () => {
  test('`echo > ../x`, writes to .git/hooks, .editwarden and the config fail; `env` shows no secret', () => {
    const root = project();
    const r = exec(root, ['echo pwned > ../x', 'echo hook > .git/hooks/pre-commit', 'echo x > .editwarden/planted', 'echo "constraints: {}" > .editwarden.yml', 'env; cat ~/.ssh/id_rsa ~/.netrc; cat /proc/1/environ']);
    expect(r.out.calls.slice(0, 4).map((c: { ok: boolean }) => c.ok)).toEqual([true, false, false, false]);
    expect(r.out.calls[0].data.sandbox).toBe('bwrap');
    noSecretIn(r.stdout);
    expect(r.out.calls[4].output).toContain('PATH=');
    expectNothingEscaped(root);
  });

  test('a background writer (setsid nohup) does not outlive editwarden killed with SIGKILL', async () => {
    const root = project();
    const calls = JSON.stringify({ tool: 'execute_command', args: { command: '(setsid nohup sh -c "sleep 1.5; echo late > late.txt" >/dev/null 2>&1 &); echo started > started.txt; sleep 20' } });
    fs.writeFileSync(path.join(root, 'calls.jsonl'), `${calls}\n`);
    const child = spawn(process.execPath, [BIN, 'exec', path.join(root, 'calls.jsonl'), '--root', root], { env: env(), stdio: 'ignore' });
    for (let i = 0; i < 300 && !fs.existsSync(path.join(root, 'started.txt')); i++) await new Promise((r) => setTimeout(r, 20));
    expect(fs.existsSync(path.join(root, 'started.txt'))).toBe(true);
    child.kill('SIGKILL');
    await new Promise((r) => setTimeout(r, 2500));
    expect(fs.existsSync(path.join(root, 'late.txt'))).toBe(false);
  });

  test('the network is off by default; sandbox.network: true allows it', async () => {
    const server = net.createServer((s) => {
      s.on('error', () => {});
      s.end('hello');
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const port = (server.address() as net.AddressInfo).port;
    try {
      const probe = `node -e "require('net').connect(${port},'127.0.0.1').on('connect',()=>{console.log('CONN'+'ECTED');process.exit(0)}).on('error',e=>{console.log(e.code);process.exit(7)})"`;
      const calls = JSON.stringify({ tool: 'execute_command', args: { command: probe } });
      const off = project();
      fs.writeFileSync(path.join(off, 'calls.jsonl'), `${calls}\n`);
      const r1 = JSON.parse((await cliAsync(['exec', path.join(off, 'calls.jsonl'), '--root', off, '--json'])).stdout);
      expect(r1.calls[0].ok).toBe(false);
      expect(r1.calls[0].output).not.toContain('CONNECTED');
      expect(r1.calls[0].output).toMatch(/ECONNREFUSED|ENETUNREACH/);
      const on = project({ '.editwarden.yml': 'sandbox:\n  network: true\n' });
      fs.writeFileSync(path.join(on, 'calls.jsonl'), `${calls}\n`);
      const r2 = JSON.parse((await cliAsync(['exec', path.join(on, 'calls.jsonl'), '--root', on, '--json'])).stdout);
      expect(r2.calls[0].output).toContain('CONNECTED');
    } finally {
      server.close();
    }
  });
});

describe('config keys', () => {
  test('git_writable: true lets commands write .git (to commit); .editwarden and the config stay read-only', () => {
    const root = project({ '.editwarden.yml': 'sandbox:\n  git_writable: true\n' });
    const r = exec(root, ['echo ref > .git/HEAD', 'echo x > .editwarden/planted', 'echo "{}" > .editwarden.yml']);
    expect(r.out.calls.map((c: { ok: boolean }) => c.ok)).toEqual([true, false, false]);
    expect(fs.readFileSync(path.join(root, '.git/HEAD'), 'utf8')).toBe('ref\n');
  });

  test('readable exposes a named file of the hidden HOME read-only; a secret store stays hidden even when listed', () => {
    fs.writeFileSync(path.join(home, '.toolrc'), 'tool-settings\n');
    const root = project({ '.editwarden.yml': "sandbox:\n  readable: ['~/.toolrc', '~/.ssh']\n" });
    const r = exec(root, ['cat ~/.toolrc', 'cat ~/.ssh/id_rsa', 'echo changed > ~/.toolrc']);
    expect(r.out.calls[0].output).toContain('tool-settings');
    expect(r.out.calls.slice(1).map((c: { ok: boolean }) => c.ok)).toEqual([false, false]);
    noSecretIn(r.stdout);
    expect(fs.readFileSync(path.join(home, '.toolrc'), 'utf8')).toBe('tool-settings\n');
  });

  test('enabled: false runs nothing headless (E_UNSANDBOXED says the sandbox is off) unless allow_unsandboxed', () => {
    const off = project({ '.editwarden.yml': 'sandbox:\n  enabled: false\n' });
    const refused = exec(off, ['echo ran > ran.txt']).out.calls[0];
    expect(refused.error).toMatchObject({ code: 'E_UNSANDBOXED', message: expect.stringContaining('sandbox.enabled: false') });
    expect(fs.existsSync(path.join(off, 'ran.txt'))).toBe(false);
    const allowed = project({ '.editwarden.yml': 'sandbox:\n  enabled: false\n  allow_unsandboxed: true\n' });
    expect(exec(allowed, ['echo ran > ran.txt']).out.calls[0]).toMatchObject({ ok: true, data: { sandbox: 'none' } });
  });
});

describe('where no sandbox can be had', () => {
  const NO_BWRAP = { EDITWARDEN_BWRAP: path.join(os.tmpdir(), 'no-such-dir', 'bwrap') };

  test('a headless execute_command is refused with E_UNSANDBOXED, naming --unsandboxed; nothing ran', () => {
    const root = project();
    const r = exec(root, ['echo ran > ran.txt'], [], NO_BWRAP);
    expect(r.out.calls[0].error).toMatchObject({ code: 'E_UNSANDBOXED', hint: expect.stringContaining('--unsandboxed') });
    expect(r.out.calls[0].data.sandbox).toBe('none');
    expect(fs.existsSync(path.join(root, 'ran.txt'))).toBe(false);
  });

  test('a bwrap that cannot start counts as none too', () => {
    const root = project();
    const r = exec(root, ['echo ran > ran.txt'], [], { EDITWARDEN_BWRAP: '/bin/false' });
    expect(r.out.calls[0].error.code).toBe('E_UNSANDBOXED');
  });

  test('--unsandboxed (or sandbox.allow_unsandboxed) runs it, and the result says sandbox: none; the env is still an allowlist', () => {
    const root = project();
    const r = exec(root, ['echo ran > ran.txt; env'], ['--unsandboxed'], NO_BWRAP);
    expect(r.out.calls[0].ok).toBe(true);
    expect(r.out.calls[0].data.sandbox).toBe('none');
    expect(r.out.calls[0].output).toContain('sandbox: none');
    noSecretIn(r.stdout);
    const viaConfig = project({ '.editwarden.yml': 'sandbox:\n  allow_unsandboxed: true\n' });
    expect(exec(viaConfig, ['true'], [], NO_BWRAP).out.calls[0].ok).toBe(true);
  });

  test('verify runs and says sandbox: none (text and JSON); detect reports the sandbox in force', () => {
    const root = project({ Makefile: 'all:\n\ttrue\n' });
    expect(JSON.parse(cli(['verify', '--root', root, '--cmd', 'make', '--json'], NO_BWRAP).stdout).steps[0].sandbox).toBe('none');
    expect(cli(['verify', '--root', root, '--cmd', 'make'], NO_BWRAP).stdout).toContain('sandbox: none');
    expect(JSON.parse(cli(['detect', '--root', root, '--json'], NO_BWRAP).stdout).sandbox).toMatchObject({ kind: 'none', fix: expect.stringContaining('bubblewrap') });
    expect(cli(['detect', '--root', root]).stdout).toMatch(/sandbox: +bwrap/);
  });
});

describe('run: secrets never reach the model or transcript.jsonl', () => {
  test('`env` and `cat ~/.ssh/id_rsa` by the agent leave no secret in the transcript', () => {
    const root = project();
    const script = path.join(path.dirname(root), 'script.json');
    fs.writeFileSync(
      script,
      JSON.stringify({
        turns: [
          { tool_calls: [{ name: 'execute_command', arguments: { command: 'env; cat ~/.ssh/id_rsa; cat /proc/1/environ' } }], usage: { input: 10, output: 5 } },
          { tool_calls: [{ name: 'task_completion', arguments: { summary: 'done', status: 'done' } }], usage: { input: 10, output: 5 } },
        ],
      }),
    );
    const r = cli(['run', '--task', 'Print the environment.', '--model', `replay:${script}`, '--root', root, '--json', '--api-key-env', 'MY_LLM_CRED']);
    const out = JSON.parse(r.stdout);
    const transcript = fs.readFileSync(out.transcript, 'utf8');
    expect(transcript).toContain('PATH=');
    noSecretIn(transcript);
    noSecretIn(r.stdout);
  });

  test('--api-key-env naming an allowlisted variable is refused', () => {
    const root = project();
    const r = cli(['run', '--task', 't', '--model', 'replay:/nonexistent.json', '--root', root, '--api-key-env', 'PATH']);
    expect(r.code).toBe(64);
    expect(r.stderr).toContain('environment allowlist');
  });
});

describe('what editwarden runs from stays usable inside the sandbox', () => {
  test('a Node installed under /tmp (a registry node@24, say) runs commands inside, though /tmp is private there', () => {
    // Under /tmp itself, whatever TMPDIR says: the sandbox hides /tmp, which is the point.
    const prefix = fs.realpathSync(fs.mkdtempSync('/tmp/ew-node-prefix-'));
    try {
      fs.mkdirSync(path.join(prefix, 'bin'));
      const node = path.join(prefix, 'bin', 'node');
      // A hard link where /tmp shares the file system (no 100 MB copy); a copy where it does not (a tmpfs /tmp).
      try {
        fs.linkSync(process.execPath, node);
      } catch {
        fs.copyFileSync(process.execPath, node);
        fs.chmodSync(node, 0o755);
      }
      const root = project();
      const calls = JSON.stringify({ tool: 'execute_command', args: { command: `${node} -e 'console.log(40 + 2)'` } });
      const r = spawnSync(node, [BIN, 'exec', '-', '--root', root, '--json'], { encoding: 'utf8', env: env(), input: calls, timeout: 60_000 });
      const out = JSON.parse(r.stdout) as { calls: Array<{ ok: boolean; output: string }> };
      expect(out.calls[0]?.ok, r.stdout).toBe(true);
      expect(out.calls[0]?.output).toContain('42');
    } finally {
      fs.rmSync(prefix, { recursive: true, force: true });
    }
  });
});
