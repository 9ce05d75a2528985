/**
 * The real Codex CLI (npm @openai/codex, pinned devDependency) with its OWN
 * sandbox on — `-s workspace-write`, its default — and no "dangerously"
 * flag, driven by a scripted Responses API on 127.0.0.1. Its hooks are
 * trusted as a person's review in /hooks records them (`[hooks.state."<key>"]
 * trusted_hash` in the user's Codex config, the hash Codex's own app-server
 * reports). bubblewrap cannot start inside Codex's sandbox; editwarden
 * proves that sandbox keeps writes inside the project (sandbox/outer.ts),
 * runs the command under it, and still checkpoints, counts and records it.
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cleanup, clientPath, editwarden, project, tempDir } from './helpers.js';
import { codexToolOutputs, startResponsesServer, type ResponsesCall } from './responses-server.js';

const CODEX = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..', 'node_modules', '.bin', 'codex');

beforeAll(() => {
  expect(fs.existsSync(CODEX), `${CODEX} is missing; run npm ci`).toBe(true);
});
afterAll(cleanup);

/** A Codex home whose user config trusts `root` (so its .codex/config.toml loads) and talks to `baseUrl`. */
function codexHome(root: string, baseUrl: string): string {
  const home = tempDir('ew-codexhome-');
  fs.writeFileSync(
    path.join(home, 'config.toml'),
    [
      'model = "gpt-5.5"',
      'model_provider = "scripted"',
      '[model_providers.scripted]',
      'name = "scripted"',
      `base_url = "${baseUrl}"`,
      'wire_api = "responses"',
      'env_key = "SCRIPTED_KEY"',
      `[projects."${root}"]`,
      'trust_level = "trusted"',
      '',
    ].join('\n'),
  );
  return home;
}

/** Runs a Codex subcommand to its end with `stdin` (line-delimited JSON-RPC for app-server). */
async function codexRun(args: string[], root: string, env: NodeJS.ProcessEnv, stdin?: (write: (line: string) => void, output: () => string) => Promise<void>): Promise<{ code: number | null; out: string }> {
  const child = spawn(CODEX, args, { cwd: root, env, stdio: ['pipe', 'pipe', 'pipe'] });
  let out = '';
  child.stdout.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr.on('data', (d: Buffer) => (out += d.toString()));
  const timer = setTimeout(() => child.kill('SIGKILL'), 120_000);
  if (stdin) {
    await stdin(
      (line) => child.stdin.write(`${line}\n`),
      () => out,
    );
  }
  child.stdin.end();
  const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
  clearTimeout(timer);
  return { code, out };
}

/**
 * What a person's review in Codex's /hooks records: for each editwarden hook Codex lists for the project (its
 * app-server's hooks/list: key and current hash), `[hooks.state."<key>"] trusted_hash` in the user's config.
 */
async function trustHooksAsAPersonWould(root: string, env: NodeJS.ProcessEnv, home: string): Promise<string[]> {
  let listed: Array<{ key: string; currentHash: string; command: string }> = [];
  await codexRun(['app-server'], root, env, async (write, output) => {
    write(JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { clientInfo: { name: 'ew-test', version: '1' } } }));
    write(JSON.stringify({ jsonrpc: '2.0', method: 'initialized' }));
    write(JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'hooks/list', params: { cwds: [root] } }));
    for (let i = 0; i < 200 && listed.length === 0; i++) {
      await new Promise((r) => setTimeout(r, 100));
      for (const line of output().split('\n')) {
        if (!line.startsWith('{"id":2')) continue;
        const data = (JSON.parse(line) as { result: { data: Array<{ hooks: typeof listed }> } }).result.data;
        listed = data.flatMap((d) => d.hooks);
      }
    }
  });
  const ours = listed.filter((h) => h.command.includes('hook codex'));
  const state = ours.map((h) => `[hooks.state.${JSON.stringify(h.key)}]\ntrusted_hash = ${JSON.stringify(h.currentHash)}\n`).join('');
  fs.appendFileSync(path.join(home, 'config.toml'), state);
  return ours.map((h) => h.key);
}

async function runCodexSandboxed(root: string, calls: ResponsesCall[], trust: boolean, sandboxArgs: string[] = ['-s', 'workspace-write']): Promise<{ code: number | null; out: string; outputs: string[]; env: NodeJS.ProcessEnv }> {
  const server = await startResponsesServer(calls);
  const home = codexHome(root, server.baseUrl);
  // The user's warm hook server, as on a person's machine: Codex's hooks (outside its sandbox) may reach it; the
  // guarded shell inside Codex's sandbox cannot (its seccomp refuses connect()) and runs in-process.
  const server_ = Object.fromEntries(['XDG_RUNTIME_DIR', 'EDITWARDEN_HOOK_SERVER_IDLE_MS'].filter((n) => process.env[n]).map((n) => [n, process.env[n]]));
  const env = { PATH: clientPath(true), HOME: tempDir('ew-home-'), TMPDIR: tempDir('ew-clienttmp-'), CODEX_HOME: home, SCRIPTED_KEY: 'not-a-key', ...server_ };
  try {
    if (trust) expect(await trustHooksAsAPersonWould(root, env, home)).toHaveLength(2);
    // Codex's own sandbox, its default mode; no --dangerously-* flag.
    const run = await codexRun(['exec', '--skip-git-repo-check', ...sandboxArgs, 'Make the change.'], root, env);
    return { ...run, outputs: codexToolOutputs(server.requests), env };
  } finally {
    await server.close();
  }
}

