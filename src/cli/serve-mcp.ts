/**
 * `editwarden mcp`: checks the flags, then serves one session over stdio or
 * many over Streamable HTTP on 127.0.0.1. This is what the CLI command
 * loads lazily (the MCP SDK costs ~250 ms of start-up that other commands
 * must not pay). A usage or config error is refused before anything is
 * served (exit 64); afterwards nothing the client sends can end the server.
 */
import fs from 'node:fs';
import path from 'node:path';
import { loadConfig } from '../config/load.js';
import { EditwardenError, ErrorCode, ExitCode, toErrorInfo } from '../errors.js';
import { McpSession, serveHttp, serveStdio, type SessionOptions } from '../mcp/index.js';
import { formatError, useColor, type Io } from './output.js';

export interface McpFlags {
  root?: string;
  config?: string;
  headless?: boolean;
  http?: string;
  unsandboxed?: boolean;
}

export async function runMcp(flags: McpFlags, io: Io): Promise<number> {
  const log = (line: string): void => {
    io.stderr.write(`${line}\n`);
  };
  let options: SessionOptions;
  let port: number | null;
  try {
    port = parsePort(flags.http);
    options = sessionOptions(flags, log);
  } catch (error) {
    io.stderr.write(`${formatError(toErrorInfo(error), useColor(io, 'stderr'))}\n`);
    return ExitCode.USAGE;
  }

  if (port === null) {
    await serveStdio(new McpSession(options), log);
    return ExitCode.OK;
  }
  let handle;
  try {
    handle = await serveHttp({ port, makeSession: () => new McpSession(options), log });
  } catch (error) {
    io.stderr.write(`${formatError({ code: ErrorCode.USAGE, message: `Cannot listen on 127.0.0.1:${port}: ${(error as Error).message}.`, hint: 'Pick another port (0 picks a free one).' }, useColor(io, 'stderr'))}\n`);
    return ExitCode.USAGE;
  }
  log(`editwarden mcp: listening on ${handle.url}`);
  const stop = (): void => {
    handle.close().catch(() => undefined);
  };
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
  await handle.closed;
  process.off('SIGINT', stop);
  process.off('SIGTERM', stop);
  return ExitCode.OK;
}

function parsePort(value: string | undefined): number | null {
  if (value === undefined) return null;
  const port = Number(value);
  if (value.trim() === '' || !Number.isInteger(port) || port < 0 || port > 65535) {
    throw new EditwardenError({ code: ErrorCode.USAGE, message: `--http ${JSON.stringify(value)} is not a port number.`, hint: 'Give a port between 1 and 65535 (0 picks a free one).' });
  }
  return port;
}

/** Flags → session options; an explicit --root or --config that cannot be used is refused now, not at the first call. */
function sessionOptions(flags: McpFlags, log: (line: string) => void): SessionOptions {
  const cliRoot = path.resolve(flags.root ?? process.cwd());
  if (flags.root !== undefined && !isDir(cliRoot)) {
    throw new EditwardenError({ code: ErrorCode.USAGE, message: `--root ${flags.root} is not an existing folder.`, hint: 'Pass the project folder.' });
  }
  const configFile = flags.config !== undefined ? path.resolve(flags.config) : undefined;
  // Validated once up front so a typo in the config is seen by the person starting the server.
  if (configFile !== undefined) loadConfig(cliRoot, configFile);
  return { cliRoot, cliRootExplicit: flags.root !== undefined, ...(configFile ? { configFile } : {}), mode: flags.headless ? 'headless' : 'interactive', ...(flags.unsandboxed ? { unsandboxed: true } : {}), log };
}

function isDir(p: string): boolean {
  try {
    return fs.statSync(p).isDirectory();
  } catch {
    return false;
  }
}
