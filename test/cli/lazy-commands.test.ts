/**
 * Start-up: `--version`, `--help` and a mistyped command load no command
 * implementation (main.ts answers them from its table), and a command loads
 * only its own. Checked on the real binary (the bundle users run) by tracing
 * every ES module the process loads (test/fixtures/load-trace/), so a static
 * import of a command in main.ts fails here.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { spawnSync } from 'node:child_process';
import { pathToFileURL } from 'node:url';
import { type Command, CommanderError, Help } from 'commander';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { allRegistrars, buildProgram, COMMANDS, run } from '../../src/cli/main.js';
import type { Io } from '../../src/cli/output.js';

const REPO = path.resolve(__dirname, '../..');
const BIN = path.join(REPO, 'bin', 'editwarden');
const TRACE = pathToFileURL(path.join(REPO, 'test', 'fixtures', 'load-trace', 'register.mjs')).href;
const VERSION = (JSON.parse(fs.readFileSync(path.join(REPO, 'package.json'), 'utf8')) as { version: string }).version;
const NAMES = Object.keys(COMMANDS);

let dir: string;
let traces = 0;
beforeEach(() => {
  dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'ew-lazy-')));
});
afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

/** What a traced run loaded: the table's commands, the dist/ modules (bundled or not) and the public built-ins. */
interface Traced {
  status: number | null;
  stdout: string;
  stderr: string;
  loaded: string[];
  modules: number;
  sources: string[];
  builtins: string[];
  /** Every ES module loaded, by URL, in order. */
  urls: string[];
}

/** Runs the binary with module tracing (`input`: its stdin); returns its output and what it loaded. */
function traced(args: string[], input?: string, extra: Record<string, string> = {}): Traced {
  const log = path.join(dir, `loads-${++traces}.jsonl`);
  const r = spawnSync(process.execPath, ['--import', TRACE, BIN, ...args], {
    cwd: dir,
    encoding: 'utf8',
    ...(input === undefined ? {} : { input }),
    // What the CLI itself loads is traced: a warm server another test of this run left in the run's runtime folder
    // would take an edit (docs/integrations.md, "editwarden edit through the warm server") and load nothing here.
    env: { ...process.env, NO_COLOR: '1', EW_LOAD_TRACE: log, EDITWARDEN_HOOK_SERVER: 'off', ...extra },
    timeout: 30_000,
  });
  const lines = (fs.existsSync(log) ? fs.readFileSync(log, 'utf8').trim().split('\n').filter(Boolean) : []).map((line) => JSON.parse(line) as { url?: string; commands?: string[]; sources?: string[]; builtins?: string[] });
  const modules = lines.filter((l) => l.url !== undefined);
  const registered = modules.flatMap((l) => l.commands ?? []);
  return {
    status: r.status,
    stdout: r.stdout,
    stderr: r.stderr,
    loaded: [...new Set(registered.filter((c) => NAMES.includes(c)))].sort(),
    modules: modules.length,
    sources: [...new Set(modules.flatMap((l) => l.sources ?? []))].sort(),
    builtins: lines.flatMap((l) => l.builtins ?? []),
    urls: modules.map((l) => l.url as string),
  };
}

describe('the command table', () => {
  it('lists every command with the help line and description the command itself declares', async () => {
    const program = buildProgram({ stdout: process.stdout, stderr: process.stderr, stdin: process.stdin, env: {} }, () => undefined, await allRegistrars());
    const help = new Help();
    const real = program.commands.map((c) => ({ name: c.name(), term: help.subcommandTerm(c), description: c.description() }));
    expect(real.map((c) => c.name).sort()).toEqual([...NAMES].sort());
    for (const c of real) expect({ name: c.name, term: COMMANDS[c.name]?.term, description: COMMANDS[c.name]?.description }).toEqual(c);
  });
});

