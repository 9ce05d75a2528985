/**
 * Interactive mode's person at the terminal: before each write or command
 * the runner's approval hook shows what the call would do (its description
 * and diff, or the command line and the folder it runs in) and asks with one
 * key — Y (the default, Enter) / n (then an optional reason for the model) /
 * a (always, scoped: this command prefix or this path glob, never the whole
 * tool) / q (quit); ask_question and the model's plain replies reach the
 * person too.
 * Reads whole lines from the terminal (or a pipe), one long-lived reader so
 * that no typed-ahead answer is lost. It decides nothing itself: every
 * answer comes from the person; end of input means quit.
 */
import path from 'node:path';
import readline from 'node:readline';
import picomatch from 'picomatch';
import type { ApprovalDecision, ApprovalHook, ApprovalRequest } from '../tools/runner.js';
import type { Interaction } from '../tools/types.js';
import { paint, paintDiff, type Io } from './output.js';
import { describeCall } from '../tools/call-views.js';

export interface TerminalPrompter {
  approve: ApprovalHook;
  interaction: Interaction;
  /** Asked when the model replied without a tool call; null or "" ends the run. */
  followUp(text: string): Promise<string | null>;
  quitRequested(): boolean;
  close(): void;
}

export interface PrompterOptions {
  color: boolean;
  /** The project root, shown as the working directory of commands. */
  root?: string;
  /** Ctrl-C while a question is open (the terminal is in raw mode then: no process SIGINT arrives). */
  onInterrupt?: () => void;
}

/** Tool kinds a person approves; reads and the run's own control calls go through. */
const NEEDS_APPROVAL = new Set(['write', 'command']);

export type Answer = 'yes' | 'no' | 'always' | 'quit';

/** One key (or a word, from a pipe); an empty answer (Enter) is the default, yes. */
export function parseAnswer(text: string | null): Answer | null {
  if (text === null) return 'quit';
  switch (text.trim().toLowerCase()) {
    case '':
    case 'y':
    case 'yes':
      return 'yes';
    case 'n':
    case 'no':
      return 'no';
    case 'a':
    case 'always':
      return 'always';
    case 'q':
    case 'quit':
      return 'quit';
    default:
      return null;
  }
}

/** What "always" covers: this command prefix, or this path glob — never the whole tool. */
interface AlwaysScope {
  tool: string;
  label: string;
  covers(request: ApprovalRequest): boolean;
}

/** The program and, when it has one, its subcommand: `npm test`, `git status`, `make`. */
function commandPrefix(command: string): string {
  const words = command.trim().split(/\s+/);
  const first = words[0] ?? '';
  const second = words[1];
  return second && /^[a-z][\w:-]*$/i.test(second) ? `${first} ${second}` : first;
}

