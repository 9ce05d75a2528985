/**
 * Hooks fired back to back with no server up (a client's pre- and post-hook, parallel sessions) start one hook
 * server between them, not one each (src/cli/hook-socket.ts claimStart): each of the others decides by itself while
 * that one loads, where before each started a server that loaded everything only to fail at listen().
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { claimStart, startClaimPath } from '../../src/cli/hook-socket.js';
import { BIN, cleanup, project, tempDir } from './helpers.js';
import { runtimeEnv, socketOf } from './warm-server.js';

afterAll(cleanup);

describe('the start claim', () => {
  it('the first hook claims the start; one after it within 10 s does not; an older claim is taken over and made fresh', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 60_000 }), (age) => {
        const socket = path.join(tempDir('ew-claim-'), 'hook-x.sock');
        const claim = startClaimPath(socket);
        const now = Date.now();
        expect(claimStart(socket, now)).toBe(true);
        expect(fs.existsSync(claim)).toBe(true);
        expect(claimStart(socket, now)).toBe(false);
        const then = new Date(now - age);
        fs.utimesSync(claim, then, then);
        const stale = age >= 10_000;
        expect(claimStart(socket, now)).toBe(stale);
        // Taken over: the claim is fresh again, so the next hook leaves the start to this one.
        if (stale) expect(claimStart(socket, now)).toBe(false);
      }),
      { numRuns: 40 },
    );
  });
});

describe('hooks at once with no server', () => {
  it('three PreToolUse hooks started together each answer by themselves, and one hook-server process is started between them; it removes the claim once it listens', () => {
    // A short idle time: the one server ends soon after, and with it the trace below.
    const env = runtimeEnv({ EDITWARDEN_HOOK_SERVER_IDLE_MS: '1500' });
    const root = project({ 'a.txt': 'hello\nworld\n' });
    const input = path.join(tempDir('ew-input-'), 'pre.json');
    fs.writeFileSync(input, JSON.stringify({ tool_name: 'Edit', tool_use_id: 't1', tool_input: { file_path: path.join(root, 'a.txt'), old_string: 'world', new_string: 'there' } }));
    const hook = `"${process.execPath}" "${BIN}" hook claude pre-tool-use --root "${root}" < "${input}" > /dev/null`;
    const script = `${hook} & a=$!; ${hook} & b=$!; ${hook} & c=$!; for p in $a $b $c; do wait $p; echo "exit $?"; done`;
    // strace follows the hooks and everything they start (the detached server too, until it ends): every hook-server
    // started is counted, one that would lose at listen() as well.
    const log = path.join(tempDir('ew-strace-'), 'execs.txt');
    const traced = spawnSync('strace', ['-f', '-qq', '-e', 'trace=execve', '-o', log, 'sh', '-c', script], { env, encoding: 'utf8', timeout: 90_000 });
    expect(traced.status, traced.stderr).toBe(0);
    expect(traced.stdout.trim().split('\n'), traced.stderr).toEqual(['exit 0', 'exit 0', 'exit 0']);
    const servers = fs
      .readFileSync(log, 'utf8')
      .split('\n')
      .filter((line) => /execve\(.*"hook-server"/.test(line));
    expect(servers, servers.join('\n')).toHaveLength(1);
    expect(fs.existsSync(startClaimPath(socketOf(env)))).toBe(false);
  }, 120_000);
});
