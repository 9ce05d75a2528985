/**
 * The `editwarden` command line. Thin: parse flags, call the core, print.
 * Each command lives in `commands/<name>.ts` and registers itself here; heavy
 * modules (tree-sitter, MCP SDK, model SDKs) are imported inside the commands
 * that need them so that `editwarden edit` starts fast.
 */
import { ExitCode, exitCodeFor, refusalEnvelope } from '../errors.js';
import { Command, CommanderError } from 'commander';
import { addExamples } from './examples.js';
import { defaultIo, refuseCommand, writeJson, type Io } from './output.js';
import { commandPathOf, usageErrorInfo, usageErrorLine } from './usage-error.js';

export type CommandRegistrar = (program: Command, io: Io, setExit: (code: number) => void) => void;

/**
 * Command name → its module. Only the invoked command's module is loaded
 * (an agent pays start-up on every call); help and unknown commands load all.
 */
const COMMANDS: Record<string, () => Promise<CommandRegistrar>> = {
  edit: async () => (await import('./commands/edit.js')).registerEdit,
  apply: async () => (await import('./commands/apply.js')).registerApply,
  verify: async () => (await import('./commands/verify.js')).registerVerify,
  detect: async () => (await import('./commands/detect.js')).registerDetect,
  'controlled-edit': async () => (await import('./commands/controlled-edit.js')).registerControlledEdit,
  checkpoint: async () => (await import('./commands/checkpoint.js')).registerCheckpoint,
  demo: async () => (await import('./commands/demo.js')).registerDemo,
  ast: async () => (await import('./commands/ast.js')).registerAst,
  exec: async () => (await import('./commands/exec.js')).registerExec,
  run: async () => (await import('./commands/run.js')).registerRun,
  mcp: async () => (await import('./commands/mcp.js')).registerMcp,
  'apply-proposal': async () => (await import('./commands/apply-proposal.js')).registerApplyProposal,
  doctor: async () => (await import('./commands/doctor.js')).registerDoctor,
  init: async () => (await import('./commands/init.js')).registerInit,
  hook: async () => (await import('./commands/hook.js')).registerHook,
  undo: async () => (await import('./commands/undo.js')).registerUndo,
  redo: async () => (await import('./commands/undo.js')).registerRedo,
};

/** The registrars `argv` needs: the named command's, or all of them. */
export async function registrarsFor(argv: readonly string[]): Promise<CommandRegistrar[]> {
  const name = argv.slice(2).find((arg) => !arg.startsWith('-'));
  const one = name !== undefined && name !== 'help' ? COMMANDS[name] : undefined;
  return Promise.all((one ? [one] : Object.values(COMMANDS)).map((load) => load()));
}

export function buildProgram(io: Io, setExit: (code: number) => void, registrars: readonly CommandRegistrar[]): Command {
  const program = new Command();
  program
    .name('editwarden')
    .description('Safe, exact, bounded and verified file edits for AI coding agents.')
    .version('0.1.0')
    .exitOverride()
    .configureOutput({
      writeOut: (s) => io.stdout.write(s),
      writeErr: (s) => io.stderr.write(s),
      // Usage errors are printed by run(), as one line (or JSON); never with the whole help.
      outputError: () => undefined,
    });
  for (const register of registrars) register(program, io, setExit);
  addExamples(program);
  return program;
}

/** Runs the CLI; returns the exit code (and sets process.exitCode when run as the binary). */
export async function run(argv: string[], io: Io = defaultIo()): Promise<number> {
  let code: number = ExitCode.OK;
  const program = buildProgram(
    io,
    (c) => {
      code = c;
    },
    await registrarsFor(argv),
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
