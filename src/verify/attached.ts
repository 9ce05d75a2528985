/**
 * A program run in the sandbox with the person's terminal attached: what
 * `editwarden wrap` runs an agent with no hooks as (Aider, a home-made
 * script). Its stdin, stdout and stderr are this process's own (a terminal
 * stays a terminal: isatty, raw mode, the window size read from the fd),
 * and the terminal's signals, which reach only editwarden, are passed on.
 *
 * Job control, as far as bubblewrap allows. The sandbox runs the program in
 * a session of its own (`--new-session`, kept on purpose): the terminal is
 * not its controlling terminal, so it cannot push keystrokes into it with
 * TIOCSTI for the person's shell to run after it ends (CVE-2017-5226). The
 * price is that the terminal's own signals go to editwarden, which is in the
 * foreground: SIGINT, SIGQUIT, SIGHUP, SIGTERM and SIGWINCH are passed on to
 * the sandbox's foreground process group (signalTargets); Ctrl-Z (SIGTSTP) stops the whole sandboxed
 * tree (process-tree.ts), gives the terminal back its modes from before the
 * program started and stops editwarden; `fg` puts the program's modes back,
 * continues the tree and sends it SIGWINCH (the window may have changed).
 *
 * It must never start the program outside the sandbox (the caller refuses
 * when none is in force: `spawn.ts` would start it bare), and never leave
 * the terminal in the program's modes when it ends.
 */
import { spawn, spawnSync } from 'node:child_process';
import { sandboxedSpawn, type CommandSandbox } from '../sandbox/spawn.js';
import type { SandboxKind } from '../sandbox/detect.js';
import { detectSandbox } from '../sandbox/detect.js';
import { descendants, freezeTree, processGroup, thawTree, type FrozenTree } from './process-tree.js';
import { systemProgram } from '../sandbox/system-program.js';

export interface AttachedOptions {
  argv: readonly string[];
  cwd: string;
  sandbox: CommandSandbox;
  /** Set over the allowlisted environment; undefined removes a name. */
  env: Record<string, string | undefined>;
  /** Called with the bwrap process's pid once it started (the root of the tree `freeze` holds still). */
  onStart?: (pid: number) => void;
  /** The running filtering proxy's socket (sandbox/network) of a policy whose network is a host list: the program then runs behind the bridge. */
  proxySocket?: string | null;
}

export interface AttachedResult {
  /** null: ended by a signal, or never started. */
  exitCode: number | null;
  signal: NodeJS.Signals | null;
  spawnError?: string;
  sandbox: SandboxKind;
}

/** Signals a terminal (or a person's `kill`) sends that the program must see. */
const PASSED_ON: readonly NodeJS.Signals[] = ['SIGINT', 'SIGQUIT', 'SIGHUP', 'SIGTERM', 'SIGWINCH'];

/** The terminal's modes (`stty -g`) when stdin is a terminal, else null. */
function ttyModes(): string | null {
  if (!process.stdin.isTTY) return null;
  // The system's stty, never one found through PATH (sandbox/system-program.ts): it runs outside the sandbox.
  const stty = systemProgram('stty');
  if (stty === null) return null;
  const r = spawnSync(stty, ['-g'], { stdio: [0, 'pipe', 'ignore'], encoding: 'utf8' });
  return r.status === 0 ? r.stdout.trim() : null;
}

function setTtyModes(modes: string | null): void {
  const stty = systemProgram('stty');
  if (modes === null || stty === null) return;
  spawnSync(stty, [modes], { stdio: [0, 'ignore', 'ignore'] });
}

/**
 * What the terminal's signals go to: the processes of the sandbox's
 * foreground group (the program and what it runs in that group, as a
 * terminal would signal them) — not bwrap's init, and not the network
 * bridge that started the program (`wrappers` levels below the init), which
 * passes some signals on itself: the program would get a Ctrl-C twice.
 */
function signalTargets(bwrapPid: number, wrappers: number): number[] {
  const [init] = descendants(bwrapPid);
  if (init === undefined) return [];
  const group = processGroup(init);
  const skipped = new Set([init]);
  let level = init;
  for (let i = 0; i < wrappers; i++) {
    const [next] = descendants(level);
    if (next === undefined) break;
    skipped.add(next);
    level = next;
  }
  return descendants(init).filter((pid) => !skipped.has(pid) && processGroup(pid) === group);
}

function signalAll(pids: readonly number[], signal: NodeJS.Signals): void {
  for (const pid of pids) {
    try {
      process.kill(pid, signal);
    } catch {
      // Ended meanwhile.
    }
  }
}

export async function runAttached(options: AttachedOptions): Promise<AttachedResult> {
  const proxySocket = options.proxySocket ?? null;
  const spec = sandboxedSpawn(options.argv, options.cwd, options.sandbox, options.env, detectSandbox(), proxySocket);
  const wrappers = proxySocket !== null ? 1 : 0;
  const before = ttyModes();
  // Its own session: the terminal's Ctrl-C reaches editwarden alone, which passes it to the program (bwrap itself would die of it).
  const child = spawn(spec.file, spec.args, { cwd: options.cwd, env: spec.env, stdio: 'inherit', detached: true });
  const pid = child.pid;
  const exited = new Promise<AttachedResult>((resolve) => {
    child.once('exit', (code, signal) => resolve({ exitCode: code, signal, sandbox: spec.sandbox }));
    child.once('error', (error) => resolve({ exitCode: null, signal: null, spawnError: error.message, sandbox: spec.sandbox }));
  });
  if (pid === undefined) return exited;
  options.onStart?.(pid);

  const passOn = (signal: NodeJS.Signals) => (): void => signalAll(signalTargets(pid, wrappers), signal);
  const handlers = PASSED_ON.map((s) => [s, passOn(s)] as const);
  for (const [s, h] of handlers) process.on(s, h);
  const suspend = suspender(pid, before, () => signalAll(signalTargets(pid, wrappers), 'SIGWINCH'));
  process.on('SIGTSTP', suspend);
  try {
    return await exited;
  } finally {
    for (const [s, h] of handlers) process.off(s, h);
    process.off('SIGTSTP', suspend);
    // A program that crashed in raw mode must not leave the person's terminal unusable.
    setTtyModes(before);
  }
}

/** Ctrl-Z: hold the sandboxed tree still, give the terminal back, stop; on `fg` undo each in turn. */
function suspender(bwrapPid: number, before: string | null, resized: () => void): () => void {
  let busy = false;
  return () => {
    if (busy) return;
    busy = true;
    void (async () => {
      let frozen: FrozenTree | null = null;
      try {
        frozen = await freezeTree(bwrapPid);
        const programs = ttyModes();
        setTtyModes(before);
        process.once('SIGCONT', () => {
          setTtyModes(programs);
          if (frozen) thawTree(frozen);
          resized();
          busy = false;
        });
        process.kill(process.pid, 'SIGSTOP');
      } catch {
        if (frozen) thawTree(frozen);
        busy = false;
      }
    })();
  };
}
