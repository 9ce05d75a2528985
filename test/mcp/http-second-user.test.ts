/**
 * `editwarden mcp --http` is not open to every local user. The server runs
 * as root (as on CI boxes and many dev machines); a SECOND REAL OS USER,
 * created for this test with `useradd`, runs the real MCP SDK client
 * (`runuser -u USER -- node …`) against it:
 *   - without the token, and with a guessed one: 401, nothing served;
 *   - the token file (0600, root's runtime folder) cannot be read;
 *   - even holding the token (leaked), a client root outside the server's own
 *     root — a 0700 folder only root may read — is refused, never opened.
 *
 * Creating a user needs root. CI runs as root; anywhere else this test says
 * why it cannot run, and fails when CI is set (so CI can never pass it by
 * not running it).
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tempDir } from '../temp-dirs.js';
import { mcpProgram, REPO, tempRoot } from './helpers/server.js';

const isRoot = typeof process.getuid === 'function' && process.getuid() === 0;
const USER = `ewmcp${randomBytes(4).toString('hex')}`;

const sdk = (rel: string): string => pathToFileURL(path.join(REPO, 'node_modules/@modelcontextprotocol/sdk/dist/esm', rel)).href;

/** The intruder's client, run as the second user: every attempt's outcome as one JSON line. */
const CLIENT = `
import fs from 'node:fs';
const { Client } = await import(${JSON.stringify(sdk('client/index.js'))});
const { StreamableHTTPClientTransport } = await import(${JSON.stringify(sdk('client/streamableHttp.js'))});
const { ListRootsRequestSchema } = await import(${JSON.stringify(sdk('types.js'))});
const env = process.env;
const out = { uid: process.getuid() };
async function tryConnect(headers) {
  const client = new Client({ name: 'intruder', version: '0' });
  try {
    await client.connect(new StreamableHTTPClientTransport(new URL(env.EW_URL), { requestInit: { headers } }));
    const tools = await client.listTools();
    await client.close();
    return 'served ' + tools.tools.length + ' tools';
  } catch (error) {
    return String(error.message);
  }
}
out.noToken = await tryConnect({});
out.guessedToken = await tryConnect({ Authorization: 'Bearer ' + '0'.repeat(64) });
try { fs.readFileSync(env.EW_TOKEN_FILE, 'utf8'); out.tokenFile = 'read'; } catch (error) { out.tokenFile = error.code; }
try { fs.readFileSync(env.EW_SECRET_FILE, 'utf8'); out.secretDirect = 'read'; } catch (error) { out.secretDirect = error.code; }
// Holding the token (leaked), offer a root only the server's account may read.
const client = new Client({ name: 'intruder', version: '0' }, { capabilities: { roots: { listChanged: true } } });
client.setRequestHandler(ListRootsRequestSchema, async () => ({ roots: [{ uri: env.EW_SECRET_URI }] }));
await client.connect(new StreamableHTTPClientTransport(new URL(env.EW_URL), { requestInit: { headers: { Authorization: 'Bearer ' + env.EW_TOKEN } } }));
// Over HTTP the server's first roots/list can go out before the client's event stream is open; announcing a
// change once it is open makes the server ask again (what a client does when its folders change).
await new Promise((resolve) => setTimeout(resolve, 500));
await client.sendRootsListChanged();
const read = await client.callTool({ name: 'read_file', arguments: { path: 'secret.txt' } });
const write = await client.callTool({ name: 'write_file', arguments: { path: 'planted.txt', content: 'x' } });
out.outsideRoot = { read: JSON.stringify(read), write: JSON.stringify(write) };
await client.close();
console.log(JSON.stringify(out));
`;

describe('editwarden mcp --http against a second real OS user', () => {
  let server: ChildProcess | undefined;
  let url = '';
  let token = '';
  let tokenFile = '';
  let secretDir = '';

  beforeAll(async () => {
    if (!isRoot) return;
    const added = spawnSync('useradd', ['--system', '--no-create-home', '--shell', '/usr/sbin/nologin', USER], { encoding: 'utf8' });
    if (added.status !== 0) throw new Error(`useradd ${USER}: ${added.stderr}`);
    const root = tempRoot({ 'a.txt': 'served\n' });
    secretDir = tempDir('ew-root-only-');
    fs.chmodSync(secretDir, 0o700);
    fs.writeFileSync(path.join(secretDir, 'secret.txt'), 'root only\n', { mode: 0o600 });
    const runtime = tempDir('ew-http-runtime-');
    server = spawn(process.execPath, [mcpProgram(), 'mcp', '--root', root, '--http', '0'], { cwd: REPO, stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, XDG_RUNTIME_DIR: runtime } });
    await new Promise<void>((resolve, reject) => {
      let err = '';
      server?.stderr?.on('data', (chunk: Buffer) => {
        err += chunk.toString('utf8');
        const m = /listening on (\S+)/.exec(err);
        const t = /token ([0-9a-f]{64}) \(in (\S+);/.exec(err);
        if (m && t) {
          url = m[1] as string;
          token = t[1] as string;
          tokenFile = t[2] as string;
          resolve();
        }
      });
      server?.once('exit', (code) => reject(new Error(`server exited (${code}): ${err}`)));
    });
  });

  afterAll(() => {
    server?.kill('SIGTERM');
    if (isRoot) spawnSync('userdel', [USER]);
  });

  it('refuses the other user without the token, hides the token file, and never opens a client root outside its own', () => {
    if (!isRoot) {
      // Not a skip in CI: CI runs as root, so reaching here there is a broken setup that must show.
      const why = 'this test creates a second OS user (useradd) and needs root; run it as root (CI does)';
      if (process.env.CI) expect.fail(why);
      console.warn(`http-second-user: ${why}`);
      return;
    }
    const r = spawnSync('runuser', ['-u', USER, '--', process.execPath, '--input-type=module', '-e', CLIENT], {
      cwd: '/',
      encoding: 'utf8',
      timeout: 60_000,
      env: { PATH: process.env.PATH, HOME: '/', EW_URL: url, EW_TOKEN: token, EW_TOKEN_FILE: tokenFile, EW_SECRET_FILE: path.join(secretDir, 'secret.txt'), EW_SECRET_URI: pathToFileURL(secretDir).href },
    });
    expect(r.status, r.stderr).toBe(0);
    const out = JSON.parse(r.stdout.trim().split('\n').at(-1) as string);
    // Really another account: the kernel keeps it out of root's files on its own.
    expect(out.uid).not.toBe(0);
    expect(out.secretDirect).toBe('EACCES');
    expect(out.noToken).toMatch(/Unauthorized/);
    expect(out.guessedToken).toMatch(/Unauthorized/);
    expect(out.tokenFile).toBe('EACCES');
    expect(out.outsideRoot.read).toContain('E_OUTSIDE_ROOT');
    expect(out.outsideRoot.read).not.toContain('root only');
    expect(out.outsideRoot.write).toContain('E_OUTSIDE_ROOT');
    expect(fs.existsSync(path.join(secretDir, 'planted.txt'))).toBe(false);
  });
});
