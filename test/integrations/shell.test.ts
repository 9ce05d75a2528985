/**
 * The guarded shell through the real binary: a client's shell call is
 * rewritten by the pre-tool hook into `editwarden shell … -- '<command>'`,
 * and that line, run by a real /bin/sh as the client would, runs the
 * model's command in the sandbox, as one undo step, counted against the
 * session's limits, with its output and exit code unchanged.
 *
 * The first test runs the whole route as a client does: the hook binary, then
 * the line through /bin/sh. The rest are about what the runner line does; their
 * hook call, which only makes the line, runs the same hook command in this
 * process (./cli-in-process.ts: the CLI bundle, as the warm hook server runs
 * it), and the line itself always runs through a real /bin/sh and binary.
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { shellRunnerLine } from '../../src/integrations/client.js';
import { readEvents } from '../../src/runs/events-read.js';
import { trustRepoConfig } from '../trust-config.js';
import { editwardenHere } from './cli-in-process.js';
import { cleanup, editwarden, project, type Ran, tempDir } from './helpers.js';

afterAll(cleanup);

function hookArgs(client: 'claude' | 'gemini', root: string, command: string, session: string): { args: string[]; input: string } {
  const tool = client === 'claude' ? 'Bash' : 'run_shell_command';
  return {
    args: ['hook', client, client === 'claude' ? 'pre-tool-use' : 'before-tool', '--root', root],
    input: JSON.stringify({ session_id: session, tool_name: tool, tool_input: { command, description: 'kept' }, cwd: root }),
  };
}

/** The runner line the pre-tool hook rewrites a shell call into. */
function runnerLine(r: Ran): string {
  expect(r.code, r.stderr).toBe(0);
  const out = JSON.parse(r.stdout) as { hookSpecificOutput: { updatedInput?: { command: string; description: string }; tool_input?: { command: string; description: string } } };
  const rewritten = out.hookSpecificOutput.updatedInput ?? out.hookSpecificOutput.tool_input;
  expect(rewritten?.description).toBe('kept');
  return rewritten?.command as string;
}

/** The hook binary's rewrite of a shell call, as a client runs it. */
function preHookBinary(client: 'claude' | 'gemini', root: string, command: string, session = 'session-1'): string {
  const { args, input } = hookArgs(client, root, command, session);
  return runnerLine(editwarden(args, { input }));
}

/** The same hook command's rewrite, run in this process: for tests about what the line does. */
async function preHook(client: 'claude' | 'gemini', root: string, command: string, session = 'session-1'): Promise<string> {
  const { args, input } = hookArgs(client, root, command, session);
  return runnerLine(await editwardenHere(args, { input }));
}

