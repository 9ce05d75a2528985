import fs from 'node:fs';
import path from 'node:path';
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { pathToFileURL } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { ListRootsRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { tempDir } from '../../temp-dirs.js';

export const REPO = path.resolve(__dirname, '../../..');
const BIN = path.join(REPO, 'bin/editwarden');

let program: string | null = null;

/** The real binary, once it is seen to list `mcp` (dist/ is built and fresh: test/global-setup.ts). */
export function mcpProgram(): string {
  if (program) return program;
  const probe = spawnSync(process.execPath, [BIN, '--help'], { encoding: 'utf8' });
  // Always the real binary: a silent stand-in would hide a broken CLI.
  if (probe.status !== 0 || !/^\s+mcp\b/m.test(probe.stdout)) throw new Error(`bin/editwarden does not list mcp:\n${probe.stdout}${probe.stderr}`);
  program = BIN;
  return program;
}

/** A fresh root holding `files`, removed when the test (or, made outside a test, the file) ends. */
export function tempRoot(files: Record<string, string> = {}): string {
  const root = tempDir('ew-mcp-');
  for (const [rel, text] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(root, rel)), { recursive: true });
    fs.writeFileSync(path.join(root, rel), text);
  }
  return root;
}

export interface Connected {
  client: Client;
  stderr: () => string;
  close: () => Promise<void>;
  setRoots: (roots: string[]) => Promise<void>;
}

export interface ConnectOptions {
  /** Root folders the client offers as MCP roots (the client then declares the roots capability). */
  roots?: string[];
  cwd?: string;
  /** Set over this process's environment for the server. */
  env?: Record<string, string>;
}

/** A real `editwarden mcp` child process driven by the SDK's own Client over stdio. */
export async function connect(args: string[], options: ConnectOptions = {}): Promise<Connected> {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [mcpProgram(), 'mcp', ...args],
    stderr: 'pipe',
    cwd: options.cwd ?? REPO,
    env: { ...process.env, NO_COLOR: '1', ...options.env } as Record<string, string>,
  });
  let err = '';
  transport.stderr?.on('data', (chunk: Buffer) => {
    err += chunk.toString('utf8');
  });
  let roots = options.roots ?? [];
  const client = new Client({ name: 'editwarden-test', version: '0' }, options.roots ? { capabilities: { roots: { listChanged: true } } } : {});
  if (options.roots) {
    client.setRequestHandler(ListRootsRequestSchema, async () => ({ roots: roots.map((r) => ({ uri: pathToFileURL(r).href, name: path.basename(r) })) }));
  }
  try {
    await client.connect(transport);
  } catch (error) {
    throw new Error(`the server did not start: ${(error as Error).message}\n${err}`);
  }
  return {
    client,
    stderr: () => err,
    close: () => client.close(),
    setRoots: async (next) => {
      roots = next;
      await client.sendRootsListChanged();
    },
  };
}

export interface ToolReply {
  isError: boolean;
  text: string;
  structured: Record<string, unknown>;
  error?: { code: string; message: string; hint: string } | undefined;
}

export async function call(client: Client, name: string, args: Record<string, unknown> = {}): Promise<ToolReply> {
  const r = (await client.callTool({ name, arguments: args })) as { isError?: boolean; content: Array<{ type: string; text?: string }>; structuredContent?: Record<string, unknown> };
  const structured = r.structuredContent ?? {};
  return {
    isError: r.isError === true,
    text: r.content.map((c) => c.text ?? '').join('\n'),
    structured,
    ...(structured.error ? { error: structured.error as ToolReply['error'] } : {}),
  };
}

/** A raw child process (no SDK) for feeding malformed bytes. */
export function spawnRaw(args: string[]): ChildProcess {
  return spawn(process.execPath, [mcpProgram(), 'mcp', ...args], { stdio: ['pipe', 'pipe', 'pipe'], cwd: REPO, env: { ...process.env, NO_COLOR: '1' } });
}
