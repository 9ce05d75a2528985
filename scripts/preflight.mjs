#!/usr/bin/env node
/**
 * The system tools the README's two commands need, checked in their first
 * second: `npm test` (its `pretest`) and `npm run demo` (its `predemo`).
 *
 * A fresh Debian/Ubuntu machine has none of bubblewrap, cmake, g++, tmux,
 * chromium, strace or sqlite3. Where this process may install packages (root, or sudo without a
 * password) and apt-get exists, it installs the missing ones; otherwise it
 * stops with ONE line naming what is missing and the exact command that
 * installs it — never a wall of failing tests.
 *
 *   node scripts/preflight.mjs test   every tool the suite drives for real
 *   node scripts/preflight.mjs demo   the demo's: bubblewrap (cmake and g++ are
 *                                     optional: the demo falls back to a
 *                                     TypeScript sample; without a sandbox it
 *                                     says its commands ran unsandboxed)
 *
 * EDITWARDEN_PREFLIGHT_INSTALL=0 never installs (the fresh-machine test uses
 * it); EDITWARDEN_BWRAP names the bubblewrap program, as for editwarden
 * itself (a missing one counts as missing bubblewrap). It must never print
 * more than that one line when it stops, and nothing when all is present.
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';

const BWRAP_LOCATIONS = ['/usr/bin/bwrap', '/usr/local/bin/bwrap', '/bin/bwrap'];

/** tool → how to find it, and the Debian package that brings it. */
const TOOLS = {
  git: { package: 'git', found: () => onPath('git') },
  make: { package: 'make', found: () => onPath('make') },
  cmake: { package: 'cmake', found: () => onPath('cmake') },
  'g++': { package: 'g++', found: () => onPath('g++') },
  tmux: { package: 'tmux', found: () => onPath('tmux') },
  bubblewrap: { package: 'bubblewrap', found: () => bwrapProgram() !== undefined },
  chromium: { package: 'chromium', found: () => ['chromium', 'chromium-browser'].some(onPath) },
  strace: { package: 'strace', found: () => onPath('strace') },
  sqlite3: { package: 'sqlite3', found: () => onPath('sqlite3') },
  python3: { package: 'python3', found: () => onPath('python3') },
};

const NEEDS = {
  // strace: the write witness (src/sandbox/witness.ts) the undo tests drive; sqlite3: a real database file for the ignored-files tests;
  // python3: the warm server's watch (src/workspace/checkpoints/tree-watch.ts) its tests start.
  test: { required: ['git', 'make', 'cmake', 'g++', 'tmux', 'bubblewrap', 'chromium', 'strace', 'sqlite3', 'python3'], wanted: [] },
  demo: { required: [], wanted: ['bubblewrap', 'cmake', 'g++', 'make'] },
};

function onPath(tool) {
  return spawnSync('sh', ['-c', `command -v ${tool}`], { stdio: 'ignore' }).status === 0;
}

function bwrapProgram() {
  const named = process.env.EDITWARDEN_BWRAP;
  const candidates = named ? [named] : BWRAP_LOCATIONS;
  return candidates.find((p) => {
    try {
      fs.accessSync(p, fs.constants.X_OK);
      return fs.statSync(p).isFile();
    } catch {
      return false;
    }
  });
}

/** A bwrap that cannot start the namespaces editwarden uses cannot sandbox; installing does not fix that. */
function bwrapStarts(program) {
  const r = spawnSync(program, ['--unshare-user-try', '--unshare-pid', '--unshare-net', '--ro-bind', '/', '/', '--dev', '/dev', '--proc', '/proc', '--', '/bin/true'], { stdio: 'ignore', timeout: 10_000 });
  return r.status === 0;
}

function installer() {
  if (process.env.EDITWARDEN_PREFLIGHT_INSTALL === '0') return undefined;
  if (!onPath('apt-get')) return undefined;
  if (process.getuid?.() === 0) return [];
  if (onPath('sudo') && spawnSync('sudo', ['-n', 'true'], { stdio: 'ignore' }).status === 0) return ['sudo', '-n'];
  return undefined;
}

function install(prefix, packages) {
  const run = (args) => {
    const [cmd, ...rest] = [...prefix, ...args];
    return spawnSync(cmd, rest, { stdio: ['ignore', 'ignore', 'inherit'], env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' } }).status === 0;
  };
  process.stderr.write(`preflight: installing ${packages.join(' ')} with apt-get\n`);
  return run(['apt-get', 'update', '-qq']) && run(['apt-get', 'install', '-y', '-qq', ...packages]);
}

function installLine(packages) {
  const sudo = process.getuid?.() === 0 ? '' : 'sudo ';
  return `${sudo}apt-get install -y ${packages.join(' ')}`;
}

function main() {
  const job = process.argv[2];
  const needs = NEEDS[job];
  if (!needs) {
    process.stderr.write('usage: node scripts/preflight.mjs test|demo\n');
    return 64;
  }
  const missing = (names) => names.filter((name) => !TOOLS[name].found());
  let required = missing(needs.required);
  let wanted = missing(needs.wanted);
  const packages = [...new Set([...required, ...wanted].map((name) => TOOLS[name].package))];
  // EDITWARDEN_BWRAP names a program on purpose: installing bubblewrap would not change which one is used.
  const installable = packages.filter((p) => !(p === 'bubblewrap' && process.env.EDITWARDEN_BWRAP));
  const prefix = installable.length > 0 ? installer() : undefined;
  if (prefix && install(prefix, installable)) {
    required = missing(needs.required);
    wanted = missing(needs.wanted);
  }
  const bwrap = bwrapProgram();
  if (required.length > 0) {
    const what = required.map((name) => TOOLS[name].package);
    process.stderr.write(`editwarden ${job}: missing ${what.join(', ')} — install with: ${installLine(what)}\n`);
    return 1;
  }
  if (job === 'test' && bwrap && !bwrapStarts(bwrap)) {
    process.stderr.write(`editwarden test: bubblewrap (${bwrap}) cannot start a user namespace here — allow them: sysctl -w kernel.unprivileged_userns_clone=1 (Debian) or kernel.apparmor_restrict_unprivileged_userns=0 (Ubuntu 24.04+)\n`);
    return 1;
  }
  if (wanted.length > 0) {
    const what = wanted.map((name) => TOOLS[name].package);
    process.stderr.write(`editwarden ${job}: runs without ${what.join(', ')} (it says what that changes) — for the full demo: ${installLine(what)}\n`);
  }
  return 0;
}

process.exitCode = main();
