/**
 * What a person (or an agent) sees after a command-line mistake: one line
 * naming the mistake, the nearest valid name when there is one, and where
 * the help is — never the whole help text, which buries the one line that
 * matters. With `--json` the same facts come as the JSON envelope every
 * refusal uses, so a script never has to parse prose.
 *
 * Must never: print help text for an error, or exit with anything but 64.
 */
import type { Command, CommanderError } from 'commander';
import { ErrorCode, type ErrorInfo } from '../errors.js';

/** The command path a mistaken argv was aimed at (`editwarden checkpoint`), from the registered commands. */
export function commandPathOf(program: Command, argv: readonly string[]): string {
  const words = argv.slice(2).filter((arg) => !arg.startsWith('-'));
  const names = [program.name()];
  let current: Command = program;
  for (const word of words) {
    const next = current.commands.find((c) => c.name() === word || c.aliases().includes(word));
    if (!next) break;
    names.push(next.name());
    current = next;
  }
  return names.join(' ');
}

/**
 * Commander's message as one sentence: "error: unknown option '--dry-rn'\n(Did you mean --dry-run?)"
 * becomes "unknown option '--dry-rn'; did you mean --dry-run?".
 */
export function usageErrorInfo(error: CommanderError, commandPath: string): ErrorInfo {
  const lines = error.message
    .replace(/^error:\s*/i, '')
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line !== '');
  let message = lines[0] ?? 'invalid command line';
  const suggestion = lines
    .slice(1)
    .join(' ')
    .match(/^\(?Did you mean (.+?)\?\)?$/i);
  if (suggestion) message += `; did you mean ${suggestion[1]}?`;
  else if (lines.length > 1) message += ` ${lines.slice(1).join(' ')}`;
  return {
    code: ErrorCode.USAGE,
    message,
    hint: `Run \`${commandPath} --help\` for the options and examples.`,
  };
}

/** The one line printed on stderr for a usage error. */
export function usageErrorLine(info: ErrorInfo): string {
  return `error: ${info.message} (${info.hint.replace(/\.$/, '')})`;
}
