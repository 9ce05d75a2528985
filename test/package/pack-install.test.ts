/**
 * The package as a user gets it. A clean copy of the source tree (what git
 * tracks or would track: no node_modules/ of its own), given the suite's own
 * fresh build of the same sources, is packed with `npm pack`, whose
 * `prepack` build finds it up to date (one compile per `npm test`); the tarball is
 * installed into an empty project (dependencies resolved from npm's local
 * cache, the registry asked only for what the cache lacks); then, in that project:
 *   npx editwarden --help · npx editwarden mcp answering `initialize` over
 *   stdio · an ESM import from JavaScript · TypeScript types with
 *   skipLibCheck: false · LICENSE shipped, no source maps, no sources.
 * Bounded: every step has a timeout; everything lives in one temp folder
 * that is removed afterwards.
 */
import { spawn, spawnSync, type SpawnSyncReturns } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const REPO = path.resolve(__dirname, '../..');
// Generous: on a loaded 2-core machine the build inside `npm pack` alone took over 4 minutes.
const NPM_TIMEOUT_MS = 600_000;
let base: string;
let consumer: string;
let tarball: string;
const env: NodeJS.ProcessEnv = { ...process.env, NO_COLOR: '1', npm_config_audit: 'false', npm_config_fund: 'false', npm_config_update_notifier: 'false' };

function must(r: SpawnSyncReturns<string>, what: string): SpawnSyncReturns<string> {
  if (r.status !== 0) throw new Error(`${what} exited ${r.status ?? r.signal}:\n${r.stdout}\n${r.stderr}`);
  return r;
}

beforeAll(
  () => {
    base = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'ew-pack-')));
    // A clean checkout of the working tree: tracked and untracked-but-not-ignored files only.
    const source = path.join(base, 'source');
    const files = must(spawnSync('git', ['ls-files', '-z', '--cached', '--others', '--exclude-standard'], { cwd: REPO, encoding: 'utf8' }), 'git ls-files')
      .stdout.split('\0')
      .filter((f) => f !== '' && fs.existsSync(path.join(REPO, f)));
    for (const file of files) {
      fs.mkdirSync(path.dirname(path.join(source, file)), { recursive: true });
      // Timestamps kept: `tsc -b` decides what is up to date by them.
      fs.cpSync(path.join(REPO, file), path.join(source, file), { preserveTimestamps: true });
    }
    expect(fs.existsSync(path.join(source, 'dist'))).toBe(false);
    // The suite's own build of these very sources (test/global-setup.ts and `npm test` make it fresh), with its
    // build info: prepack's `tsc -b` then finds it up to date instead of compiling the project a second time.
    // A clean checkout compiling from nothing is what `npm test` on a fresh clone does (.ci/run, bench suite).
    fs.cpSync(path.join(REPO, 'dist'), path.join(source, 'dist'), { recursive: true, preserveTimestamps: true });
    // The build tools of the checkout (npm ci would fetch the same ones).
    fs.symlinkSync(path.join(REPO, 'node_modules'), path.join(source, 'node_modules'));
    const pack = must(spawnSync('npm', ['pack', '--json', '--pack-destination', base], { cwd: source, env, encoding: 'utf8', timeout: NPM_TIMEOUT_MS }), 'npm pack');
    // prepack ran the build (which found it up to date).
    expect(pack.stdout + pack.stderr).toContain('tsc -b tsconfig.build.json');
    const packed = JSON.parse(pack.stdout.slice(pack.stdout.indexOf('['))) as Array<{ filename: string }>;
    tarball = path.join(base, packed[0]!.filename);

    consumer = path.join(base, 'consumer');
    fs.mkdirSync(consumer);
    fs.writeFileSync(path.join(consumer, 'package.json'), JSON.stringify({ name: 'consumer', private: true, type: 'module' }));
    installTarball();
  },
  2 * NPM_TIMEOUT_MS + 60_000,
);

