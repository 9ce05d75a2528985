/**
 * The constraint flags `exec` and `run` share; they override the `constraints:`
 * section of .editwarden.yml (list flags add to the configured lists).
 */
import { Option, type Command } from 'commander';

const collect = (value: string, previous: string[] = []): string[] => [...previous, value];

export function addConstraintOptions(command: Command): Command {
  return command
    .option('--max-files <n>', 'constraints.max_files: files a run may change')
    .option('--max-lines <n>', 'constraints.max_lines_changed: lines added + removed')
    .option('--allow <glob>', 'add to constraints.allowed_patterns (repeatable)', collect)
    .option('--deny <glob>', 'add to constraints.denied_patterns (repeatable)', collect)
    .option('--allow-tool <name>', 'add to constraints.allowed_tools (repeatable)', collect)
    .option('--max-tokens <n>', 'constraints.max_tokens: model token budget')
    .option('--timeout <seconds>', 'constraints.timeout: wall-clock limit of the run')
    .addOption(new Option('--on-violation <policy>', 'keep the partial work, or roll the whole run back').choices(['keep', 'rollback']));
}