describe('start-up loads only what the invocation needs', () => {
  it('--version prints package.json version and loads no module at all (bin/editwarden answers it)', () => {
    const r = traced(['--version']);
    expect(r.status).toBe(0);
    expect(r.stdout.trim()).toBe(VERSION);
    expect(r.modules).toBe(0);
    expect(r.loaded).toEqual([]);
  });

  it('--help lists every command but the internal ones and loads none', () => {
    const r = traced(['--help']);
    expect(r.status).toBe(0);
    for (const name of NAMES) {
      if (COMMANDS[name]?.hidden) expect(r.stdout).not.toContain(`  ${COMMANDS[name]?.term}`);
      else expect(r.stdout).toContain(`  ${COMMANDS[name]?.term}`);
    }
    expect(r.loaded).toEqual([]);
  });

  it('a mistyped command gets its suggestion without loading any command', () => {
    const r = traced(['edti']);
    expect(r.status).toBe(64);
    expect(r.stderr).toContain('did you mean edit?');
    expect(r.loaded).toEqual([]);
  });

  it('a command loads its own implementation and no other (edit in-process: the hook server’s bundle, which holds hook, edit and shell)', async () => {
    fs.writeFileSync(path.join(dir, 'a.txt'), 'hello\n');
    const { HELD } = (await import(pathToFileURL(path.join(REPO, 'scripts', 'bundle-cli.mjs')).href)) as { HELD: Record<string, string[]> };
    const r = traced(['edit', 'a.txt', '--old', 'hello', '--new', 'there', '--dry-run']);
    expect(r.status).toBe(0);
    expect(r.modules).toBeGreaterThan(0); // the trace works
    expect(r.loaded).toEqual(['hook-server', ...(HELD['hook-server'] ?? []).map((m) => path.basename(m, '.js'))].sort());
    const log = traced(['log', '--json']);
    expect(log.loaded).toEqual(['log']);
    const help = traced(['help', 'checkpoint']);
    expect(help.stdout).toContain('Usage: editwarden checkpoint');
    expect(help.loaded).toEqual(['checkpoint']);
  });
});

describe('a command loads the parts it uses', () => {
  it('log reads the event log without the report renderers, the workspace or the sandbox (report opens those for the net change)', () => {
    const r = traced(['log', '--json']);
    expect(r.status).toBe(0);
    expect(r.sources).toContain('dist/runs/events-read.js'); // the trace sees bundled modules
    for (const part of ['dist/report/html.js', 'dist/report/markdown.js', 'dist/workspace/workspace.js', 'dist/workspace/transaction.js', 'dist/sandbox/policy.js']) {
      expect(r.sources).not.toContain(part);
    }
  });

  it('commander requires child_process only to spawn an executable subcommand (none is declared): a command that spawns nothing does not load it', () => {
    const r = traced(['log', '--json']);
    expect(r.status).toBe(0);
    expect(r.builtins).toContain('v8'); // the trace sees built-ins (bin/editwarden loads v8 before the CLI)
    expect(r.builtins).not.toContain('child_process');
  });
});

