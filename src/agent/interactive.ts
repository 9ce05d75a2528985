/**
 * Interactive mode's person at the terminal: before each write or command
 * the runner's approval hook shows what the call would do (its description
 * and diff, or the command line) and asks yes / no / always for this tool /
 * quit; ask_question and the model's plain replies reach the person too.
 * Reads whole lines from the terminal (or a pipe), one long-lived reader so
 * that no typed-ahead answer is lost. It decides nothing itself: every
 * answer comes from the person; end of input means quit.
 */
import readline from 'node:readline';
import type { ApprovalDecision, ApprovalHook, ApprovalRequest } from '../tools/runner.js';
import type { Interaction } from '../tools/types.js';
import { paint, paintDiff, type Io } from '../cli/output.js';
import { describeCall } from './loop/calls.js';

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
  /** Ctrl-C while a question is open (the terminal is in raw mode then: no process SIGINT arrives). */
  onInterrupt?: () => void;
}

/** Tool kinds a person approves; reads and the run's own control calls go through. */
const NEEDS_APPROVAL = new Set(['write', 'command']);

export type Answer = 'yes' | 'no' | 'always' | 'quit';

export function parseAnswer(text: string | null): Answer | null {
  if (text === null) return 'quit';
  switch (text.trim().toLowerCase()) {
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

/** What the person sees before deciding. */
export function approvalPreview(request: ApprovalRequest, color: boolean): string {
  const args = (request.args ?? {}) as Record<string, unknown>;
  const out = [`${paint(color, 'bold', '?')} ${paint(color, 'bold', describeCall(request.tool, args))}`];
  if (request.kind === 'command') {
    out.push(`  command: ${String(args.command ?? '')}`);
    if (args.cwd && args.cwd !== '.') out.push(`  in: ${String(args.cwd)}`);
  }
  if (request.changes && request.changes.length > 0) {
    out.push(`  changes: ${request.changes.map((c) => `${c.path} +${c.added} -${c.removed}`).join(', ')}`);
  }
  if (request.diff) out.push(paintDiff(color, request.diff.trimEnd()));
  else if (request.kind === 'write') out.push(paint(color, 'dim', '  (no change to show)'));
  return `${out.join('\n')}\n`;
}

export function createTerminalPrompter(io: Io, options: PrompterOptions): TerminalPrompter {
  const always = new Set<string>();
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

  const ask = (prompt: string): Promise<string | null> => {
    if (tty) return askTerminal(prompt);
    const r = reader();
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
    if (always.has(request.tool)) {
      io.stdout.write(`${paint(options.color, 'dim', `(always) ${describeCall(request.tool, (request.args ?? {}) as Record<string, unknown>)}`)}\n`);
      return { approved: true };
    }
    io.stdout.write(approvalPreview(request, options.color));
    for (;;) {
      const answer = parseAnswer(await ask(`Apply? [y]es / [n]o / [a]lways for ${request.tool} / [q]uit: `));
      switch (answer) {
        case 'yes':
          return { approved: true };
        case 'always':
          always.add(request.tool);
          return { approved: true };
        case 'no':
          return { approved: false, reason: 'the person said no' };
        case 'quit':
          quit = true;
          return { approved: false, reason: 'the person quit the run' };
        case null:
          io.stdout.write('Please answer y, n, a or q.\n');
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