/** Runs the rewritten line as the client does: through a shell, in the client's working folder. */
function asClient(line: string, cwd: string, env: NodeJS.ProcessEnv = process.env): { code: number | null; stdout: string; stderr: string } {
  const r = spawnSync('/bin/sh', ['-c', line], { cwd, env, encoding: 'utf8', timeout: 60_000 });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

/**
 * A character of a model's command: any code point but a lone surrogate, and as often one the shell gives a
 * meaning to. fast-check's own 'binary' unit (any code point) almost never draws a quote (none in 500 strings),
 * and builds a table of every code point on first use (~0.6 s of CPU).
 */
const SHELL_SPECIAL = ["'", '"', '$', '`', '\\', '\n', ' ', ';', '&', '|', '(', ')', '<', '>', '*', '?', '-', '!', '#', '~', '{', '}'];
const SURROGATES = 0xe000 - 0xd800;
const codePoint = fc.nat({ max: 0x10ffff - SURROGATES }).map((n) => String.fromCodePoint(n < 0xd800 ? n : n + SURROGATES));
const commandChar = fc.oneof(fc.constantFrom(...SHELL_SPECIAL), codePoint);

describe('the runner line carries the command byte for byte', () => {
  it('any command text (quotes, $, backticks, newlines, --) arrives as the one last argument', () => {
    fc.assert(
      fc.property(
        fc.string({ unit: commandChar, maxLength: 40 }).filter((s) => !s.includes('\0')),
        (command) => {
          const line = shellRunnerLine(['/bin/printf', '%s\\0'], { root: '/r', client: 'claude', tool: 'Bash', session: "it's" }, command);
          const out = spawnSync('/bin/sh', ['-c', line], { encoding: 'buffer' }).stdout.toString('utf8').split('\0');
          expect(out.at(-2)).toBe(command);
          expect(out.slice(0, 10)).toEqual(['shell', '--client', 'claude', '--tool', 'Bash', '--root', '/r', '--session', "it's", '--']);
        },
      ),
      { numRuns: 60 },
    );
  });
});

describe('a hooked shell command runs through editwarden', () => {
  it("passes the command's stdout, stderr, exit code and working folder through unchanged", async () => {
    const root = project({ 'sub/x.txt': 'x\n' });
    const command = `printf 'out "q"\\n'; pwd; echo err >&2; exit 7`;
    const line = preHookBinary('claude', root, command);
    // The hook run in this process (the other tests' setup) makes the very line the binary makes.
    expect(await preHook('claude', root, command)).toBe(line);
    const r = asClient(line, path.join(root, 'sub'));
    expect(r.code).toBe(7);
    expect(r.stdout).toBe(`out "q"\n${path.join(root, 'sub')}\n`);
    expect(r.stderr.startsWith('err\n')).toBe(true);
  });

  it('a command that failed for want of the network gets a note naming the switch; any other failure none; with sandbox.network: true none', async () => {
    const root = project({});
    // A real name lookup in the sandbox without network: node prints the resolver's error code.
    const lookup = `node -e "require('dns').lookup('registry.npmjs.org', (e) => { console.error(e && e.code); process.exit(3); })"`;
    const r = asClient(await preHook('claude', root, lookup), root);
    expect(r.code).toBe(3);
    expect(r.stderr).toContain('sandbox.network: on');
    expect(asClient(await preHook('claude', root, 'exit 3'), root).stderr).not.toContain('[editwarden] note');
    fs.writeFileSync(path.join(root, '.editwarden.yml'), 'sandbox:\n  network: true\n');
    // Network loosens the guard: a repository's file gets it only once a person trusts it.
    expect(asClient(await preHook('claude', root, 'exit 3'), root).stderr).toContain('E_UNTRUSTED_CONFIG');
    trustRepoConfig(root);
    expect(asClient(await preHook('claude', root, lookup), root).stderr).not.toContain('sandbox.network');
  });

  it('where no sandbox can be had, the command is not run: E_UNSANDBOXED with the hint', async () => {
    const root = project({});
    const r = asClient(await preHook('claude', root, 'echo ran > ran.txt'), root, { ...process.env, EDITWARDEN_BWRAP: path.join(root, 'no-such-bwrap') });
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('E_UNSANDBOXED');
    expect(r.stderr).toContain('hint:');
    expect(fs.existsSync(path.join(root, 'ran.txt'))).toBe(false);
    // The refusal is in the event log, with the command the model wrote.
    const logged = readEvents(path.join(root, '.editwarden')).events.filter((e) => e.kind === 'command');
    expect(logged).toEqual([expect.objectContaining({ command: 'echo ran > ran.txt', exit_code: null, code: 'E_UNSANDBOXED', route: expect.objectContaining({ via: 'shell', client: 'claude', session: 'session-1' }) })]);
  });

  it('rm -rf src is one undo step named by the command line; undo restores it byte-exact', async () => {
    const files = { 'src/a.ts': 'export const a = 1;\n', 'src/deep/b.bin': '\u0000\u0001binary\n', 'keep.txt': 'keep\n' };
    const root = project(files);
    const r = asClient(await preHook('claude', root, 'rm -rf src'), root);
    expect(r.code, r.stderr).toBe(0);
    expect(fs.existsSync(path.join(root, 'src'))).toBe(false);
    const undo = editwarden(['undo', '--root', root]);
    expect(undo.code, undo.stderr).toBe(0);
    expect(undo.stdout).toContain('claude Bash: rm -rf src');
    // `editwarden log` shows the command, the files it deleted and the undo step it belongs to.
    const command = readEvents(path.join(root, '.editwarden')).events.find((e) => e.kind === 'command');
    expect(command).toEqual(expect.objectContaining({ command: 'rm -rf src', exit_code: 0, paths: expect.arrayContaining(['src/a.ts', 'src/deep/b.bin']), checkpoint: expect.any(String) }));
    // The undo is an event naming the step it took back (a report of the session shows it).
    const undone = readEvents(path.join(root, '.editwarden')).events.find((e) => e.kind === 'undo');
    expect(undone).toMatchObject({ label: 'claude Bash: rm -rf src', undoes: [command?.checkpoint] });
    const log = editwarden(['log', '--root', root, '--json']);
    expect(log.stdout).toContain('rm -rf src');
    for (const [rel, text] of Object.entries(files)) expect(fs.readFileSync(path.join(root, rel), 'utf8')).toBe(text);
  });

  it("a sed -i is logged with the diff it made; an attempt on .git/config the sandbox stopped is logged with the command's output", async () => {
    const root = project({ 'notes.txt': 'colour one\nkeep\n' });
    fs.mkdirSync(path.join(root, '.git'), { recursive: true });
    fs.writeFileSync(path.join(root, '.git', 'config'), '[core]\n');
    expect(asClient(await preHook('claude', root, "sed -i 's/colour/color/' notes.txt"), root).code).toBe(0);
    expect(asClient(await preHook('claude', root, 'echo "[alias] x = !sh" >> .git/config'), root).code).not.toBe(0);
    const [sed, attempt] = readEvents(path.join(root, '.editwarden')).events.filter((e) => e.kind === 'command');
    expect(sed).toMatchObject({ paths: ['notes.txt'], diff: expect.stringContaining('-colour one\n+color one\n') });
    expect(sed).not.toHaveProperty('output');
    expect(attempt).toMatchObject({ paths: [], output: expect.stringMatching(/\.git\/config: Read-only file system/) });
    expect(fs.readFileSync(path.join(root, '.git', 'config'), 'utf8')).toBe('[core]\n');
  });

  it('a read-only command leaves no undo step; the next one reuses the kept index (none written), and its rm -rf src is still undone byte-exact', async () => {
    const files = { 'src/a.ts': 'export const a = 1;\n', 'src/deep/b.bin': '\u0000\u0001binary\n', 'keep.txt': 'keep\n' };
    const root = project(files);
    const indexes = (): string[] => fs.readdirSync(path.join(root, '.editwarden/checkpoints/manifests/workspace')).sort();
    expect(asClient(await preHook('claude', root, 'cat keep.txt'), root).stdout).toBe('keep\n');
    const kept = indexes();
    expect(editwarden(['undo', '--root', root]).stdout).toContain('nothing to undo');
    // Past the file system's timestamp tick, so the stat cache vouches for every file.
    await new Promise((r) => setTimeout(r, 30));
    expect(asClient(await preHook('claude', root, 'rm -rf src'), root).code).toBe(0);
    expect(indexes()).toEqual(kept);
    expect(fs.readdirSync(path.join(root, '.editwarden/checkpoints/index-leases'))).toEqual([]);
    const undo = editwarden(['undo', '--root', root]);
    expect(undo.code, undo.stderr).toBe(0);
    expect(undo.stdout).toContain('claude Bash: rm -rf src');
    for (const [rel, text] of Object.entries(files)) expect(fs.readFileSync(path.join(root, rel), 'utf8')).toBe(text);
  });

  it('a write outside the root is blocked by the sandbox', async () => {
    const root = project({});
    const outside = path.join(tempDir('ew-outside-'), 'escape.txt');
    const r = asClient(await preHook('gemini', root, `echo out > ${outside}`), root);
    expect(r.code).not.toBe(0);
    expect(fs.existsSync(outside)).toBe(false);
  });

  it('a rewrite of the config or the client settings is refused, and the files stay as they were', async () => {
    const config = 'constraints:\n  max_files: 5\n';
    const root = project({ '.editwarden.yml': config });
    const r = asClient(await preHook('claude', root, "echo 'constraints: {}' > .editwarden.yml; mkdir -p .claude; echo '{\"disableAllHooks\":true}' > .claude/settings.local.json"), root);
    expect(r.code).not.toBe(0);
    expect(fs.readFileSync(path.join(root, '.editwarden.yml'), 'utf8')).toBe(config);
    expect(fs.existsSync(path.join(root, '.claude/settings.local.json'))).toBe(false);
    expect(r.stderr).toContain('E_DENIED_PATH');
  });

  it('limits count across the session: under max_files 1 the second file is refused, its change put back, the usage named', async () => {
    const root = project({ '.editwarden.yml': 'constraints:\n  max_files: 1\n' });
    expect(asClient(await preHook('claude', root, 'echo 1 > a.txt'), root).code).toBe(0);
    const second = asClient(await preHook('claude', root, 'echo 2 > b.txt'), root);
    expect(second.code).toBe(2);
    expect(second.stderr).toContain('E_CONSTRAINT');
    expect(second.stderr).toContain('2 of 1 files used in this session: a.txt, b.txt');
    expect(second.stderr).toContain('hint:');
    expect(fs.existsSync(path.join(root, 'b.txt'))).toBe(false);
    // Another session starts from zero.
    expect(asClient(await preHook('claude', root, 'echo 3 > c.txt', 'session-2'), root).code).toBe(0);
  });
});

describe("a session's native edits share one ledger", () => {
  it('three Writes under max_files 1 in one session: the second is refused with the usage', () => {
    const root = project({ '.editwarden.yml': 'constraints:\n  max_files: 1\n' });
    const write = (name: string) => editwarden(['hook', 'claude', 'pre-tool-use', '--root', root], { input: JSON.stringify({ session_id: 's', tool_name: 'Write', tool_input: { file_path: path.join(root, name), content: 'x\n' } }) });
    expect(write('a.txt').stdout).toBe('');
    fs.writeFileSync(path.join(root, 'a.txt'), 'x\n');
    const second = write('b.txt');
    expect(second.stdout).toContain('"permissionDecision":"deny"');
    expect(second.stdout).toContain('2 of 1 files used in this session: a.txt, b.txt');
  });

  it('a damaged ledger refuses (fail closed) instead of counting from zero', () => {
    const root = project({ '.editwarden.yml': 'constraints:\n  max_files: 1\n' });
    const write = (name: string) => editwarden(['hook', 'claude', 'pre-tool-use', '--root', root], { input: JSON.stringify({ session_id: 's', tool_name: 'Write', tool_input: { file_path: path.join(root, name), content: 'x\n' } }) });
    expect(write('a.txt').stdout).toBe('');
    const dir = path.join(root, '.editwarden', 'sessions');
    for (const f of fs.readdirSync(dir)) fs.writeFileSync(path.join(dir, f), '{"format":1,"files":[]}');
    expect(write('a.txt').stdout).toContain('not a valid session ledger');
  });
});