describe('a command runs from its own bundle (scripts/bundle-cli.mjs bundleCommands) and loads the built-ins its route uses', () => {
  /** An MCP client's first request, then the end of its stdin: the stdio server answers it and ends. */
  const INITIALIZE = `${JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'lazy', version: '1' } } })}\n`;

  /** The files of dist/ a traced run loaded as ES modules (relative to dist/), with the rest of its trace. */
  const files = (args: string[], input?: string): Traced & { files: string[] } => {
    const r = traced(args, input ?? '');
    expect({ args, status: r.status, stderr: r.stderr }).toMatchObject({ args, status: 0 });
    return { ...r, files: r.urls.filter((u) => u.startsWith('file:')).map((u) => path.relative(path.join(REPO, 'dist'), new URL(u).pathname)) };
  };

  /** One change recorded in `dir`, so that undo and checkpoint have something to show. */
  const recordOne = (): void => {
    fs.writeFileSync(path.join(dir, 'a.txt'), 'hello\n');
    expect(bin(['edit', 'a.txt', '--old', 'hello', '--new', 'there'], { EDITWARDEN_HOOK_SERVER: 'off' }).status).toBe(0);
  };

  it('undo, checkpoint, report, exec and the MCP server each load one file, their own bundle; none spawns, so none loads child_process (nor dgram); the MCP server no HTTP transport or proxy', () => {
    recordOne();
    fs.writeFileSync(path.join(dir, 'none.jsonl'), '');
    for (const [args, input] of [[['undo', '--list']], [['redo', '--help']], [['checkpoint', 'list']], [['report']], [['exec', 'none.jsonl']], [['mcp'], INITIALIZE], [['help', 'init']]] as const) {
      const r = files([...args], input);
      const own = (args[0] === 'help' ? args[1] : args[0]) as string;
      expect({ args, files: r.files }).toEqual({ args, files: [`cli-command/${own}/cli.cjs`] });
      expect(r.builtins).toContain('process'); // the trace sees built-ins
      for (const builtin of ['child_process', 'dgram']) expect({ args, builtin, loaded: r.builtins.includes(builtin) }).toEqual({ args, builtin, loaded: false });
      if (own !== 'mcp') continue;
      // The stdio MCP server answers without the HTTP transport (no node:http, http2, tls or zlib) and without the
      // network proxy (no net, no dns: only a command with hosts to reach). Its bundle holds both (imported lazily),
      // but neither runs, so their built-ins stay unloaded.
      expect(JSON.parse(r.stdout.split('\n')[0] as string)).toMatchObject({ id: 1, result: { serverInfo: { name: 'editwarden' } } });
      expect(r.sources).toContain('dist/mcp/stdio.js'); // the trace sees the server's modules
      for (const builtin of ['http', 'http2', 'tls', 'zlib', 'net', 'dns/promises']) expect(r.builtins).not.toContain(builtin);
    }
  });

  it('a command without a bundle of its own, a mistyped one and --help with an option run from the shared bundle', () => {
    for (const [args, status] of [
      [['apply-proposal', '--help'], 0],
      [['edti', '--json'], 64],
      [['--help', '--json'], 0],
    ] as const) {
      const r = traced([...args]);
      const loaded = r.urls.filter((u) => u.startsWith('file:')).map((u) => path.relative(path.join(REPO, 'dist'), new URL(u).pathname));
      expect({ args, status: r.status, shared: loaded.includes('cli-bundle/cli.mjs'), own: loaded.filter((f) => f.startsWith('cli-command/')) }).toEqual({ args, status, shared: true, own: [] });
    }
  });

  it('a command that runs other commands in its own process (the hook server: hook, edit) holds them in its own bundle, so they share its modules', async () => {
    const { HELD } = (await import(pathToFileURL(path.join(REPO, 'scripts', 'bundle-cli.mjs')).href)) as { HELD: Record<string, string[]> };
    // Every module that imports main.ts's run (and so runs a command of the table in-process) is reached only from these.
    const runners = ['src/cli/hook-server.ts', 'src/cli/hook-edit.ts'].filter((f) => fs.readFileSync(path.join(REPO, f), 'utf8').includes("await import('./main.js')"));
    expect(runners.length).toBe(2);
    const others = fs.readdirSync(path.join(REPO, 'src', 'cli')).filter((f) => f.endsWith('.ts') && !['main.ts', 'hook-server.ts', 'hook-edit.ts'].includes(f));
    for (const f of [...others, ...fs.readdirSync(path.join(REPO, 'src', 'cli', 'commands')).map((c) => `commands/${c}`)]) {
      expect({ f, runsCommands: /import\(['"]\.\.?\/main\.js['"]\)|from ['"]\.\.?\/main\.js['"]/.test(fs.readFileSync(path.join(REPO, 'src', 'cli', f), 'utf8')) }).toEqual({ f, runsCommands: false });
    }
    // The hook server's bundle holds the commands it runs (and the guarded shell, for the thin clients' fallback) in
    // its one file: their modules are its own, never another copy imported from the shared bundle.
    expect(HELD['hook-server']).toEqual(['./commands/hook.js', './commands/edit.js', './commands/shell.js']);
    const text = fs.readFileSync(path.join(REPO, 'dist', 'cli-command', 'hook-server', 'cli.cjs'), 'utf8');
    for (const held of ['dist/cli/hook-server.js', 'dist/cli/hook-edit.js', 'dist/cli/commands/hook.js', 'dist/cli/commands/edit.js', 'dist/cli/commands/shell.js']) expect(text).toContain(`\n// ${held}\n`);
    for (const other of ['hook', 'edit', 'shell', 'hook-server']) expect(text).not.toContain(`import("../others/${other}.mjs")`);
  });

  it('a thin client deciding in-process (no server) runs the hook server’s bundle, and the shared one when no cache may be used', () => {
    fs.writeFileSync(path.join(dir, 'a.txt'), 'hello\n');
    const edit = ['edit', 'a.txt', '--old', 'hello', '--new', 'there', '--dry-run'];
    const hook = ['hook', 'claude', 'pre-tool-use'];
    const input = JSON.stringify({ tool_name: 'Bash', tool_input: { command: 'true' } });
    for (const [args, stdin] of [
      [edit, ''],
      [hook, input],
      [['shell', '--help'], ''],
    ] as const) {
      const r = files([...args], stdin);
      expect({ args, files: r.files.filter((f) => f.startsWith('cli-')) }).toEqual({ args, files: ['cli-command/hook-server/cli.cjs'] });
    }
    const none = traced(edit, undefined, { EDITWARDEN_COMPILE_CACHE: 'off' });
    expect(none.status).toBe(0);
    expect(none.urls.some((u) => u.endsWith('/dist/cli-bundle/cli.mjs'))).toBe(true);
    expect(none.urls.filter((u) => u.includes('/dist/cli-command/'))).toEqual([]);
  });

  it("a command's bundle reaches every other command through the shared bundle: the whole table registers, and another command answers", () => {
    recordOne();
    const script = `
      const { createRequire } = await import('node:module');
      const load = createRequire(import.meta.url)(${JSON.stringify(path.join(REPO, 'dist', 'hook-client', 'code-cache.cjs'))});
      const cli = load.loadBundle(${JSON.stringify(path.join(REPO, 'dist', 'cli-command', 'undo', 'cli.cjs'))}, process.env, []);
      const all = await cli.allRegistrars();
      let out = '';
      const io = { stdout: { write: (s) => ((out += s), true) }, stderr: { write: () => true }, stdin: process.stdin, env: {} };
      const code = await cli.run(['node', 'editwarden', 'checkpoint', 'list', '--root', ${JSON.stringify(dir)}], io);
      process.stdout.write(JSON.stringify({ registrars: all.map((r) => typeof r), code, listed: out }));`;
    const r = spawnSync(process.execPath, ['--input-type=module', '-e', script], { cwd: dir, encoding: 'utf8', env: { ...process.env, NO_COLOR: '1' }, timeout: 30_000 });
    expect(r.status, r.stderr).toBe(0);
    const seen = JSON.parse(r.stdout) as { registrars: string[]; code: number; listed: string };
    expect(seen.registrars).toEqual(NAMES.map(() => 'function'));
    expect(seen.code).toBe(0);
    expect(seen.listed).toContain('a.txt');
    expect(seen.listed).toBe(bin(['checkpoint', 'list', '--root', dir]).stdout);
  });
});

describe("the MCP SDK's JSON Schema validator is made on first use (scripts/bundle-cli.mjs ajvOnUse)", () => {
  it('bundled as the CLI bundles it, ajv runs only when a schema is first checked, and checks as before', async () => {
    const { build } = await import('esbuild');
    const { ajvOnUse } = (await import(pathToFileURL(path.join(REPO, 'scripts', 'bundle-cli.mjs')).href)) as { ajvOnUse: import('esbuild').Plugin };
    // ajv's own entry says when it runs: a global set by its first line.
    const ran = {
      name: 'ajv-says-when-it-runs',
      setup(b: import('esbuild').PluginBuild) {
        b.onLoad({ filter: /[\\/]node_modules[\\/]ajv[\\/]dist[\\/]ajv\.js$/ }, (args) => ({ contents: `globalThis.__ajvRan = true;\n${fs.readFileSync(args.path, 'utf8')}`, loader: 'js', resolveDir: path.dirname(args.path) }));
      },
    };
    const entry = path.join(dir, 'entry.mjs');
    fs.writeFileSync(entry, "export { AjvJsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/ajv-provider.js';\n");
    const out = path.join(dir, 'provider.mjs');
    await build({
      entryPoints: [entry],
      outfile: out,
      bundle: true,
      format: 'esm',
      platform: 'node',
      nodePaths: [path.join(REPO, 'node_modules')],
      plugins: [ajvOnUse, ran],
      banner: { js: "import { createRequire as __cr } from 'node:module'; const require = __cr(import.meta.url);" },
      logLevel: 'silent',
    });
    const seen = globalThis as { __ajvRan?: boolean };
    delete seen.__ajvRan;
    const { AjvJsonSchemaValidator } = (await import(pathToFileURL(out).href)) as { AjvJsonSchemaValidator: new () => { getValidator(schema: object): (input: unknown) => { valid: boolean; errorMessage?: string } } };
    const validator = new AjvJsonSchemaValidator();
    expect(seen.__ajvRan).toBeUndefined(); // loaded and constructed (as the Server's constructor does): ajv has not run
    const check = validator.getValidator({ type: 'object', properties: { mail: { type: 'string', format: 'email' } }, required: ['mail'] });
    expect(seen.__ajvRan).toBe(true);
    expect(check({ mail: 'a@example.com' }).valid).toBe(true);
    expect(check({ mail: 'not an address' })).toMatchObject({ valid: false, errorMessage: expect.stringContaining('format "email"') });
    expect(check({}).valid).toBe(false);
    delete seen.__ajvRan;
  });
});

/** The binary's output with `env` over this process's (colour-forcing variables removed first). */
function bin(args: string[], env: Record<string, string> = {}): { status: number | null; stdout: string; stderr: string } {
  const base = { ...process.env };
  delete base.FORCE_COLOR;
  delete base.CLICOLOR_FORCE;
  const r = spawnSync(process.execPath, [BIN, ...args], { cwd: dir, encoding: 'utf8', env: { ...base, ...env }, timeout: 30_000 });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

/** What the CLI prints for `args` with every command registered (nothing loaded lazily), for a pipe: width 80, no colours. */
async function eager(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  let stdout = '';
  let stderr = '';
  const sink = (add: (s: string) => void) => ({
    write: (s: string) => {
      add(s);
      return true;
    },
  });
  const io = { stdout: sink((s) => (stdout += s)), stderr: sink((s) => (stderr += s)), stdin: process.stdin, env: {} } as unknown as Io;
  let code = 0;
  const program = buildProgram(io, (c) => (code = c), await allRegistrars());
  const plain = (cmd: Command) => {
    cmd.configureOutput({ getOutHelpWidth: () => 80, getErrHelpWidth: () => 80, getOutHasColors: () => false, getErrHasColors: () => false });
    for (const sub of cmd.commands) plain(sub);
  };
  plain(program);
  try {
    await program.parseAsync(['node', 'editwarden', ...args]);
  } catch (error) {
    if (!(error instanceof CommanderError)) throw error;
    code = error.exitCode;
  }
  return { code, stdout, stderr };
}

/** Every command path of the full tree (`edit`, `checkpoint create`, …). */
async function commandPaths(): Promise<string[][]> {
  const program = buildProgram({ stdout: process.stdout, stderr: process.stderr, stdin: process.stdin, env: {} } as unknown as Io, () => undefined, await allRegistrars());
  const out: string[][] = [];
  const walk = (cmd: Command, prefix: string[]) => {
    for (const sub of cmd.commands) {
      out.push([...prefix, sub.name()]);
      walk(sub, [...prefix, sub.name()]);
    }
  };
  walk(program, []);
  return out;
}

describe('answering without the CLI changes no output', () => {
  it('a lone --version, -V, --help or -h: the same bytes and exit code as commander through the CLI', () => {
    for (const flag of ['--version', '-V', '--help', '-h']) {
      const fast = bin([flag]);
      // FORCE_COLOR=0 asks for no colours (commander prints the same plain text) and makes the binary go through the CLI.
      const cli = bin([flag], { FORCE_COLOR: '0' });
      expect(fast).toEqual(cli);
      expect(fast.status).toBe(0);
      expect(fast.stdout.length).toBeGreaterThan(0);
    }
  });

  it('the saved help is the one the CLI prints: a help text edited in dist/ would show (the binary reads it)', () => {
    expect(bin(['--help']).stdout).toBe(fs.readFileSync(path.join(REPO, 'dist', 'cli-bundle', 'help.txt'), 'utf8'));
  });

  it('every command’s --help through the binary (its module alone loaded) equals the help with every command loaded', async () => {
    for (const words of await commandPaths()) {
      const lazy = bin([...words, '--help']);
      const full = await eager([...words, '--help']);
      expect({ words, status: lazy.status, stdout: lazy.stdout }).toEqual({ words, status: full.code, stdout: full.stdout });
    }
  }, 240_000);
});

describe('a command loaded alone answers as with every command loaded', () => {
  it('a sample through the real binary: the same output and exit code as the CLI with every command registered', async () => {
    fs.writeFileSync(path.join(dir, 'a.txt'), 'hello\nworld\n');
    fs.writeFileSync(path.join(dir, 'reply.md'), 'a.txt\n```\n<<<<<<< SEARCH\nworld\n=======\nthere\n>>>>>>> REPLACE\n```\n');
    const samples = [
      ['edit', 'a.txt', '--old', 'hello', '--new', 'howdy', '--dry-run', '--json', '--root', dir],
      ['edit', 'a.txt', '--old', 'absent', '--new', 'x', '--dry-run', '--root', dir],
      ['edit', '--mode', 'nonsense', 'a.txt', '--root', dir],
      ['apply', path.join(dir, 'reply.md'), '--dry-run', '--json', '--root', dir],
      ['detect', '--json', '--root', dir],
      ['log', '--json', '--root', dir],
      ['undo', '--list', '--root', dir],
      ['checkpoint', 'list', '--root', dir],
      ['help', 'undo'],
      ['edti'],
      ['edit', '--no-such-flag'],
    ];
    for (const args of samples) {
      const lazy = bin(args);
      let stdout = '';
      let stderr = '';
      const sink = (add: (s: string) => void) => ({
        write: (s: string) => {
          add(s);
          return true;
        },
      });
      const io = { stdout: sink((s) => (stdout += s)), stderr: sink((s) => (stderr += s)), stdin: process.stdin, env: {} } as unknown as Io;
      const code = await run(['node', 'editwarden', ...args], io, await allRegistrars());
      expect({ args, status: lazy.status, stdout: lazy.stdout, stderr: lazy.stderr }).toEqual({ args, status: code, stdout, stderr });
    }
  }, 120_000);
});
