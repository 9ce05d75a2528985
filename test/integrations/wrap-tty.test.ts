/**
 * `editwarden wrap` with a terminal: an interactive agent
 * (test/fixtures/wrap/tty-agent.mjs: raw-mode keys, as Aider's prompt)
 * runs sandboxed inside tmux and stays interactive — its stdio are a
 * terminal of the right size, keys reach it, a resize and Ctrl-C reach it,
 * Ctrl-Z suspends it and `fg` brings it back (the sandbox's own session
 * keeps TIOCSTI out; editwarden passes the terminal's signals on), the
 * terminal's modes are given back when it ends, and what it wrote is undone.
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { BIN, cleanup, editwarden, project } from './helpers.js';

const AGENT = path.resolve(import.meta.dirname, '../fixtures/wrap/tty-agent.mjs');
const session = 'wrap';
let socket = '';
let tests = 0;
beforeEach(() => {
  // A tmux server of its own per test (test/agent/interactive.test.ts says why).
  socket = `ew-wrap-test-${process.pid}-${tests++}`;
});
const roots: string[] = [];
afterEach(async () => {
  spawnSync('tmux', ['-L', socket, 'kill-server'], { stdio: 'ignore' });
  // The pane's editwarden records its last step after the hang-up: wait for it before the folders go.
  const until = Date.now() + 10_000;
  while (roots.some(busy) && Date.now() < until) await new Promise((r) => setTimeout(r, 50));
  roots.length = 0;
  cleanup();
});

/** Whether a process still works in `root` (its working folder is there). */
function busy(root: string): boolean {
  for (const pid of fs.readdirSync('/proc').filter((n) => /^\d+$/.test(n))) {
    try {
      if (fs.readlinkSync(`/proc/${pid}/cwd`).startsWith(root)) return true;
    } catch {
      // Gone, or not ours to read.
    }
  }
  return false;
}

