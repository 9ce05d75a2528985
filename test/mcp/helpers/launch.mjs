// Runs `editwarden mcp …` from the compiled registrar when the compiled CLI
// does not register the command yet (src/cli/main.ts is the lead's to edit):
// the same registrar, flags and server as `bin/editwarden mcp`.
import { Command } from 'commander';
import { registerMcp } from '../../../dist/cli/commands/mcp.js';
import { defaultIo } from '../../../dist/cli/output.js';

const program = new Command().name('editwarden').exitOverride();
let code = 0;
registerMcp(program, defaultIo(), (c) => {
  code = c;
});
try {
  await program.parseAsync(process.argv);
} catch {
  code = 64;
}
process.exitCode = code;
