/**
 * The `editwarden` command line. Thin: parse flags, call the core, print.
 * Each command lives in `commands/<name>.ts` and registers itself here; heavy
 * modules (tree-sitter, MCP SDK, model SDKs) are imported inside the commands
 * that need them so that `editwarden edit` starts fast.
 */
import fs from 'node:fs';
import { Command, CommanderError, Help } from 'commander';
import { ExitCode, exitCodeFor, refusalEnvelope } from '../errors.js';
import { addExamples } from './examples.js';
import { defaultIo, refuseCommand, writeJson, type Io } from './output.js';
import { commandPathOf, usageErrorInfo, usageErrorLine } from './usage-error.js';

export type CommandRegistrar = (program: Command, io: Io, setExit: (code: number) => void) => void;

/** One command: how the top-level help lists it, and its module (loaded only when the command runs). */
interface CommandEntry {
  /** The help's left column (`edit [options] [path]`), as commander would print it for the real command. */
  term: string;
  description: string;
  load: () => Promise<CommandRegistrar>;
  /** Internal: run by what `init` writes, not by a person; works, but the top-level help leaves it out. */
  hidden?: true;
}

/**
 * What a newcomer reaches for first leads the top-level help, in this order;
 * the rest follow in the table's order. A name not (yet) in the table is skipped.
 */
export const HELP_FIRST: readonly string[] = ['init', 'undo', 'redo', 'doctor', 'log', 'report'];

/**
 * Command name → its help line and its module. Only the invoked command's
 * module is loaded (an agent pays start-up on every call); `--version`,
 * `--help` and unknown commands load none: the top-level help is built from
 * this table (test/cli/lazy-commands.test.ts checks it against the commands).
 */
