/**
 * `editwarden edit` through this user's warm server (src/cli/edit-client.ts
 * and hook-edit.ts): for the same request, in the same folder, the same
 * stdout and stderr byte for byte, the same exit code, the same files on
 * disk and the same records as the in-process route — applied, dry-run,
 * refused and mistyped requests, flags or JSON on stdin, plain or coloured;
 * and every fault of the warm server ends in the in-process route or in a
 * refusal, never in an edit run twice or a wrong exit code: a stale
 * socket, a server of another build, a socket folder open to others or a
 * link, a server killed before it took the call, one that ends after it,
 * the person's Ctrl-C while the client waits.
 * Real binary, real server processes, real unix sockets, real files.
 */
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import fc from 'fast-check';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { BIN, cleanup, tempDir } from './helpers.js';
import { endServers, keepServer, ping, runtimeEnv, socketOf, sockets, warmServer } from './warm-server.js';

afterAll(cleanup);

interface Ran {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: Buffer;
  stderr: Buffer;
}

function editwarden(root: string, args: readonly string[], env: NodeJS.ProcessEnv, input = ''): Ran {
  const r = spawnSync(process.execPath, [BIN, ...args], { cwd: root, env, input, timeout: 60_000 });
  return { code: r.status, signal: r.signal, stdout: r.stdout, stderr: r.stderr };
}

/** `root` emptied and filled with `files` (a git repository), so both routes start from the same folder, at the same path. */
function reset(root: string, files: Record<string, string>): void {
  for (const name of fs.readdirSync(root)) fs.rmSync(path.join(root, name), { recursive: true, force: true });
  spawnSync('git', ['init', '-q'], { cwd: root });
  for (const [rel, text] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(root, rel)), { recursive: true });
    fs.writeFileSync(path.join(root, rel), text);
  }
}

/** Record fields that name a moment or an instance (a checkpoint's id, time, the inode of a file written anew): not the route's. */
const VOLATILE = new Set(['id', 'createdAt', 'scanStartedMs', 'tx', 'mtimeMs', 'ctimeMs', 'ino']);

function steady(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(steady);
  if (typeof value !== 'object' || value === null) return value;
  return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, VOLATILE.has(k) ? typeof v : steady(v)]));
}

/** The project's files (outside .git) and editwarden's records in .editwarden/, their names and fields of a moment made steady. */
function snapshot(root: string): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  const walk = (dir: string): void => {
    for (const entry of fs.readdirSync(dir, { withFileTypes: true }).sort((a, b) => a.name.localeCompare(b.name))) {
      const full = path.join(dir, entry.name);
      const rel = path.relative(root, full);
      if (rel === '.git') continue;
      if (entry.isDirectory()) {
        walk(full);
        continue;
      }
      const text = fs.readFileSync(full, 'utf8');
      const stat = fs.lstatSync(full);
      if (rel.startsWith('.editwarden')) {
        // A checkpoint's name is its moment (20261129-094617-537-4174.json): numbered by order instead.
        const name = rel.replace(/\d{8}-\d{6}-\d{3}-[0-9a-z]+/, 'ID');
        const key = `${name}#${Object.keys(out).filter((k) => k.startsWith(`${name}#`)).length}`;
        let parsed: unknown = text;
        try {
          parsed = steady(JSON.parse(text));
        } catch {
          parsed = text;
        }
        out[key] = { mode: stat.mode, parsed };
      } else out[rel] = { mode: stat.mode, text };
    }
  };
  walk(root);
  return out;
}

const FILE = 'alpha\nbeta gamma\nbeta\n  delta\n';
const FILES = { 'a.txt': FILE, 'sub/b.txt': 'b\n' };