/**
 * `npm install <tarball>` in the consumer, its dependencies resolved as npm resolves them for a user, from npm's
 * cache where it holds them. First with `--offline`: when the cache holds every package document and tarball
 * (after any earlier run on this machine, and in CI's ordinary-user pass, whose cache is a copy of root's), the
 * registry is never asked, so a slow or unreachable registry cannot fail or stall the test (a CI run once spent
 * its whole time limit in this install), and no time goes to the network. Only when something is missing from the
 * cache (ENOTCACHED: a machine's first run) is it installed again as before, `--prefer-offline`, asking the
 * registry for just what is missing, with a connection that stalls given up and retried rather than waited on.
 */
function installTarball(): void {
  const args = ['install', '--no-package-lock', tarball];
  const offline = spawnSync('npm', ['--offline', ...args], { cwd: consumer, env, encoding: 'utf8', timeout: NPM_TIMEOUT_MS });
  if (offline.status === 0) return;
  if (!/ENOTCACHED/.test(offline.stdout + offline.stderr)) must(offline, 'npm install --offline of the tarball');
  fs.rmSync(path.join(consumer, 'node_modules'), { recursive: true, force: true });
  const online = { ...env, npm_config_fetch_timeout: '60000', npm_config_fetch_retries: '4' };
  must(spawnSync('npm', ['--prefer-offline', ...args], { cwd: consumer, env: online, encoding: 'utf8', timeout: NPM_TIMEOUT_MS }), 'npm install of the tarball');
}

afterAll(() => {
  // A build killed by a timeout may still be finishing its last writes: retry the removal.
  if (base) fs.rmSync(base, { recursive: true, force: true, maxRetries: 10, retryDelay: 1000 });
});

interface InitializeReply {
  id?: number;
  result?: { serverInfo?: { name?: string }; capabilities?: { tools?: unknown } };
}

const installed = () => path.join(consumer, 'node_modules', 'editwarden');
/** The command `npm install` linked into the project's node_modules/.bin (what npx runs). */
const installedBin = () => path.join(consumer, 'node_modules', '.bin', 'editwarden');

