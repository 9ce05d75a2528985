/**
 * The real Codex CLI (npm @openai/codex, pinned devDependency) protected by
 * `editwarden init codex`, driven by a scripted Responses API on 127.0.0.1
 * (a custom `model_provider`, `wire_api = "responses"`). With model
 * metadata Codex knows (`gpt-5.5`) it offers `exec_command` and
 * `apply_patch`; its hooks run once trusted (`--dangerously-bypass-hook-trust`
 * stands in for the person's review in /hooks). No skips.
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { THIRTY_LINES, cleanup, clientPath, editwarden, hookSessionIds, project, tempDir } from './helpers.js';
import { codexToolOutputs, startResponsesServer, type ResponsesCall } from './responses-server.js';

const CODEX = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..', 'node_modules', '.bin', 'codex');

beforeAll(() => {
  expect(fs.existsSync(CODEX), `${CODEX} is missing; run npm ci`).toBe(true);
});
afterAll(cleanup);

async function runCodex(root: string, calls: ResponsesCall[]): Promise<{ code: number | null; stdout: string; stderr: string; outputs: string[] }> {
  const server = await startResponsesServer(calls);
  const codexHome = tempDir('ew-codexhome-');
  fs.writeFileSync(
    path.join(codexHome, 'config.toml'),
    [
      'model = "gpt-5.5"',
      'model_provider = "scripted"',
      '[model_providers.scripted]',
      'name = "scripted"',
      `base_url = "${server.baseUrl}"`,
      'wire_api = "responses"',
      'env_key = "SCRIPTED_KEY"',
      // The project's .codex/config.toml (what init wrote) loads only for a trusted project.
      `[projects."${root}"]`,
      'trust_level = "trusted"',
      '',
    ].join('\n'),
  );
  try {
    const child = spawn(CODEX, ['exec', '--skip-git-repo-check', '--dangerously-bypass-approvals-and-sandbox', '--dangerously-bypass-hook-trust', 'Make the change.'], {
      cwd: root,
      env: { PATH: clientPath(true), HOME: tempDir('ew-home-'), TMPDIR: tempDir('ew-clienttmp-'), CODEX_HOME: codexHome, SCRIPTED_KEY: 'not-a-key' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    const timer = setTimeout(() => child.kill('SIGKILL'), 120_000);
    const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
    clearTimeout(timer);
    return { code, stdout, stderr, outputs: codexToolOutputs(server.requests) };
  } finally {
    await server.close();
  }
}

describe('Codex CLI goes through editwarden', () => {
  it('its shell runs sandboxed as undo steps, a write outside the root is blocked, and its apply_patch wiping a file is refused', async () => {
    const src = { 'src/a.ts': 'export const a = 1;\n', 'src/lib/b.ts': 'export const b = "b";\n' };
    const root = project({ ...src, 'big.txt': THIRTY_LINES });
    const init = editwarden(['init', 'codex', '--root', root]);
    expect(init.code, init.stderr).toBe(0);
    const outside = path.join(tempDir('ew-outside-'), 'escape.txt');
    const wipe = [
      '*** Begin Patch',
      '*** Update File: big.txt',
      ...THIRTY_LINES.trimEnd()
        .split('\n')
        .map((l) => `-${l}`),
      '+gone',
      '*** End Patch',
    ].join('\n');
    const run = await runCodex(root, [
      { name: 'exec_command', args: { cmd: `echo out > ${outside}` } },
      { name: 'exec_command', args: { cmd: 'rm -rf src && echo removed' } },
      { name: 'apply_patch', input: wipe },
    ]);
    expect(run.code, `${run.stdout}\n${run.stderr}`).toBe(0);
    expect(run.outputs, `${run.stdout}\n${run.stderr}`).toHaveLength(3);
    // The hook read the real client's session id where its record says the client sends it: every hooked event carries it.
    expect(hookSessionIds(root)).toEqual([expect.stringMatching(/\S/)]);
    expect(fs.existsSync(outside)).toBe(false);
    expect(run.outputs[1]).toContain('removed');
    expect(run.outputs[2]).toContain('E_DRAMATIC_REDUCTION');
    expect(fs.readFileSync(path.join(root, 'big.txt'), 'utf8')).toBe(THIRTY_LINES);
    expect(fs.existsSync(path.join(root, 'src'))).toBe(false);

    const undo = editwarden(['undo', '--root', root]);
    expect(undo.code, undo.stderr).toBe(0);
    expect(undo.stdout).toContain('codex Bash: rm -rf src && echo removed');
    for (const [rel, text] of Object.entries(src)) expect(fs.readFileSync(path.join(root, rel), 'utf8')).toBe(text);
  }, 180_000);
});