export const COMMANDS: Readonly<Record<string, CommandEntry>> = {
  edit: {
    term: 'edit [options] [path]',
    description: 'Edit one file safely: unique anchor, guards, atomic write, a diff of what changed.',
    load: async () => (await import('./commands/edit.js')).registerEdit,
  },
  apply: {
    term: 'apply [options] [file]',
    description: 'Apply the edits in a model reply (JSON, active edit, SEARCH/REPLACE, apply_patch, unified diff) as one transaction (active edit directives: each on its own unless --atomic).',
    load: async () => (await import('./commands/apply.js')).registerApply,
  },
  verify: {
    term: 'verify [options]',
    description: 'Run the build and/or tests; pass or fail by exit code; logs kept under .editwarden/runs/.',
    load: async () => (await import('./commands/verify.js')).registerVerify,
  },
  detect: {
    term: 'detect [options]',
    description: 'Show the project kinds found and the build and test commands verify would run.',
    load: async () => (await import('./commands/detect.js')).registerDetect,
  },
  'controlled-edit': {
    term: 'controlled-edit [options]',
    description: 'Controlled Edit Mode: exactly one edit of one file, then the build; rolled back if the build fails.',
    load: async () => (await import('./commands/controlled-edit.js')).registerControlledEdit,
  },
  checkpoint: {
    term: 'checkpoint',
    description: 'Take, inspect, restore and prune checkpoints of the workspace (stored under .editwarden/).',
    load: async () => (await import('./commands/checkpoint.js')).registerCheckpoint,
  },
  demo: {
    term: 'demo [options]',
    description: 'Narrated demo on a built-in sample project (CMake C++, or TypeScript when cmake is missing). No API key needed.',
    load: async () => (await import('./commands/demo.js')).registerDemo,
  },
  ast: {
    term: 'ast',
    description: 'Inspect the declarations an AST path (`Class-method`) can address.',
    load: async () => (await import('./commands/ast.js')).registerAst,
  },
  exec: {
    term: 'exec [options] <calls>',
    description: 'Run recorded tool calls (JSON lines: {"tool", "args", "tokens"?}) headless, under the constraints; exit 2 on a violation.',
    load: async () => (await import('./commands/exec.js')).registerExec,
  },
  run: {
    term: 'run [options]',
    description: "Run editwarden's agent on a task with a model: headless (constraints), interactive (approve each change) or controlled (one edit, build, rollback).",
    load: async () => (await import('./commands/run.js')).registerRun,
  },
  mcp: {
    term: 'mcp [options]',
    description: "Serve editwarden's tools (read, search, edit, patch, checkpoints, verify) to any MCP client, over stdio or Streamable HTTP on 127.0.0.1.",
    load: async () => (await import('./commands/mcp.js')).registerMcp,
  },
  'apply-proposal': {
    term: 'apply-proposal [options] <file>',
    description: "Write a dry run's proposal (one unified diff) and verify it with the Editor's debug loop; with --model the Editor fixes a failing verification forward.",
    load: async () => (await import('./commands/apply-proposal.js')).registerApplyProposal,
  },
  doctor: {
    term: 'doctor [options]',
    description: 'Check Node, git, the tree-sitter grammars, the config and the state folder; say how to fix each problem.',
    load: async () => (await import('./commands/doctor.js')).registerDoctor,
  },
  init: {
    term: 'init [options] <client>',
    description: 'Protect the agent you use: hooks on its own edit tools and the editwarden MCP server (claude, codex, gemini, cursor, opencode, copilot, qwen).',
    load: async () => (await import('./commands/init.js')).registerInit,
  },
  hook: {
    term: 'hook [options] <client> <event>',
    description: "Run a client hook (called by the settings `editwarden init` writes): vets the client's own edit on stdin.",
    load: async () => (await import('./commands/hook.js')).registerHook,
    hidden: true,
  },
  'hook-server': {
    term: 'hook-server [options]',
    description: 'Serve hook calls for this user and build over a private unix socket (started by the hooks themselves).',
    load: async () => (await import('./hook-server.js')).registerHookServer,
    hidden: true,
  },
  shell: {
    term: 'shell [options] <command...>',
    description: "Run one shell command of a hooked client (Claude Code's Bash, Gemini CLI's run_shell_command) sandboxed, checkpointed as one undo step and counted against the session's limits.",
    load: async () => (await import('./commands/shell.js')).registerShell,
    hidden: true,
  },
  wrap: {
    term: 'wrap [options] <command...>',
    description:
      'Run an agent that has no hooks (Aider, your own script) whole inside the sandbox, terminal attached: the project writable, the protected set read-only, only the model endpoint reachable, every change recorded and undoable.',
    load: async () => (await import('./commands/wrap.js')).registerWrap,
  },
  trust: {
    term: 'trust [options] [file]',
    description: "Trust this repository's config by its content hash, so keys that loosen the guard count (--revoke, --list); any change voids it.",
    load: async () => (await import('./commands/trust.js')).registerTrust,
  },
  undo: {
    term: 'undo [options]',
    description: 'Restore the state before the most recent change editwarden recorded (its own writes and hooked native edits); again to go further back.',
    load: async () => (await import('./commands/undo.js')).registerUndo,
  },
  redo: {
    term: 'redo [options]',
    description: 'Put back what the last `editwarden undo` took away.',
    load: async () => (await import('./commands/undo.js')).registerRedo,
  },
  log: {
    term: 'log [options]',
    description: 'The timeline of what agents did in this root (edits, refusals, commands, violations, undo), newest last.',
    load: async () => (await import('./commands/log.js')).registerLog,
  },
  report: {
    term: 'report [options]',
    description: 'What the agent did, for a person: a summary against the limits, then every change (with its diff), refusal, command and violation — as Markdown or one self-contained HTML page.',
    load: async () => (await import('./commands/report.js')).registerReport,
  },
  publish: {
    term: 'publish [options] <dir>',
    description: 'Copy the records editwarden wrote (event log, diffs, run folders) into a folder for a CI artifact, through its validated readers; print the refusal and violation counts.',
    load: async () => (await import('./commands/publish.js')).registerPublish,
  },
};

/** The command `argv` runs (`help <name>` counts as `<name>`), when it is one of the table's. */
export function commandNamed(argv: readonly string[]): string | undefined {
  const words = argv.slice(2).filter((arg) => !arg.startsWith('-'));
  const name = words[0] === 'help' ? words[1] : words[0];
  return name !== undefined && Object.hasOwn(COMMANDS, name) ? name : undefined;
}

/**
 * The registrars `argv` needs: the named command's only. Everything else
 * (`--version`, `--help`, no command, an unknown command) needs none: the
 * table's stand-ins answer it.
 */
export async function registrarsFor(argv: readonly string[]): Promise<CommandRegistrar[]> {
  const name = commandNamed(argv);
  return name === undefined ? [] : [await (COMMANDS[name] as CommandEntry).load()];
}

/** Every command's registrar (tests and tools that need the whole command tree). */
export function allRegistrars(): Promise<CommandRegistrar[]> {
  return Promise.all(Object.values(COMMANDS).map((entry) => entry.load()));
}

declare const __EDITWARDEN_VERSION__: string | undefined;

/**
 * package.json's version: inlined by the bundler (scripts/bundle-cli.mjs);
 * read from the package when running the tsc output or the sources.
 */
export function packageVersion(): string {
  if (typeof __EDITWARDEN_VERSION__ === 'string') return __EDITWARDEN_VERSION__;
  const manifest = JSON.parse(fs.readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string };
  return manifest.version;
}

