/**
 * The `editwarden` command line. Thin: parse flags, call the core, print.
 * Each command lives in `commands/<name>.ts` and registers itself here; heavy
 * modules (tree-sitter, MCP SDK, model SDKs) are imported inside the commands
 * that need them so that `editwarden edit` starts fast.
 */
import { Command, CommanderError } from 'commander';
import { ExitCode } from './exit-codes.js';
import { defaultIo, formatError, useColor, type Io } from './output.js';
import { toErrorInfo } from '../errors.js';

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
    })
    .showHelpAfterError();
  for (const register of registrars) register(program, io, setExit);
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
    if (error instanceof CommanderError) {
      if (error.code === 'commander.helpDisplayed' || error.code === 'commander.version' || error.code === 'commander.help') return ExitCode.OK;
      return ExitCode.USAGE;
    }
    io.stderr.write(`${formatError(toErrorInfo(error), useColor(io, 'stderr'))}\n`);
    return ExitCode.REJECTED;
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

export async function main(argv: string[]): Promise<void> {
  tolerateClosedReaders();
  process.exitCode = await run(argv);
}