describe('npm pack from a clean checkout, installed into an empty project', () => {
  it('ships LICENSE, README, dist/ and server.json; no source maps and no TypeScript sources', () => {
    const listing = must(spawnSync('tar', ['-tzf', tarball], { encoding: 'utf8' }), 'tar')
      .stdout.split('\n')
      .filter(Boolean);
    expect(listing).toEqual(
      expect.arrayContaining([
        'package/LICENSE',
        'package/README.md',
        'package/package.json',
        'package/server.json',
        'package/dist/index.js',
        'package/dist/index.d.ts',
        'package/dist/cli/main.js',
        'package/dist/cli-bundle/cli.mjs',
        'package/bin/editwarden',
        // The Vala grammar no npm package ships: the wasm with its licence and source (grammars/vala/README.md).
        'package/grammars/vala/tree-sitter-vala.wasm',
        'package/grammars/vala/COPYING',
        'package/grammars/vala/grammar.js',
        'package/grammars/vala/README.md',
      ]),
    );
    expect(listing.filter((f) => f.endsWith('.map') || f.endsWith('.tsbuildinfo'))).toEqual([]);
    expect(listing.filter((f) => f.startsWith('package/src/') || f.startsWith('package/test/'))).toEqual([]);
    expect(fs.readFileSync(path.join(installed(), 'LICENSE'), 'utf8')).toMatch(/^MIT License/);
  });

  it('the installed CLI resolves a Vala AST path with the shipped grammar', () => {
    fs.mkdirSync(path.join(consumer, 'vala'), { recursive: true });
    fs.writeFileSync(path.join(consumer, 'vala', 'Client.vala'), 'namespace OLLMchat {\n\tpublic class Client : Object {\n\t\tpublic void oldMethod () {\n\t\t}\n\t}\n}\n');
    const reply = '---BEGIN---\nEdit: vala/Client.vala\nast-path: OLLMchat-Client-oldMethod\naction: remove\n---END---\n';
    // The installed bin itself: that npx finds it is pinned by the --help and mcp tests (each npx start costs a second npm).
    const r = spawnSync(installedBin(), ['apply', '-', '--root', consumer], { cwd: consumer, env, encoding: 'utf8', input: reply, timeout: 60_000 });
    expect(r.stderr + r.stdout).not.toContain('E_PARSE');
    expect(r.status).toBe(0);
    expect(fs.readFileSync(path.join(consumer, 'vala', 'Client.vala'), 'utf8')).not.toContain('oldMethod');
  });

  it('npx editwarden --help', () => {
    const r = must(spawnSync('npx', ['--no-install', 'editwarden', '--help'], { cwd: consumer, env, encoding: 'utf8', timeout: 60_000 }), 'npx editwarden --help');
    expect(r.stdout).toContain('Usage: editwarden');
    expect(r.stdout).toContain('doctor');
    expect(r.stdout).toContain('Examples:');
  });

  it('npx editwarden mcp answers initialize over stdio', async () => {
    const child = spawn('npx', ['--no-install', 'editwarden', 'mcp', '--root', consumer], { cwd: consumer, env, detached: true, stdio: ['pipe', 'pipe', 'pipe'] });
    try {
      const reply = await new Promise<InitializeReply>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`no initialize reply in 60 s; stderr: ${stderr}`)), 60_000);
        let stdout = '';
        let stderr = '';
        child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
        child.on('exit', (code) => reject(new Error(`mcp exited ${code} before replying; stderr: ${stderr}`)));
        child.stdout.on('data', (c: Buffer) => {
          stdout += c.toString();
          for (const line of stdout.split('\n').slice(0, -1)) {
            const message = JSON.parse(line) as InitializeReply;
            if (message.id === 1) {
              clearTimeout(timer);
              resolve(message);
            }
          }
        });
        child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'pack-test', version: '0' } } })}\n`);
      });
      expect(reply.result?.serverInfo?.name).toBe('editwarden');
      expect(reply.result?.capabilities?.tools).toBeDefined();
    } finally {
      // npx runs the server as its child: end the whole group.
      try {
        process.kill(-child.pid!, 'SIGKILL');
      } catch {
        // Already gone.
      }
    }
  });

  it('imports from JavaScript as an ES module', () => {
    fs.writeFileSync(
      path.join(consumer, 'use.mjs'),
      [
        "import { EditwardenError, ErrorCode, parseEdits } from 'editwarden';",
        "import { McpSession } from 'editwarden/mcp';",
        'const parsed = parseEdits(\'{"path": "a.txt", "mode": "create", "new_text": "hi"}\', \'auto\');',
        'console.log(JSON.stringify({ error: typeof EditwardenError, code: ErrorCode.NOT_FOUND, format: parsed.format, requests: parsed.requests.length, mcp: typeof McpSession }));',
      ].join('\n'),
    );
    const r = must(spawnSync(process.execPath, ['use.mjs'], { cwd: consumer, encoding: 'utf8', timeout: 60_000 }), 'node use.mjs');
    expect(JSON.parse(r.stdout)).toEqual({ error: 'function', code: 'E_NOT_FOUND', format: 'json', requests: 1, mcp: 'function' });
  });

  it('the model SDKs are optional peers: not installed, yet the command talks to a model with its own bundled copy', async () => {
    for (const sdk of ['openai', '@anthropic-ai/sdk']) expect(fs.existsSync(path.join(consumer, 'node_modules', sdk))).toBe(false);
    const { startScriptedServer } = await import('../../src/agent/providers/scripted-server.js');
    const server = await startScriptedServer({ turns: [{ tool_calls: [{ name: 'task_completion', arguments: { summary: 'Done.' } }] }] });
    try {
      fs.writeFileSync(path.join(consumer, 'a.txt'), 'hello\n');
      const r = await new Promise<{ code: number | null; out: string }>((resolve) => {
        const child = spawn(installedBin(), ['run', '--task', 'x', '--model', 'openai-compatible:scripted', '--base-url', server.openaiBaseUrl, '--root', consumer], {
          cwd: consumer,
          env: { ...env, OPENAI_API_KEY: 'sk-test' },
          stdio: ['ignore', 'pipe', 'pipe'],
        });
        let out = '';
        child.stdout.on('data', (c: Buffer) => (out += c.toString()));
        child.stderr.on('data', (c: Buffer) => (out += c.toString()));
        child.on('close', (code) => resolve({ code, out }));
      });
      expect(r.out).not.toContain('E_MISSING_SDK');
      expect(r.code, r.out).toBe(0);
      expect(server.requests.map((q) => q.protocol)).toEqual(['openai']);
    } finally {
      await server.close();
    }
    // A library caller who builds a provider without its SDK is told which package to install.
    fs.writeFileSync(
      path.join(consumer, 'provider.mjs'),
      [
        "import { createProvider } from 'editwarden';",
        "const p = createProvider('anthropic:claude-x', { env: { ANTHROPIC_API_KEY: 'k' } });",
        "try { await p.complete({ system: 's', messages: [{ role: 'user', content: 'hi' }], tools: [] }); } catch (e) { console.log(JSON.stringify({ code: e.code, hint: e.hint })); }",
      ].join('\n'),
    );
    const lib = must(spawnSync(process.execPath, ['provider.mjs'], { cwd: consumer, encoding: 'utf8', timeout: 60_000 }), 'node provider.mjs');
    expect(JSON.parse(lib.stdout)).toEqual({ code: 'E_MISSING_SDK', hint: expect.stringContaining('npm install @anthropic-ai/sdk@^') });
  }, 120_000);

  it('type-checks from TypeScript with skipLibCheck: false, with no @types of its own', () => {
    fs.writeFileSync(
      path.join(consumer, 'use.ts'),
      [
        "import { EditwardenError, ErrorCode, parseEdits, type ErrorInfo } from 'editwarden';",
        "import { McpSession } from 'editwarden/mcp';",
        "const info: ErrorInfo = { code: ErrorCode.NOT_FOUND, message: 'm', hint: 'h' };",
        'const error = new EditwardenError(info);',
        "const parsed = parseEdits('x', 'auto');",
        'export const out: [string, number, typeof McpSession] = [error.code, parsed.requests.length, McpSession];',
      ].join('\n'),
    );
    fs.writeFileSync(
      path.join(consumer, 'tsconfig.json'),
      JSON.stringify({
        compilerOptions: {
          target: 'ES2022',
          module: 'NodeNext',
          moduleResolution: 'NodeNext',
          strict: true,
          skipLibCheck: false,
          // TypeScript's own lib files are not the package's: checking them again proves nothing about it.
          skipDefaultLibCheck: true,
          noEmit: true,
          // No types of the consumer's own: the package's declarations use Node's (Buffer, fs.Stats,
          // NodeJS.ProcessEnv), so it brings @types/node as a dependency, and the consumer needs nothing.
        },
        files: ['use.ts'],
      }),
    );
    // TypeScript 7's native compiler (devDependency typescript-native), the current major: it checks every declaration
    // file the package reaches in ~1 s of CPU where 5.9 took ~6 s. A consumer on TypeScript 5 is the one of
    // public-api.test.ts (the documented examples compiled by 5.9 against these declarations).
    const tsc = spawnSync(process.execPath, [path.join(REPO, 'node_modules', 'typescript-native', 'bin', 'tsc'), '-p', 'tsconfig.json'], { cwd: consumer, encoding: 'utf8', timeout: 170_000 });
    expect(tsc.stdout + tsc.stderr).toBe('');
    expect(tsc.status).toBe(0);
  }, 180_000); // Checks every declaration file the package reaches, its dependencies' included.
});
