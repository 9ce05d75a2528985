import fs from 'node:fs';
import path from 'node:path';
import { PassThrough, Readable } from 'node:stream';
import { Command } from 'commander';
import { afterEach, describe, expect, it } from 'vitest';
import { runEditorCommand } from '../../src/cli/editor-command.js';
import { createProvider } from '../../src/agent/providers/spec.js';
import { startScriptedServer } from '../../src/agent/providers/scripted-server.js';
import { registerApplyProposal } from '../../src/cli/commands/apply-proposal.js';
import type { Io } from '../../src/cli/output.js';
import { openForCommand } from '../../src/cli/workspace.js';
import { loadConfig } from '../../src/config/load.js';
import { hashTree } from '../../src/agent/hash-tree.js';
import { cleanup, complete, GREETING_FILE, GREETING_PROJECT, makeProject, read, setGreeting, VERIFY } from '../agent/editor/helpers.js';

afterEach(cleanup);

function testIo(): Io & { out: () => string; err: () => string } {
  const stdout = new PassThrough();
  const stderr = new PassThrough();
  let out = '';
  let err = '';
  stdout.on('data', (c: Buffer) => (out += c.toString()));
  stderr.on('data', (c: Buffer) => (err += c.toString()));
  return { stdout, stderr, stdin: Readable.from([]), env: { NO_COLOR: '1' }, out: () => out, err: () => err };
}

async function applyProposalCli(args: string[], io: Io): Promise<number> {
  let code = 0;
  const program = new Command().exitOverride();
  registerApplyProposal(program, io, (c) => (code = c));
  await program.parseAsync(['node', 'editwarden', 'apply-proposal', ...args]);
  return code;
}

describe('editor on the command line', () => {
  it('run --mode editor --dry-run prints the proposal path; apply-proposal writes and verifies it (exit 0, JSON)', async () => {
    const root = makeProject(GREETING_PROJECT);
    const before = hashTree(root);
    const server = await startScriptedServer({ turns: [setGreeting('Hi'), complete('Greeting says Hi.')] });
    const io = testIo();
    try {
      const config = loadConfig(root);
      const provider = createProvider('openai-compatible:scripted', { baseUrl: server.openaiBaseUrl, env: {}, maxRetries: 0 });
      const code = await runEditorCommand(io, { opened: await openForCommand(root, config, io, true), provider, task: 'Make the greeting say Hi.', dryRun: true, json: true });
      expect(code).toBe(0);
    } finally {
      await server.close();
    }
    const dry = JSON.parse(io.out()) as { status: string; proposal: string };
    expect(dry.status).toBe('proposal');
    expect(hashTree(root)).toEqual(before);

    const io2 = testIo();
    expect(await applyProposalCli([dry.proposal, '--root', root, '--json'], io2)).toBe(0);
    const applied = JSON.parse(io2.out()) as { status: string; green_run_id: string; summary: string; files_changed: Array<{ path: string }> };
    expect(applied.status).toBe('success');
    expect(applied.files_changed.map((f) => f.path)).toEqual([GREETING_FILE]);
    expect(read(root, 'agent/summary.md')).toContain(applied.green_run_id);
    // The task recorded in the proposal's header is the applying session's task.
    expect(read(root, 'agent/summary.md')).toContain('**Task.** Make the greeting say Hi.');
  });

  it('apply-proposal of a missing file is a usage error (E_USAGE, 64) and touches nothing', async () => {
    const root = makeProject(GREETING_PROJECT);
    const io = testIo();
    expect(await applyProposalCli(['nope.diff', '--root', root], io)).toBe(64);
    // A file named on the command line that is not there is a command-line mistake: E_USAGE, whose exit code is 64.
    expect(io.err()).toContain('E_USAGE');
    expect(io.err()).toContain('nope.diff');
    expect(read(root, GREETING_FILE)).toContain('Hello');
  });

  it('apply-proposal refuses --api-key-env naming a variable every command receives (64), before reading any key', async () => {
    const root = makeProject(GREETING_PROJECT);
    fs.writeFileSync(path.join(root, 'p.diff'), '');
    const io = testIo();
    expect(await applyProposalCli([path.join(root, 'p.diff'), '--root', root, '--model', 'openai:gpt-4.1', '--api-key-env', 'HOME'], io)).toBe(64);
    expect(io.err()).toContain('E_USAGE');
    expect(io.err()).toContain('--api-key-env HOME');
    expect(read(root, GREETING_FILE)).toContain('Hello');
  });

  it("the live transcript names each verification with its run_id and the counters in the specification's words, and ends with the summary path", async () => {
    const root = makeProject(GREETING_PROJECT);
    const server = await startScriptedServer({ turns: [setGreeting('Hey'), VERIFY, setGreeting('Yo'), VERIFY, setGreeting('Nah'), VERIFY, setGreeting('Hi'), VERIFY, complete('Hi it is.')] });
    const io = testIo();
    try {
      const config = loadConfig(root);
      // Nine turns of the Editor's full prompt (the designs' guidelines and templates) pass the default 50,000-token budget.
      config.constraints.max_tokens = 200_000;
      const provider = createProvider('openai-compatible:scripted', { baseUrl: server.openaiBaseUrl, env: {}, maxRetries: 0 });
      expect(await runEditorCommand(io, { opened: await openForCommand(root, config, io, false), provider, task: 'Make the greeting say Hi.' })).toBe(0);
    } finally {
      await server.close();
    }
    const out = io.out();
    expect(out).toMatch(/FAIL run \S+ — build: no command; test `node --test` FAILED \(exit 1\)\n {2}Attempt 1: FAIL {2}→ consecutive=1, total=1\n/);
    // The example scenario's first lines, each indented under its verdict.
    const attempts = out
      .split('\n')
      .filter((l) => l.startsWith('  Attempt') || l.startsWith('                     '))
      .map((l) => l.slice(2));
    expect(attempts.slice(0, 4).join('\n')).toBe(
      'Attempt 1: FAIL  → consecutive=1, total=1\nAttempt 2: FAIL  → consecutive=2, total=2\nAttempt 3: FAIL  → consecutive=3, total=3 → REPLAN triggered\n                   consecutive resets to 0',
    );
    expect(out).toMatch(/PASS run \S+ — .*\n {2}Attempt 4: PASS {2}→ consecutive=0, total=4 → full green\n/);
    expect(out).toContain(`summary: ${root}/agent/summary.md`);
    expect(out).toContain('The changes are left uncommitted for you to review.');
  });

  it('--retry without an earlier stuck report is refused (exit 1, E_NO_FILE), nothing runs', async () => {
    const root = makeProject(GREETING_PROJECT);
    const io = testIo();
    const config = loadConfig(root);
    const provider = createProvider('openai-compatible:scripted', { baseUrl: 'http://127.0.0.1:9/v1', env: {}, maxRetries: 0 });
    expect(await runEditorCommand(io, { opened: await openForCommand(root, config, io, true), provider, task: 'x', retry: true, json: true })).toBe(1);
    expect(JSON.parse(io.out())).toMatchObject({ ok: false, status: 'refused', error: { code: 'E_NO_FILE' } });
  });
});