describe("Codex with its own sandbox (workspace-write) goes through editwarden, under Codex's sandbox", () => {
  it('a command that writes a file runs, is in editwarden log, and editwarden undo takes it back; an apply_patch onto .editwarden.yml is refused', async () => {
    const config = 'constraints:\n  max_files: 20\n';
    const root = project({ 'src/a.ts': 'export const a = 1;\n', '.editwarden.yml': config });
    const init = editwarden(['init', 'codex', '--root', root]);
    expect(init.code, init.stderr).toBe(0);
    const patch = ['*** Begin Patch', '*** Update File: .editwarden.yml', '-constraints:', '-  max_files: 20', '+constraints: {}', '*** End Patch'].join('\n');
    const run = await runCodexSandboxed(
      root,
      [
        { name: 'exec_command', args: { cmd: 'echo made > made.txt && echo wrote' } },
        { name: 'apply_patch', input: patch },
      ],
      true,
    );
    expect(run.code, run.out).toBe(0);
    expect(run.outputs, run.out).toHaveLength(2);
    // It ran (not E_UNSANDBOXED), and the result says which sandbox held it.
    expect(run.outputs[0]).toContain('wrote');
    expect(run.outputs[0]).not.toContain('E_UNSANDBOXED');
    expect(run.outputs[0]).toContain("ran under Codex's sandbox");
    // What Codex's sandbox leaves writable of the protected set is said, not hidden.
    expect(run.outputs[0]).toMatch(/it left [^;]*\.editwarden\.yml[^;]* writable/);
    expect(fs.readFileSync(path.join(root, 'made.txt'), 'utf8')).toBe('made\n');
    expect(run.outputs[1]).toContain('E_DENIED_PATH');
    expect(fs.readFileSync(path.join(root, '.editwarden.yml'), 'utf8')).toBe(config);

    const log = editwarden(['log', '--root', root]);
    expect(log.code, log.stderr).toBe(0);
    expect(log.stdout).toContain('echo made > made.txt');
    const undo = editwarden(['undo', '--root', root]);
    expect(undo.code, undo.stderr).toBe(0);
    expect(undo.stdout).toContain('codex Bash: echo made > made.txt');
    expect(fs.existsSync(path.join(root, 'made.txt'))).toBe(false);
  }, 240_000);
});

describe("plain codex: the permission profile init wrote keeps editwarden's protected set read-only inside Codex's sandbox", () => {
  it('a command cannot write .editwarden.yml or plant .claude/, its other writes run and are undone, and the result names only the state folder as writable', async () => {
    const config = 'constraints:\n  max_files: 20\n';
    const root = project({ 'src/a.ts': 'export const a = 1;\n', '.editwarden.yml': config });
    expect(editwarden(['init', 'codex', '--root', root]).code).toBe(0);
    const run = await runCodexSandboxed(root, [{ name: 'exec_command', args: { cmd: "echo made > made.txt; printf 'constraints: {}\\n' > .editwarden.yml; mkdir -p .claude; echo wrote" } }], true, []);
    expect(run.code, run.out).toBe(0);
    expect(run.outputs, run.out).toHaveLength(1);
    expect(run.outputs[0]).toContain('wrote');
    expect(run.outputs[0]).toContain('Read-only file system');
    // Only editwarden's own state folder stays writable (its process shares the sandbox with the command).
    expect(run.outputs[0]).toMatch(/it left \.editwarden writable/);
    expect(fs.readFileSync(path.join(root, '.editwarden.yml'), 'utf8')).toBe(config);
    expect(fs.existsSync(path.join(root, '.claude'))).toBe(false);
    expect(fs.readFileSync(path.join(root, 'made.txt'), 'utf8')).toBe('made\n');
    const undo = editwarden(['undo', '--root', root]);
    expect(undo.code, undo.stderr).toBe(0);
    expect(fs.existsSync(path.join(root, 'made.txt'))).toBe(false);
    // init --remove takes the profile out with the hooks.
    expect(editwarden(['init', 'codex', '--root', root, '--remove']).code).toBe(0);
    expect(fs.existsSync(path.join(root, '.codex', 'config.toml'))).toBe(false);
  }, 240_000);
});

describe("doctor says whether Codex will run editwarden's hooks", () => {
  it("names hooks Codex has no trust for (Codex's own keys), and is satisfied once a person trusted them", async () => {
    const root = project({ 'a.txt': 'a\n' });
    expect(editwarden(['init', 'codex', '--root', root]).code).toBe(0);
    const home = codexHome(root, 'http://127.0.0.1:9/v1');
    const env = { PATH: clientPath(true), HOME: tempDir('ew-home-'), TMPDIR: tempDir('ew-clienttmp-'), CODEX_HOME: home };
    const before = editwarden(['doctor', '--root', root, '--only', 'client hook trust'], { env: { ...process.env, CODEX_HOME: home } });
    expect(before.code).not.toBe(0);
    expect(before.stdout).toContain('no trust record for 2 of editwarden');
    expect(before.stdout).toContain('pre_tool_use:0:0');
    expect(before.stdout).toContain('/hooks');
    expect(await trustHooksAsAPersonWould(root, env, home)).toEqual([`${root}/.codex/config.toml:pre_tool_use:0:0`, `${root}/.codex/config.toml:post_tool_use:0:0`]);
    const after = editwarden(['doctor', '--root', root, '--only', 'client hook trust'], { env: { ...process.env, CODEX_HOME: home } });
    expect(after.code, after.stdout).toBe(0);
    expect(after.stdout).toContain("Codex trusts this project and editwarden's hooks");
  }, 120_000);
});
