/**
 * scripts/preflight.mjs (the first second of `npm test`) as root and as an
 * ordinary user, on a PATH made for the test: every tool the suite needs but
 * tmux, and stand-ins for `apt-get` and `sudo` that record being called (the
 * stand-in sudo refuses, as sudo does for a user without a passwordless
 * rule). Root installs with apt-get; an ordinary user never tries it, and is
 * told in one line the `sudo apt-get` command to run. A bubblewrap that cannot
 * start a user namespace (unprivileged namespaces switched off, what an
 * ordinary user meets on some kernels) stops the run with the one line saying
 * how to allow them. .ci/run runs the suite both as root and as an ordinary
 * user, so both branches are pinned there.
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { IS_ROOT } from '../needs-root.js';
import { tempDir } from '../temp-dirs.js';

const PREFLIGHT = path.resolve(__dirname, '../../scripts/preflight.mjs');

/** The real programs the preflight looks up on PATH, found on this machine's PATH. */
function which(tool: string): string {
  const r = spawnSync('sh', ['-c', `command -v ${tool}`], { encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`${tool} is not on PATH`);
  return r.stdout.trim();
}

/** A PATH holding `tools` (links to the real ones) and recording stand-ins for apt-get and sudo; `calls` lists what they were asked. */
function madePath(tools: string[]): { bin: string; calls: () => string[] } {
  const dir = tempDir('ew-preflight-');
  const bin = path.join(dir, 'bin');
  fs.mkdirSync(bin);
  for (const tool of tools) fs.symlinkSync(which(tool), path.join(bin, tool));
  const log = path.join(dir, 'calls');
  fs.writeFileSync(log, '');
  for (const [name, status] of [
    ['apt-get', 0],
    ['sudo', 1],
  ] as const) {
    fs.writeFileSync(path.join(bin, name), `#!/bin/sh\necho "${name} $*" >> '${log}'\nexit ${status}\n`);
    fs.chmodSync(path.join(bin, name), 0o755);
  }
  return { bin, calls: () => fs.readFileSync(log, 'utf8').split('\n').filter(Boolean) };
}

function preflight(bin: string, env: Record<string, string> = {}) {
  const r = spawnSync(process.execPath, [PREFLIGHT, 'test'], { encoding: 'utf8', env: { PATH: bin, HOME: process.env.HOME ?? '/', ...env } });
  return { status: r.status, lines: r.stderr.split('\n').filter(Boolean) };
}

describe('the preflight, as root and as an ordinary user', () => {
  it('a missing tool: root installs it with apt-get; an ordinary user never runs apt-get and gets one line with the sudo command', () => {
    const { bin, calls } = madePath(['sh', 'git', 'make', 'cmake', 'g++', 'chromium', 'strace', 'sqlite3', 'python3']);
    const r = preflight(bin);
    expect(r.status).toBe(1);
    if (IS_ROOT) {
      // The stand-in apt-get installs nothing, so tmux is still missing afterwards: said in the one line.
      expect(calls()).toEqual(['apt-get update -qq', 'apt-get install -y -qq tmux']);
      expect(r.lines).toEqual(['preflight: installing tmux with apt-get', 'editwarden test: missing tmux — install with: apt-get install -y tmux']);
    } else {
      expect(calls()).toEqual(['sudo -n true']);
      expect(r.lines).toEqual(['editwarden test: missing tmux — install with: sudo apt-get install -y tmux']);
    }
  });

  it('a bubblewrap that cannot start a user namespace stops the run with one line saying how to allow them', () => {
    const { bin, calls } = madePath(['sh', 'git', 'make', 'cmake', 'g++', 'chromium', 'tmux', 'strace', 'sqlite3', 'python3']);
    const bwrap = path.join(path.dirname(bin), 'bwrap');
    fs.writeFileSync(bwrap, '#!/bin/sh\necho "bwrap: setting up uid map: Permission denied" >&2\nexit 1\n');
    fs.chmodSync(bwrap, 0o755);
    const r = preflight(bin, { EDITWARDEN_BWRAP: bwrap });
    expect(r.status).toBe(1);
    expect(calls()).toEqual([]);
    expect(r.lines).toEqual([
      `editwarden test: bubblewrap (${bwrap}) cannot start a user namespace here — allow them: sysctl -w kernel.unprivileged_userns_clone=1 (Debian) or kernel.apparmor_restrict_unprivileged_userns=0 (Ubuntu 24.04+)`,
    ]);
  });

  it('the real bubblewrap starts its namespaces for whoever runs this (root or not): the suite’s sandbox tests need it', () => {
    const { bin } = madePath(['sh', 'git', 'make', 'cmake', 'g++', 'chromium', 'tmux', 'strace', 'sqlite3', 'python3']);
    const r = preflight(bin);
    expect(r).toEqual({ status: 0, lines: [] });
  });
});
