/**
 * The constraint flags `exec` and `run` share; they override the `constraints:`
 * section of .editwarden.yml (list flags add to the configured lists).
 */
import { Option, type Command } from 'commander';
import type { Config, DeepPartial } from '../config/config.js';
import { defined } from '../defined.js';

const collect = (value: string, previous: string[] = []): string[] => [...previous, value];

/** What commander hands over for the constraint flags (strings, as typed). */
export interface ConstraintFlags {
  maxFiles?: string;
  maxLines?: string;
  allow?: string[];
  deny?: string[];
  allowTool?: string[];
  maxTokens?: string;
  timeout?: string;
  onViolation?: 'keep' | 'rollback';
  unsandboxed?: boolean;
  network?: string;
}

export function addConstraintOptions(command: Command): Command {
  return command
    .option('--max-files <n>', 'constraints.max_files: files a run may change')
    .option('--max-lines <n>', 'constraints.max_lines_changed: lines added + removed')
    .option('--allow <glob>', 'add to constraints.allowed_patterns (repeatable)', collect)
    .option('--deny <glob>', 'add to constraints.denied_patterns (repeatable)', collect)
    .option('--allow-tool <name>', 'add to constraints.allowed_tools (repeatable)', collect)
    .option('--max-tokens <n>', 'constraints.max_tokens: model token budget')
    .option('--timeout <seconds>', 'constraints.timeout: wall-clock limit of the run')
    .addOption(new Option('--on-violation <policy>', 'keep the partial work, or roll the whole run back').choices(['keep', 'rollback']))
    .option('--unsandboxed', 'sandbox.allow_unsandboxed: run commands even where no OS sandbox is available (they get your full rights)')
    .option('--network <setting>', "sandbox.network: off, on, or host patterns separated by commas (registry.npmjs.org,*.pypi.org) reached through editwarden's filtering proxy");
}

/** CLI flags as a config override (lists extend the file's lists: a flag never silently drops a deny rule). */
export function constraintOverrides(base: Config, flags: ConstraintFlags): DeepPartial<Config> {
  const num = (value: string | undefined): number | undefined => (value === undefined ? undefined : value.trim() === '' ? Number.NaN : Number(value));
  const constraints: DeepPartial<Config['constraints']> = {};
  const set = <K extends keyof Config['constraints']>(key: K, value: Config['constraints'][K] | undefined): void => {
    if (value !== undefined) (constraints as Record<string, unknown>)[key] = value;
  };
  set('max_files', num(flags.maxFiles));
  set('max_lines_changed', num(flags.maxLines));
  set('max_tokens', num(flags.maxTokens));
  set('timeout', num(flags.timeout));
  set('on_violation', flags.onViolation);
  if (flags.allow) set('allowed_patterns', [...base.constraints.allowed_patterns, ...flags.allow]);
  if (flags.deny) set('denied_patterns', [...base.constraints.denied_patterns, ...flags.deny]);
  if (flags.allowTool) set('allowed_tools', [...new Set([...base.constraints.allowed_tools, ...flags.allowTool])]);
  const sandbox: DeepPartial<Config['sandbox']> = { ...defined({ allow_unsandboxed: flags.unsandboxed ? true : undefined, network: networkFlag(flags.network) }) };
  return { constraints, ...defined({ sandbox: Object.keys(sandbox).length > 0 ? sandbox : undefined }) };
}

/** `--network off|on|a,b`: the setting as the config spells it (the schema checks each pattern and names the flag). */
function networkFlag(value: string | undefined): Config['sandbox']['network'] | undefined {
  if (value === undefined) return undefined;
  const v = value.trim();
  if (v === 'off' || v === 'on') return v;
  return v
    .split(',')
    .map((h) => h.trim())
    .filter((h) => h !== '');
}