function alwaysScope(request: ApprovalRequest): AlwaysScope {
  const args = (request.args ?? {}) as Record<string, unknown>;
  if (request.kind === 'command') {
    const prefix = commandPrefix(String(args.command ?? ''));
    const shell = /[;&|`$<>()\n]/;
    return {
      tool: request.tool,
      label: `commands starting with "${prefix}"`,
      // A chained or redirected command is asked again: "npm test && rm -rf ." is not "npm test".
      covers: (r) => {
        const c = String(((r.args ?? {}) as Record<string, unknown>).command ?? '').trim();
        return r.tool === request.tool && (c === prefix || c.startsWith(`${prefix} `)) && !shell.test(c);
      },
    };
  }
  const first = request.changes?.[0]?.path ?? String(args.path ?? args.filename ?? args.file_path ?? '');
  const dir = path.posix.dirname(first);
  const glob = dir === '.' || dir === '' ? first : `${dir}/**`;
  const match = picomatch(glob, { dot: false });
  return {
    tool: request.tool,
    label: `${request.tool} in ${glob}`,
    covers: (r) => r.tool === request.tool && (r.changes ?? []).length > 0 && (r.changes ?? []).every((c) => match(c.path)),
  };
}

/** What the person sees before deciding. */
function approvalPreview(request: ApprovalRequest, color: boolean, root?: string): string {
  const args = (request.args ?? {}) as Record<string, unknown>;
  const out = [`${paint(color, 'bold', '?')} ${paint(color, 'bold', describeCall(request.tool, args))}`];
  if (request.kind === 'command') {
    out.push(`  command: ${String(args.command ?? '')}`);
    // Commands show their working directory, always.
    const cwd = typeof args.cwd === 'string' && args.cwd !== '' ? args.cwd : '.';
    out.push(`  in: ${root ? path.join(root, cwd) : cwd}`);
  }
  if (request.changes && request.changes.length > 0) {
    out.push(`  changes: ${request.changes.map((c) => `${c.path} +${c.added} -${c.removed}`).join(', ')}`);
  }
  if (request.diff) out.push(paintDiff(color, request.diff.trimEnd()));
  else if (request.kind === 'write') out.push(paint(color, 'dim', '  (no change to show)'));
  return `${out.join('\n')}\n`;
}

export function createTerminalPrompter(io: Io, options: PrompterOptions): TerminalPrompter {
  const always: AlwaysScope[] = [];
  let quit = false;
  let rl: readline.Interface | null = null;
  let closed = false;
  const queued: string[] = [];
  let waiting: ((line: string | null) => void) | null = null;

  const reader = (): readline.Interface => {
    if (rl) return rl;
    // A pipe (tests, scripts): one reader for the whole run, so answers typed ahead are kept.
    rl = readline.createInterface({ input: io.stdin, terminal: false });
    rl.on('line', (line) => {
      if (waiting) {
        const w = waiting;
        waiting = null;
        w(line);
      } else {
        queued.push(line);
      }
    });
    rl.on('close', () => {
      closed = true;
      waiting?.(null);
      waiting = null;
    });
    return rl;
  };

  const tty = Boolean((io.stdin as { isTTY?: boolean }).isTTY);

  /**
   * On a terminal each question gets its own reader, closed after the answer:
   * an open reader keeps the terminal in raw mode, where Ctrl-C is a key, not
   * a signal — and between questions Ctrl-C must stop the run.
   */
  const askTerminal = (prompt: string): Promise<string | null> =>
    new Promise((resolve) => {
      stopSwallowing?.();
      const once = readline.createInterface({ input: io.stdin, output: io.stdout, terminal: true });
      let done = false;
      const finish = (line: string | null): void => {
        if (done) return;
        done = true;
        once.close();
        resolve(line);
      };
      once.on('SIGINT', () => {
        io.stdout.write('^C\n');
        options.onInterrupt?.();
        finish(null);
      });
      once.on('close', () => finish(null));
      once.question(prompt, (line) => finish(line));
    });

  let stopSwallowing: (() => void) | null = null;

  /** One key on a terminal (raw mode, no Enter needed; Enter is the default); a line from a pipe. */
  const askKey = (prompt: string): Promise<string | null> => {
    stopSwallowing?.();
    const stdin = io.stdin as NodeJS.ReadStream;
    if (!tty || typeof stdin.setRawMode !== 'function') return ask(prompt);
    return new Promise((resolve) => {
      io.stdout.write(prompt);
      const onData = (chunk: Buffer): void => {
        stdin.removeListener('data', onData);
        const key = chunk.toString('utf8').charAt(0);
        if (key !== '\r' && key !== '\n' && key !== '\u0003') {
          let timer: NodeJS.Timeout | undefined;
          const end = (): void => {
            clearTimeout(timer);
            stopSwallowing = null;
            stdin.removeListener('data', swallow);
            stdin.setRawMode(false);
            stdin.pause();
          };
          // A habitual Enter after the key must not answer the next prompt with its default: swallow it.
          // Anything else ends the window: Ctrl-C (raw mode sent no signal) interrupts; other keys wait,
          // paused, for the next prompt (pushed back only after this listener is gone, or it would see them again).
          function swallow(more: Buffer): void {
            const rest = more.toString('utf8').replace(/^[\r\n]+/, '');
            if (rest === '') return;
            end();
            if (rest.startsWith('\u0003')) {
              io.stdout.write('^C\n');
              options.onInterrupt?.();
              return;
            }
            stdin.unshift(Buffer.from(rest, 'utf8'));
          }
          stdin.on('data', swallow);
          timer = setTimeout(end, 250);
          // The next question (a reason after "n") takes over the terminal at once.
          stopSwallowing = end;
        } else {
          stdin.setRawMode(false);
          stdin.pause();
        }
        if (key === '\u0003') {
          io.stdout.write('^C\n');
          options.onInterrupt?.();
          resolve(null);
          return;
        }
        if (key === '\u0004') {
          io.stdout.write('\n');
          resolve(null);
          return;
        }
        const shown = key === '\r' || key === '\n' ? '' : key;
        io.stdout.write(`${shown}\n`);
        resolve(shown);
      };
      stdin.setRawMode(true);
      stdin.resume();
      stdin.on('data', onData);
    });
  };

  const ask = (prompt: string): Promise<string | null> => {
    if (tty) return askTerminal(prompt);
    reader(); // Started on the first question, so answers piped ahead of it are kept.
    io.stdout.write(prompt);
    const next = queued.shift();
    if (next !== undefined) return Promise.resolve(next);
    if (closed) return Promise.resolve(null);
    return new Promise((resolve) => {
      waiting = resolve;
    });
  };

  const approve: ApprovalHook = async (request): Promise<ApprovalDecision> => {
    if (!NEEDS_APPROVAL.has(request.kind)) return { approved: true };
    if (quit) return { approved: false, reason: 'the person quit the run' };
    const covering = always.find((scope) => scope.covers(request));
    if (covering) {
      io.stdout.write(`${paint(options.color, 'dim', `(always: ${covering.label}) ${describeCall(request.tool, (request.args ?? {}) as Record<string, unknown>)}`)}\n`);
      return { approved: true };
    }
    io.stdout.write(approvalPreview(request, options.color, options.root));
    const scope = alwaysScope(request);
    for (;;) {
      const answer = parseAnswer(await askKey(`Apply? [Y]es / [n]o (with a reason) / [a]lways for ${scope.label} / [q]uit: `));
      switch (answer) {
        case 'yes':
          return { approved: true };
        case 'always':
          always.push(scope);
          return { approved: true };
        case 'no': {
          // The person's reason goes to the model with the refusal.
          const reason = (await ask('Reason for the model (Enter to skip): '))?.trim();
          return { approved: false, reason: reason ? `the person said no: ${reason}` : 'the person said no' };
        }
        case 'quit':
          quit = true;
          return { approved: false, reason: 'the person quit the run' };
        case null:
          io.stdout.write('Please press y, n, a or q (Enter: yes).\n');
          break;
        default: {
          const never: never = answer;
          return never;
        }
      }
    }
  };

  const interaction: Interaction = {
    async ask(question, opts) {
      io.stdout.write(`${paint(options.color, 'cyan', 'agent asks:')} ${question}\n`);
      if (opts?.choices?.length) io.stdout.write(opts.choices.map((c, i) => `  ${i + 1}. ${c}`).join('\n') + '\n');
      const line = await ask('> ');
      if (line === null) return '(no answer: the person left)';
      const n = Number(line.trim());
      if (opts?.choices && Number.isInteger(n) && n >= 1 && n <= opts.choices.length) return opts.choices[n - 1] as string;
      return line;
    },
    async converse(message) {
      io.stdout.write(`${paint(options.color, 'cyan', 'agent:')} ${message}\n`);
      return (await ask('> ')) ?? '(no reply: the person left)';
    },
  };

  return {
    approve,
    interaction,
    async followUp() {
      if (quit) return null;
      const line = await ask(`${paint(options.color, 'cyan', 'your reply')} (empty line ends the run): `);
      return line;
    },
    quitRequested: () => quit,
    close() {
      rl?.close();
      rl = null;
    },
  };
}