export function buildProgram(io: Io, setExit: (code: number) => void, registrars: readonly CommandRegistrar[]): Command {
  const program = new Command();
  program
    .name('editwarden')
    .description('Safe, exact, bounded and verified file edits for AI coding agents.')
    .version(packageVersion())
    .exitOverride()
    .configureOutput({
      writeOut: (s) => io.stdout.write(s),
      writeErr: (s) => io.stderr.write(s),
      // Usage errors are printed by run(), as one line (or JSON); never with the whole help.
      outputError: () => undefined,
    });
  for (const register of registrars) register(program, io, setExit);
  // Stand-ins for the commands not loaded: enough for the top-level help, `help`, and "did you mean".
  const loaded = new Set(program.commands.map((c) => c.name()));
  const stubs = new Set<Command>();
  for (const [name, entry] of Object.entries(COMMANDS)) {
    if (!loaded.has(name)) stubs.add(program.command(name).description(entry.description));
  }
  const plain = new Help();
  program.configureHelp({
    subcommandTerm: (cmd) => (stubs.has(cmd) ? (COMMANDS[cmd.name()] as CommandEntry).term : plain.subcommandTerm(cmd)),
    visibleCommands: (cmd) => helpOrder(plain.visibleCommands(cmd)),
  });
  addExamples(program);
  return program;
}

/** The top-level help's commands: HELP_FIRST first, internal ones left out (`help` itself stays last). */
export function helpOrder(commands: readonly Command[]): Command[] {
  const rank = (c: Command): number => {
    const i = HELP_FIRST.indexOf(c.name());
    return i === -1 ? HELP_FIRST.length : i;
  };
  const visible = commands.filter((c) => !(Object.hasOwn(COMMANDS, c.name()) && COMMANDS[c.name()]?.hidden));
  // Array.prototype.sort is stable: within a rank the table's order stays.
  return visible
    .map((c, index) => ({ c, index }))
    .sort((a, b) => rank(a.c) - rank(b.c) || a.index - b.index)
    .map(({ c }) => c);
}

/**
 * Runs the CLI; returns the exit code (and sets process.exitCode when run as the binary). `registrars`: the
 * commands to register (default: the one `argv` names; tests pass every command's to compare).
 */
export async function run(argv: string[], io: Io = defaultIo(), registrars?: readonly CommandRegistrar[]): Promise<number> {
  let code: number = ExitCode.OK;
  const program = buildProgram(
    io,
    (c) => {
      code = c;
    },
    registrars ?? (await registrarsFor(argv)),
  );
  try {
    await program.parseAsync(argv);
  } catch (error) {
    const json = argv.includes('--json');
    if (error instanceof CommanderError) {
      if (error.code === 'commander.helpDisplayed' || error.code === 'commander.version' || error.code === 'commander.help') return ExitCode.OK;
      const info = usageErrorInfo(error, commandPathOf(program, argv));
      if (json) writeJson(io, refusalEnvelope(info, { results: [] }));
      else io.stderr.write(`${usageErrorLine(info)}\n`);
      return exitCodeFor(info.code);
    }
    // A refusal that escaped its command: same printing and exit-code mapping as every other refusal.
    return refuseCommand(error, json, io, { results: [] });
  }
  return code;
}

/**
 * A reader that went away (`editwarden edit … | head -c1`) is not a failure
 * of the command: the rest of the output is dropped and the exit code is the
 * command's own. Without a listener Node turns EPIPE into a crash with a
 * stack trace. Any other stream error still surfaces.
 */
export function tolerateClosedReaders(streams: readonly NodeJS.WriteStream[] = [process.stdout, process.stderr]): void {
  for (const stream of streams) {
    stream.on('error', (error: NodeJS.ErrnoException) => {
      if (error.code === 'EPIPE' || error.code === 'ERR_STREAM_DESTROYED') return;
      throw error;
    });
  }
}

/** Commands that keep serving after `run` returns (the MCP server over HTTP): never ended by main. */
const SERVING_COMMANDS = new Set(['mcp', 'demo']);

export async function main(argv: string[]): Promise<void> {
  tolerateClosedReaders();
  const code = await run(argv);
  process.exitCode = code;
  const command = argv.slice(2).find((arg) => !arg.startsWith('-'));
  if (command !== undefined && SERVING_COMMANDS.has(command)) return;
  // A process that has answered exits: once its output is flushed nothing is left to do, and waiting for the
  // event loop to drain could wait forever (a one-shot edit was seen in a futex wait after printing its JSON:
  // wasm compilation jobs of tree-sitter grammars, or any handle left open, keep Node from ending on its own).
  await Promise.all([flushed(process.stdout), flushed(process.stderr)]);
  process.exit(code);
}

/** Resolves once everything written to `stream` so far has been handed to the OS. */
function flushed(stream: NodeJS.WriteStream): Promise<void> {
  return new Promise((resolve) => {
    if (stream.destroyed || !stream.writable) {
      resolve();
      return;
    }
    stream.write('', () => resolve());
  });
}