function tmux(...args: string[]): string {
  const r = spawnSync('tmux', ['-L', socket, ...args], { encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`tmux ${args.join(' ')} failed (${r.status}): ${r.stderr}`);
  return r.stdout;
}

const screen = (): string => tmux('capture-pane', '-p', '-J', '-S', '-2000', '-t', session);

async function waitFor(text: string, count = 1, timeoutMs = 30_000): Promise<string> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const s = screen();
    if (s.split(text).length - 1 >= count) return s;
    if (Date.now() > until) throw new Error(`timed out waiting for ${JSON.stringify(text)} ×${count}; screen:\n${s}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

function type(text: string): void {
  tmux('send-keys', '-t', session, '-l', text);
  tmux('send-keys', '-t', session, 'Enter');
}

function agentRoot(): string {
  const root = project({});
  fs.copyFileSync(AGENT, path.join(root, 'agent.mjs'));
  roots.push(root);
  return root;
}

const wrapCommand = (root: string, flags = ''): string => `cd ${JSON.stringify(root)} && NO_COLOR=1 ${JSON.stringify(process.execPath)} ${JSON.stringify(BIN)} wrap --step-after 0s ${flags} -- ${JSON.stringify(process.execPath)} agent.mjs`;

describe('an interactive agent under wrap stays interactive (tmux)', () => {
  it('a terminal of the right size; keys, a resize and Ctrl-C reach it; its writes are undone; the terminal is given back', async () => {
    const root = agentRoot();
    tmux('new-session', '-d', '-s', session, '-x', '120', '-y', '40', `${wrapCommand(root)}; echo "EXIT=$?"; stty -a | grep -o -- '-\\?icanon' | sed 's/^/MODE=/'; sleep 60`);
    let s = await waitFor('ready>');
    expect(s).toContain('tty stdin=true stdout=true size=120x40');

    type('hello');
    await waitFor('saved: hello');
    expect(fs.readFileSync(path.join(root, 'notes.txt'), 'utf8')).toBe('hello\n');

    tmux('resize-window', '-t', session, '-x', '100', '-y', '30');
    await waitFor('resized 100x30');

    // In line mode Ctrl-C is the terminal's SIGINT, which reaches editwarden (in the foreground) and is passed on.
    type('cooked');
    await waitFor('cooked mode');
    tmux('send-keys', '-t', session, 'C-c');
    await waitFor('interrupted');

    // It dies in raw mode: the person's terminal is given back in the modes it had before.
    type('crash');
    s = await waitFor('MODE=');
    expect(s).toContain('EXIT=137');
    expect(s).toContain('MODE=icanon');
    expect(s).toContain(`wrap session`);
    expect(s).toMatch(/edit\s+wrap notes\.txt/);

    expect(editwarden(['undo'], { cwd: root }).code).toBe(0);
    expect(fs.existsSync(path.join(root, 'notes.txt'))).toBe(false);
  });

  it('Ctrl-Z suspends the whole sandboxed agent and gives the terminal back; fg brings it back', async () => {
    const root = agentRoot();
    tmux('new-session', '-d', '-s', session, '-x', '120', '-y', '40', "env -i PATH=/usr/bin:/bin TERM=screen PS1='shell> ' bash --norc --noprofile -i");
    await waitFor('shell> ');
    type(wrapCommand(root));
    await waitFor('ready>');
    type('first');
    await waitFor('saved: first');

    // In raw mode Ctrl-Z is the agent's key; in line mode it is the terminal's SIGTSTP, which reaches editwarden.
    type('cooked');
    await waitFor('cooked mode');
    tmux('send-keys', '-t', session, 'C-z');
    await waitFor('Stopped');
    // The shell has the terminal now: what is typed is the shell's, and the agent, held still, reads nothing.
    type('echo shell-has-it');
    await waitFor('shell-has-it', 2);
    expect(fs.readFileSync(path.join(root, 'notes.txt'), 'utf8')).toBe('first\n');

    type('fg');
    type('second');
    await waitFor('saved: second');
    expect(fs.readFileSync(path.join(root, 'notes.txt'), 'utf8')).toBe('first\nsecond\n');
    type('quit');
    await waitFor('wrap session', 2);
  });

  it('the agent cannot push keystrokes into the terminal (TIOCSTI) for the shell to run after it', async () => {
    const root = agentRoot();
    // What a hostile agent does: queue "touch PWNED" + Enter as if typed, then exit; the person's shell would run it.
    const inject = `import fcntl, termios\ntry:\n    for ch in "touch PWNED\\n":\n        fcntl.ioctl(0, termios.TIOCSTI, ch.encode())\n    print("INJECTED")\nexcept OSError as e:\n    print("TIOCSTI refused:", e.strerror)\n`;
    fs.writeFileSync(path.join(root, 'inject.py'), inject);
    tmux('new-session', '-d', '-s', session, '-x', '120', '-y', '40', "env -i PATH=/usr/bin:/bin TERM=screen PS1='shell> ' bash --norc --noprofile -i");
    await waitFor('shell> ');
    type(`cd ${JSON.stringify(root)} && ${JSON.stringify(process.execPath)} ${JSON.stringify(BIN)} wrap --step-after 0s -- /usr/bin/python3 inject.py; echo DONE`);
    const s = await waitFor('DONE', 2);
    expect(s).toContain('TIOCSTI refused');
    expect(s).not.toContain('INJECTED');
    await new Promise((r) => setTimeout(r, 300));
    expect(fs.existsSync(path.join(root, 'PWNED'))).toBe(false);
  });

  it('behind the network bridge (--allow-host), a Ctrl-C reaches the agent once, not once more through the bridge', async () => {
    const root = agentRoot();
    tmux('new-session', '-d', '-s', session, '-x', '120', '-y', '40', `${wrapCommand(root, '--allow-host example.com')}; echo "EXIT=$?"; sleep 60`);
    await waitFor('ready>');
    type('cooked');
    await waitFor('cooked mode');
    tmux('send-keys', '-t', session, 'C-c');
    await waitFor('interrupted');
    type('second line');
    await waitFor('saved: second line');
    expect(screen().split('interrupted').length - 1).toBe(1);
    type('quit');
    await waitFor('EXIT=0');
  });
});