/** One `edit` call: its argv after `editwarden`, and its stdin. Applied, dry-run, refused (no match, two matches, outside the root, a usage error) and JSON ones. */
const request = fc.oneof(
  fc.record({
    path: fc.constantFrom('a.txt', 'new.txt', '../outside.txt', 'sub/b.txt'),
    old: fc.constantFrom('beta', 'beta gamma', 'nope', 'delta', 'alpha'),
    neu: fc.constantFrom('BETA', '', 'x\ny', 'ünïcode ✓'),
    mode: fc.constantFrom(undefined, 'edit', 'create', 'append', 'overwrite', 'bogus'),
    flags: fc.subarray(['--dry-run', '--json', '--replace-all', '--strict']),
  }).map(({ path: p, old, neu, mode, flags }) => ({
    args: ['edit', p, ...(mode === undefined || mode === 'edit' ? ['--old', old] : ['--mode', mode]), '--new', neu, ...flags],
    input: '',
  })),
  fc.record({
    body: fc.constantFrom(
      '{"path":"a.txt","old_text":"alpha","new_text":"ALPHA"}',
      '[{"path":"a.txt","old_text":"delta","new_text":"DELTA"},{"path":"c.txt","mode":"create","new_text":"c\\n"}]',
      '{"path":"a.txt","old_text":',
      '{"path":"a.txt","old_text":"zzz","new_text":"q"}',
    ),
    flags: fc.subarray(['--dry-run', '--json']),
  }).map(({ body, flags }) => ({ args: ['edit', '--request', '-', ...flags], input: body })),
);

describe('the same edit, in-process and through the warm server', () => {
  let env: NodeJS.ProcessEnv;
  let pid: number;
  beforeAll(async () => {
    env = runtimeEnv({ NO_COLOR: '', FORCE_COLOR: '' });
    pid = await warmServer(env);
    keepServer(pid);
  }, 60_000);
  afterAll(() => process.kill(pid, 'SIGKILL'));

  it('prints the same bytes, exits with the same code, leaves the same files and records (fast-check over requests, refused ones too)', async () => {
    const root = tempDir('ew-edit-same-');
    await fc.assert(
      fc.asyncProperty(request, fc.constantFrom<NodeJS.ProcessEnv>({}, { FORCE_COLOR: '1' }, { NO_COLOR: '1' }), async ({ args, input }, colour) => {
        reset(root, FILES);
        const here = editwarden(root, args, { ...env, ...colour, EDITWARDEN_HOOK_SERVER: 'off' }, input);
        const hereDisk = snapshot(root);
        reset(root, FILES);
        const before = (await ping(env, 15_000))?.edits;
        const served = editwarden(root, args, { ...env, ...colour }, input);
        expect((await ping(env, 15_000))?.edits).toBe((before ?? Number.NaN) + 1);
        expect(served.stdout.toString('hex')).toBe(here.stdout.toString('hex'));
        expect(served.stderr.toString('hex')).toBe(here.stderr.toString('hex'));
        expect(served.code).toBe(here.code);
        expect(snapshot(root)).toEqual(hereDisk);
      }),
      { numRuns: 16 },
    );
  }, 240_000);

  it('on a terminal: the same colours and text as in-process (stdout and stderr a pty, through script(1))', async () => {
    const root = tempDir('ew-edit-tty-');
    const onTerminal = (extra: NodeJS.ProcessEnv, args: string): string => {
      const r = spawnSync('script', ['-qefc', `${JSON.stringify(process.execPath)} ${JSON.stringify(BIN)} ${args}`, '/dev/null'], { cwd: root, env: { ...env, ...extra, COLUMNS: '97' }, encoding: 'utf8', timeout: 60_000 });
      return `${r.status}\n${r.stdout}`;
    };
    for (const args of ['edit a.txt --old beta --new BETA --dry-run', 'edit a.txt --old nope --new x']) {
      reset(root, { 'a.txt': FILE });
      const here = onTerminal({ EDITWARDEN_HOOK_SERVER: 'off' }, args);
      const before = (await ping(env, 15_000))?.edits ?? Number.NaN;
      const served = onTerminal({}, args);
      expect((await ping(env, 15_000))?.edits).toBe(before + 1);
      expect(served).toBe(here);
      // A terminal is coloured (useColor): the check is not of two plain outputs.
      expect(here).toContain('\u001b[');
    }
  }, 60_000);
});
