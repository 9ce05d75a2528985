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
import { registerEdit } from './commands/edit.js';
import { registerVerify } from './commands/verify.js';
import { registerDetect } from './commands/detect.js';
import { registerControlledEdit } from './commands/controlled-edit.js';
import { registerDemo } from './commands/demo.js';
import { registerApply } from './commands/apply.js';
import { registerAst } from './commands/ast.js';
import { registerExec } from './commands/exec.js';
import { registerRun } from './commands/run.js';
import { registerMcp } from './commands/mcp.js';

export type CommandRegistrar = (program: Command, io: Io, setExit: (code: number) => void) => void;

const registrars: CommandRegistrar[] = [registerEdit, registerApply, registerVerify, registerDetect, registerControlledEdit, registerDemo, registerAst, registerExec, registerRun, registerMcp];

export function buildProgram(io: Io, setExit: (code: number) => void): Command {
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
  const program = buildProgram(io, (c) => {
    code = c;
  });
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

export async function main(argv: string[]): Promise<void> {
  process.exitCode = await run(argv);
}
