/**
 * `editwarden mcp --http` is not open to every local user. The server runs
 * as root (as on CI boxes and many dev machines); a SECOND REAL OS USER,
 * created for this test with `useradd`, runs the real MCP SDK client
 * (`runuser -u USER -- node …`) against it:
 *   - without the token, and with a guessed one: 401, nothing served;
 *   - the token file (0600, in the server's own 0700 folder) cannot be read,
 *     though the runtime folder above it is open to that user;
 *   - even holding the token (leaked), a client root outside the server's own
 *     root — a 0700 folder only root may read — is refused, never opened.
 *
 * The other user reaches only what test/other-user.ts gives it (the client
 * bundled with the SDK, a Node it may run, in a 0755 folder): never the clone,
 * wherever that is. The token's and the secret's folders sit in that shared
 * folder, so their own modes are what keeps the other user out.
 *
 * Creating a user needs root: anywhere else the test is skipped, saying so.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { IS_ROOT, skipUnlessRoot } from '../needs-root.js';
import { createOtherUser, type OtherUser } from '../other-user.js';
import { mcpProgram, REPO, tempRoot } from './helpers/server.js';

/** The intruder's client, run as the second user: every attempt's outcome as one JSON line. */
const CLIENT = `
import fs from 'node:fs';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ListRootsRequestSchema } from '@modelcontextprotocol/sdk/types.js';
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
let rootsAsked;
const asked = new Promise((resolve) => { rootsAsked = resolve; });
client.setRequestHandler(ListRootsRequestSchema, async () => {
  rootsAsked();
  return { roots: [{ uri: env.EW_SECRET_URI }] };
});
await client.connect(new StreamableHTTPClientTransport(new URL(env.EW_URL), { requestInit: { headers: { Authorization: 'Bearer ' + env.EW_TOKEN } } }));
// Over HTTP the server's first roots/list can go out before the client's event stream is open, and is lost;
// announcing a change makes the server ask again (what a client does when its folders change). Announce until
// the server has asked: the calls below wait for that answer, so they see the offered root.
let answered = false;
asked.then(() => { answered = true; });
for (let wait = 50; !answered; wait = Math.min(wait * 2, 1000)) {
  await client.sendRootsListChanged();
  await Promise.race([asked, new Promise((resolve) => setTimeout(resolve, wait))]);
}
const read = await client.callTool({ name: 'read_file', arguments: { path: 'secret.txt' } });
const write = await client.callTool({ name: 'write_file', arguments: { path: 'planted.txt', content: 'x' } });
out.outsideRoot = { read: JSON.stringify(read), write: JSON.stringify(write) };
await client.close();
console.log(JSON.stringify(out));
`;

describe('editwarden mcp --http against a second real OS user', () => {
  let other: OtherUser | undefined;
  let server: ChildProcess | undefined;
  let url = '';
  let token = '';
  let tokenFile = '';
  let secretDir = '';

  beforeAll(async () => {
    if (!IS_ROOT) return;
    other = createOtherUser('ewmcp');
    const root = tempRoot({ 'a.txt': 'served\n' });
    secretDir = path.join(other.shared, 'root-only');
    fs.mkdirSync(secretDir);
    fs.chmodSync(secretDir, 0o700);
    fs.writeFileSync(path.join(secretDir, 'secret.txt'), 'root only\n');
    fs.chmodSync(path.join(secretDir, 'secret.txt'), 0o600);
    // The runtime folder is open to the other user: the server's own 0700 folder and 0600 file must keep it out.
    const runtime = path.join(other.shared, 'runtime');
    fs.mkdirSync(runtime);
    fs.chmodSync(runtime, 0o755);
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

  afterAll(async () => {
    if (server && server.exitCode === null) {
      const exited = new Promise((resolve) => server?.once('exit', resolve));
      server.kill('SIGTERM');
      await exited;
    }
    other?.remove();
  });

  it('refuses the other user without the token, hides the token file, and never opens a client root outside its own', async (context) => {
    skipUnlessRoot(context, 'creates a second OS user (useradd) and runs the client as that user (runuser)');
    if (!other) throw new Error('beforeAll made no second user');
    const r = await other.runModule(CLIENT, { EW_URL: url, EW_TOKEN: token, EW_TOKEN_FILE: tokenFile, EW_SECRET_FILE: path.join(secretDir, 'secret.txt'), EW_SECRET_URI: pathToFileURL(secretDir).href });
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
