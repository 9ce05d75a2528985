/**
 * `editwarden mcp [--root DIR] [--config F] [--headless] [--http PORT]`:
 * serve editwarden's tools over the Model Context Protocol. Thin: the MCP
 * SDK and the server load only when this command runs, so every other
 * command starts without them.
 */
import type { Command } from 'commander';
import type { Io } from '../output.js';

interface McpCommandFlags {
  root?: string;
  config?: string;
  headless?: boolean;
  http?: string;
  unsandboxed?: boolean;
  tokenFile?: string;
}

export function registerMcp(program: Command, io: Io, setExit: (code: number) => void): void {
  program
    .command('mcp')
    .description("Serve editwarden's tools (read, search, edit, patch, checkpoints, verify) to any MCP client, over stdio or Streamable HTTP on 127.0.0.1.")
    .option('--root <dir>', 'workspace root when the client offers no MCP roots (with roots: narrows them; default: current folder)')
    .option('--config <file>', 'config file (default: <root>/.editwarden.yml)')
    .option('--headless', 'the session is one run: after a constraint violation every later call is refused')
    .option('--unsandboxed', 'sandbox.allow_unsandboxed: a --headless session may run commands where no OS sandbox is available')
    .option('--http <port>', 'serve Streamable HTTP at http://127.0.0.1:PORT/mcp instead of stdio (0 picks a free port); every request needs the bearer token printed at start')
    .option('--token-file <file>', 'with --http: the bearer token is read from FILE (0600, yours) when it exists, else written there')
    .action(async (flags: McpCommandFlags) => {
      const { runMcp } = await import('../serve-mcp.js');
      setExit(await runMcp(flags, io));
    });
}
