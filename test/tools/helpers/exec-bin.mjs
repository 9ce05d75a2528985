#!/usr/bin/env node
// Stand-in for `bin/editwarden exec` while src/cli/main.ts does not register
// the command yet: the same compiled registrar, the same process-level
// behaviour (exit code, stdout/stderr). The tests prefer the real binary
// whenever it knows `exec`.
import { Command, CommanderError } from 'commander';
import { registerExec } from '../../../dist/cli/commands/exec.js';
import { defaultIo, formatError, useColor } from '../../../dist/cli/output.js';
import { toErrorInfo } from '../../../dist/errors.js';

const io = defaultIo();
let code = 0;
const program = new Command().name('editwarden').exitOverride();
registerExec(program, io, (c) => {
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
