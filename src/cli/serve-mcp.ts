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
import { defaultTokenFile, newToken, readTokenFile, writeTokenFile } from '../mcp/http-token.js';
import { McpSession, type SessionOptions } from '../mcp/session.js';
import { formatError, useColor, type Io } from './output.js';
import { defined } from '../defined.js';

export interface McpFlags {
  root?: string;
  config?: string;
  headless?: boolean;
  http?: string;
  unsandboxed?: boolean;
  tokenFile?: string;
}

export async function runMcp(flags: McpFlags, io: Io): Promise<number> {
  const log = (line: string): void => {
    io.stderr.write(`${line}\n`);
  };
  let options: SessionOptions;
  let port: number | null;
  let kept: string | null = null;
  try {
    port = parsePort(flags.http);
    if (flags.tokenFile !== undefined && port === null) throw new EditwardenError({ code: ErrorCode.USAGE, message: '--token-file applies to --http only.', hint: 'Add --http PORT, or drop --token-file (stdio needs no token).' });
    if (flags.tokenFile !== undefined) kept = readTokenFile(path.resolve(flags.tokenFile));
    // Over HTTP, client-offered roots count only inside the server's own root (--root, or the working folder).
    options = sessionOptions(flags, log, port !== null);
  } catch (error) {
    io.stderr.write(`${formatError(toErrorInfo(error), useColor(io, 'stderr'))}\n`);
    return ExitCode.USAGE;
  }

  // Each transport is loaded for the route that serves with it: Streamable HTTP brings node:http, http2, tls, zlib and
  // the SDK's HTTP transport, which a stdio server (every client's default) never uses (test/cli/lazy-commands.test.ts).
  if (port === null) {
    const { serveStdio } = await import('../mcp/stdio.js');
    await serveStdio(new McpSession(options), log);
    return ExitCode.OK;
  }
  const { serveHttp } = await import('../mcp/http.js');
  let handle;
  const token = kept ?? newToken();
  try {
    handle = await serveHttp({ port, makeSession: () => new McpSession(options), log, token });
  } catch (error) {
    io.stderr.write(`${formatError({ code: ErrorCode.USAGE, message: `Cannot listen on 127.0.0.1:${port}: ${(error as Error).message}.`, hint: 'Pick another port (0 picks a free one).' }, useColor(io, 'stderr'))}\n`);
    return ExitCode.USAGE;
  }
  // The file is named after the port actually bound (--http 0 picks one), so it is written once listening.
  const tokenFile = flags.tokenFile !== undefined ? path.resolve(flags.tokenFile) : defaultTokenFile(handle.port);
  if (kept === null) {
    try {
      writeTokenFile(tokenFile, token);
    } catch (error) {
      await handle.close();
      io.stderr.write(`${formatError(toErrorInfo(error), useColor(io, 'stderr'))}\n`);
      return ExitCode.USAGE;
    }
  }
  log(`editwarden mcp: listening on ${handle.url}`);
  // Printed once, here: clients send it as `Authorization: Bearer <token>`; the file (0600) is for clients that read it.
  log(`editwarden mcp: token ${token} (in ${tokenFile}; send it as Authorization: Bearer <token>)`);
  const stop = (): void => {
    handle.close().catch(() => undefined);
  };
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
  await handle.closed;
  process.off('SIGINT', stop);
  process.off('SIGTERM', stop);
  // A token this start made dies with the server; one the person keeps in --token-file stays.
  if (kept === null && flags.tokenFile === undefined) fs.rmSync(tokenFile, { force: true });
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
function sessionOptions(flags: McpFlags, log: (line: string) => void, confineRoots: boolean): SessionOptions {
  const cliRoot = path.resolve(flags.root ?? process.cwd());
  if (flags.root !== undefined && !isDir(cliRoot)) {
    throw new EditwardenError({ code: ErrorCode.USAGE, message: `--root ${flags.root} is not an existing folder.`, hint: 'Pass the project folder.' });
  }
  const configFile = flags.config !== undefined ? path.resolve(flags.config) : undefined;
  // Validated once up front so a typo in the config is seen by the person starting the server.
  if (configFile !== undefined) loadConfig(cliRoot, configFile);
  return {
    cliRoot,
    cliRootExplicit: flags.root !== undefined,
    ...defined({ configFile: configFile || undefined }),
    mode: flags.headless ? 'headless' : 'interactive',
    ...defined({ unsandboxed: flags.unsandboxed ? true : undefined, confineRoots: confineRoots ? true : undefined }),
    log,
  };
}

function isDir(p: string): boolean {
  try {
    return fs.statSync(p).isDirectory();
  } catch {
    return false;
  }
}
