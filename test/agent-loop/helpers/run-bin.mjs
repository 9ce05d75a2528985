#!/usr/bin/env node
// Stand-in for `bin/editwarden run` while src/cli/main.ts does not register
// the command yet: the same compiled registrar and the same process-level
// behaviour (exit code, stdout/stderr). Tests use the real binary as soon as
// it knows `run`.
import { Command, CommanderError } from 'commander';
import { registerRun } from '../../../dist/cli/commands/run.js';
import { defaultIo, formatError, useColor } from '../../../dist/cli/output.js';
import { toErrorInfo } from '../../../dist/errors.js';

const io = defaultIo();
let code = 0;
const program = new Command().name('editwarden').exitOverride();
registerRun(program, io, (c) => {
  code = c;
});
try {
  await program.parseAsync(process.argv);
} catch (error) {
  if (error instanceof CommanderError) code = error.code === 'commander.helpDisplayed' ? 0 : 64;
  else {
    io.stderr.write(`${formatError(toErrorInfo(error), useColor(io, 'stderr'))}\n`);
    code = 1;
  }
}
process.exitCode = code;
