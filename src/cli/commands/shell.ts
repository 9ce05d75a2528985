/**
 * `editwarden shell --client C --tool T --root DIR [--session ID] -- '<command>'`:
 * what a hooked client's shell tool runs once editwarden's pre-tool hook
 * rewrote it (integrations/shell.ts does the work). The command's output is
 * passed through as it arrives and its exit code is this process's; the
 * client's own timeout or Ctrl-C (SIGTERM, SIGINT, SIGHUP) ends the whole
 * sandboxed tree and what it changed is still counted.
 */
import path from 'node:path';
import type { Command } from 'commander';
import { ExitCode } from '../../errors.js';
import { runGuardedShell, type ShellRequest } from '../../integrations/shell.js';
import type { Io } from '../output.js';

/**
 * `route`: given, the parsed call is handed to it instead of being run here — the warm server
 * (cli/hook-shell.ts) parses a thin client's argv with this same command, so both routes read the flags alike.
 */
export function registerShell(program: Command, io: Io, setExit: (code: number) => void, route?: (req: ShellRequest) => Promise<number>): void {
  program
    .command('shell')
    .description("Run one shell command of a hooked client (Claude Code's Bash, Gemini CLI's run_shell_command) sandboxed, checkpointed as one undo step and counted against the session's limits.")
    .requiredOption('--client <name>', 'the client whose command this is, as `editwarden init` names it (claude, gemini, codex, opencode, copilot)')
    .requiredOption('--root <dir>', 'the project root')
    .option('--tool <name>', "the client's shell tool", 'Bash')
    .option('--session <id>', "the client's session id (its limits count across the session)")
    .option('--config <file>', 'config file (default: <root>/.editwarden.yml), relative to the root')
    .argument('<command...>', 'the command line, one argument (after --)')
    .action(async (words: string[], flags: { client: string; root: string; tool: string; session?: string; config?: string }) => {
      const req: ShellRequest = {
        root: path.resolve(flags.root),
        cwd: process.cwd(),
        command: words.join(' '),
        client: flags.client,
        tool: flags.tool,
        session: flags.session !== undefined && flags.session !== '' ? { client: flags.client, session: flags.session } : null,
        ...(flags.config !== undefined ? { configFile: path.resolve(flags.root, flags.config) } : {}),
      };
      if (route !== undefined) {
        setExit(await route(req));
        return;
      }
      const controller = new AbortController();
      const stop = (): void => controller.abort();
      const signals = ['SIGTERM', 'SIGINT', 'SIGHUP'] as const;
      for (const s of signals) process.on(s, stop);
      try {
        const code = await runGuardedShell(req, { stdout: (b) => io.stdout.write(b), stderr: (b) => io.stderr.write(b), signal: controller.signal });
        setExit(code);
      } catch (error) {
        io.stderr.write(`editwarden shell failed: ${error instanceof Error ? error.message : String(error)}\n`);
        setExit(ExitCode.REJECTED);
      } finally {
        for (const s of signals) process.off(s, stop);
      }
    });
}
